"""DeepSeek-V2 and DeepSeek-V3 (``model_type`` ``deepseek_v2``, ``deepseek_v3``): multi-head
latent attention and a mixture of experts with shared experts, read from
``transformers`` 5.24 ``models/deepseek_v2/modeling_deepseek_v2.py`` and
``models/deepseek_v3/modeling_deepseek_v3.py`` (and their ``configuration_*.py``), with
``integrations/moe.py``, ``integrations/sdpa_attention.py`` and PyTorch's SDPA kernels.

Symbols: s sequence, h hidden, a heads, n = ``qk_nope_head_dim``, r =
``qk_rope_head_dim``, qk = n + r, v = ``v_head_dim``, c = ``kv_lora_rank``, q =
``q_lora_rank``, i dense ``intermediate_size``, m ``moe_intermediate_size``, E routed
experts, k experts per token, S = k·s routed pairs, p bytes of the dtype.

**Multi-head latent attention** (per layer, after the fp32 input RMSNorm):

* the norm output (p·s·h) feeds ``q_proj`` (V2-Lite: ``q_lora_rank`` null) or
  ``q_a_proj``, and ``kv_a_proj_with_mqa``; with a query latent, ``q_a_layernorm`` (an
  fp32 RMSNorm over q) and ``q_b_proj``'s input (p·s·q); ``kv_a_layernorm`` over the
  first c of the (c + r) compressed output (its fp32 copy is a new contiguous tensor)
  and ``kv_b_proj``'s input (p·s·c). Together: the projection inputs.
* the rotary part: V3 rotates the last r of every query head and the one shared key
  part with cos and sin (kept once per model, p·s·r each; interleaved or not); V2
  multiplies complex views by ``freqs_cis`` (complex64, 4·s·r bytes once per model); the
  rotation makes new tensors and keeps nothing else.
* ``kv_b_proj`` expands the latent to every head: (s, a·(n + v)); V is a view of it, so
  whoever keeps V keeps the whole output. K is a new (a, s, qk) tensor (k_nope copied,
  the rotated shared part broadcast), Q a new (a, s, qk) tensor (``torch.cat``).
* eager: Q and K in the dtype (p·a·s·qk each), the ``kv_b_proj`` output (V's base,
  p·s·a·(n + v)), the fp32 softmax (4·a·s²) and its cast (p·a·s², kept by the product
  with V unless dropout comes between), the transposed output copy (``o_proj``'s input,
  p·s·a·v). There is one key/value head per query head: ``repeat_kv`` repeats nothing.
* SDPA on a CPU: the flash kernel needs one head size for Q, K and V, so with qk ≠ v
  (every published DeepSeek) SDPA takes its math path, in fp32: Q and K scaled (4·a·s·qk
  each), V (an fp32 copy, 4·a·s·v; in fp32 the view itself), the fp32 softmax
  (4·a·s²; an explicit mask is added in place and not kept), then the output cast back
  and copied for ``o_proj``. With qk = v (and no dropout) the flash kernel runs: Q, K,
  the ``kv_b_proj`` output, the kernel output laid out like Q (so ``o_proj``'s input is
  a copy), the fp32 log-sum-exp, and an explicit mask (p·s²) when there is one.
* SDPA on CUDA (derived from PyTorch's kernel selection, not measured): with qk ≠ v the
  memory-efficient kernel (flash needs equal sizes) keeps Q, K, the ``kv_b_proj``
  output, its output (laid out (s, a, v): the ``o_proj`` input itself) and the fp32
  log-sum-exp; an explicit mask (p·s²) when there is one. With qk = v the flash kernel,
  as on a CPU.

The YaRN ``mscale`` (``rope_parameters``) only changes the softmax scale, a Python
number: no tensor. ``num_nextn_predict_layers`` (V3's multi-token prediction layer) is
not built by transformers: neither its parameters nor its activations are counted.

**Mixture of experts.** The first ``first_k_dense_replace`` layers have a SwiGLU MLP of
``intermediate_size``; every later one (transformers ignores ``moe_layer_freq``, which
must be 1) has routed experts, a router and ``n_shared_experts`` shared experts run as
one SwiGLU MLP of width m·``n_shared_experts`` on every token.

Router (``*TopkRouter``), in fp32: ``F.linear(x.float(), weight.float())`` keeps an fp32
copy of its input (4·s·h; in fp32 the norm output itself, which the shared experts keep
anyway) and, when the weights were cast to the dtype (``model.to(dtype)``, as measured;
``from_pretrained`` keeps ``gate.weight`` in fp32 and then makes no copy), an fp32 copy
of the router weight (4·E·h, once per micro-batch). V2: softmax output (4·s·E), int64
top-k indices (8·S); ``group_limited_greedy`` also keeps the bool group mask of its
``masked_fill`` (s·E). V3: sigmoid output (4·s·E); the group choice adds the correction
bias and picks groups and experts with top-k whose values are discarded (freed before the
backward pass); ``gather`` keeps the int64 expert indices (8·S); with ``norm_topk_prob``
the in-place division keeps the fp32 divisor (4·s) and the fp32 weights (4·S).
``routed_scaling_factor`` multiplies by a number (nothing kept). transformers'
DeepSeek-V2 router ignores ``norm_topk_prob``.

Experts: ``grouped_mm`` (transformers' default on CPU with torch >= 2.9 and on CUDA
sm80+), as in ``moe.py``, with fp32 routing weights: three int64 index tensors (8·S
each), int32 offsets (4·E), the gathered tokens (p·S·h), the gate/up output (p·S·2m),
the activation output and the product (p·S·m each), the down output (p·S·h) and the
sorted fp32 weights (4·S). Every tensor has S rows whatever the routing: the bytes do not
depend on which experts the router picks.

Outside the layers: the int64 token ids, the rotary tables (not kept under full
recomputation), the final RMSNorm, the LM head's input and the fp32 loss.

The file is read (sizes, defaults, routing) in ``core.memory.families.deepseek_config``.
"""

