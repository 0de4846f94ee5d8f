#!/usr/bin/env bash
# wgprof run against what a hostile or careless environment gives it, each case with the real
# thing (a planted symlink, a real FIFO, /dev/full, concurrent writers, a spec reaching out of
# its folder): no file but the one named is ever written, a file is replaced whole or not at
# all, nothing hangs, and bad input exits 2 with the place named, before any GPU work.
# $1 is the wgprof binary.
set -u
wgprof="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
. "$(dirname "$0")/harness.sh"
cd "$tmp" || exit 1

# run ARGS...: one quick iteration, nothing on stdout but what a file of '-' asks for.
run() { "$wgprof" run --warmup 0 --iterations 1 --quiet "$@"; }
# expect WANT_STATUS PATTERN -- COMMAND...: the command exits WANT_STATUS within 20 s and prints
# PATTERN (fixed text) on stdout or stderr.
expect() {
  local what="$1" want="$2" pattern="$3"
  shift 4
  local out status
  out="$(timeout 20 "$@" 2>&1)"
  status=$?
  if [ "$status" -eq "$want" ] && printf '%s' "$out" | grep -Fq -- "$pattern"; then ok; else
    bad "$what: exit $status (want $want), want '$pattern' in: $out"
  fi
}
is_report() { # is_report FILE: a whole JSON report of one or more iterations
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["iterations"] >= 1 and r["kernels"]' "$1" 2>/dev/null
}
no_temporaries() { # no_temporaries FOLDER: nothing left of a write (.NAME.XXXXXX)
  local left
  left="$(find "$1" -maxdepth 1 -name '.*.??????' 2>/dev/null)"
  [ -z "$left" ] || { bad "temporary files left in $1: $left"; return 1; }
}

wgsl='@group(0) @binding(0) var<storage, read_write> v: array<f32>;\n@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) id: vec3u) { v[id.x] = v[id.x] + 1.0; }'
printf '%b\n' "$wgsl" >k.wgsl
default_buffer='{"name": "v", "elements": 64}'
default_dispatch='{"kernel": "k", "workgroups": 1, "bindings": {"0": "v"}}'
# spec KERNEL_JSON [OUTPUTS_JSON [BUFFER_JSON [DISPATCHES_JSON]]]: a spec on stdout; an empty
# argument stands for the default.
spec() {
  printf '{"buffers": [%s], "kernels": [%s], "dispatches": [%s], "outputs": [%s]}\n' \
    "${3:-$default_buffer}" "$1" "${4:-$default_dispatch}" "${2:-}"
}
inline="{\"name\": \"k\", \"wgsl\": \"$wgsl\"}"
spec "$inline" >good.json
run good.json && ok || bad "the plain spec does not run"

# Work that does not end: any spec using it that got as far as the GPU would run for hours, so
# a quick exit 2 shows that nothing ran. Each invocation loops until a buffer holds a value never
# written; llvmpipe cuts an invocation after 65535 loop iterations, so the dispatch has 65535 x
# 65535 workgroups of 64 (about 50 ms each on lavapipe; tests/test_timeout.sh says more).
forever='@group(0) @binding(0) var<storage, read_write> s: array<atomic<u32>>;\n@compute @workgroup_size(64) fn main() { loop { if (atomicLoad(&s[0]) == 12345u) { break; } atomicAdd(&s[1], 1u); } }'
forever_kernel="{\"name\": \"k\", \"wgsl\": \"$forever\"}"
forever_buffer='{"name": "v", "type": "u32", "elements": 4}'
forever_dispatch='{"kernel": "k", "workgroups": [65535, 65535, 1], "bindings": {"0": "v"}}'

# ---- 1. report files: a unique temporary file, renamed; nothing else touched ----
echo "victim" >victim.txt
ln -s victim.txt r.json.tmp
run --json r.json good.json && is_report r.json && [ "$(cat victim.txt)" = victim ] && [ -L r.json.tmp ] &&
  ok || bad "a symlink planted at r.json.tmp: the victim or the report is wrong ($(head -c 80 victim.txt))"
