"""Llama variants read from a ``config.json``: OLMo 2 (``olmo2``), Command-R (``cohere``),
StarCoder2 (``starcoder2``), GLM-4 (``glm4``), StableLM 2 (``stablelm``) and Granite
(``granite``), each as ``transformers`` 5.24 builds it with its own class
(``models/<type>/modeling_<type>.py`` and ``configuration_<type>.py``, with
``integrations/sdpa_attention.py`` and ``masking_utils.py``).

Every one is a rotary decoder with grouped-query attention; what its layer keeps is the
Llama layer (``llama.layer_parts``: projection inputs, Q/K/V, softmax or SDPA's
log-sum-exp, SwiGLU) with these differences (b = 1, p bytes of the dtype):

* **Granite** is Llama with four scale factors: ``embedding_multiplier``,
  ``residual_multiplier``, ``attention_multiplier`` (the softmax scale) and
  ``logits_scaling``. Each multiplies by a Python number, which keeps nothing (the
  derivative of ``x * c`` needs only ``c``): the same bytes as Llama, measured.
* **OLMo 2** has no norm before attention or MLP: the projections read the layer input
  (and the attention residual). It normalises after them (``post_attention_layernorm``,
  ``post_feedforward_layernorm``) and normalises Q and K over the whole projection
  (``q_norm`` over a·d, ``k_norm`` over k·d). ``Olmo2RMSNorm`` multiplies the fp32
  normalised tensor by the weight *before* casting back, so it keeps the fp32 input, the
  fp32 rsqrt per token and the fp32 normalised tensor: 8·s·W + 4·s for a width W.
* **Cohere** (Command-R): one ``CohereLayerNorm`` (a LayerNorm without bias written in
  fp32) feeds attention and MLP in parallel (``x + attn(n) + mlp(n)``): the projections
  share one input. The norm keeps x − mean twice (``pow`` and the product with rsqrt each
  compute their own), the fp32 rsqrt, the fp32 normalised tensor and the weight cast to
  fp32 (kept by the product; the weight itself with an fp32 model): 12·s·W + 4·s (+ 4·W).
  ``use_qk_norm`` normalises every query and key head the same way (width d). The
  rotary embedding upcasts Q and K to fp32 and back: the rotated Q and K are new
  tensors. ``logit_scale`` multiplies the logits by a Python number (nothing kept).
* **StarCoder2**: ``nn.LayerNorm`` with biases (input, mean and rstd), biases on every
  projection, a plain MLP ``c_proj(act(c_fc(x)))`` (the activation keeps its input, the
  output is ``c_proj``'s input), residual dropout after attention and MLP, embedding
  dropout, and a sliding window on every layer (``sliding_window``).
* **GLM-4**: four RMSNorms a layer (``post_self_attn_layernorm`` and
  ``post_mlp_layernorm`` after the blocks), a fused ``gate_up_proj`` (SiLU keeps the gate
  view and the product the up view: the whole (s, 2i) output), and a partial rotary
  embedding whose cos and sin are re-interleaved in every layer
  (``cos[..., :w/2].repeat_interleave(2)``): each layer keeps its own cos and sin
  (2·p·s·w) and the model-level tables are kept by nobody. The rotated Q and K are
  concatenated with their pass-through part into new contiguous tensors, so the SDPA
  output is laid out (a, s, d) and ``transpose().contiguous()`` copies it: the kernel's
  output (p·s·a·d) is kept besides the output projection's input.
* **StableLM** (StableLM 2): ``nn.LayerNorm`` with bias, partial rotary (Q and K
  concatenated as in GLM-4, so SDPA's output is copied too), q/k/v biases
  (``use_qkv_bias``), the optional per-head LayerNorm of Q and K (``qk_layernorm``: each
  head's LayerNorm keeps a view of the projection output, so the whole Q and K
  projection outputs, plus a mean and rstd per head and token), the optional parallel
  residual (``use_parallel_residual``: one norm feeds attention and MLP), and dropout on
  the MLP output (``hidden_dropout``).

Masks: with a padded batch, or a sequence at least as long as a sliding window, SDPA
gets an explicit mask; it keeps its own copy in every layer (p·s²) and, without
``enable_gqa`` (also when the head size is above 256), K and V repeated to every head.

Outside the layers: the int64 token ids (StarCoder2: the embedding dropout's noise),
cos and sin (not GLM-4's, see above; recomputed under full recomputation), the final
norm, the LM head's input and the fp32 loss.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from gradacc_desktop.core.memory.activation_types import (
    Attention,
    Device,
    Family,
    Inputs,
    Part,
    dims_of,
)
from gradacc_desktop.core.memory.families import llama as _llama
from gradacc_desktop.core.memory.families.base import (
    ActivationLayout,
    Architecture,
    ConfigReader,
    Head,
    linear,
)
from gradacc_desktop.core.memory.families.common import (
    ACTIVATION_KEEPS,
    dropout_mask,
    layer_norm,
    repeated_kv_heads,
    rms_norm_fp32,
    rotary_decoder_outside,
    sdpa_needs_mask,
    uniform_layout,
)
from gradacc_desktop.core.memory.families.phi3 import rope_factor, rotary_width
from gradacc_desktop.core.text import trans_late

MODEL_TYPES = ("olmo2", "cohere", "starcoder2", "glm4", "stablelm", "granite")

#: the projections are q_proj/k_proj/v_proj/o_proj and gate_proj/up_proj/down_proj in
# transformers 5.24 configuration defaults for keys a file may omit
_DEFAULTS: dict[str, dict[str, int]] = {
    "olmo2": {"vocab_size": 50304, "hidden_size": 4096, "intermediate_size": 11008,
              "num_hidden_layers": 32, "num_attention_heads": 32,
              "max_position_embeddings": 2048},
    "cohere": {"vocab_size": 256000, "hidden_size": 8192, "intermediate_size": 22528,
               "num_hidden_layers": 40, "num_attention_heads": 64,
               "max_position_embeddings": 8192},
    "starcoder2": {"vocab_size": 49152, "hidden_size": 3072, "intermediate_size": 12288,
                   "num_hidden_layers": 30, "num_attention_heads": 24,
                   "num_key_value_heads": 2, "max_position_embeddings": 4096},
    "glm4": {"vocab_size": 151552, "hidden_size": 4096, "intermediate_size": 13696,
             "num_hidden_layers": 40, "num_attention_heads": 32, "num_key_value_heads": 2,
             "head_dim": 128, "max_position_embeddings": 131072},
    "stablelm": {"vocab_size": 50304, "hidden_size": 2560, "intermediate_size": 6912,
                 "num_hidden_layers": 32, "num_attention_heads": 32,
                 "num_key_value_heads": 32, "max_position_embeddings": 4096},
    "granite": {"vocab_size": 32000, "hidden_size": 4096, "intermediate_size": 11008,
                "num_hidden_layers": 32, "num_attention_heads": 32,
                "max_position_embeddings": 2048},
}  # fmt: skip

#: partial rotary factor when neither the RoPE dict nor the file names one
_ROTARY_FACTOR = {"glm4": 0.5, "stablelm": 0.25}
#: tie_word_embeddings when the file does not say
_TIED = {"cohere": True, "starcoder2": True}
#: the hidden activation when the file does not say
_ACTIVATION = {"starcoder2": "gelu_pytorch_tanh"}


@dataclass(frozen=True)
class VariantSpec:
    #: biases of q/k/v, of o_proj and of the MLP projections
    qkv_bias: bool
    o_bias: bool
    mlp_bias: bool
    tie_embeddings: bool
    activation: str
    #: width of cos and sin (the rotated part of every query and key head)
    rotary_dim: int
    #: normalisation of Q and K (OLMo 2 always; Cohere ``use_qk_norm``; StableLM
    #: ``qk_layernorm``)
    qk_norm: bool
    #: one norm feeds attention and MLP in parallel (Cohere; StableLM
    #: ``use_parallel_residual``)
    parallel: bool
    #: every layer's window (StarCoder2; None: the whole sequence)
    sliding_window: int | None
    #: Granite's multipliers and Cohere's ``logit_scale`` (Python numbers: nothing kept)
    embedding_multiplier: float = 1.0
    residual_multiplier: float = 1.0
    attention_multiplier: float = 1.0
    logits_scaling: float = 1.0
    logit_scale: float = 1.0


def _number(config: ConfigReader, key: str, default: float) -> float:
    value = config.number(key, default)
    assert value is not None
    return value


def _scales(config: ConfigReader) -> dict[str, float]:
    """Granite's four multipliers and Cohere's logit scale (defaults of the classes)."""
    if config.model_type == "granite":
        keys = ("embedding_multiplier", "residual_multiplier", "attention_multiplier")
        scales = {key: _number(config, key, 1.0) for key in (*keys, "logits_scaling")}
        return scales
    if config.model_type == "cohere":
        return {"logit_scale": _number(config, "logit_scale", 0.0625)}
    return {}


def parse(config: ConfigReader) -> Architecture:
    mt = config.model_type
    d = _DEFAULTS[mt]
    hidden = config.integer("hidden_size", d["hidden_size"])
    heads = config.integer("num_attention_heads", d["num_attention_heads"])
    layers = config.integer("num_hidden_layers", d["num_hidden_layers"])
    kv_heads = config.integer("num_key_value_heads", d.get("num_key_value_heads", heads))
    if heads % kv_heads:
        raise config.unsupported(
            "num_attention_heads must divide by num_key_value_heads", "num_key_value_heads"
        )
    if "head_dim" not in d and not config.has("head_dim") and hidden % heads:
        raise config.unsupported("hidden_size must divide by num_attention_heads", "hidden_size")
    head_dim = config.integer("head_dim", d.get("head_dim", hidden // max(heads, 1)))
    if mt == "stablelm" and (hidden % heads or head_dim != hidden // heads):
        # the attention uses hidden / heads, the rotary table head_dim
        raise config.unsupported(
            "StableLM needs head_dim = hidden_size / num_attention_heads", "head_dim"
        )
    activation = config.text("hidden_act", _ACTIVATION.get(mt, "silu"))
    # a gated MLP's activation may keep its input at most; StarCoder2's plain MLP takes
    # any activation whose saved tensors are known (gelu_new keeps four, as in GPT-2)
    keeps = ACTIVATION_KEEPS.get(activation)
    if keeps is None or (mt != "starcoder2" and keeps > 1):
        raise config.unsupported(f"hidden_act {activation!r} is not modelled", "hidden_act")
    rotary_dim = head_dim
    if mt in _ROTARY_FACTOR:
        factor = rope_factor(config)
        key = "partial_rotary_factor"
        if factor is None:
            factor = _number(config, key, _ROTARY_FACTOR[mt])
        rotary_dim = rotary_width(config, head_dim, factor, key)
        if mt == "stablelm" and int(head_dim * factor) % 2:
            raise config.unsupported(
                f"{key} {factor!r} gives an odd rotary width of {int(head_dim * factor)}; "
                "StableLM cannot run it",
                key,
            )
    # biases: attention_bias on q/k/v and o (GLM-4: q/k/v only, default true);
    # StarCoder2's use_bias on every projection; StableLM's use_qkv_bias on q/k/v;
    # Granite's mlp_bias on gate/up/down
    if mt == "starcoder2":
        qkv_bias = o_bias = mlp_bias = config.flag("use_bias", True)
    elif mt == "stablelm":
        qkv_bias, o_bias, mlp_bias = config.flag("use_qkv_bias", False), False, False
    else:
        qkv_bias = config.flag("attention_bias", mt == "glm4")
        o_bias = qkv_bias and mt != "glm4"
        mlp_bias = mt == "granite" and config.flag("mlp_bias", False)
    spec = VariantSpec(
        qkv_bias=qkv_bias,
        o_bias=o_bias,
        mlp_bias=mlp_bias,
        tie_embeddings=config.flag("tie_word_embeddings", _TIED.get(mt, False)),
        activation=activation,
        rotary_dim=rotary_dim,
        qk_norm=(
            mt == "olmo2"
            or (mt == "cohere" and config.flag("use_qk_norm", False))
            or (mt == "stablelm" and config.flag("qk_layernorm", False))
        ),
        parallel=mt == "cohere"
        or (mt == "stablelm" and config.flag("use_parallel_residual", False)),
        sliding_window=config.optional_int("sliding_window") if mt == "starcoder2" else None,
        **_scales(config),
    )
    return Architecture(
        model_type=mt,
        family=Family.LLAMA_VARIANT,
        head=Head.CAUSAL_LM,
        hidden=hidden,
        layers=layers,
        heads=heads,
        kv_heads=kv_heads,
        head_dim=head_dim,
        intermediate=config.integer("intermediate_size", d["intermediate_size"]),
        vocab=config.integer("vocab_size", d["vocab_size"]),
        max_positions=config.integer("max_position_embeddings", d["max_position_embeddings"]),
        spec=spec,
    )


def lora_naming(arch: Architecture) -> str | None:
    """``"llama"`` where every projection has Llama's name; None for StarCoder2 (MLP
    ``c_fc``/``c_proj``) and GLM-4 (fused ``gate_up_proj``): OLMo 2, Cohere, StableLM
    and Granite."""
    return None if arch.model_type in ("starcoder2", "glm4") else "llama"


def _llama_spec(arch: Architecture) -> _llama.LlamaSpec:
    """Granite as the Llama module describes it (same parameters, same layer)."""
    spec: VariantSpec = arch.spec
    return _llama.LlamaSpec(
        qkv_bias=spec.qkv_bias,
        o_bias=spec.o_bias,
        mlp_bias=spec.mlp_bias,
        qk_norm=False,
        tie_embeddings=spec.tie_embeddings,
        activation=spec.activation,
        sliding_window=None,
        sliding_layers=0,
    )


def parameters(arch: Architecture) -> int:
    spec: VariantSpec = arch.spec
    mt = arch.model_type
    if mt == "granite":
        return _llama.parameters(replace(arch, spec=_llama_spec(arch)))
    h, a, k, d, i, v = (
        arch.hidden,
        arch.heads,
        arch.kv_heads,
        arch.head_dim,
        arch.intermediate,
        arch.vocab,
    )
    attention = _llama.attention_parameters(
        arch, qkv_bias=spec.qkv_bias, o_bias=spec.o_bias, qk_norm=False
    )
    if spec.qk_norm:
        attention += (a + k) * d  # one weight per channel (no bias)
    if mt == "starcoder2":
        mlp = linear(h, i, spec.mlp_bias) + linear(i, h, spec.mlp_bias)
    else:
        mlp = 2 * linear(h, i, spec.mlp_bias) + linear(i, h, spec.mlp_bias)
    norm = {"olmo2": 1, "cohere": 1, "starcoder2": 2, "glm4": 1, "stablelm": 2}[mt] * h
    norms = {"olmo2": 2, "cohere": 1, "starcoder2": 2, "glm4": 4, "stablelm": 2}[mt]
    if mt == "stablelm" and spec.parallel:
        norms = 1
    layer = attention + mlp + norms * norm
    head = 0 if spec.tie_embeddings else v * h
    return v * h + arch.layers * layer + norm + head


# --------------------------------------------------------------------------- layouts


def olmo2_rms_norm(s: int, width: int) -> int:
    """``Olmo2RMSNorm``: fp32 input (kept by ``pow`` and ``mul``), fp32 rsqrt per token and
    the fp32 normalised tensor (kept by ``weight * x`` before the cast back)."""
    return 8 * s * width + 4 * s


def cohere_layer_norm(inputs: Inputs, s: int, width: int, groups: int = 1) -> int:
    """``CohereLayerNorm`` over ``width`` (``groups`` vectors per token): x − mean twice
    (fp32), the fp32 rsqrt per vector, the fp32 normalised tensor and, unless the model
    is fp32, the weight's fp32 copy (``groups``·``width``)."""
    p = inputs.dtype.bytes
    weight = 4 * groups * width if p != 4 else 0
    return 12 * s * groups * width + 4 * s * groups + weight