from __future__ import annotations

from gradacc_desktop.core.memory.activation_types import Attention, Device, Inputs, Part, StackKind
from gradacc_desktop.core.memory.families.base import (
    ActivationLayout,
    Architecture,
    Stack,
    linear,
)
from gradacc_desktop.core.memory.families.common import (
    ACTIVATION_KEEPS,
    causal_lm_loss,
    dropout_mask,
    logits_transient,
    rms_norm_fp32,
    sdpa_needs_mask,
)
from gradacc_desktop.core.memory.families.deepseek_config import DeepseekSpec
from gradacc_desktop.core.memory.families.deepseek_config import parse as parse
from gradacc_desktop.core.recompute import Recompute
from gradacc_desktop.core.text import trans_late

MODEL_TYPES = ("deepseek_v2", "deepseek_v3")


# --------------------------------------------------------------------------- parameters


def _attention_parameters(arch: Architecture) -> int:
    spec: DeepseekSpec = arch.spec
    h, a = arch.hidden, arch.heads
    qk, c, r, bias = spec.qk_head_dim, spec.kv_lora_rank, spec.qk_rope_head_dim, spec.attention_bias
    if spec.q_lora_rank is None:
        query = linear(h, a * qk, False)
    else:
        q = spec.q_lora_rank
        query = linear(h, q, bias) + q + linear(q, a * qk, False)  # q_a, its norm, q_b
    key_value = (
        linear(h, c + r, bias) + c + linear(c, a * (spec.qk_nope_head_dim + spec.v_head_dim), False)
    )
    return query + key_value + linear(a * spec.v_head_dim, h, bias)


def _mlp_parameters(h: int, width: int, bias: bool) -> int:
    return 2 * linear(h, width, bias) + linear(width, h, bias)


def _one_expert(arch: Architecture) -> int:
    """gate, up and down of one routed expert (no biases)."""
    spec: DeepseekSpec = arch.spec
    return 3 * arch.hidden * spec.expert_intermediate


def sparse_layers(arch: Architecture) -> int:
    spec: DeepseekSpec = arch.spec
    return arch.layers - spec.dense_layers