echo "keep me" >s.json.tmp
run --json s.json good.json && is_report s.json && [ "$(cat s.json.tmp)" = "keep me" ] &&
  ok || bad "an existing s.json.tmp was overwritten or removed"
no_temporaries .

# Two writers of one file, 8 times: the file is always one whole report, both succeed.
for i in 1 2 3 4 5 6 7 8; do
  run --json race.json good.json 2>race1.err &
  a=$!
  run --json race.json good.json 2>race2.err &
  b=$!
  wait $a; sa=$?
  wait $b; sb=$?
  if [ $sa -eq 0 ] && [ $sb -eq 0 ] && is_report race.json; then ok; else
    bad "concurrent writers, round $i: exits $sa/$sb, race.json: $(head -c 200 race.json) $(cat race1.err race2.err)"
  fi
done
no_temporaries .

# An existing report keeps its mode; a new one gets the umask's.
run --json mode.json good.json && chmod 640 mode.json && run --json mode.json good.json &&
  [ "$(stat -c %a mode.json)" = 640 ] && is_report mode.json && ok || bad "mode.json lost its mode 640: $(stat -c %a mode.json)"
(umask 027 && run --json umask.json good.json) && [ "$(stat -c %a umask.json)" = 640 ] &&
  ok || bad "a new report ignores the umask: $(stat -c %a umask.json)"

# A symlink is followed: the file it points to is replaced, the link stays.
echo old >target.json
ln -s target.json link.json
run --json link.json good.json && [ -L link.json ] && [ "$(readlink link.json)" = target.json ] && is_report target.json &&
  ok || bad "--json through a symlink: link.json $(ls -l link.json)"

# A link someone else planted in a shared sticky folder (like /tmp) is not followed.
if [ "$(id -u)" -eq 0 ] && mkdir shared && chmod 1777 shared && ln -s ../victim.txt shared/r.json &&
  chown -h 65534:65534 shared/r.json; then
  expect "a planted link in a sticky folder" 2 "shared sticky folder" -- "$wgprof" run --json shared/r.json good.json
  [ "$(cat victim.txt)" = victim ] && ok || bad "a planted link in a sticky folder: the victim was written"
fi

# A link planted one folder up (another user's `ln -s /root /tmp/evil`, then `--json
# /tmp/evil/victim`): the rule holds at every component of the path, for run's and diff's
# outputs alike; a link of our own there is followed as before. As root only: the kernel's own
# fs.protected_symlinks is what protects everyone else.
if [ "$(id -u)" -eq 0 ] && mkdir shared_up ours && chmod 1777 shared_up && echo victim >ours/victim &&
  ln -s "$tmp/ours" shared_up/evil && chown -h 65534:65534 shared_up/evil && ln -s "$tmp/ours" shared_up/mine; then
  expect "a planted link one folder up" 2 "'shared_up/evil' is a symbolic link in a shared sticky folder" -- \
    "$wgprof" run --json shared_up/evil/victim good.json
  [ "$(cat ours/victim)" = victim ] && ok || bad "a planted link one folder up: the victim was replaced"
  expect "a planted link two folders up" 2 "shared_up/evil' is a symbolic link" -- \
    "$wgprof" run --csv "$tmp/shared_up/evil/../ours/victim" good.json
  run --json diffbase.json good.json || bad "the report for diff"
  expect "diff's output through a planted link" 2 "'shared_up/evil' is a symbolic link" -- \
    "$wgprof" diff --json shared_up/evil/victim diffbase.json diffbase.json
  [ "$(cat ours/victim)" = victim ] && ok || bad "diff's output through a planted link: the victim was replaced"
  run --json shared_up/mine/mine.json good.json && is_report ours/mine.json &&
    ok || bad "our own link in a sticky folder is not followed"
  no_temporaries ours
fi