def _math_path(inputs: Inputs) -> bool:
    """SDPA with dropout on a CPU: the fp32 math fallback."""
    return inputs.attention is Attention.SDPA and inputs.dropout and inputs.device is Device.CPU


def layer_parts(arch: Architecture, inputs: Inputs) -> dict[Part, int]:
    spec: VariantSpec = arch.spec
    mt = arch.model_type
    dims = dims_of(inputs)
    p = inputs.dtype.bytes
    s, h, a, k, d, i = dims.s, dims.h, dims.a, dims.k, dims.d, dims.i
    sdpa = inputs.attention is Attention.SDPA
    masked = sdpa_needs_mask(inputs, s, spec.sliding_window)
    parts = _llama.layer_parts(inputs, masked=masked, qk_norm=False, activation=spec.activation)
    fused = sdpa and not _math_path(inputs)
    if fused and not masked and d > 256 and 1 < k < a:
        # transformers uses enable_gqa only up to a head size of 256: K and V repeated
        parts[Part.ATTN_QKV] = p * s * (a + 2 * repeated_kv_heads(a, k)) * d
    if mt == "olmo2":
        del parts[Part.ATTN_NORM], parts[Part.MLP_NORM]
        parts[Part.ATTN_POST_NORM] = olmo2_rms_norm(s, h)
        parts[Part.MLP_POST_NORM] = olmo2_rms_norm(s, h)
        parts[Part.ATTN_QK_NORM] = olmo2_rms_norm(s, a * d) + olmo2_rms_norm(s, k * d)
    elif mt == "cohere":
        parts[Part.ATTN_NORM] = cohere_layer_norm(inputs, s, h)
        # the norm's output is the input of q/k/v and gate/up alike
        del parts[Part.MLP_NORM], parts[Part.MLP_IN_PROJ_INPUT]
        if spec.qk_norm:
            parts[Part.ATTN_QK_NORM] = cohere_layer_norm(inputs, s, d, a) + cohere_layer_norm(
                inputs, s, d, k
            )
    elif mt == "starcoder2":
        parts[Part.ATTN_NORM] = parts[Part.MLP_NORM] = layer_norm(inputs, s, h)
        # c_fc output (the activation's input, unless it keeps none); c_proj keeps the
        # activation output
        parts[Part.MLP_ACTIVATION] = ACTIVATION_KEEPS[spec.activation] * p * s * i
        if inputs.dropout:
            parts[Part.ATTN_RESID_DROPOUT] = dropout_mask(inputs, s * h)
            parts[Part.MLP_RESID_DROPOUT] = dropout_mask(inputs, s * h)
    elif mt == "glm4":
        parts[Part.ATTN_POST_NORM] = rms_norm_fp32(p, s, h)
        parts[Part.MLP_POST_NORM] = rms_norm_fp32(p, s, h)
        # cos and sin re-interleaved in every layer, kept by the products with them
        parts[Part.ATTN_ROTARY] = 2 * p * s * spec.rotary_dim
        # gate_up_proj's (s, 2i) output (the activation keeps the gate view, the product
        # the up view) and the activation's output, whatever the activation
        parts[Part.MLP_ACTIVATION] = 3 * p * s * i
        if fused:
            parts[Part.ATTN_KERNEL_OUTPUT] = p * s * a * d
    elif mt == "stablelm":
        parts[Part.ATTN_NORM] = layer_norm(inputs, s, h)
        if spec.parallel:
            del parts[Part.MLP_NORM], parts[Part.MLP_IN_PROJ_INPUT]
        else:
            parts[Part.MLP_NORM] = layer_norm(inputs, s, h)
        if spec.qk_norm:
            # each head's LayerNorm keeps a view of the projection output (the whole
            # storage) and its mean and rstd
            stat = 4 if inputs.device is Device.CUDA else p
            parts[Part.ATTN_QK_NORM] = p * s * (a + k) * d + 2 * stat * s * (a + k)
        if fused:
            parts[Part.ATTN_KERNEL_OUTPUT] = p * s * a * d
        if inputs.dropout:
            parts[Part.MLP_RESID_DROPOUT] = dropout_mask(inputs, s * h)
    return parts