def parameters(arch: Architecture) -> int:
    spec: DeepseekSpec = arch.spec
    h, v = arch.hidden, arch.vocab
    layer = _attention_parameters(arch) + 2 * h  # and the two RMSNorm weights
    dense_mlp = _mlp_parameters(h, arch.intermediate, spec.mlp_bias)
    # the router (E×h; V3's correction bias is a buffer), the experts' 3-D gate_up and
    # down weights, the shared experts as one MLP
    sparse_mlp = (
        spec.experts * h
        + spec.experts * _one_expert(arch)
        + _mlp_parameters(h, spec.shared_intermediate, spec.mlp_bias)
    )
    total = arch.layers * layer + spec.dense_layers * dense_mlp
    total += sparse_layers(arch) * sparse_mlp
    head = 0 if spec.tie_embeddings else v * h
    return v * h + total + h + head


def idle_parameters(arch: Architecture) -> int:
    """The routed experts a token is not sent to: E − k experts in every sparse layer."""
    spec: DeepseekSpec = arch.spec
    return sparse_layers(arch) * (spec.experts - spec.top_k) * _one_expert(arch)


def routed_experts(arch: Architecture) -> tuple[int, int, int, int]:
    """For ``core.memory.models.ExpertFacts``: (experts, top-k, layers with experts, parameters of
    one layer's ``DeepseekV*Experts`` module: every routed expert's gate, up and down).
    The router and the shared experts stay on every GPU."""
    spec: DeepseekSpec = arch.spec
    return spec.experts, spec.top_k, sparse_layers(arch), spec.experts * _one_expert(arch)


# --------------------------------------------------------------------------- activations


def _fused_sdpa(arch: Architecture, inputs: Inputs) -> bool:
    """SDPA runs a fused kernel (else PyTorch's math path): on a CPU only the flash
    kernel, which needs one head size for Q, K and V and no dropout; on CUDA the flash or
    the memory-efficient kernel (different V size allowed)."""
    spec: DeepseekSpec = arch.spec
    if inputs.attention is Attention.EAGER:
        return False
    if inputs.device is Device.CUDA:
        return True
    return spec.qk_head_dim == spec.v_head_dim and not inputs.dropout


def _attention(arch: Architecture, inputs: Inputs) -> dict[Part, int]:
    spec: DeepseekSpec = arch.spec
    p, s, h, a = inputs.dtype.bytes, inputs.seq, arch.hidden, arch.heads
    qk, v, c = spec.qk_head_dim, spec.v_head_dim, spec.kv_lora_rank
    kv_b = p * s * a * (spec.qk_nope_head_dim + v)  # kv_b_proj output: V's base
    parts: dict[Part, int] = {Part.ATTN_NORM: rms_norm_fp32(p, s, h)}
    # q_proj / q_a_proj and kv_a_proj share the norm output; kv_b_proj's input, and
    # q_b_proj's with a query latent
    projections = p * s * h + p * s * c
    # kv_a_layernorm: its fp32 input is a contiguous copy of the first c columns of the
    # (c + r) kv_a_proj_with_mqa output; in fp32 the cast is a no-op and the norm keeps
    # the whole output through its view
    norms = rms_norm_fp32(p, s, c) + (4 * s * spec.qk_rope_head_dim if p == 4 else 0)
    if spec.q_lora_rank is not None:
        projections += p * s * spec.q_lora_rank
        norms += rms_norm_fp32(p, s, spec.q_lora_rank)
    parts[Part.QKV_PROJ_INPUT] = projections
    parts[Part.ATTN_QK_NORM] = norms
    parts[Part.ATTN_OUT_PROJ_INPUT] = p * s * a * v  # the (s, a·v) copy o_proj reads
    if inputs.attention is Attention.EAGER:
        parts[Part.ATTN_QKV] = 2 * p * a * s * qk + kv_b
        cast = 0 if (inputs.dropout or p == 4) else p * a * s * s
        parts[Part.ATTN_SOFTMAX] = 4 * a * s * s + cast
        if inputs.dropout:
            parts[Part.ATTN_DROPOUT] = dropout_mask(inputs, a * s * s) + p * a * s * s
    elif _fused_sdpa(arch, inputs):
        parts[Part.ATTN_QKV] = 2 * p * a * s * qk + kv_b
        parts[Part.ATTN_FUSED] = 4 * a * s
        if inputs.device is Device.CPU or qk == v:
            # the flash kernel's output follows Q's (a, s, ·) layout: o_proj reads a copy
            parts[Part.ATTN_KERNEL_OUTPUT] = p * s * a * v
        if sdpa_needs_mask(inputs, s, None):
            parts[Part.ATTN_MASK] = p * s * s
    else:
        # math path in fp32: scaled Q and Kᵀ, V (a copy; in fp32 the kv_b_proj view)
        value = kv_b if p == 4 else 4 * a * s * v
        parts[Part.ATTN_QKV] = 2 * 4 * a * s * qk + value
        parts[Part.ATTN_SOFTMAX] = 4 * a * s * s
        if inputs.dropout:
            parts[Part.ATTN_DROPOUT] = 2 * 4 * a * s * s  # fp32 noise and dropout output
    return parts


