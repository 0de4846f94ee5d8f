"""A small tinygrad program on its WEBGPU device, profiled unmodified by test_record_tinygrad.sh.

Usage: DEV=WEBGPU WEBGPU_PATH=.../libwebgpu_dawn_x86_64.so python3 tinygrad_app.py [STEPS]

Its steps run a matmul, an elementwise op realized on its own and two reductions on
integer-valued float32 data, so that every result is exact and is compared with numpy's for
equality. stdout holds each result's checksum and, counted at tinygrad's own program objects,
every kernel it launched: its name (which tinygrad makes the WGSL entry point), how many times,
and with which workgroup counts. A run under wgprof must print exactly what a run without it
prints. Like any tinygrad program it ends without releasing or destroying its WebGPU device.
"""
import hashlib
import sys

import numpy as np
from tinygrad import Device, Tensor
from tinygrad.runtime import ops_webgpu

# Every dispatch tinygrad makes on WebGPU goes through its program object's __call__ (one compute
# pass, one dispatch): count them there, by the program's name, without changing the call.
# Its global_size is what it dispatches: workgroup counts.
launches: dict[str, int] = {}
workgroups: dict[tuple[str, tuple[int, ...]], int] = {}
_call = ops_webgpu.WebGPUProgram.__call__


def _counted_call(self, *bufs, **kwargs):
    name = ops_webgpu.from_wgpu_str(self.name)
    launches[name] = launches.get(name, 0) + 1
    groups = (name, tuple(kwargs.get("global_size", (1, 1, 1))))
    workgroups[groups] = workgroups.get(groups, 0) + 1
    return _call(self, *bufs, **kwargs)


ops_webgpu.WebGPUProgram.__call__ = _counted_call


def checksum(array: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(array, dtype=np.float32).tobytes()).hexdigest()[:16]


def main() -> int:
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    if Device.DEFAULT != "WEBGPU":
        print(f"tinygrad's default device is {Device.DEFAULT}, not WEBGPU (set DEV=WEBGPU)", file=sys.stderr)
        return 1
    a_np = np.array([[(i * 7 + j * 3) % 11 - 5 for j in range(32)] for i in range(16)], dtype=np.float32)
    b_np = np.array([[(i * 5 + j) % 7 - 3 for j in range(8)] for i in range(32)], dtype=np.float32)
    a, b = Tensor(a_np), Tensor(b_np)
    want = {
        "matmul": a_np @ b_np,
        "elementwise": np.maximum(a_np * 0.5 + 1, 0),
        "row_sums": a_np.sum(axis=1),
        "max": np.array(a_np.max(), dtype=np.float32),
    }
    failed = 0
    # Each kernel launched a number of times of its own (with 3 steps: 3, 2, 1 and 6), so that
    # dispatches counted under the wrong kernel show.
    for step in range(steps):
        got = [("matmul", (a @ b).numpy())]
        if step >= 1:
            got.append(("elementwise", (a * 0.5 + 1).relu().numpy()))
        if step == 0:
            got.append(("row_sums", a.sum(axis=1).numpy()))
        got += [("max", a.max().numpy()), ("max", a.max().numpy())]
        for what, value in got:
            same = value.shape == want[what].shape and np.array_equal(value, want[what])
            failed += not same
            print(f"step {step} {what} {value.shape} {checksum(value)} {'ok' if same else 'WRONG'}")
    for name, count in launches.items():
        print(f"kernel {name} {count}")
    for (name, groups), count in workgroups.items():
        print(f"workgroups {name} {' '.join(str(g) for g in groups)} {count}")
    print(f"launches {sum(launches.values())}")
    if failed:
        print(f"{failed} results differ from numpy's", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