def _final_norm(arch: Architecture, inputs: Inputs) -> int:
    dims = dims_of(inputs)
    s, h = dims.s, dims.h
    mt = arch.model_type
    if mt == "olmo2":
        return olmo2_rms_norm(s, h)
    if mt == "cohere":
        return cohere_layer_norm(inputs, s, h)
    if mt in ("starcoder2", "stablelm"):
        return layer_norm(inputs, s, h)
    return rms_norm_fp32(inputs.dtype.bytes, s, h)


def outside(arch: Architecture, inputs: Inputs) -> dict[Part, int]:
    spec: VariantSpec = arch.spec
    dims = dims_of(inputs)
    embeddings = 8 * dims.s  # int64 token ids
    if arch.model_type == "starcoder2" and inputs.dropout:
        embeddings += dropout_mask(inputs, dims.s * dims.h)
    parts = rotary_decoder_outside(
        inputs,
        embeddings=embeddings,
        # GLM-4's layers keep their own re-interleaved copies (ATTN_ROTARY)
        rotary_dim=0 if arch.model_type == "glm4" else spec.rotary_dim,
        final_norm=_final_norm(arch, inputs),
    )
    if arch.model_type == "olmo2" and Part.ROTARY in parts:
        # Olmo2RotaryEmbedding returns cos and sin in fp32 (the products upcast Q and K)
        parts[Part.ROTARY] = 2 * 4 * dims.s * spec.rotary_dim
    return parts


