#!/usr/bin/env bash
# A bursty CPU load, for measuring how `wgprof diff` behaves on a busy machine: every 0.3 to 2 s
# (drawn at random) it sets the number of running `yes >/dev/null` hogs to a random count in
# 0..MAX, starting or stopping hogs to get there. The draws come from bash's RANDOM seeded with
# SEED, so that the same seed gives the same sequence of intervals and counts. It runs until it is
# killed (SIGTERM, SIGINT) or for DURATION seconds, and on any of these ends every hog it started.
# A SIGKILL cannot be trapped: its hogs would be left running (pgrep -x yes finds them).
#
# Usage:
#   bench/bursty_load.sh [-s SEED] [-d DURATION] [-m MAX] [-l LOG]
#     -s SEED      seed of the draws (default: BURSTY_SEED, else 1)
#     -d DURATION  stop after this many seconds (default: BURSTY_DURATION, else run until killed)
#     -m MAX       the most hogs at once (default: BURSTY_MAX, else 3)
#     -l LOG       append one line per change to LOG: seconds since the start, hogs running
# Exit status: 0 at the end of DURATION, 130 on SIGINT, 143 on SIGTERM, 2 on bad usage.
set -u

usage() {
  sed -n '/^# Usage:/,/^# Exit status/p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

seed="${BURSTY_SEED:-1}"
duration="${BURSTY_DURATION:-}"
max="${BURSTY_MAX:-3}"
log=""
while getopts "s:d:m:l:h" opt; do
  case "$opt" in
    s) seed="$OPTARG" ;;
    d) duration="$OPTARG" ;;
    m) max="$OPTARG" ;;
    l) log="$OPTARG" ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || { echo "bursty_load.sh: unexpected argument '$1'" >&2; usage; }
case "$seed" in '' | *[!0-9]*) echo "bursty_load.sh: -s SEED must be a non-negative integer, not '$seed'" >&2; exit 2 ;; esac
case "$max" in '' | *[!0-9]*) echo "bursty_load.sh: -m MAX must be a non-negative integer, not '$max'" >&2; exit 2 ;; esac
if [ -n "$duration" ]; then
  case "$duration" in *[!0-9]*) echo "bursty_load.sh: -d DURATION must be whole seconds, not '$duration'" >&2; exit 2 ;; esac
fi
if [ -n "$log" ] && ! { : >>"$log"; } 2>/dev/null; then
  echo "bursty_load.sh: cannot write the log '$log'" >&2
  exit 2
fi

hogs=()   # the PIDs of the running hogs, oldest first
sleeper=""

stop_hog() { # the newest hog
  local last=$((${#hogs[@]} - 1))
  kill "${hogs[$last]}" 2>/dev/null
  wait "${hogs[$last]}" 2>/dev/null
  unset "hogs[$last]"
  hogs=("${hogs[@]}")
}

# shellcheck disable=SC2317  # reached through the traps below
cleanup() {
  trap - EXIT INT TERM
  [ -n "$sleeper" ] && kill "$sleeper" 2>/dev/null
  while [ ${#hogs[@]} -gt 0 ]; do stop_hog; done
}
trap cleanup EXIT
trap 'cleanup; exit 130' INT
trap 'cleanup; exit 143' TERM

RANDOM="$seed"
start_ns=$(date +%s%N)
while :; do
  now_ns=$(date +%s%N)
  elapsed_ms=$(((now_ns - start_ns) / 1000000))
  if [ -n "$duration" ] && [ "$elapsed_ms" -ge $((duration * 1000)) ]; then break; fi
  want=$((RANDOM % (max + 1)))
  pause_ms=$((300 + RANDOM % 1701))
  if [ -n "$duration" ] && [ $((elapsed_ms + pause_ms)) -gt $((duration * 1000)) ]; then
    pause_ms=$((duration * 1000 - elapsed_ms))
  fi
  while [ ${#hogs[@]} -lt "$want" ]; do
    yes >/dev/null &
    hogs+=("$!")
  done
  while [ ${#hogs[@]} -gt "$want" ]; do stop_hog; done
  if [ -n "$log" ]; then
    printf '%d.%03d %d\n' $((elapsed_ms / 1000)) $((elapsed_ms % 1000)) "${#hogs[@]}" >>"$log"
  fi
  # The sleep runs in the background and is waited for, so that a signal is handled at once
  # rather than after the sleep (bash runs a trap only once its foreground child has ended).
  sleep "$(printf '%d.%03d' $((pause_ms / 1000)) $((pause_ms % 1000)))" &
  sleeper=$!
  wait "$sleeper"
  sleeper=""
done
exit 0