# A write that fails (the file-size limit, a real EFBIG) leaves the old file and no temporary.
# Where the driver itself grows files (Mesa 25's lavapipe backs descriptor memory with a memfd
# it extends with ftruncate), the limit kills the process inside the driver before any report
# is written: that case is left to the runs on a driver that does not.
if (trap '' XFSZ && ulimit -f 1 && run good.json) >/dev/null 2>&1; then
  echo "old report" >big.json
  (trap '' XFSZ && ulimit -f 1 && run --json big.json good.json) 2>big.err
  status=$?
  [ $status -eq 1 ] && [ "$(cat big.json)" = "old report" ] && grep -q "big.json" big.err && ! grep -q '\.tmp' big.err &&
    ok || bad "a failed write: exit $status, big.json '$(head -c 40 big.json)', message: $(cat big.err)"
  no_temporaries .
else
  echo "not tested: a failed write under a file-size limit (this driver does not run under one)"
fi

# ---- 2. what is not a regular file is written in place, never replaced ----
# As root, a wgprof that wrongly replaced what it writes would replace /dev/null, /dev/full or
# /dev/stdout for the whole machine: private nodes of the same devices (and a private link like
# /dev/stdout) are tried first, and the real ones only when those stay what they were.
devices_safe=1
if [ "$(id -u)" -eq 0 ] && mknod -m 666 null c 1 3 2>/dev/null && mknod -m 666 full c 1 7 2>/dev/null &&
  ln -s /proc/self/fd/1 stdout; then
  run --json null good.json >/dev/null 2>&1
  run --json full good.json >/dev/null 2>&1
  run --json stdout good.json >/dev/null 2>&1
  if [ -c null ] && [ -c full ] && [ -L stdout ]; then ok; else
    bad "writing to a character device or to a link like /dev/stdout replaced it: not trying the real ones"
    devices_safe=0
  fi
  rm -f null full stdout
fi
out="$(run --json - good.json 2>/dev/null)" && printf '%s' "$out" | python3 -c 'import json,sys; json.load(sys.stdin)' &&
  ok || bad "--json - does not print the report on stdout: $(printf '%s' "$out" | head -c 200)"
if [ "$devices_safe" -eq 1 ]; then
  out="$(run --json /dev/stdout good.json 2>/dev/null)" &&
    printf '%s' "$out" | python3 -c 'import json,sys; json.load(sys.stdin)' && { [ -L /dev/stdout ] || [ -c /dev/stdout ]; } &&
    ok || bad "--json /dev/stdout does not print the report on stdout"
  : >stdout.txt
  inode="$(stat -c %i stdout.txt)"
  run --json /dev/stdout good.json >>stdout.txt 2>/dev/null && [ "$(stat -c %i stdout.txt)" = "$inode" ] &&
    is_report stdout.txt && ok || bad "--json /dev/stdout into a file replaced the file or wrote no report"
  run --json /dev/null good.json && [ -c /dev/null ] && ok || bad "--json /dev/null"
  expect "--json /dev/full" 1 "/dev/full" -- "$wgprof" run --warmup 0 --iterations 1 --quiet --json /dev/full good.json
  [ -c /dev/full ] && ok || bad "/dev/full is no longer a character device"
fi
mkfifo report.fifo
timeout 60 cat report.fifo >fifo.json &
reader=$!
run --json report.fifo good.json && wait $reader && is_report fifo.json && [ -p report.fifo ] &&
  ok || bad "--json into a FIFO: the reader got $(head -c 100 fifo.json)"
expect "--json into a folder" 2 "is a folder" -- "$wgprof" run --json . good.json

# Never over an input of the run: the spec, a WGSL file, the same through a link.
cp good.json self.json
expect "--json over the spec" 2 "the spec" -- "$wgprof" run --json self.json self.json
cmp -s good.json self.json && ok || bad "--json over the spec changed the spec"
ln -s self.json alias.json
expect "--json over the spec through a link" 2 "the spec" -- "$wgprof" run --json alias.json self.json
spec '{"name": "k", "wgsl_file": "k.wgsl"}' >file.json
cp k.wgsl k.orig
expect "--csv over a wgsl_file" 2 '$.kernels[0].wgsl_file' -- "$wgprof" run --csv k.wgsl file.json
cmp -s k.wgsl k.orig && ok || bad "--csv over a wgsl_file changed it"
spec "$inline" '{"buffer": "v", "file": "own.json"}' >own.json
cp own.json own.orig
expect "outputs[].file over the spec" 2 '$.outputs[0].file' -- "$wgprof" run own.json
cmp -s own.json own.orig && ok || bad "outputs[].file over the spec changed it"