def _dense_mlp(arch: Architecture, inputs: Inputs) -> dict[Part, int]:
    spec: DeepseekSpec = arch.spec
    p, s, h, i = inputs.dtype.bytes, inputs.seq, arch.hidden, arch.intermediate
    return {
        Part.MLP_NORM: rms_norm_fp32(p, s, h),
        Part.MLP_IN_PROJ_INPUT: p * s * h,
        # gate output (the activation's input, unless ReLU), activation output, up output
        Part.MLP_ACTIVATION: (ACTIVATION_KEEPS[spec.activation] + 2) * p * s * i,
        Part.MLP_OUT_PROJ_INPUT: p * s * i,
    }


def _sparse_mlp(arch: Architecture, inputs: Inputs) -> dict[Part, int]:
    spec: DeepseekSpec = arch.spec
    p, s, h = inputs.dtype.bytes, inputs.seq, arch.hidden
    e, m = spec.experts, spec.expert_intermediate
    pairs = spec.top_k * s
    # fp32 router input (in fp32: the norm output itself), scores (softmax or sigmoid
    # output), int64 expert indices
    router = 4 * s * h + 4 * s * e + 8 * pairs
    if p != 4:
        router += 4 * e * h  # fp32 copy of the router weight cast to the dtype
    if spec.routing == "group_limited_greedy":
        router += s * e  # the bool mask of masked_fill
    if spec.norm_topk:
        router += 4 * s + 4 * pairs  # in-place division: fp32 divisor and weights
    dispatch = (
        8 * pairs  # int64 token index of the gather hidden[perm // k]
        + 8 * pairs  # int64 permutation of the weight gather weights[perm]
        + 4 * e  # int32 offsets of grouped_mm
        + p * pairs * h  # gathered tokens (the gate/up grouped_mm input)
        + 4 * pairs  # sorted fp32 routing weights (kept by the weighting multiply)
        + 8 * pairs  # int64 inverse permutation (undoing the sort)
    )
    # gate/up output (one 2m storage), activation output, product; the down output
    experts = p * pairs * 4 * m + p * pairs * h
    si = spec.shared_intermediate
    keeps = ACTIVATION_KEEPS[spec.activation]
    # the shared experts' SwiGLU on the norm output (kept here unless the model runs in
    # fp32: then the router keeps the same tensor)
    shared = (keeps + 3) * p * s * si + (p * s * h if p != 4 else 0)
    return {
        Part.MLP_NORM: rms_norm_fp32(p, s, h),
        Part.ROUTER: router,
        Part.EXPERT_DISPATCH: dispatch,
        Part.EXPERT_MLP: experts,
        Part.SHARED_EXPERT: shared,
    }


def _outside(arch: Architecture, inputs: Inputs) -> dict[Part, int]:
    spec: DeepseekSpec = arch.spec
    p, s, h = inputs.dtype.bytes, inputs.seq, arch.hidden
    parts: dict[Part, int] = {Part.EMBEDDINGS: 8 * s}  # int64 token ids
    if inputs.recompute is not Recompute.FULL:
        # V3: cos and sin in the dtype (s × r each); V2: complex64 freqs_cis (s × r/2)
        r = spec.qk_rope_head_dim
        parts[Part.ROTARY] = 2 * p * s * r if spec.v3 else 4 * s * r
    parts[Part.FINAL_NORM] = rms_norm_fp32(p, s, h)
    parts[Part.LM_HEAD_INPUT] = p * s * h
    parts[Part.LOSS] = causal_lm_loss(s, arch.vocab)
    return parts


