#!/usr/bin/env python3
"""The two ONNX models of bench/ort_vs_profiler.sh, made here with the `onnx` package (pinned
there): an MLP and a small convolution net, float32, weights from a fixed seed, so that every run
of the benchmark times the same graphs. Their kernels on ONNX Runtime's WebGPU provider span
about 20 us to several ms on lavapipe (2 cores).

  mlp:     x[32,512] -> Gemm 512x1024 -> Relu -> Gemm 1024x256 -> Relu -> Gemm 256x16 -> Softmax
           -> Mul by a scalar
  convnet: x[1,3,64,64] -> Conv 3->16 3x3 -> Relu -> Conv 16->32 3x3 -> Relu -> MaxPool 2x2
           -> Conv 32->32 3x3 -> Relu -> GlobalAveragePool -> Flatten -> Gemm 32x10

usage: ort_models.py OUT_DIR    (writes OUT_DIR/mlp.onnx and OUT_DIR/convnet.onnx)
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def weights(rng, name, shape, fan_in):
    data = (rng.standard_normal(shape) * fan_in ** -0.5).astype(np.float32)
    return numpy_helper.from_array(data, name)


def model(nodes, name, x_shape, y_name, y_shape, inits):
    graph = helper.make_graph(nodes, name,
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
                              [helper.make_tensor_value_info(y_name, TensorProto.FLOAT, y_shape)],
                              inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="wgprof-bench")
    m.ir_version = 8
    onnx.checker.check_model(m)
    return m


def mlp(rng):
    b, d0, d1, d2, d3 = 32, 512, 1024, 256, 16
    inits = [weights(rng, "w1", [d0, d1], d0), weights(rng, "b1", [d1], d0),
             weights(rng, "w2", [d1, d2], d1), weights(rng, "b2", [d2], d1),
             weights(rng, "w3", [d2, d3], d2), weights(rng, "b3", [d3], d2),
             numpy_helper.from_array(np.array([0.5], dtype=np.float32), "scale")]
    nodes = [helper.make_node("Gemm", ["x", "w1", "b1"], ["h1"], name="fc1"),
             helper.make_node("Relu", ["h1"], ["a1"], name="relu1"),
             helper.make_node("Gemm", ["a1", "w2", "b2"], ["h2"], name="fc2"),
             helper.make_node("Relu", ["h2"], ["a2"], name="relu2"),
             helper.make_node("Gemm", ["a2", "w3", "b3"], ["h3"], name="fc3"),
             helper.make_node("Softmax", ["h3"], ["p"], name="softmax", axis=1),
             helper.make_node("Mul", ["p", "scale"], ["y"], name="scale")]
    return model(nodes, "mlp", [b, d0], "y", [b, d3], inits)


def convnet(rng):
    inits = [weights(rng, "c1w", [16, 3, 3, 3], 27), weights(rng, "c1b", [16], 27),
             weights(rng, "c2w", [32, 16, 3, 3], 144), weights(rng, "c2b", [32], 144),
             weights(rng, "c3w", [32, 32, 3, 3], 288), weights(rng, "c3b", [32], 288),
             weights(rng, "fcw", [32, 10], 32), weights(rng, "fcb", [10], 32)]
    pad = {"pads": [1, 1, 1, 1], "kernel_shape": [3, 3]}
    nodes = [helper.make_node("Conv", ["x", "c1w", "c1b"], ["c1"], name="conv1", **pad),
             helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
             helper.make_node("Conv", ["r1", "c2w", "c2b"], ["c2"], name="conv2", **pad),
             helper.make_node("Relu", ["c2"], ["r2"], name="relu2"),
             helper.make_node("MaxPool", ["r2"], ["p2"], name="pool2", kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("Conv", ["p2", "c3w", "c3b"], ["c3"], name="conv3", **pad),
             helper.make_node("Relu", ["c3"], ["r3"], name="relu3"),
             helper.make_node("GlobalAveragePool", ["r3"], ["g"], name="gap"),
             helper.make_node("Flatten", ["g"], ["f"], name="flatten", axis=1),
             helper.make_node("Gemm", ["f", "fcw", "fcb"], ["y"], name="fc")]
    return model(nodes, "convnet", [1, 3, 64, 64], "y", [1, 10], inits)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(20261205)
    for name, make in (("mlp", mlp), ("convnet", convnet)):
        path = os.path.join(out, name + ".onnx")
        onnx.save(make(rng), path)
        print(f"{path}: onnx {onnx.__version__}")


if __name__ == "__main__":
    main()
