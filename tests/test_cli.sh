#!/usr/bin/env bash
# The CLI as a user meets it: help, version, info as text and JSON, and exit code 2 with a clear
# message for bad usage. $1 is the wgprof binary.
set -u
wgprof="$1"
passed=0
failed=0
check() { # check DESCRIPTION EXPECTED_STATUS PATTERN -- COMMAND...
  local what="$1" want="$2" pattern="$3"
  shift 4
  local output status
  output="$("$@" 2>&1)"
  status=$?
  if [ "$status" -eq "$want" ] && printf '%s' "$output" | grep -Eq -- "$pattern"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    printf 'FAIL: %s: exit %s (want %s), output:\n%s\n' "$what" "$status" "$want" "$output" >&2
  fi
}
check "help" 0 "usage: wgprof" -- "$wgprof" --help
check "no command" 2 "usage: wgprof" -- "$wgprof"
check "unknown command" 2 "unknown command 'frobnicate'" -- "$wgprof" frobnicate
check "version" 0 "^wgprof [0-9]+\.[0-9]+\.[0-9]+" -- "$wgprof" version
check "info" 0 "timestamp queries: +yes" -- "$wgprof" info
check "info help" 0 "usage: wgprof info" -- "$wgprof" info --help
check "info bad option" 2 "unknown option '--xml'" -- "$wgprof" info --xml
check "info json" 0 '"timestamp_query": true' -- "$wgprof" info --json
json="$("$wgprof" info --json 2>/dev/null)"
if printf '%s' "$json" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["timestamp_period_ns"] > 0' 2>/dev/null; then
  passed=$((passed + 1))
else
  failed=$((failed + 1))
  echo "FAIL: info --json is not valid JSON with a positive period: $json" >&2
fi
check "fail-open info" 0 "profiling available: +no: timestamp queries disabled" -- env WGPROF_DISABLE_TIMESTAMPS=1 "$wgprof" info
# stdout: closed, wgprof refuses to start (the table would land in whatever file took its
# descriptor); full, the write error fails the command.
check "stdout closed" 1 "standard output is closed" -- sh -c '"$1" version >&-' - "$wgprof"
check "stdout closed (1>&-)" 1 "standard output is closed" -- sh -c '"$1" info 1>&-' - "$wgprof"
check "stdout full" 1 "cannot write to standard output" -- sh -c '"$1" version >/dev/full' - "$wgprof"
check "help on a full stdout" 1 "No space left" -- sh -c '"$1" run --help >/dev/full' - "$wgprof"
# The options of run and demo that bound the work.
check "run --timeout 0" 2 "--timeout 0" -- "$wgprof" run --timeout 0 x.json
check "run --timeout nan" 2 "--timeout nan" -- "$wgprof" run --timeout nan x.json
check "run --timeout with no value" 2 "--timeout needs a value" -- "$wgprof" run x.json --timeout
check "run --max-dispatches 0" 2 "--max-dispatches 0" -- "$wgprof" run --max-dispatches 0 x.json
check "run --max-dispatches -5" 2 "--max-dispatches -5" -- "$wgprof" run --max-dispatches -5 x.json
check "run --allow-path ''" 2 "--allow-path needs a folder" -- "$wgprof" run --allow-path '' x.json
check "demo --timeout -1" 2 "--timeout -1" -- "$wgprof" demo --timeout -1
check "run --help" 0 "--max-dispatches N" -- "$wgprof" run --help
check "run --help exit codes" 0 "3 timed out" -- "$wgprof" run --help
check "demo --help" 0 "--timeout SECONDS" -- "$wgprof" demo --help
# No driver at all (a Vulkan driver list naming nothing that exists): exit 1, the reason and what
# to try, in the implementation's terms.
check "no adapter" 1 "no WebGPU adapter" -- env VK_DRIVER_FILES=/nonexistent/icd.json "$wgprof" info
case "${WGPROF_WEBGPU:-}" in
  dawn) hint="Mesa's lavapipe 25 or newer" ;;
  *) hint="install Mesa's lavapipe" ;;
esac
check "no adapter: what to try" 1 "$hint" -- env VK_DRIVER_FILES=/nonexistent/icd.json "$wgprof" info
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
