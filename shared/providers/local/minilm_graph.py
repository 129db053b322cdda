"""all-MiniLM-L6-v2 written as an ONNX graph from the package's own weights, so ONNX Runtime can
run it: no export from torch, nothing downloaded. The graph is BERT's encoder (6 layers, 384 wide,
12 heads) ending in the mean of each window's real tokens; windows, weighting and unit length
stay in Python (minilm.py), as with the numpy forward pass this replaced.

Inputs: `input_ids` (batch, tokens) int64, `attention_mask` (batch, tokens) float32 with 1 for a
real token, `position_ids` (1, tokens) int64. Output: `pooled` (batch, 384) float32.
"""

import math

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

LAYERS = 6
HEADS = 12
WIDTH = 384
_EPSILON = 1e-12
_OPSET = 17  # LayerNormalization is an operator from 17 on
_MASKED = -1e9  # added to a padding token's attention score: exp() of it is 0


class _Graph:
    """Nodes and initialisers as they are added; names are unique by a running number."""

    def __init__(self, weights: dict[str, np.ndarray]) -> None:
        self._weights = weights
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self._count = 0

    def array(self, name: str) -> np.ndarray:
        return self._weights[name].astype(np.float32)

    def weight(self, name: str, transpose: bool = False) -> str:
        array = self.array(name)
        return self.constant(np.ascontiguousarray(array.T if transpose else array), name)

    def constant(self, array: np.ndarray, name: str | None = None) -> str:
        name = name or self._fresh("const")
        self.initializers.append(numpy_helper.from_array(array, name))
        return name

    def op(self, op_type: str, *inputs: str, **attributes: object) -> str:
        output = self._fresh(op_type.lower())
        self.nodes.append(helper.make_node(op_type, list(inputs), [output], **attributes))
        return output

    def _fresh(self, stem: str) -> str:
        self._count += 1
        return f"{stem}_{self._count}"


def build_minilm_graph(weights: dict[str, np.ndarray]) -> onnx.ModelProto:
    """The encoder and mean pooling over `weights` (the safetensors names of BertModel)."""
    g = _Graph(weights)
    states = _embeddings(g)
    mask = "attention_mask"
    # (batch, 1, 1, tokens): 0 for a real token, _MASKED for padding
    open_mask = g.op("Sub", g.constant(np.array(1.0, np.float32)), mask)
    additive = g.op("Mul", open_mask, g.constant(np.array(_MASKED, np.float32)))
    additive = g.op("Unsqueeze", additive, g.constant(np.array([1, 2], np.int64)))
    for layer in range(LAYERS):
        states = _layer(g, f"encoder.layer.{layer}.", states, additive)
    pooled = _mean_pool(g, states, mask)
    g.nodes.append(helper.make_node("Identity", [pooled], ["pooled"]))
    graph = helper.make_graph(
        g.nodes,
        "all-minilm-l6-v2",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "tokens"]),
            helper.make_tensor_value_info(mask, TensorProto.FLOAT, ["batch", "tokens"]),
            helper.make_tensor_value_info("position_ids", TensorProto.INT64, [1, "tokens"]),
        ],
        [helper.make_tensor_value_info("pooled", TensorProto.FLOAT, ["batch", WIDTH])],
        g.initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", _OPSET)])
    model.ir_version = 8  # what every ONNX Runtime of the last years reads
    onnx.checker.check_model(model)
    return model


def _embeddings(g: _Graph) -> str:
    words = g.op("Gather", g.weight("embeddings.word_embeddings.weight"), "input_ids")
    positions = g.op("Gather", g.weight("embeddings.position_embeddings.weight"), "position_ids")
    token_type = g.constant(g.array("embeddings.token_type_embeddings.weight")[0])
    summed = g.op("Add", g.op("Add", words, positions), token_type)
    return _layer_norm(g, summed, "embeddings.LayerNorm")


def _layer(g: _Graph, prefix: str, states: str, additive_mask: str) -> str:
    attended = _attention(g, prefix, states, additive_mask)
    states = _layer_norm(g, g.op("Add", attended, states), f"{prefix}attention.output.LayerNorm")
    hidden = _gelu(g, _dense(g, states, f"{prefix}intermediate.dense"))
    output = _dense(g, hidden, f"{prefix}output.dense")
    return _layer_norm(g, g.op("Add", output, states), f"{prefix}output.LayerNorm")


def _attention(g: _Graph, prefix: str, states: str, additive_mask: str) -> str:
    head = WIDTH // HEADS
    split = g.constant(np.array([0, 0, HEADS, head], np.int64))
    heads = []
    for kind in ("query", "key", "value"):
        projected = _dense(g, states, f"{prefix}attention.self.{kind}")
        heads.append(g.op("Transpose", g.op("Reshape", projected, split), perm=[0, 2, 1, 3]))
    query, key, value = heads
    scores = g.op("MatMul", query, g.op("Transpose", key, perm=[0, 1, 3, 2]))
    scores = g.op("Mul", scores, g.constant(np.array(1.0 / math.sqrt(head), np.float32)))
    weights = g.op("Softmax", g.op("Add", scores, additive_mask), axis=-1)
    context = g.op("Transpose", g.op("MatMul", weights, value), perm=[0, 2, 1, 3])
    context = g.op("Reshape", context, g.constant(np.array([0, 0, WIDTH], np.int64)))
    return _dense(g, context, f"{prefix}attention.output.dense")


def _dense(g: _Graph, states: str, name: str) -> str:
    product = g.op("MatMul", states, g.weight(f"{name}.weight", transpose=True))
    return g.op("Add", product, g.weight(f"{name}.bias"))


def _layer_norm(g: _Graph, states: str, name: str) -> str:
    return g.op(
        "LayerNormalization",
        states,
        g.weight(f"{name}.weight"),
        g.weight(f"{name}.bias"),
        axis=-1,
        epsilon=_EPSILON,
    )


def _gelu(g: _Graph, states: str) -> str:
    """BERT's exact GELU: x·½·(1 + erf(x/√2))."""
    scaled = g.op("Mul", states, g.constant(np.array(1.0 / math.sqrt(2.0), np.float32)))
    plus_one = g.op("Add", g.op("Erf", scaled), g.constant(np.array(1.0, np.float32)))
    half = g.op("Mul", states, g.constant(np.array(0.5, np.float32)))
    return g.op("Mul", half, plus_one)


def _mean_pool(g: _Graph, states: str, mask: str) -> str:
    """The mean of the last layer's states over each window's real tokens."""
    axis_1 = g.constant(np.array([1], np.int64))
    expanded = g.op("Unsqueeze", mask, g.constant(np.array([2], np.int64)))
    summed = g.op("ReduceSum", g.op("Mul", states, expanded), axis_1, keepdims=0)
    counts = g.op("ReduceSum", mask, axis_1, keepdims=1)
    return g.op("Div", summed, counts)
