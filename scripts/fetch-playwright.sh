#!/usr/bin/env bash
# Makes a Python virtual environment under .deps/playwright/ holding Playwright for Python (the
# `playwright` wheel, with its Node.js driver inside, and greenlet), every file checked against
# a pinned sha256 (pip --require-hashes). The tests of `wgprof record` on a web page
# (test_record_browser) drive Debian's Chromium with it, as a test suite of a web application
# would: no browser of Playwright's own is downloaded (`executable_path` names the system's).
# Safe to run again: a stamp naming the pinned set says it is done.
# Usage: fetch-playwright.sh [DEST]   (PYTHON picks the interpreter; default python3, 3.11 to 3.13)
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
dest="${1:-$root/.deps/playwright}"
python="${PYTHON:-python3}"

# greenlet ships one wheel per CPython version: 3.11, 3.12 and 3.13 (Debian 12, Ubuntu 24.04,
# Debian 13) listed, pip takes the one its interpreter matches.
requirements="playwright==1.65.3 --hash=sha256:e1615b0858acfc20ca2b81bfdb74a0792a5e614889f296300d222446a55a77bf
greenlet==3.5.6 \
 --hash=sha256:1c20ea32a73d17b9b60e3371240e17b0068120c98a5ec01a224a7dd8c89733ba \
 --hash=sha256:975736b002ed080d124cf81a79cb7e05cb26d6b3f5c7a7b651c0fcce70353aa1 \
 --hash=sha256:f98e8215e172f567ce80eeaed9107fb4d32b6c44f26983d9b8334658136a205a"
. "$root/scripts/pinned-venv.sh"
pinned_venv fetch-playwright "$dest" "$python" "$requirements" \
  'sys.version_info >= (3, 11) and sys.version_info < (3, 14)' "the pinned greenlet wheels need Python 3.11 to 3.13" \
  'import playwright.sync_api' "playwright was installed into $dest but does not import" \
  "playwright 1.65.3 installed into $dest"