# ---- 3. every output checked before any GPU work ----
spec "$forever_kernel" '{"buffer": "v", "file": "missing/out.bin"}' "$forever_buffer" "$forever_dispatch" >nodir.json
start=$SECONDS
expect "outputs into a missing folder" 2 '$.outputs[0].file' -- "$wgprof" run --timeout 30 nodir.json
[ $((SECONDS - start)) -lt 15 ] && ok || bad "outputs into a missing folder: the run went on for $((SECONDS - start)) s"
spec "$forever_kernel" "" "$forever_buffer" "$forever_dispatch" >forever.json
expect "--json into a missing folder" 2 "missing/r.json" -- "$wgprof" run --timeout 30 --json missing/r.json forever.json
expect "--html into a missing folder" 2 "does not exist" -- "$wgprof" run --timeout 30 --html missing/r.html forever.json

# ---- 4. a spec's paths stay in its folder ----
mkdir -p sub/deeper
cp k.wgsl outside.wgsl
spec '{"name": "k", "wgsl_file": "../outside.wgsl"}' >sub/up.json
expect "wgsl_file ../" 2 '$.kernels[0].wgsl_file' -- "$wgprof" run sub/up.json
expect "wgsl_file ../ says why" 2 "outside the spec's folder" -- "$wgprof" run sub/up.json
spec "{\"name\": \"k\", \"wgsl_file\": \"$tmp/outside.wgsl\"}" >sub/absolute.json
expect "an absolute wgsl_file" 2 "absolute path" -- "$wgprof" run sub/absolute.json
spec "$inline" '{"buffer": "v", "file": "../../x.bin"}' >sub/deeper/escape.json
expect "outputs ../../" 2 '$.outputs[0].file' -- "$wgprof" run sub/deeper/escape.json
[ ! -e x.bin ] && ok || bad "outputs ../../x.bin was written"
ln -s ../outside.wgsl sub/link.wgsl
spec '{"name": "k", "wgsl_file": "link.wgsl"}' >sub/link.json
expect "a symlink out of the folder" 2 "outside the spec's folder" -- "$wgprof" run sub/link.json
ln -s .. sub/parent
spec "$inline" '{"buffer": "v", "file": "parent/escaped.bin"}' >sub/linkdir.json
expect "outputs through a linked folder" 2 '$.outputs[0].file' -- "$wgprof" run sub/linkdir.json
[ ! -e escaped.bin ] && ok || bad "outputs through a linked folder was written"
# The folder race, won: the spec's owner swaps a subfolder for a link to a folder only root may
# read, right after wgprof checked the path (the preloaded swap_after_realpath.c does it there,
# every time). What the init file led to must never reach the output; the run is refused.
mkdir -p race/sub secret
printf 'AAAA%.0s' $(seq 16) >race/sub/data.bin
printf 'SECRET-ROOT-ONLY%.0s' 1 2 3 4 >secret/data.bin
chmod 600 secret/data.bin
printf '{"buffers": [%s, {"name": "s", "elements": 16, "init": {"file": "sub/data.bin"}}], "kernels": [%s],
 "dispatches": [%s], "outputs": [{"buffer": "s", "file": "out.bin"}]}\n' \
  "$default_buffer" "$inline" "$default_dispatch" >race/spec.json
run race/spec.json && [ "$(cat race/out.bin)" = "$(cat race/sub/data.bin)" ] && ok || bad "the race spec does not run"
rm -f race/out.bin
if [ -n "${2:-}" ] && [ -f "$2" ]; then
  # (A sanitized build's wrapper comes before the ASan runtime in the library list: allowed.)
  WGPROF_TEST_SWAP_DIR="$tmp/race/sub" WGPROF_TEST_SWAP_TO="$tmp/secret" LD_PRELOAD="$2" \
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
    "$wgprof" run --warmup 0 --iterations 1 --quiet race/spec.json >race.out 2>&1
  status=$?
  [ -L race/sub ] || bad "the swap after realpath() did not happen"
  if [ $status -eq 2 ] && grep -Fq 'symbolic link' race.out && ! grep -qs SECRET race/out.bin race.out; then ok; else
    bad "a subfolder swapped for a link after the check: exit $status, $(cat race.out), out.bin: $(head -c 80 race/out.bin 2>/dev/null)"
  fi
  rm -f race/sub race/out.bin && mv race/sub.away race/sub
