# shellcheck shell=bash
# Sourced by the fetch scripts that make a Python virtual environment of pinned wheels
# (fetch-wgpu-py.sh, fetch-onnxruntime.sh): the checks, the venv, the install with every file's
# sha256 checked (pip --require-hashes, wheels only) and the stamp that says it is done.
#
# pinned_venv NAME DEST PYTHON REQUIREMENTS VERSIONS VERSIONS_WHY IMPORT IMPORT_WHY INSTALLED [PIP_OPTION...]
#   NAME          the script's name, for messages
#   DEST          the environment's folder (replaced whole)
#   PYTHON        the interpreter that makes it
#   REQUIREMENTS  pip's requirements, each with its --hash=sha256: lines
#   VERSIONS      a Python condition on sys.version_info the interpreter must meet
#   VERSIONS_WHY  what to say where it does not ("... needs Python >= 3.11")
#   IMPORT        Python code that exits 0 where the installed set works
#   IMPORT_WHY    what to say where it does not
#   INSTALLED     what to say once it is made ("wgpu 0.32.0 ... installed into DEST")
# Returns at once, saying nothing, where DEST's stamp names the same REQUIREMENTS; exits 1 on any
# failure, leaving no DEST behind.
pinned_venv() {
  local name="$1" dest="$2" python="$3" requirements="$4" versions="$5" versions_why="$6" import="$7" \
    import_why="$8" installed="$9"
  shift 9
  local stamp
  stamp="$dest/.pinned-$(printf '%s' "$requirements" | sha256sum | cut -c1-16)"
  if [ -f "$stamp" ] && [ -x "$dest/bin/python" ]; then
    return 0
  fi
  if [ "$(uname -m)" != x86_64 ]; then
    echo "$name: the pinned wheels are for x86_64 Linux; the test that needs them is skipped elsewhere" >&2
    exit 1
  fi
  mkdir -p "$(dirname "$dest")" # .deps/ itself, on a fresh clone where nothing made it yet
  if ! command -v "$python" >/dev/null 2>&1; then
    echo "$name: no $python; install python3 and python3-venv (scripts/install-deps.sh test)" >&2
    exit 1
  fi
  if ! "$python" -c "import sys; sys.exit(not ($versions))"; then
    echo "$name: $versions_why; $python is $("$python" -V 2>&1)" >&2
    exit 1
  fi
  rm -rf "$dest"
  if ! "$python" -m venv "$dest" 2>"$dest.venv-err"; then
    echo "$name: '$python -m venv' failed (Debian: apt-get install python3-venv):" >&2
    cat "$dest.venv-err" >&2
    rm -rf "$dest" "$dest.venv-err"
    exit 1
  fi
  rm -f "$dest.venv-err"
  printf '%s\n' "$requirements" >"$dest/requirements.txt"
  # Wheels only: nothing is compiled, and every file installed is one whose hash is listed.
  if ! "$dest/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
    --require-hashes --only-binary=:all: "$@" -r "$dest/requirements.txt"; then
    echo "$name: installing the pinned wheels into $dest failed (see pip's message above)" >&2
    rm -rf "$dest"
    exit 1
  fi
  if ! "$dest/bin/python" -c "$import" 2>/dev/null; then
    echo "$name: $import_why:" >&2
    "$dest/bin/python" -c "$import" >&2 || true
    rm -rf "$dest"
    exit 1
  fi
  touch "$stamp"
  echo "$name: $installed"
}
