#!/usr/bin/env python3
"""A program of its own on wonnx, for the Vulkan layer's tests.

wonnx (PyPI's wonnx 0.5.1) is an ONNX runtime written in Rust on the `wgpu` crate, built into
its Python module: wgpu-core and its Vulkan back end are compiled in, no webgpu.h call is made,
so only the Vulkan layer can time its dispatches. This program builds a small model with the
`onnx` package (a Conv, a Relu, a Flatten, then a MatMul/Add/Relu/MatMul MLP), runs it a given
number of times on fixed inputs in each of a given number of sessions (wonnx makes a device for
each) and compares every output with numpy's, printing a checksum of each (the sum of its
magnitudes and a hash of its bytes).

Inputs and weights are small integers and binary fractions, so every sum is exact in float32
whatever the order: the outputs must equal numpy's exactly.

Usage: wonnx_app.py [--runs N] [--sessions K]
Exit status: 0 done; 2 bad arguments; 3 an output differs from numpy's.
"""
import argparse
import hashlib
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
import wonnx

BATCH, CHANNELS, SIDE, FILTERS, HIDDEN, CLASSES = 2, 3, 8, 4, 32, 10


def grid(shape, mod, offset, scale=1.0):
    """Deterministic small integers (times a power of two): exact sums in float32."""
    n = int(np.prod(shape))
    v = (np.arange(n, dtype=np.int64) * 7 + 3) % mod - offset
    return (v * scale).astype(np.float32).reshape(shape)


def weights():
    flat = FILTERS * SIDE * SIDE
    return {"k": grid([FILTERS, CHANNELS, 3, 3], 3, 1),
            "kb": grid([FILTERS], 5, 2),
            "w1": grid([flat, HIDDEN], 3, 1),
            "b1": grid([HIDDEN], 7, 3),
            "w2": grid([HIDDEN, CLASSES], 5, 2, 1.0 / 8)}


def build_model(w):
    """y = Relu(Flatten(Relu(Conv(x, k) + kb)) @ w1 + b1) @ w2, opset 13.

    wonnx needs the shape of every tensor between nodes, which onnx's shape inference adds."""
    nodes = [helper.make_node("Conv", ["x", "k", "kb"], ["c0"], kernel_shape=[3, 3],
                              pads=[1, 1, 1, 1], name="conv1"),
             helper.make_node("Relu", ["c0"], ["c1"], name="relu0"),
             helper.make_node("Flatten", ["c1"], ["f"], axis=1, name="flatten"),
             helper.make_node("MatMul", ["f", "w1"], ["h0"], name="matmul1"),
             helper.make_node("Add", ["h0", "b1"], ["h1"], name="add1"),
             helper.make_node("Relu", ["h1"], ["h2"], name="relu1"),
             helper.make_node("MatMul", ["h2", "w2"], ["y"], name="matmul2")]
    graph = helper.make_graph(
        nodes, "wgprof_wonnx_app",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [BATCH, CHANNELS, SIDE, SIDE])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [BATCH, CLASSES])],
        [numpy_helper.from_array(v, n) for n, v in w.items()])
    model = helper.make_model(graph, producer_name="wgprof",
                              opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return onnx.shape_inference.infer_shapes(model).SerializeToString()


def reference(x, w):
    """The same model in numpy (a direct convolution; all values exact)."""
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    conv = np.zeros((BATCH, FILTERS, SIDE, SIDE), np.float32)
    for i in range(3):
        for j in range(3):
            patch = padded[:, :, i:i + SIDE, j:j + SIDE]
            conv += np.einsum("bchw,fc->bfhw", patch, w["k"][:, :, i, j])
    c1 = np.maximum(conv + w["kb"][None, :, None, None], 0).reshape(BATCH, -1)
    return np.maximum(c1 @ w["w1"] + w["b1"], 0) @ w["w2"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sessions", type=int, default=1)
    args = parser.parse_args()
    if args.runs < 1 or args.sessions < 1:
        parser.error("--runs and --sessions must be at least 1")

    w = weights()
    model = build_model(w)
    x = grid([BATCH, CHANNELS, SIDE, SIDE], 5, 2)
    want = reference(x, w)
    wrong = 0
    for s in range(args.sessions):
        session = wonnx.Session.from_bytes(model)
        sums = set()
        for _ in range(args.runs):
            y = np.array(session.run({"x": x.ravel().tolist()})["y"], np.float32).reshape(want.shape)
            if not np.array_equal(y, want):
                wrong += 1
                print(f"wonnx_app: session {s}: y differs from numpy's by up to "
                      f"{float(np.max(np.abs(y - want)))}", file=sys.stderr)
            sums.add(f"{float(np.sum(np.abs(y)))!r} {hashlib.sha256(y.tobytes()).hexdigest()[:16]}")
        # Every run on the same inputs must agree; if one did not, both sums are printed.
        print(f"session {s}: runs {args.runs} checksum {' | '.join(sorted(sums))}")
        del session
    print("equal to numpy:", "yes" if not wrong else f"NO ({wrong} runs differ)")
    return 3 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