fi
# A subfolder that is a link out of the folder is refused; and the race run for real, for a
# few seconds: a loop swaps the subfolder and the link while the spec runs again and again.
ln -s ../secret race/out_link
sed 's|sub/data.bin|out_link/data.bin|' race/spec.json >race/linked.json
expect "init.file through a linked subfolder" 2 "outside the spec's folder" -- "$wgprof" run race/linked.json
rm race/out_link
(
  end=$((SECONDS + 4))
  while [ $SECONDS -lt $end ]; do
    mv race/sub race/sub.real && ln -s ../secret race/sub && rm race/sub && mv race/sub.real race/sub
  done
) &
swapper=$!
leaked=0
runs=0
while kill -0 $swapper 2>/dev/null; do
  run race/spec.json >race.out 2>&1
  runs=$((runs + 1))
  if grep -qs SECRET race/out.bin race.out; then leaked=$((leaked + 1)); fi
  rm -f race/out.bin
done
wait $swapper
[ $leaked -eq 0 ] && ok || bad "the folder race: the secret reached the output in $leaked of $runs runs"

# --allow-path widens it.
run --allow-path "$tmp" sub/up.json && ok || bad "--allow-path does not allow ../outside.wgsl"
run --allow-path "$tmp" sub/absolute.json && ok || bad "--allow-path does not allow an absolute path inside it"
expect "--allow-path to nothing" 2 "--allow-path" -- "$wgprof" run --allow-path "$tmp/none" sub/up.json
# Inputs are regular files of sane sizes; nothing waits on a FIFO or reads a device forever.
mkfifo sub/k.fifo sub/init.fifo spec.fifo
spec '{"name": "k", "wgsl_file": "k.fifo"}' >sub/fifo.json
expect "a FIFO as wgsl_file" 2 "a FIFO" -- "$wgprof" run sub/fifo.json
spec "$inline" "" '{"name": "v", "init": {"file": "init.fifo"}}' >sub/initfifo.json
expect "a FIFO as init.file" 2 "a FIFO" -- "$wgprof" run sub/initfifo.json
expect "a FIFO as the spec" 2 "a FIFO" -- "$wgprof" run spec.fifo
spec '{"name": "k", "wgsl_file": "/dev/zero"}' >zero.json
expect "/dev/zero as wgsl_file" 2 "a character device" -- "$wgprof" run --allow-path /dev zero.json
expect "/dev/zero as the spec" 2 "a character device" -- "$wgprof" run /dev/zero
spec "$inline" "" '{"name": "v", "init": {"file": "deeper"}}' >sub/initdir.json
expect "a folder as init.file" 2 "a folder" -- "$wgprof" run sub/initdir.json
printf '12345678' >sub/eight.bin
spec "$inline" "" '{"name": "v", "elements": 1, "init": {"file": "eight.bin"}}' >sub/initbig.json
expect "an init file larger than its buffer" 2 "holds 8 bytes, the buffer 4" -- "$wgprof" run sub/initbig.json
truncate -s 17M sub/huge.wgsl
spec '{"name": "k", "wgsl_file": "huge.wgsl"}' >sub/huge.json
expect "a 17 MiB wgsl_file" 2 "more than the 16 MiB" -- "$wgprof" run sub/huge.json
truncate -s 65M huge.json
expect "a 65 MiB spec" 2 "more than the 64 MiB" -- "$wgprof" run huge.json

# ---- 5. a cap on dispatches per iteration, checked before anything is allocated for them ----
one='{"kernel": "k", "workgroups": 1, "bindings": {"0": "v"}'
# Refused before anything is allocated for the dispatches: under a 4 GB address-space limit. An
# AddressSanitizer build (make check) reserves terabytes of shadow memory at start, which no
# such limit allows: there the limit is left out and the refusal alone is checked.
limit_memory='ulimit -v 4000000 && '
if ldd "$wgprof" 2>/dev/null | grep -q 'libasan'; then
  limit_memory=''
