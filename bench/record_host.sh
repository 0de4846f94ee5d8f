#!/usr/bin/env bash
# What `wgprof record`'s preload library costs the program's thread per dispatch, in instructions
# (valgrind's callgrind counts them: the same for the same binaries and inputs however busy the
# machine is). Only the program's main thread is counted (callgrind --separate-threads): the
# driver's worker threads spin for as long as the GPU work takes, and the preload's snapshots
# are written on a thread of its own once a second.
# record_host_app runs N1 and then N2 dispatches, plainly and with each preload library given,
# as `wgprof record` would load it (the environment of record/record.h); a configuration's cost
# per dispatch is (instructions at N2 - at N1) / (N2 - N1), and the preload's is that less the
# plain program's. Everything lavapipe does for the timestamps the preload adds counts too.
#
# usage: bench/record_host.sh APP N1 N2 NAME=PRELOAD [NAME=PRELOAD ...]   (one JSON line each)
#   e.g. bench/record_host.sh build/bench/record_host_app 256 2304 new=build/record/libwgprof_record.so
set -euo pipefail
app="$1" n1="$2" n2="$3"
shift 3
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
instructions() { # PRELOAD (or "") N
  local out="$tmp/cg.$RANDOM"
  local dir="$tmp/results.$RANDOM"
  mkdir "$dir"
  if [ -n "$1" ]; then
    env WGPROF_RECORD_DIR="$dir" LD_PRELOAD="$1" valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$out" \
      "$app" "$2" >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
    ls "$dir"/*.json >/dev/null 2>&1 || { echo "record_host: $1 wrote no report" >&2; exit 1; }
  else
    valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$out" "$app" "$2" >/dev/null 2>"$tmp/err" ||
      { cat "$tmp/err" >&2; exit 1; }
  fi
  awk '/^(summary|totals):/ {print $2; exit}' "$out-01"
}
plain1="$(instructions "" "$n1")"
plain2="$(instructions "" "$n2")"
plain=$(( (plain2 - plain1) / (n2 - n1) ))
echo "{\"config\": \"plain\", \"n1\": $n1, \"n2\": $n2, \"ir_n1\": $plain1, \"ir_n2\": $plain2, \"ir_per_dispatch\": $plain}"
for spec in "$@"; do
  name="${spec%%=*}" preload="${spec#*=}"
  a="$(instructions "$preload" "$n1")"
  b="$(instructions "$preload" "$n2")"
  per=$(( (b - a) / (n2 - n1) ))
  echo "{\"config\": \"$name\", \"preload\": \"$preload\", \"n1\": $n1, \"n2\": $n2, \"ir_n1\": $a, \"ir_n2\": $b," \
       "\"ir_per_dispatch\": $per, \"preload_ir_per_dispatch\": $(( per - plain ))}"
done