def layout(arch: Architecture, inputs: Inputs) -> ActivationLayout:
    return uniform_layout(
        arch, inputs, layer_parts(arch, inputs), outside(arch, inputs), notes=_notes(arch, inputs)
    )


def _notes(arch: Architecture, inputs: Inputs) -> tuple[str, ...]:
    spec: VariantSpec = arch.spec
    mt = arch.model_type
    notes: list[str] = []
    if mt == "granite":
        notes.append(
            trans_late(
                "Activation",
                "Granite's embedding, residual, attention and logits multipliers are "
                "Python numbers: multiplying by them keeps nothing (the Llama layer).",
            )
        )
    elif mt == "olmo2":
        notes.append(
            trans_late(
                "Activation",
                "OLMo 2 normalises after attention and MLP and over the whole Q and K "
                "projections; its RMSNorm keeps the fp32 input and normalised tensor.",
            )
        )
    elif mt == "cohere":
        notes.append(
            trans_late(
                "Activation",
                "Command-R: one fp32 LayerNorm feeds attention and MLP in parallel; it "
                "keeps x - mean twice, the normalised tensor and its fp32 weight.",
            )
        )
        notes.append(
            trans_late(
                "Activation",
                "The logit scale is a Python number: scaling the logits keeps nothing.",
            )
        )
        if spec.qk_norm:
            notes.append(
                trans_late(
                    "Activation",
                    "use_qk_norm: every query and key head has its own fp32 LayerNorm.",
                )
            )
    elif mt == "starcoder2":
        notes.append(
            trans_late(
                "Activation",
                "StarCoder2: LayerNorm with bias and a plain MLP (c_fc, activation, "
                "c_proj); dropout after attention, after the MLP and on the embeddings.",
            )
        )
    elif mt == "glm4":
        notes.append(
            trans_late(
                "Activation",
                "GLM-4 re-interleaves cos and sin in every layer (each layer keeps its own "
                "copy) and has four RMSNorms a layer and a fused gate/up projection.",
            )
        )
    elif mt == "stablelm":
        notes.append(
            trans_late(
                "Activation",
                "StableLM: LayerNorm with bias, partial rotary embedding, dropout on the "
                "MLP output.",
            )
        )
        if spec.qk_norm:
            notes.append(
                trans_late(
                    "Activation",
                    "qk_layernorm: each head's LayerNorm keeps the whole Q or K projection "
                    "output plus a mean and rstd per head and token.",
                )
            )
        if spec.parallel:
            notes.append(
                trans_late(
                    "Activation",
                    "Parallel residual: one LayerNorm feeds attention and MLP.",
                )
            )
    if spec.rotary_dim < arch.head_dim:
        notes.append(
            trans_late(
                "Activation",
                "Partial rotary embedding: cos and sin cover only part of each head.",
            )
        )
    if mt in ("glm4", "stablelm") and inputs.attention is Attention.SDPA:
        notes.append(
            trans_late(
                "Activation",
                "SDPA's output follows the layout of the contiguous Q: the copy made for "
                "the output projection is kept besides the kernel's own output.",
            )
        )
    if spec.sliding_window is not None:
        notes.append(
            trans_late(
                "Activation",
                "Sliding window: from a sequence as long as the window, SDPA takes an "
                "explicit mask.",
            )
        )
    if inputs.attention is Attention.SDPA:
        notes.append(
            trans_late(
                "Activation",
                "With an explicit mask (padded batch or sliding window) SDPA keeps a "
                "copy of the mask in every layer and K and V repeated to every head.",
            )
        )
    return tuple(notes)
