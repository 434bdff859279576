"""Mamba state-space models: Mamba and Falcon-Mamba (``modeling_mamba.py`` and
``modeling_falcon_mamba.py`` of ``transformers`` 5.24).

A layer is an RMSNorm and a *mixer*, with the residual stream in fp32 between the layers
(``residual_in_fp32``, the default). The mixer, s tokens, model width h, d = d_inner
(``intermediate_size`` when the file has it, else ``expand`` × h), N ``state_size``,
r ``time_step_rank`` ("auto": ceil(h / 16)), K ``conv_kernel``, p bytes per element:

``in_proj`` (h -> 2d, kept input: the norm output) splits into x and the gate z (the
output p·s·2d stays: the convolution keeps x, ``silu(z)`` keeps z); a depthwise causal
``conv1d`` (its output p·d·(s + K - 1) kept by the activation); ``x_proj`` (d -> r + 2N,
kept input: the activation output u) gives dt, B and C; ``dt_proj`` (r -> d); the
selective scan; ``out_proj`` (d -> h).

Without the ``mamba-ssm`` and ``causal-conv1d`` kernels (always on a CPU, and on CUDA
when they are not installed) ``transformers`` runs the scan in PyTorch
(``mamba_selective_scan``, the sequential loop). It keeps, per layer:

* dt + bias and softplus(dt) (p·d·s each); A = -exp(A_log.float()) twice (the exp output
  and the negation, fp32 d·N each);
* the discretised A = exp(A·dt) and B = dt·B, fp32 (d, s, N) each (4·d·s·N), the fp32
  copies of B (4·s·N) and u (4·d·s) their products keep;
* every step's state: the fp32 state (d, N) kept by the next step's product (s - 1 of
  them), its copy in the dtype kept by the product with C (s), and the zero initial
  state; with fp32 weights the copies are the states themselves (s fp32 states);
* D.float() (4·d), y + u·D in fp32 (4·d·s, kept by the gate product), silu(z) (p·d·s),
  the output in the dtype (p·d·s, the ``out_proj`` input).

So a layer keeps about (12 + p)·s·d·N bytes on top of the O(s·(h + d)) tensors: the
activation grows with sequence × d_inner × state_size (Mamba-130m, s = 2048: 0.8 GB per
layer in bf16). Falcon-Mamba normalises dt, B and C with weightless fp32 RMSNorms
(``mixer_rms_eps``) before the scan: the fp32 inputs and rsqrt of each, the normalised dt
and C in the dtype; the ``x_proj`` output itself is then not kept.

``residual_in_fp32``: each block casts its input to the dtype for the norm, adds the
mixer output to the fp32 residual, so layers 2.. receive fp32 hidden states, the final
norm keeps its fp32 input and the fp32 normalised tensor, and under full recomputation
each checkpoint keeps its fp32 input (the first one the embedding output in the dtype).
A padded batch multiplies the mixer input and the convolution output by the int64
``attention_mask``, which every layer then keeps (one storage). The LM head returns
fp32 logits (``lm_head(...).float()``); the loss keeps their log-softmax.

With the kernels (CUDA only) the mixer is one fused ``MambaInnerFn`` (``mamba_inner_fn``
of ``mamba_ssm/ops/selective_scan_interface.py``, ``checkpoint_lvl`` 1) whose
``ctx.save_for_backward`` keeps the contiguous copy of x and z (p·2d·s), the ``x_proj``
output (p·s·(r + 2N)), B and C (contiguous, p·s·N each; Falcon-Mamba's normalised ones),
A, D and the dt bias (fp32), the scan's checkpoints (``selective_scan_cuda.fwd``: fp32
(d, ceil(s / 2048), 2N)) and the scan output (p·d·s); the convolution output and dt are
recomputed in the backward pass. That path is described, not estimated: nothing here
runs the kernels (no GPU).

Not modelled: ``use_mambapy`` with the ``mambapy`` package installed (its parallel scan
keeps other tensors) and ``torch.compile`` (the associative scan).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from gradacc_desktop.core.memory.activation_types import (
    Family,
    Inputs,
    Part,
    StackKind,
)
from gradacc_desktop.core.memory.families.base import (
    ActivationLayout,
    Architecture,
    ConfigReader,
    Head,
    Stack,
    linear,
)
from gradacc_desktop.core.memory.families.common import (
    ACTIVATION_KEEPS,
    causal_lm_loss,
    rms_norm_fp32,
)
from gradacc_desktop.core.precision import Precision
from gradacc_desktop.core.recompute import Recompute
from gradacc_desktop.core.text import trans_late

MODEL_TYPES = ("mamba", "falcon_mamba")

# MambaConfig / FalconMambaConfig defaults (transformers 5.24; the same for both)
_DEFAULTS: dict[str, int] = {
    "vocab_size": 50280,
    "hidden_size": 768,
    "state_size": 16,
    "num_hidden_layers": 32,
    "expand": 2,
    "conv_kernel": 4,
}


NO_NORM = ""
WEIGHTLESS_NORM = "weightless"  # Falcon-Mamba: FalconMambaWeightlessRMSNorm (buffers)
WEIGHTED_NORM = "weighted"  # Jamba: JambaRMSNorm with a weight each


@dataclass(frozen=True)
class Mixer:
    """The sizes of one Mamba mixer (``MambaMixer``, ``FalconMambaMixer``,
    ``JambaMambaMixer``)."""

    hidden: int
    d_inner: int
    state: int
    dt_rank: int
    conv_kernel: int
    #: biases of in_proj and out_proj (``use_bias`` / ``mamba_proj_bias``)
    proj_bias: bool
    #: bias of the depthwise convolution (``use_conv_bias`` / ``mamba_conv_bias``)
    conv_bias: bool
    #: the convolution's activation (``hidden_act``)
    activation: str
    #: RMSNorms on dt, B and C before the scan: ``NO_NORM``, ``WEIGHTLESS_NORM`` or
    #: ``WEIGHTED_NORM``
    bcdt_norm: str = NO_NORM


@dataclass(frozen=True)
class MambaSpec:
    mixer: Mixer
    #: the residual stream between the layers is fp32 (``residual_in_fp32``)
    residual_fp32: bool
    tie_embeddings: bool
    #: Falcon-Mamba's epsilon of the dt/B/C norms (None for Mamba)
    mixer_rms_eps: float | None
    #: ``use_mambapy`` (``use_falcon_mambapy`` for Falcon-Mamba)
    use_mambapy: bool


@dataclass(frozen=True)
class MixerBytes:
    """What one mixer keeps (bytes per sample), by where it comes from."""

    #: in_proj output (x and the gate z), the convolution output and its activation
    projections: int
    #: x_proj, dt, B, C, the discretisation and every step's state, D, the gate product
    scan: int
    #: the out_proj input
    out_proj_input: int

    @property
    def total(self) -> int:
        return self.projections + self.scan + self.out_proj_input


# --------------------------------------------------------------------------- parsing


def dt_rank_of(config: ConfigReader, key: str, hidden: int) -> int:
    """``time_step_rank`` / ``mamba_dt_rank``: a whole number, or "auto" (also when absent)
    = ceil(h / 16). The configuration classes refuse anything else, null included."""
    if key not in config.raw:
        return math.ceil(hidden / 16)
    value = config.raw[key]
    if value == "auto":
        return math.ceil(hidden / 16)
    if value is None or isinstance(value, str):
        raise config.unsupported(
            trans_late("ModelConfig", '{key} must be a whole number or "auto"').format(key=key),
            key,
        )
    return config.integer(key)


def activation_of(config: ConfigReader) -> str:
    """``hidden_act``: the convolution's activation (Jamba: also the MLP's)."""
    activation = config.text("hidden_act", "silu")
    if ACTIVATION_KEEPS.get(activation, 2) > 1:
        raise config.unsupported(
            trans_late("ModelConfig", "hidden_act {name} is not modelled").format(
                name=repr(activation)
            ),
            "hidden_act",
        )
    return activation


def _same(config: ConfigReader, key: str, used: int, used_key: str) -> None:
    """mamba-ssm's own names (``d_model``, ``n_layer``, ``d_inner``) that the -hf files
    repeat: transformers reads only its own keys, so a file where they differ describes
    a model transformers would not build."""
    if config.has(key) and config.integer(key) != used:
        raise config.unsupported(
            trans_late(
                "ModelConfig",
                "{key} ({value}) differs from {used_key} ({used}), the size transformers "
                "builds the model with",
            ).format(key=key, value=config.raw[key], used_key=used_key, used=used),
            key,
        )


def parse(config: ConfigReader) -> Architecture:
    mt = config.model_type
    d = _DEFAULTS
    hidden = config.integer("hidden_size", d["hidden_size"])
    layers = config.integer("num_hidden_layers", d["num_hidden_layers"])
    expand = config.integer("expand", d["expand"])
    # MambaConfig sets intermediate_size = expand · hidden_size, then the file's own
    # intermediate_size (an extra key) overrides it (Falcon-Mamba 7B: expand 16, 8192)
    d_inner = config.integer("intermediate_size", expand * hidden)
    _same(config, "d_model", hidden, "hidden_size")
    _same(config, "n_layer", layers, "num_hidden_layers")
    _same(config, "d_inner", d_inner, "intermediate_size")
    falcon = mt == "falcon_mamba"
    mixer = Mixer(
        hidden=hidden,
        d_inner=d_inner,
        state=config.integer("state_size", d["state_size"]),
        dt_rank=dt_rank_of(config, "time_step_rank", hidden),
        conv_kernel=config.integer("conv_kernel", d["conv_kernel"]),
        proj_bias=config.flag("use_bias", False),
        conv_bias=config.flag("use_conv_bias", True),
        activation=activation_of(config),
        bcdt_norm=WEIGHTLESS_NORM if falcon else NO_NORM,
    )
    # FalconMambaConfig replaces use_mambapy by the old use_falcon_mambapy key
    mambapy = config.flag("use_falcon_mambapy" if falcon else "use_mambapy", False)
    spec = MambaSpec(
        mixer=mixer,
        residual_fp32=config.flag("residual_in_fp32", True),
        tie_embeddings=config.flag("tie_word_embeddings", True),
        mixer_rms_eps=config.number("mixer_rms_eps", 1e-6) if falcon else None,
        use_mambapy=mambapy,
    )
    return Architecture(
        model_type=mt,
        family=Family.MAMBA,
        head=Head.CAUSAL_LM,
        hidden=hidden,
        layers=layers,
        # no attention: one "head" of size 1 keeps the attention terms of the time model
        # (12·layers·heads·head_dim per token) and the context-parallel exchange at ~0
        heads=1,
        kv_heads=1,
        head_dim=1,
        intermediate=d_inner,
        vocab=config.integer("vocab_size", d["vocab_size"]),
        # no positions: any length runs
        max_positions=None,
        spec=spec,
    )


# --------------------------------------------------------------------------- parameters


def mixer_parameters(m: Mixer) -> int:
    """in_proj, the depthwise conv1d, x_proj, dt_proj, A_log, D, out_proj (and Jamba's
    dt/B/C norm weights; Falcon-Mamba's are buffers)."""
    h, d, n, r, k = m.hidden, m.d_inner, m.state, m.dt_rank, m.conv_kernel
    total = linear(h, 2 * d, m.proj_bias)
    total += d * k + (d if m.conv_bias else 0)
    total += linear(d, r + 2 * n, False) + linear(r, d, True)
    total += d * n + d  # A_log, D
    total += linear(d, h, m.proj_bias)
    if m.bcdt_norm == WEIGHTED_NORM:
        total += r + 2 * n
    return total


def parameters(arch: Architecture) -> int:
    spec: MambaSpec = arch.spec
    h, v = arch.hidden, arch.vocab
    layer = h + mixer_parameters(spec.mixer)  # the block's norm and its mixer
    head = 0 if spec.tie_embeddings else v * h
    return v * h + arch.layers * layer + h + head


def lookup_parameters(arch: Architecture) -> int:
    """The input embedding is a lookup only when the LM head has its own weight."""
    spec: MambaSpec = arch.spec
    return 0 if spec.tie_embeddings else arch.vocab * arch.hidden


# --------------------------------------------------------------------------- activations


def _bcdt(m: Mixer, p: int, s: int) -> int:
    """The ``x_proj`` output as dt, B and C reach the scan (B's fp32 copy included).

    No norms (Mamba): the x_proj output (dt_proj keeps its dt view, every step's product
    keeps a C view) and the fp32 copy of B (B itself with fp32 weights).
    Falcon-Mamba (``x.float()``, ``x * rsqrt(mean(x²) + eps)``, ``.type_as``): per norm the
    fp32 input and rsqrt; dt and C normalised in the dtype (kept by dt_proj and by the
    products with C); B normalised is kept only as its fp32 copy. Jamba (``JambaRMSNorm``,
    ``weight * x.to(dtype)``): per norm the fp32 input, rsqrt and normalised tensor in the
    dtype (kept by the weight), the weighted dt and C (kept as above) and B's fp32 copy.
    With fp32 weights the casts are no-ops: the x_proj output itself replaces the fp32
    inputs, the same bytes."""
    r, n = m.dt_rank, m.state
    if m.bcdt_norm == NO_NORM:
        return p * s * (r + 2 * n) + (4 * s * n if p < 4 else 0)
    weighted = m.bcdt_norm == WEIGHTED_NORM
    dt = 4 * s * r + 4 * s + p * s * r + (p * s * r if weighted else 0)
    b = 4 * s * n + 4 * s + (p * s * n if weighted else 0) + 4 * s * n
    c = 4 * s * n + 4 * s + p * s * n + (p * s * n if weighted else 0)
    return dt + b + c


def mixer_bytes(m: Mixer, inputs: Inputs) -> MixerBytes:
    """One mixer on the PyTorch path (``mamba_selective_scan``, the sequential loop),
    bytes per sample; its input (the norm output, kept by in_proj) is not included."""
    p, s = inputs.dtype.bytes, inputs.seq
    d, n, k = m.d_inner, m.state, m.conv_kernel
    low = p < 4  # bf16/fp16: the .float() casts are copies
    projections = 2 * p * s * d  # in_proj output: x (kept by conv1d) and z (by silu)
    if ACTIVATION_KEEPS[m.activation]:
        projections += p * d * (s + k - 1)  # conv1d output (padded by K - 1) kept by SiLU
    elif inputs.padded:
        projections += p * s * d  # ReLU keeps its output, and the masked copy is another
    projections += p * s * d  # the activation output u (x_proj input, u·D)
    scan = _bcdt(m, p, s)
    scan += 2 * p * d * s  # dt + bias (kept by softplus) and softplus(dt)
    scan += 2 * 4 * d * n  # exp(A_log) and its negation A (fp32)
    scan += 2 * 4 * d * s * n  # discretised A = exp(A·dt) and B = dt·B (fp32)
    if low:
        scan += 4 * d * s  # u.float() kept by B·u
    scan += p * d * n  # the zero initial state
    if low:
        # fp32 states kept by the next step's product, their copies kept by the product
        # with C
        scan += 4 * d * n * (s - 1) + p * d * n * s
        scan += 4 * d  # D.float()
    else:
        scan += 4 * d * n * s  # every state, kept by both products
    scan += 4 * d * s  # y + u·D in fp32, kept by the gate product
    scan += p * d * s  # silu(z)
    return MixerBytes(projections, scan, p * d * s)


def layout(arch: Architecture, inputs: Inputs) -> ActivationLayout:
    """The PyTorch path transformers runs without the mamba-ssm kernels (measured)."""
    spec: MambaSpec = arch.spec
    mixer = mixer_bytes(spec.mixer, inputs)
    p, s, h, v = inputs.dtype.bytes, inputs.seq, arch.hidden, arch.vocab
    full = inputs.recompute is Recompute.FULL
    # the layers between hold fp32 hidden states unless the weights are fp32 anyway
    fp32_stream = spec.residual_fp32 and p < 4
    layer = {
        Part.MLP_NORM: rms_norm_fp32(p, s, h),
        Part.MLP_IN_PROJ_INPUT: p * s * h,
        Part.MLP_ACTIVATION: mixer.projections,
        Part.OTHER_LAYER: mixer.scan,
        Part.MLP_OUT_PROJ_INPUT: mixer.out_proj_input,
    }
    # full recomputation: every layer keeps its input. With the fp32 stream the first
    # layer's input is the embedding output (dtype) and the others fp32: counted as one
    # fp32 tensor per layer, its output (the next checkpoint, or the final norm's input),
    # plus the embedding output
    checkpoint = {Part.LAYER_CHECKPOINT: (4 if fp32_stream else p) * s * h}
    embeddings = 8 * s  # int64 token ids
    if full and fp32_stream:
        embeddings += p * s * h
    outside: dict[Part, int] = {Part.EMBEDDINGS: embeddings}
    if inputs.padded and not full:
        # the int64 attention_mask, multiplied twice in every mixer (a keyword argument:
        # checkpointed layers do not keep it)
        outside[Part.SHARED_MASK] = 8 * s
    if spec.residual_fp32 or p == 4:
        # fp32 input (the last layer's output), rsqrt, fp32 normalised tensor
        final = 4 * s * h + 4 * s + 4 * s * h
        if full and fp32_stream:
            final -= 4 * s * h  # counted as the last layer's checkpoint above
    else:
        final = rms_norm_fp32(p, s, h)
    outside[Part.FINAL_NORM] = final
    outside[Part.LM_HEAD_INPUT] = p * s * h  # the norm output cast to the dtype
    outside[Part.LOSS] = causal_lm_loss(s, v)
    return ActivationLayout(
        stacks=(Stack(StackKind.LAYERS, arch.layers, layer, checkpoint),),
        outside=outside,
        # the fp32 logits the output keeps, and their fp32 gradient
        logits=2 * 4 * s * v,
        notes=_notes(arch, inputs),
    )


# --------------------------------------------------------------------------- notes

SCAN_NOTE = trans_late(
    "Activation",
    "Without the mamba-ssm and causal-conv1d CUDA kernels transformers runs the "
    "selective scan in PyTorch (estimated here; measured on a CPU): every Mamba layer "
    "keeps the fp32 discretised A and B·u of every token and every step's state, about "
    "(12 + B)·s·d_inner·state_size bytes (B bytes per element), so the activation "
    "grows with sequence × d_inner × state_size.",
)
KERNEL_NOTE = trans_late(
    "Activation",
    "With the mamba-ssm and causal-conv1d kernels on CUDA (not measured) a Mamba layer "
    "keeps far less: x and z, x_proj's output, B, C and the scan output, and an fp32 "
    "state every 2048 tokens instead of every token.",
)
NO_ATTENTION_NOTE = trans_late(
    "Activation",
    "Mamba has no attention: transformers builds it with eager attention only, and the "
    "attention choice does not change the estimate.",
)
PADDED_NOTE = trans_late(
    "Activation",
    "A padded batch multiplies the Mamba mixers' input and convolution output by the "
    "int64 attention mask, kept once for all the layers.",
)


def _notes(arch: Architecture, inputs: Inputs) -> tuple[str, ...]:
    spec: MambaSpec = arch.spec
    notes = [
        SCAN_NOTE,
        KERNEL_NOTE,
        NO_ATTENTION_NOTE,
        trans_late(
            "Activation",
            "A Mamba block is listed under the MLP names: its norm, the in_proj input, the "
            "in_proj output with the convolution and its activations (MLP activation "
            "function), the selective scan (other tensors of the layer) and the out_proj "
            "input.",
        ),
    ]
    if spec.mixer.bcdt_norm == WEIGHTLESS_NORM:
        notes.append(
            trans_late(
                "Activation",
                "Falcon-Mamba normalises dt, B and C with weightless fp32 RMSNorms before "
                "the scan (mixer_rms_eps).",
            )
        )
    if spec.residual_fp32 and inputs.dtype is not Precision.FP32:
        notes.append(
            trans_late(
                "Activation",
                "residual_in_fp32: the hidden states between the layers are fp32; the "
                "final norm keeps fp32 tensors, and with full recomputation every layer "
                "but the first keeps an fp32 input.",
            )
        )
    notes.append(
        trans_late(
            "Activation",
            "The LM head returns fp32 logits (lm_head(...).float()): the logits transient is fp32.",
        )
    )
    if inputs.padded and inputs.recompute is not Recompute.FULL:
        notes.append(PADDED_NOTE)
    if inputs.recompute is Recompute.SELECTIVE:
        notes.append(
            trans_late(
                "Activation",
                "Mamba layers have no attention core: selective recomputation keeps "
                "everything they save.",
            )
        )
    if spec.use_mambapy:
        notes.append(
            trans_late(
                "Activation",
                "use_mambapy: with the mambapy package installed transformers runs its "
                "parallel scan, which keeps other tensors (not modelled; estimated for "
                "the sequential scan).",
            )
        )
    return tuple(notes)
