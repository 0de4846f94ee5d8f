"""The `wgprof` command and `python -m wgprof`: runs the program inside the package, telling it
of the WebGPU implementations installed as Python packages (WGPROF_WEBGPU_PATH), which it tries
after --webgpu and before the system's. Three options of its own, for C users of the wheel:
--include-dir, --lib-dir and --pkgconfig-dir print those folders."""

from __future__ import annotations

import os
import sys
from typing import List, Optional

from . import _install

_FOLDERS = {
    "--include-dir": _install.include_dir,
    "--lib-dir": _install.lib_dir,
    "--pkgconfig-dir": _install.pkgconfig_dir,
}


def main(argv: Optional[List[str]] = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) == 1 and args[0] in _FOLDERS:
        print(_FOLDERS[args[0]]())
        return 0
    program = _install.binary()
    if not os.access(program, os.X_OK):
        print(f"wgprof: the wgprof program is missing from the package ({program}): reinstall wgprof", file=sys.stderr)
        return 1
    if not os.environ.get("WGPROF_WEBGPU_PATH"):
        candidates = _install.webgpu_candidates()
        if candidates:
            os.environ["WGPROF_WEBGPU_PATH"] = os.pathsep.join(candidates)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(program, ["wgprof"] + args)
    return 127  # not reached: execv replaces the process or raises


if __name__ == "__main__":
    sys.exit(main())
