#!/usr/bin/env bash
# Replays the saved inputs of fuzz target NAME (fuzz/seeds/NAME/*, fuzz/regressions/NAME-*, and
# for the spec reader the examples, which scripts/fuzz.sh seeds it with too) through its replay
# program (fuzz/replay_main.c). A target with no saved input fails: its replay would prove nothing.
# $1 the replay program, $2 NAME, $3 the source tree.
set -u
exe="$1" name="$2" root="$3"
shopt -s nullglob
inputs=("$root"/fuzz/seeds/"$name"/* "$root"/fuzz/regressions/"$name"-*)
if [ "$name" = spec ]; then
  inputs+=("$root"/examples/*.json)
fi
if [ "${#inputs[@]}" -eq 0 ]; then
  echo "fuzz target $name: no saved input in fuzz/seeds/$name or fuzz/regressions/$name-*" >&2
  exit 1
fi
exec "$exe" "${inputs[@]}"