fi
spec "$inline" "" "" "$one, \"repeat\": 2000000}" >repeat.json
expect "repeat 2000000" 2 '$.dispatches[0].repeat: brings the dispatches per iteration to 2000000' -- \
  bash -c "${limit_memory}"'exec "$@"' - "$wgprof" run repeat.json
spec "$inline" "" "" "$one, \"repeat\": 600000}, $one, \"repeat\": 600000}" >repeat2.json
expect "two repeats of 600000" 2 '$.dispatches[1].repeat: brings the dispatches per iteration to 1200000' -- \
  bash -c "${limit_memory}"'exec "$@"' - "$wgprof" run repeat2.json
spec "$inline" "" "" "$one, \"repeat\": 6}" >six.json
expect "--max-dispatches 5" 2 "more than the cap of 5" -- "$wgprof" run --max-dispatches 5 six.json
run --max-dispatches 6 --json six.report.json six.json &&
  python3 -c 'import json,sys; assert len(json.load(open("six.report.json"))["dispatches"]) == 6' &&
  ok || bad "--max-dispatches 6 does not run six dispatches"

# ---- 7. stdout closed or failing ----
"$wgprof" run --warmup 0 --iterations 1 --json closed.json good.json >&- 2>closed.err
status=$?
[ $status -ne 0 ] && grep -q "standard output" closed.err && { [ ! -e closed.json ] || is_report closed.json; } &&
  ok || bad "stdout closed: exit $status, $(cat closed.err)"
"$wgprof" run --warmup 0 --iterations 1 good.json >/dev/full 2>full.err
status=$?
[ $status -eq 1 ] && grep -q "standard output" full.err && ok || bad "stdout on /dev/full: exit $status, $(cat full.err)"

# ---- 9. text from the spec reaches the terminal escaped ----
spec "$inline" "" "" '{"kernel": "\u001b]0;pwned\u0007\u001b[31m", "workgroups": 1}' >escape.json
"$wgprof" run escape.json >escape.out 2>&1
status=$?
[ $status -eq 2 ] && ! grep -q "$(printf '\033')" escape.out && grep -Fq '\x1b]0;pwned\x07' escape.out &&
  ok || bad "control characters of a spec reached the terminal: exit $status, $(od -c escape.out | head -5)"

# A kernel labelled to set the window's title, clear the screen and start a C1 CSI: the CSV, CSV
# summary and TSV written to the terminal ('-') hold no control byte but their own separators and
# line ends, the label's controls as U+FFFD (what the table shows), and well-formed UTF-8 only.
label='\u001b]0;title\u0007\u001b[2J\u009b31m\u00ff'
spec "{\"name\": \"$label\", \"wgsl\": \"$wgsl\"}" "" "" "{\"kernel\": \"$label\", \"workgroups\": 1, \"bindings\": {\"0\": \"v\"}}" \
  >label.json
for format in csv csv-summary tsv; do
  run "--$format" - label.json >"label.$format" 2>label.err
  status=$?
  python3 - "label.$format" "$format" <<'PY' >label.check 2>&1
import re, sys
data = open(sys.argv[1], "rb").read()
text = data.decode("utf-8")  # raises on a byte that is not UTF-8
allowed = "\n\t" if sys.argv[2] == "tsv" else "\n"
bad = [hex(ord(c)) for c in text if (ord(c) < 0x20 and c not in allowed) or 0x7F <= ord(c) <= 0x9F]
assert not bad, ("control characters", bad)
assert "\ufffd]0;title\ufffd\ufffd[2J\ufffd31m\u00ff" in text, ("the label is not there as the table shows it", text)
PY
  [ $status -eq 0 ] && ok || bad "--$format - with a hostile label: exit $status, $(cat label.err)"
  [ -s label.check ] && bad "--$format - with a hostile label: $(cat label.check)" || ok
done

no_temporaries .
no_temporaries sub
finish