def layout(arch: Architecture, inputs: Inputs) -> ActivationLayout:
    spec: DeepseekSpec = arch.spec
    p, s = inputs.dtype.bytes, inputs.seq
    checkpoint = {Part.LAYER_CHECKPOINT: p * s * arch.hidden}
    attention = _attention(arch, inputs)
    kinds = (
        (StackKind.DENSE, spec.dense_layers, _dense_mlp(arch, inputs)),
        (StackKind.SPARSE, sparse_layers(arch), _sparse_mlp(arch, inputs)),
    )
    present = [(kind, count, mlp) for kind, count, mlp in kinds if count]
    stacks = tuple(
        Stack(StackKind.LAYERS if len(present) == 1 else kind, count, attention | mlp, checkpoint)
        for kind, count, mlp in present
    )
    return ActivationLayout(
        stacks=stacks,
        outside=_outside(arch, inputs),
        logits=logits_transient(inputs, s, arch.vocab),
        notes=_notes(arch, inputs),
    )


def _notes(arch: Architecture, inputs: Inputs) -> tuple[str, ...]:
    spec: DeepseekSpec = arch.spec
    notes = [
        trans_late(
            "Activation",
            "Multi-head latent attention: queries and keys/values pass through low-rank "
            "latents with their own fp32 RMSNorms; kv_b_proj expands K and V to every "
            "head, and the attention keeps them at full width.",
        )
    ]
    if inputs.attention is Attention.SDPA and not _fused_sdpa(arch, inputs):
        notes.append(
            trans_late(
                "Activation",
                "On a CPU, SDPA with query/key heads of another size than the value heads "
                "takes the fp32 math path: fp32 Q, K and V and an fp32 softmax (a·s²) in "
                "every layer.",
            )
        )
    elif inputs.attention is Attention.SDPA and inputs.device is Device.CUDA:
        notes.append(
            trans_late(
                "Activation",
                "CUDA SDPA (not measured): the memory-efficient kernel when the value heads "
                "differ in size from the query/key heads, else flash; both keep Q, K, V, "
                "the output and an fp32 log-sum-exp.",
            )
        )
    if sparse_layers(arch):
        notes.append(
            trans_late(
                "Activation",
                "The router runs in fp32: every expert layer keeps an fp32 copy of its input "
                "and, with the weights cast to the data type, of its router weight (once per "
                "micro-batch; from_pretrained keeps that weight in fp32 and makes no copy).",
            )
        )
        notes.append(
            trans_late(
                "Activation",
                "DeepSeek-V3 routing: sigmoid scores plus the correction bias, the best "
                "groups, then the top-k experts; the weights are renormalised "
                "(norm_topk_prob) and scaled by routed_scaling_factor.",
            )
            if spec.v3
            else trans_late(
                "Activation",
                "DeepSeek-V2 routing: softmax scores, top-k over every expert (greedy) or "
                "within the best groups (group_limited_greedy, which keeps a mask); "
                "transformers does not renormalise the weights.",
            )
        )
        notes.append(
            trans_late(
                "Activation",
                "Experts run as grouped matrix products (transformers' default "
                "grouped_mm): every top-k copy of a token is gathered, so the bytes do not "
                "depend on how the router spreads the tokens.",
            )
        )
        if spec.shared_experts:
            notes.append(
                trans_late(
                    "Activation",
                    "Every token also goes through the shared experts, one SwiGLU MLP of "
                    "n_shared_experts × moe_intermediate_size.",
                )
            )
    if spec.dense_layers and sparse_layers(arch):
        notes.append(
            trans_late(
                "Activation",
                "The first first_k_dense_replace layers have a dense SwiGLU MLP of "
                "intermediate_size.",
            )
        )
    if spec.rope_type == "yarn":
        notes.append(
            trans_late(
                "Activation",
                "YaRN: the mscale correction only changes the softmax scale, a number; no "
                "tensor is kept for it.",
            )
        )
    if spec.mtp_layers:
        notes.append(
            trans_late(
                "Activation",
                "num_nextn_predict_layers: transformers does not build the multi-token "
                "prediction layer; neither its parameters nor its activations are counted.",
            )
        )
    if spec.quantized:
        notes.append(
            trans_late(
                "Activation",
                "quantization_config is ignored: the model is estimated unquantized, in "
                "the chosen data type.",
            )
        )
    return tuple(notes)
