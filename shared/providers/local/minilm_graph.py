"""all-MiniLM-L6-v2 written as an ONNX graph from the package's own weights, so ONNX Runtime can
run it: no export from torch, nothing downloaded. The graph is BERT's encoder (6 layers, 384 wide,
12 heads) over one window of word pieces, ending in the mean of its token states; windows,
weighting and unit length stay in Python (minilm.py).

Every projection runs in 8-bit integers: the weights are quantised here, per output column
(symmetric int8), and each projection's input is quantised as it arrives, over the whole tensor
(ONNX Runtime's DynamicQuantizeLinear inside QAttention and DynamicQuantizeMatMul, its own
operators in the com.microsoft domain every build has). Bias-and-GELU and each residual's
add-and-normalise stay float and fused. On this project's 2-core reference machine (AVX-512
VNNI), SciFact abstracts, whole texts: 2.1-2.9x the float graph it replaced, cosine to the float
vectors at least 0.993 (mean 0.996), in-process nDCG@10 0.659 against float's 0.655.

An input's scale is the whole tensor's, so two windows run together would share a scale and each
vector would depend on the other: the graph takes one window (batch of one) by construction.

Input: `input_ids` (1, tokens) int64. Output: `pooled` (1, 384) float32.
"""

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

LAYERS = 6
HEADS = 12
WIDTH = 384
_EPSILON = 1e-12
_OPSET = 17  # LayerNormalization is an operator from 17 on
_FUSED = "com.microsoft"  # ONNX Runtime's own operators
_INT8_MAX = 127


class _Graph:
    """Nodes and initialisers as they are added; names are unique by a running number."""

    def __init__(self, weights: dict[str, np.ndarray]) -> None:
        self._weights = weights
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self._count = 0

    def array(self, name: str) -> np.ndarray:
        return self._weights[name].astype(np.float32)

    def weight(self, name: str) -> str:
        return self.constant(self.array(name), name)

    def constant(self, array: np.ndarray, name: str | None = None) -> str:
        name = name or self._fresh("const")
        self.initializers.append(numpy_helper.from_array(array, name))
        return name

    def op(
        self, op_type: str, *inputs: str, domain: str = "", outputs: int = 1, **attributes: object
    ) -> str:
        """The node's first output's name; the others are `<name>:1`, `<name>:2`, …"""
        first = self._fresh(op_type.lower())
        names = [first, *(f"{first}:{i}" for i in range(1, outputs))]
        node = helper.make_node(op_type, list(inputs), names, domain=domain, **attributes)
        self.nodes.append(node)
        return first

    def _fresh(self, stem: str) -> str:
        self._count += 1
        return f"{stem}_{self._count}"


def build_minilm_graph(weights: dict[str, np.ndarray]) -> onnx.ModelProto:
    """The encoder and mean pooling over `weights` (the safetensors names of BertModel)."""
    g = _Graph(weights)
    states = _embeddings(g)
    for layer in range(LAYERS):
        states = _layer(g, f"encoder.layer.{layer}.", states)
    pooled = g.op("ReduceMean", states, axes=[1], keepdims=0)
    g.nodes.append(helper.make_node("Identity", [pooled], ["pooled"]))
    graph = helper.make_graph(
        g.nodes,
        "all-minilm-l6-v2",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, [1, "tokens"])],
        [helper.make_tensor_value_info("pooled", TensorProto.FLOAT, [1, WIDTH])],
        g.initializers,
    )
    opsets = [helper.make_opsetid("", _OPSET), helper.make_opsetid(_FUSED, 1)]
    model = helper.make_model(graph, opset_imports=opsets)
    model.ir_version = 8  # what every ONNX Runtime of the last years reads
    return model


def _embeddings(g: _Graph) -> str:
    words = g.op("Gather", g.weight("embeddings.word_embeddings.weight"), "input_ids")
    tokens = g.op("Gather", g.op("Shape", "input_ids"), g.constant(np.array(1, np.int64)))
    positions = g.op(
        "Range", g.constant(np.array(0, np.int64)), tokens, g.constant(np.array(1, np.int64))
    )
    placed = g.op("Gather", g.weight("embeddings.position_embeddings.weight"), positions)
    token_type = g.constant(g.array("embeddings.token_type_embeddings.weight")[0])
    summed = g.op("Add", g.op("Add", words, placed), token_type)
    return _layer_norm(g, summed, "embeddings.LayerNorm")


def _layer(g: _Graph, prefix: str, states: str) -> str:
    attended = _attention(g, prefix, states)
    states = _add_and_normalise(g, attended, states, f"{prefix}attention.output")
    name = f"{prefix}intermediate.dense"
    product = _int8_projection(g, states, g.array(f"{name}.weight").T)
    hidden = g.op("BiasGelu", product, g.weight(f"{name}.bias"), domain=_FUSED)  # exact GELU
    output = _int8_projection(g, hidden, g.array(f"{prefix}output.dense.weight").T)
    return _add_and_normalise(g, output, states, f"{prefix}output")


def _attention(g: _Graph, prefix: str, states: str) -> str:
    """Self-attention over the window, before its output projection's bias."""
    names = [f"{prefix}attention.self.{kind}" for kind in ("query", "key", "value")]
    weights, scales = _int8_columns(
        np.concatenate([g.array(f"{name}.weight").T for name in names], axis=1)
    )
    biases = np.concatenate([g.array(f"{name}.bias") for name in names])
    quantised = g.op("DynamicQuantizeLinear", states, outputs=3)
    context = g.op(
        "QAttention",
        quantised,
        g.constant(weights),
        g.constant(biases),
        f"{quantised}:1",  # the input's scale
        g.constant(scales),
        "",  # no mask: every token of the window is real
        f"{quantised}:2",  # the input's zero point
        domain=_FUSED,
        num_heads=HEADS,
    )
    return _int8_projection(g, context, g.array(f"{prefix}attention.output.dense.weight").T)


def _int8_projection(g: _Graph, states: str, weight: np.ndarray) -> str:
    """states @ weight (inputs × outputs), the states quantised on the fly, without bias."""
    quantised, scales = _int8_columns(weight)
    return g.op(
        "DynamicQuantizeMatMul", states, g.constant(quantised), g.constant(scales), domain=_FUSED
    )


def _int8_columns(weight: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each column as int8 times its own scale (symmetric: zero stays zero)."""
    scales = np.maximum(np.abs(weight).max(axis=0), _EPSILON) / _INT8_MAX
    quantised = np.clip(np.rint(weight / scales), -_INT8_MAX, _INT8_MAX).astype(np.int8)
    return np.ascontiguousarray(quantised), scales.astype(np.float32)


def _add_and_normalise(g: _Graph, product: str, residual: str, prefix: str) -> str:
    """LayerNorm(product + the dense layer's bias + residual), in one operator."""
    return g.op(
        "SkipLayerNormalization",
        product,
        residual,
        g.weight(f"{prefix}.LayerNorm.weight"),
        g.weight(f"{prefix}.LayerNorm.bias"),
        g.weight(f"{prefix}.dense.bias"),
        domain=_FUSED,
        epsilon=_EPSILON,
    )


def _layer_norm(g: _Graph, states: str, name: str) -> str:
    return g.op(
        "LayerNormalization",
        states,
        g.weight(f"{name}.weight"),
        g.weight(f"{name}.bias"),
        axis=-1,
        epsilon=_EPSILON,
    )
