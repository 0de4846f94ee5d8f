#!/usr/bin/env python3
"""A program of its own on ONNX Runtime, for the Vulkan layer's tests.

ONNX Runtime's WebGPU execution provider has Dawn compiled into its library and stripped: no
webgpu.h symbol is reachable, so only the Vulkan layer can time its dispatches. This program
builds a small model in memory (a hand-written protobuf encoder: the `onnx` package is not
needed), runs it a given number of times on fixed inputs and prints a checksum of the outputs
and the providers that ran it. Run once with the WebGPU provider and once with the CPU one, the
two checksums must be equal: that is how a test knows the WebGPU provider computed right.

Inputs and weights are small integers and binary fractions, so the matrix products are exact in
float32 whatever the summation order; only the softmax differs between devices, by a few ulps,
and its checksum is rounded far above that.

Usage: ort_app.py [--provider webgpu|cpu] [--runs N]
Exit status: 0 done; 2 bad arguments; 3 the requested provider was not the one selected;
4 no session with it (for WebGPU: no adapter, e.g. a Mesa older than 25's lavapipe).
"""
import argparse
import struct
import sys

import numpy as np
import onnxruntime as ort

# ---- a minimal protobuf encoder: only the wire types ONNX's messages below use ----------------


def _varint(n):
    """Base-128 varint; negative int64 values take ten bytes (two's complement)."""
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def f_int(field, value):
    """A varint field (wire type 0)."""
    return _varint(field << 3) + _varint(value)


def f_bytes(field, payload):
    """A length-delimited field (wire type 2): strings, bytes and nested messages."""
    if isinstance(payload, str):
        payload = payload.encode()
    return _varint(field << 3 | 2) + _varint(len(payload)) + payload


# ---- ONNX messages (field numbers from onnx/onnx.proto) ----------------------------------------
FLOAT = 1           # TensorProto.DataType.FLOAT
ATTR_INT = 2        # AttributeProto.AttributeType.INT


def value_info(name, shape):
    """ValueInfoProto{name=1, type=2: TypeProto{tensor_type=1: {elem_type=1, shape=2}}}."""
    dims = b"".join(f_bytes(1, f_int(1, d)) for d in shape)   # TensorShapeProto.dim{dim_value=1}
    tensor_type = f_int(1, FLOAT) + f_bytes(2, dims)
    return f_bytes(1, name) + f_bytes(2, f_bytes(1, tensor_type))


def node(op_type, inputs, outputs, name, int_attrs=None):
    """NodeProto{input=1, output=2, name=3, op_type=4, attribute=5}."""
    msg = b"".join(f_bytes(1, i) for i in inputs)
    msg += b"".join(f_bytes(2, o) for o in outputs)
    msg += f_bytes(3, name) + f_bytes(4, op_type)
    for key, value in (int_attrs or {}).items():
        # AttributeProto{name=1, i=3, type=20}
        msg += f_bytes(5, f_bytes(1, key) + f_int(3, value) + f_int(20, ATTR_INT))
    return msg


def build_model(batch, width, hidden, classes):
    """ModelProto{ir_version=1, producer_name=2, graph=7, opset_import=8}, ir 8, opset 17.

    y = Softmax(Relu(x @ w1 + b1) @ w2, axis=1); the logits before the softmax are a second
    output, so that the exact part of the computation is checked exactly."""
    inputs = [("x", [batch, width]), ("w1", [width, hidden]), ("b1", [hidden]),
              ("w2", [hidden, classes])]
    nodes = [node("MatMul", ["x", "w1"], ["h0"], "matmul1"),
             node("Add", ["h0", "b1"], ["h1"], "add1"),
             node("Relu", ["h1"], ["h2"], "relu1"),
             node("MatMul", ["h2", "w2"], ["logits"], "matmul2"),
             node("Softmax", ["logits"], ["y"], "softmax1", {"axis": 1})]
    # GraphProto{node=1, name=2, input=11, output=12}
    graph = b"".join(f_bytes(1, n) for n in nodes) + f_bytes(2, "wgprof_ort_app")
    graph += b"".join(f_bytes(11, value_info(n, s)) for n, s in inputs)
    graph += f_bytes(12, value_info("logits", [batch, classes]))
    graph += f_bytes(12, value_info("y", [batch, classes]))
    opset = f_bytes(1, "") + f_int(2, 17)       # OperatorSetIdProto{domain=1, version=2}
    return f_int(1, 8) + f_bytes(2, "wgprof") + f_bytes(7, graph) + f_bytes(8, opset)


def fixed_inputs(batch, width, hidden, classes):
    """Deterministic small integers and binary fractions: exact sums in float32."""
    def grid(shape, mod, offset, scale):
        n = int(np.prod(shape))
        v = (np.arange(n, dtype=np.int64) * 7 + 3) % mod - offset
        return (v * scale).astype(np.float32).reshape(shape)
    return {"x": grid([batch, width], 5, 2, 1.0),
            "w1": grid([width, hidden], 3, 1, 1.0),
            "b1": grid([hidden], 7, 3, 1.0),
            "w2": grid([hidden, classes], 5, 2, 1.0 / 8)}


def checksum(logits, y):
    """Two numbers: weighted means of the logits (exact, so printed exactly) and of the softmax,
    rounded to 3 decimals: devices' exp differ by ulps, about 1e-7 of a value near 10; with
    these inputs the mean lies 3e-4 from a rounding boundary on lavapipe and on the CPU."""
    weights = np.arange(1, logits.size + 1, dtype=np.float64).reshape(logits.shape)
    mean_logits = float(np.sum(logits.astype(np.float64) * weights)) / logits.size
    mean_y = float(np.sum(y.astype(np.float64) * weights)) / y.size
    return f"logits={mean_logits!r} softmax={mean_y:.3f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--provider", choices=["webgpu", "cpu"], default="webgpu")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")

    wanted = {"webgpu": "WebGpuExecutionProvider", "cpu": "CPUExecutionProvider"}[args.provider]
    dims = (16, 64, 64, 32)
    options = ort.SessionOptions()
    options.log_severity_level = 3
    if args.provider == "webgpu":
        # Every node on the GPU, or no session: a silent fallback to the CPU would make the
        # comparison with the CPU run prove nothing.
        options.add_session_config_entry("session.disable_cpu_ep_fallback", "1")
    try:
        sess = ort.InferenceSession(build_model(*dims), options, providers=[wanted])
    except Exception as err:  # noqa: BLE001 -- onnxruntime raises several unrelated types
        # ONNX Runtime's Python wrapper retries a failed provider on the CPU, which the option
        # above refuses; the message worth showing is the provider's own, the first cause.
        cause = err
        while cause.__cause__ is not None:
            cause = cause.__cause__
        print(f"ort_app: no session with {wanted}: {str(cause).strip()}", file=sys.stderr)
        return 4
    providers = sess.get_providers()
    print("providers:", ",".join(providers))
    if providers[0] != wanted:
        print(f"ort_app: asked for {wanted}, the session selected {providers}", file=sys.stderr)
        return 3

    feeds = fixed_inputs(*dims)
    sums = set()
    for _ in range(args.runs):
        logits, y = sess.run(["logits", "y"], feeds)
        sums.add(checksum(logits, y))
    # Every run on the same inputs must agree; if one did not, both sums are printed.
    print("runs:", args.runs)
    print("checksum:", " | ".join(sorted(sums)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
