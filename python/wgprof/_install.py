"""Where the wheel put wgprof's files, and the WebGPU implementations installed beside it.

The wheel holds wgprof's own files only: bin/wgprof, lib/ (libwgprof.so, libwgprof_record.so,
the Vulkan layer and its manifests, pkgconfig/wgprof.pc), include/ (wgprof.h and the webgpu.h it
includes). No WebGPU implementation, Vulkan loader or driver comes with it: the CLI uses the
system's loader and drivers, and the implementation found here or named with --webgpu.
"""

from __future__ import annotations

import glob
import importlib.util
import os
import sys
from typing import List

_HERE = os.path.dirname(os.path.abspath(__file__))


def binary() -> str:
    """The wgprof command-line program inside the package."""
    return os.path.join(_HERE, "bin", "wgprof")


def lib_dir() -> str:
    """The folder of libwgprof.so (link with -L and -Wl,-rpath to it, or use pkg-config)."""
    return os.path.join(_HERE, "lib")


def include_dir() -> str:
    """The folder holding wgprof/wgprof.h and webgpu/webgpu.h."""
    return os.path.join(_HERE, "include")


def pkgconfig_dir() -> str:
    """The folder of wgprof.pc: PKG_CONFIG_PATH=$(python -m wgprof --pkgconfig-dir) pkg-config
    --cflags --libs wgprof (add the -l of the WebGPU implementation you link)."""
    return os.path.join(lib_dir(), "pkgconfig")


def _wgpu_native() -> List[str]:
    """The `wgpu` package's wgpu-native (wgpu/resources/libwgpu_native*.so), found where Python
    would import the package from, without importing it."""
    spec = importlib.util.find_spec("wgpu")
    folders = list(spec.submodule_search_locations or []) if spec else []
    return sorted(p for f in folders for p in glob.glob(os.path.join(f, "resources", "libwgpu_native*.so")))


def _dawn_wheels() -> List[str]:
    """Dawn's library as installed Python packages ship it: libwebgpu_dawn*.so in a package's
    folder or one below (rillfacet/, pydawn/lib/), in each folder Python imports from. A look at
    the folders, not at every package's file list, which would cost each `wgprof` command a
    large part of a second where many packages are installed."""
    found = []
    for entry in sys.path:
        if not entry or not os.path.isdir(entry):
            continue
        for pattern in ("*/libwebgpu_dawn*.so", "*/*/libwebgpu_dawn*.so"):
            for path in sorted(glob.glob(os.path.join(entry, pattern))):
                path = os.path.realpath(path)
                if os.path.isfile(path) and path not in found:
                    found.append(path)
    return found


def webgpu_candidates() -> List[str]:
    """WebGPU libraries installed as Python packages, in the order the CLI tries them before the
    system's: the `wgpu` package's wgpu-native (pip install 'wgprof[wgpu]'), then any installed
    package's Dawn (libwebgpu_dawn*.so)."""
    return [os.path.realpath(p) for p in _wgpu_native()] + _dawn_wheels()
