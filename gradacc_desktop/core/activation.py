"""Activation memory per sample of a decoder-only transformer in one training step.

Pure Python, exact integer arithmetic in bytes; nothing here knows about Qt,
``torch`` or locales. Two accounting *profiles*:

``Profile.PAPER``
    Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer
    Models" (arXiv:2205.05198), Table 2: 16-bit activations (2 bytes; the
    ``dtype`` scales them), 1-byte dropout masks, per layer and per sample (b = 1)::

        no parallelism                      sbh(34 + 5as/h)
        tensor parallel (t)                 sbh(10 + 24/t + 5as/(ht))
        tensor + sequence parallel          sbh(34/t + 5as/(ht))
        tensor + sequence + selective       sbh(34/t)
        full recomputation                  2sbh

    GPT-2 family uses exactly those terms (4h MLP). For the Llama family the same
    accounting is applied to RMSNorm, GQA with ``kv_heads`` and SwiGLU with
    ``intermediate`` size *i* (see ``_paper_layer``). Outside the layers the paper
    (§4.3) adds the input-embedding dropout mask (sbh·p/t, p = 1 here), the final
    layer norm input (2sbh/t), the output-projection input (2sbh/t) and the fp32
    logits kept by the cross-entropy (4sbv/t): 4sbh/t·(1 + v/h) plus the mask.

``Profile.HF``
    What Hugging Face ``transformers`` 5.x PyTorch modules really save for backward
    when the model runs in ``dtype`` (weights cast to it, no autocast), derived from
    the module source and PyTorch's ``derivatives.yaml`` and checked against
    ``gradacc_desktop.measure`` (docs/ACTIVATION.md has the table). See
    ``_hf_layer`` for each tensor.

Symbols: s sequence length, h hidden size, a attention heads, k key/value heads,
d = h/a head size, i MLP intermediate size, V vocabulary, t tensor-parallel size,
B bytes per activation element.

The *peak* is a documented model, not a measurement: everything saved for backward,
plus the recomputation transient (one whole layer re-materialised with FULL, one
layer's attention core with SELECTIVE), plus the logits transient (HF: the logits in
the model dtype, which the returned output keeps, and their fp32 copy/gradient;
PAPER: the fp32 gradient of the logits). It is a conservative upper bound: in
practice the logits are often freed before the first layer is recomputed.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING

from gradacc_desktop.core.limits import Limits, whole
from gradacc_desktop.core.text import trans_late

if TYPE_CHECKING:
    from gradacc_desktop.core.families import Architecture, Layout

# decimal gigabyte
GB = 10**9


class Family(enum.Enum):
    """The profile that estimates a model. GPT-2 and Llama can be typed as sizes alone;
    the others come from a ``config.json`` (``core.families``)."""

    # LayerNorm, MLP with GeLU (4h), multi-head attention, learned positions
    GPT2 = "gpt2"
    # RMSNorm, SwiGLU MLP (intermediate size), grouped-query attention, rotary positions
    # (Llama, Mistral, Qwen2, Qwen3)
    LLAMA = "llama"
    GEMMA = "gemma"
    PHI3 = "phi3"
    GPT_NEOX = "gpt_neox"
    FALCON = "falcon"
    OPT = "opt"
    MOE = "moe"
    BERT = "bert"
    T5 = "t5"
    # families read from a config.json only (core.families: one module each)
    LLAMA_VARIANT = "llama_variant"  # OLMo 2, Command-R, StarCoder2, GLM-4, StableLM, Granite
    DISTILBERT = "distilbert"
    DEBERTA = "deberta"
    MODERNBERT = "modernbert"
    BART = "bart"
    DEEPSEEK = "deepseek"
    GPT_OSS = "gpt_oss"
    MAMBA = "mamba"
    JAMBA = "jamba"
    WHISPER = "whisper"
    VISION = "vision"  # ViT, CLIP, SigLIP image encoders
    VLM = "vlm"  # a language model with a vision tower (LLaVA, Qwen2-VL, Gemma 3)

    @property
    def typed_sizes(self) -> bool:
        """Whether the sizes alone (no config.json) describe a model of this family."""
        return self in (Family.GPT2, Family.LLAMA)


class StackKind(enum.Enum):
    """Which layers a group of per-layer breakdown items stands for."""

    LAYERS = "layers"
    SLIDING = "sliding"
    GLOBAL = "global"
    DENSE = "dense"
    SPARSE = "sparse"
    ENCODER = "encoder"
    DECODER = "decoder"
    # image and text towers (ViT, CLIP, SigLIP; the vision tower of a VLM)
    VISION = "vision"
    VISION_WINDOW = "vision_window"
    TEXT = "text"


class DType(enum.Enum):
    BF16 = "bf16"
    FP16 = "fp16"
    FP32 = "fp32"

    @property
    def bytes(self) -> int:
        return 4 if self is DType.FP32 else 2


class Attention(enum.Enum):
    # explicit softmax(QKᵀ)V: stores s² scores per head
    EAGER = "eager"
    # fused SDPA / flash attention: stores Q, K, V, output and log-sum-exp, no s² term
    SDPA = "sdpa"


class Recompute(enum.Enum):
    NONE = "none"
    # recompute the attention core (QKᵀ, softmax, dropout, ·V) in backward
    SELECTIVE = "selective"
    # keep only each layer's input; recompute the whole layer in backward
    FULL = "full"


class Profile(enum.Enum):
    PAPER = "paper"
    HF = "hf"


class Device(enum.Enum):
    """Only the HF profile depends on it (dropout masks, SDPA with dropout, norm stats)."""

    CUDA = "cuda"
    CPU = "cpu"


class Part(enum.Enum):
    """Breakdown keys. Per-layer parts come first; the UI translates them."""

    # per layer
    ATTN_NORM = "attn_norm"
    QKV_PROJ_INPUT = "qkv_proj_input"
    ATTN_QKV = "attn_qkv"
    ATTN_SOFTMAX = "attn_softmax"
    ATTN_DROPOUT = "attn_dropout"
    ATTN_FUSED = "attn_fused"
    ATTN_KERNEL_OUTPUT = "attn_kernel_output"
    ATTN_OUT_PROJ_INPUT = "attn_out_proj_input"
    ATTN_RESID_DROPOUT = "attn_resid_dropout"
    MLP_NORM = "mlp_norm"
    MLP_IN_PROJ_INPUT = "mlp_in_proj_input"
    MLP_ACTIVATION = "mlp_activation"
    MLP_OUT_PROJ_INPUT = "mlp_out_proj_input"
    MLP_RESID_DROPOUT = "mlp_resid_dropout"
    ATTN_QK_NORM = "attn_qk_norm"
    ATTN_ROTARY = "attn_rotary"
    ATTN_MASK = "attn_mask"
    ATTN_SOFTCAP = "attn_softcap"
    ATTN_POSITION_BIAS = "attn_position_bias"
    ATTN_POST_NORM = "attn_post_norm"
    MLP_POST_NORM = "mlp_post_norm"
    CROSS_ATTN_NORM = "cross_attn_norm"
    CROSS_ATTN_QKV = "cross_attn_qkv"
    CROSS_ATTN_SCORES = "cross_attn_scores"
    CROSS_ATTN_OUT_PROJ_INPUT = "cross_attn_out_proj_input"
    ROUTER = "router"
    EXPERT_DISPATCH = "expert_dispatch"
    EXPERT_MLP = "expert_mlp"
    SHARED_EXPERT = "shared_expert"
    RESIDUAL = "residual"
    OTHER_LAYER = "other_layer"
    LAYER_CHECKPOINT = "layer_checkpoint"
    # once per model
    EMBEDDINGS = "embeddings"
    ROTARY = "rotary"
    CAUSAL_MASK = "causal_mask"
    FINAL_NORM = "final_norm"
    LM_HEAD_INPUT = "lm_head_input"
    ENCODER_OUTPUT = "encoder_output"
    SHARED_MASK = "shared_mask"
    SHARED_POSITION_BIAS = "shared_position_bias"
    EMBEDDING_PROJECTION = "embedding_projection"
    AUX_LOSS = "aux_loss"
    MLM_HEAD = "mlm_head"
    TASK_HEAD = "task_head"
    LOGIT_SOFTCAP = "logit_softcap"
    # image towers (core.families.vision, core.families.vlm)
    VISION_EMBEDDINGS = "vision_embeddings"
    VISION_POOLING = "vision_pooling"
    VISION_PROJECTOR = "vision_projector"
    OTHER = "other"
    LOSS = "loss"
    # peak only (transients, not saved for backward)
    RECOMPUTED_LAYER = "recomputed_layer"
    RECOMPUTED_ATTENTION = "recomputed_attention"
    LOGITS_TRANSIENT = "logits_transient"


STACK_TEXT: dict[StackKind, str] = {
    StackKind.LAYERS: trans_late("Activation", "Per layer"),
    StackKind.SLIDING: trans_late("Activation", "Per sliding-window layer"),
    StackKind.GLOBAL: trans_late("Activation", "Per full-attention layer"),
    StackKind.DENSE: trans_late("Activation", "Per dense layer"),
    StackKind.SPARSE: trans_late("Activation", "Per mixture-of-experts layer"),
    StackKind.ENCODER: trans_late("Activation", "Per encoder layer"),
    StackKind.DECODER: trans_late("Activation", "Per decoder layer"),
    StackKind.VISION: trans_late("Activation", "Per vision-tower layer"),
    StackKind.VISION_WINDOW: trans_late("Activation", "Per windowed vision-tower layer"),
    StackKind.TEXT: trans_late("Activation", "Per text-tower layer"),
}

# Short names of the parts and the assumptions, in English; the view-model translates
# them (context "Activation"), the command line prints them as they are.
PART_TEXT: dict[Part, str] = {
    Part.ATTN_NORM: trans_late("Activation", "Attention norm"),
    Part.QKV_PROJ_INPUT: trans_late("Activation", "Q/K/V projection input"),
    Part.ATTN_QKV: trans_late("Activation", "Q, K and V"),
    Part.ATTN_SOFTMAX: trans_late("Activation", "Attention scores (softmax)"),
    Part.ATTN_DROPOUT: trans_late("Activation", "Attention dropout"),
    Part.ATTN_FUSED: trans_late("Activation", "Fused attention log-sum-exp"),
    Part.ATTN_KERNEL_OUTPUT: trans_late("Activation", "Fused attention output"),
    Part.ATTN_OUT_PROJ_INPUT: trans_late("Activation", "Attention output projection input"),
    Part.ATTN_RESID_DROPOUT: trans_late("Activation", "Attention residual dropout mask"),
    Part.MLP_NORM: trans_late("Activation", "MLP norm"),
    Part.MLP_IN_PROJ_INPUT: trans_late("Activation", "MLP up projection input"),
    Part.MLP_ACTIVATION: trans_late("Activation", "MLP activation function"),
    Part.MLP_OUT_PROJ_INPUT: trans_late("Activation", "MLP down projection input"),
    Part.MLP_RESID_DROPOUT: trans_late("Activation", "MLP residual dropout mask"),
    Part.ATTN_QK_NORM: trans_late("Activation", "Q and K norms"),
    Part.ATTN_ROTARY: trans_late("Activation", "Rotary embedding (per layer)"),
    Part.ATTN_MASK: trans_late("Activation", "Attention mask (per layer)"),
    Part.ATTN_SOFTCAP: trans_late("Activation", "Attention soft-capping"),
    Part.ATTN_POSITION_BIAS: trans_late("Activation", "Position bias (per layer)"),
    Part.ATTN_POST_NORM: trans_late("Activation", "Post-attention norm"),
    Part.MLP_POST_NORM: trans_late("Activation", "Post-MLP norm"),
    Part.CROSS_ATTN_NORM: trans_late("Activation", "Cross-attention norm"),
    Part.CROSS_ATTN_QKV: trans_late("Activation", "Cross-attention Q, K and V"),
    Part.CROSS_ATTN_SCORES: trans_late("Activation", "Cross-attention scores"),
    Part.CROSS_ATTN_OUT_PROJ_INPUT: trans_late(
        "Activation", "Cross-attention output projection input"
    ),
    Part.ROUTER: trans_late("Activation", "Router logits and top-k"),
    Part.EXPERT_DISPATCH: trans_late("Activation", "Tokens dispatched to experts"),
    Part.EXPERT_MLP: trans_late("Activation", "Expert MLPs"),
    Part.SHARED_EXPERT: trans_late("Activation", "Shared expert"),
    Part.RESIDUAL: trans_late("Activation", "Residual and scaling copies"),
    Part.OTHER_LAYER: trans_late("Activation", "Other tensors of the layer"),
    Part.LAYER_CHECKPOINT: trans_late("Activation", "Layer input (checkpoint)"),
    Part.EMBEDDINGS: trans_late("Activation", "Embeddings"),
    Part.ROTARY: trans_late("Activation", "Rotary cos/sin tables"),
    Part.CAUSAL_MASK: trans_late("Activation", "Causal mask (checkpoint input)"),
    Part.FINAL_NORM: trans_late("Activation", "Final norm"),
    Part.LM_HEAD_INPUT: trans_late("Activation", "Output projection input"),
    Part.ENCODER_OUTPUT: trans_late("Activation", "Encoder output"),
    Part.SHARED_MASK: trans_late("Activation", "Attention mask (shared by the layers)"),
    Part.SHARED_POSITION_BIAS: trans_late("Activation", "Position bias (shared by the layers)"),
    Part.EMBEDDING_PROJECTION: trans_late("Activation", "Embedding projection input"),
    Part.AUX_LOSS: trans_late("Activation", "Load-balancing loss"),
    Part.MLM_HEAD: trans_late("Activation", "Masked-LM head transform"),
    Part.TASK_HEAD: trans_late("Activation", "Task head and its loss"),
    Part.LOGIT_SOFTCAP: trans_late("Activation", "Final logit soft-capping"),
    Part.VISION_EMBEDDINGS: trans_late("Activation", "Image patch embedding"),
    Part.VISION_POOLING: trans_late("Activation", "Vision tower pooling and norms"),
    Part.VISION_PROJECTOR: trans_late("Activation", "Multi-modal projector and image merge"),
    Part.OTHER: trans_late("Activation", "Other tensors"),
    Part.LOSS: trans_late("Activation", "Logits and loss"),
    Part.RECOMPUTED_LAYER: trans_late(
        "Activation",
        "One layer recomputed in the backward pass",
    ),
    Part.RECOMPUTED_ATTENTION: trans_late(
        "Activation",
        "One attention core recomputed in the backward pass",
    ),
    Part.LOGITS_TRANSIENT: trans_late("Activation", "Logits around the loss"),
}


class Assumption(enum.Enum):
    PER_SAMPLE = "per_sample"
    HEAD_DIM = "head_dim"
    NO_PIPELINE = "no_pipeline"
    PAPER_TABLE2 = "paper_table2"
    PAPER_LLAMA_DERIVED = "paper_llama_derived"
    PAPER_OUTSIDE_LAYERS = "paper_outside_layers"
    PAPER_FULL_CHECKPOINT = "paper_full_checkpoint"
    PAPER_NO_DROPOUT = "paper_no_dropout"
    HF_PURE_DTYPE = "hf_pure_dtype"
    HF_GELU_NEW = "hf_gelu_new"
    HF_LAYERNORM = "hf_layernorm"
    HF_RMSNORM_FP32 = "hf_rmsnorm_fp32"
    HF_EAGER_GPT2 = "hf_eager_gpt2"
    HF_EAGER_LLAMA = "hf_eager_llama"
    HF_SDPA = "hf_sdpa"
    HF_SDPA_DROPOUT_CPU = "hf_sdpa_dropout_cpu"
    HF_ROTARY = "hf_rotary"
    HF_SWIGLU = "hf_swiglu"
    HF_LOSS_FP32 = "hf_loss_fp32"
    HF_CHECKPOINTING = "hf_checkpointing"
    HF_SELECTIVE_MODELLED = "hf_selective_modelled"
    DROPOUT_MASK_CUDA = "dropout_mask_cuda"
    DROPOUT_MASK_CPU = "dropout_mask_cpu"
    TENSOR_PARALLEL = "tensor_parallel"
    VOCAB_PADDED = "vocab_padded"
    PEAK_MODEL = "peak_model"


ASSUMPTION_TEXT: dict[Assumption, str] = {
    Assumption.PER_SAMPLE: trans_late(
        "Activation",
        "Bytes per sample (micro-batch b = 1); tensors shared by a batch (rotary "
        "tables, position ids, causal mask) are counted in full.",
    ),
    Assumption.HEAD_DIM: trans_late("Activation", "Head size is hidden size / heads."),
    Assumption.NO_PIPELINE: trans_late(
        "Activation",
        "No pipeline parallelism: one stage holds every layer.",
    ),
    Assumption.PAPER_TABLE2: trans_late(
        "Activation",
        "Korthikanti et al. 2022, Table 2: 16-bit activations (scaled by the "
        "chosen data type) and 1-byte dropout masks.",
    ),
    Assumption.PAPER_LLAMA_DERIVED: trans_late(
        "Activation",
        "Llama family in the paper's accounting: RMSNorm inputs, Q and K/V with "
        "the key/value heads, SwiGLU keeps the gate and up outputs, the SiLU "
        "output and the product (8·s·i bytes); attention dropout only, no "
        "residual dropout.",
    ),
    Assumption.PAPER_OUTSIDE_LAYERS: trans_late(
        "Activation",
        "Outside the layers (paper §4.3): embedding dropout mask sbh/t, final "
        "norm input 2sbh/t, output projection input 2sbh/t, fp32 logits 4sbv/t.",
    ),
    Assumption.PAPER_FULL_CHECKPOINT: trans_late(
        "Activation",
        "Full recomputation keeps 2sbh per layer (Table 2).",
    ),
    Assumption.PAPER_NO_DROPOUT: trans_late(
        "Activation",
        "Without dropout the masks and the separate dropout output are not "
        "stored (the paper's terms with dropout removed).",
    ),
    Assumption.HF_PURE_DTYPE: trans_late(
        "Activation",
        "Model weights cast to the data type (model.to(dtype)), no autocast.",
    ),
    Assumption.HF_GELU_NEW: trans_late(
        "Activation",
        "GPT-2 uses gelu_new (tanh formula in Python): its element-wise "
        "operations keep four tensors of s·i, plus the input of c_proj.",
    ),
    Assumption.HF_LAYERNORM: trans_late(
        "Activation",
        "LayerNorm keeps its input plus the mean and rstd of every token.",
    ),
    Assumption.HF_RMSNORM_FP32: trans_late(
        "Activation",
        "LlamaRMSNorm upcasts to fp32: it keeps the fp32 input, the fp32 rsqrt "
        "of every token and the normalised tensor in the model's data type.",
    ),
    Assumption.HF_EAGER_GPT2: trans_late(
        "Activation",
        "GPT-2 eager attention: softmax in the model's data type, its output "
        "(a·s² per layer) kept; the fused QKV output kept once for Q, K and V.",
    ),
    Assumption.HF_EAGER_LLAMA: trans_late(
        "Activation",
        "Llama eager attention: softmax in fp32 (kept) then cast (kept by the "
        "product with V); repeat_kv copies K and V to every head.",
    ),
    Assumption.HF_SDPA: trans_late(
        "Activation",
        "SDPA uses a fused (flash / memory-efficient) kernel: it keeps Q, K, V, "
        "the output and an fp32 log-sum-exp per head and token; GQA without "
        "copying K/V.",
    ),
    Assumption.HF_SDPA_DROPOUT_CPU: trans_late(
        "Activation",
        "On CPU, SDPA with dropout falls back to the math path in fp32: copies "
        "of Q, K and V and three fp32 s² tensors per head.",
    ),
    Assumption.HF_ROTARY: trans_late(
        "Activation",
        "The rotary embedding keeps only cos and sin, shared by every layer.",
    ),
    Assumption.HF_SWIGLU: trans_late(
        "Activation",
        "SwiGLU: SiLU keeps its input; the product keeps the SiLU output and the "
        "up projection; the down projection keeps the product.",
    ),
    Assumption.HF_LOSS_FP32: trans_late(
        "Activation",
        "Loss: logits cast to fp32 (logits.float()), the log_softmax output kept "
        "in fp32 (4·s·V bytes) plus the int64 labels.",
    ),
    Assumption.HF_CHECKPOINTING: trans_late(
        "Activation",
        "Full recomputation = gradient checkpointing of every decoder layer "
        "(non-reentrant): each layer keeps its input hidden states.",
    ),
    Assumption.HF_SELECTIVE_MODELLED: trans_late(
        "Activation",
        "Selective recomputation is not built into transformers: modelled as "
        "dropping the attention core's internal tensors.",
    ),
    Assumption.DROPOUT_MASK_CUDA: trans_late(
        "Activation",
        "CUDA dropout (fused native_dropout) keeps a 1-byte boolean mask.",
    ),
    Assumption.DROPOUT_MASK_CPU: trans_late(
        "Activation",
        "CPU dropout multiplies by a noise tensor kept in the activation data type.",
    ),
    Assumption.TENSOR_PARALLEL: trans_late(
        "Activation",
        "Tensor parallelism as in Megatron-LM: attention heads, MLP intermediate "
        "size and vocabulary split over t; norms, projection inputs and residual "
        "dropout masks split only with sequence parallelism.",
    ),
    Assumption.VOCAB_PADDED: trans_late(
        "Activation",
        "Vocabulary padded up to a multiple of t for the logits.",
    ),
    Assumption.PEAK_MODEL: trans_late(
        "Activation",
        "Peak = saved for the backward pass + recomputation transient + logits "
        "transient (a conservative upper bound).",
    ),
}


# What the estimator accepts for each shape input (the formulas take any positive
# integer; these bounds keep the fields sane), by ``Inputs`` field name.
SHAPE_LIMITS: dict[str, Limits] = {
    "hidden": whole(1, 1_000_000),
    "layers": whole(1, 10_000),
    "heads": whole(1, 100_000),
    "kv_heads": whole(1, 100_000),
    "intermediate": whole(1, 10_000_000),
    "vocab": whole(1, 10_000_000),
    "seq": whole(1, 10_000_000),
    "target_seq": whole(1, 10_000_000),
    "tensor_parallel": whole(1, 1_024),
    "images": whole(0, 1_000),
    "image_width": whole(1, 100_000),
    "image_height": whole(1, 100_000),
}


class Problem(enum.Enum):
    NOT_POSITIVE = "not_positive"
    NOT_DIVISIBLE = "not_divisible"
    MISMATCH = "mismatch"
    # the choice is not modelled for this family (the detail says which)
    NOT_MODELLED = "not_modelled"


class InvalidActivationInputs(ValueError):
    def __init__(self, field_name: str, problem: Problem, detail: str) -> None:
        super().__init__(f"{field_name}: {detail}")
        self.field = field_name
        self.problem = problem
        self.detail = detail


@dataclass(frozen=True)
class Inputs:
    family: Family
    hidden: int
    layers: int
    heads: int
    kv_heads: int
    intermediate: int
    vocab: int
    seq: int
    dtype: DType = DType.BF16
    dropout: bool = False
    attention: Attention = Attention.SDPA
    recompute: Recompute = Recompute.NONE
    tensor_parallel: int = 1
    sequence_parallel: bool = False
    profile: Profile = Profile.HF
    device: Device = Device.CUDA
    #: the model read from a config.json (None: the sizes above, GPT-2 or Llama)
    arch: Architecture | None = None
    #: encoder-decoders: target (decoder) length; None = ``seq``
    target_seq: int | None = None
    #: the batch is padded (an attention mask is passed): SDPA then gets a mask
    padded: bool = False
    #: images per sample (models with a vision tower; an image encoder takes one)
    images: int = 0
    #: pixels of each image (None: the model's native size)
    image_width: int | None = None
    image_height: int | None = None
    #: the vision tower is frozen (requires_grad_(False)): it keeps nothing for backward
    vision_frozen: bool = False
    #: the model's ``use_cache`` in training (None: the config file's, off for sizes
    #: typed in): without recomputation transformers then fills a key/value cache
    use_cache: bool | None = None

    @property
    def fills_cache(self) -> bool:
        """Whether the training forward fills a key/value cache: ``use_cache`` on and no
        checkpointed layers (transformers turns the cache off under checkpointing)."""
        if self.arch is not None and self.arch.head.value != "causal-lm":
            return False  # encoders have no cache; encoder-decoders' keeps nothing new
        wanted = self.use_cache
        if wanted is None:
            wanted = bool(getattr(self.arch, "use_cache", False))
        return wanted and self.recompute is not Recompute.FULL

    @property
    def head_dim(self) -> int:
        return self.arch.head_dim if self.arch is not None else self.hidden // self.heads

    @property
    def decoder_seq(self) -> int:
        """Target length of an encoder-decoder (``seq`` unless given)."""
        return self.seq if self.target_seq is None else self.target_seq


@dataclass(frozen=True)
class Item:
    """``count`` instances of ``bytes`` each (count = layers for per-layer parts)."""

    key: Part
    bytes: int
    count: int
    #: which layers a per-layer part belongs to (None: once per model)
    stack: StackKind | None = None

    @property
    def total(self) -> int:
        return self.bytes * self.count


@dataclass(frozen=True)
class Result:
    inputs: Inputs
    #: bytes autograd holds from forward until backward, per sample
    saved_bytes: int
    #: modelled activation peak, per sample (see module docstring)
    peak_bytes: int
    #: bytes one layer keeps (after recomputation choice), per sample
    per_layer_bytes: int
    #: what ``saved_bytes`` is made of (sum of totals == saved_bytes)
    breakdown: tuple[Item, ...]
    #: transients added on top of ``saved_bytes`` to get ``peak_bytes``
    peak_extra: tuple[Item, ...]
    assumptions: tuple[Assumption, ...] = field(default=())
    #: a config-read family's own assumptions (English; context "Activation")
    notes: tuple[str, ...] = field(default=())

    @property
    def saved_gb(self) -> Decimal:
        return Decimal(self.saved_bytes) / GB

    @property
    def peak_gb(self) -> Decimal:
        return Decimal(self.peak_bytes) / GB


# --------------------------------------------------------------------------- validation


def validate(inputs: Inputs) -> None:
    """Raise ``InvalidActivationInputs`` for shapes the model cannot describe exactly."""
    for name in ("hidden", "layers", "heads", "kv_heads", "intermediate", "vocab", "seq"):
        if getattr(inputs, name) < 1:
            raise InvalidActivationInputs(name, Problem.NOT_POSITIVE, "must be >= 1")
    t = inputs.tensor_parallel
    if t < 1:
        raise InvalidActivationInputs("tensor_parallel", Problem.NOT_POSITIVE, "must be >= 1")
    if inputs.target_seq is not None and inputs.target_seq < 1:
        raise InvalidActivationInputs("target_seq", Problem.NOT_POSITIVE, "must be >= 1")
    if inputs.images < 0:
        raise InvalidActivationInputs("images", Problem.NOT_POSITIVE, "must be >= 0")
    for name in ("image_width", "image_height"):
        if getattr(inputs, name) is not None and getattr(inputs, name) < 1:
            raise InvalidActivationInputs(name, Problem.NOT_POSITIVE, "must be >= 1")
    imaged = inputs.images or inputs.vision_frozen or inputs.image_width or inputs.image_height
    if imaged and inputs.family not in (Family.VISION, Family.VLM):
        raise InvalidActivationInputs(
            "images", Problem.NOT_MODELLED, "this model has no vision tower"
        )
    arch = inputs.arch
    if arch is not None:
        _validate_arch(inputs, arch)
    elif not inputs.family.typed_sizes:
        raise InvalidActivationInputs(
            "family", Problem.NOT_MODELLED, "this family is read from a config.json"
        )
    if arch is None and inputs.hidden % inputs.heads:
        raise InvalidActivationInputs("hidden", Problem.NOT_DIVISIBLE, "must divide by heads")
    if inputs.heads % inputs.kv_heads:
        raise InvalidActivationInputs("kv_heads", Problem.NOT_DIVISIBLE, "must divide heads")
    if inputs.family is Family.GPT2 and inputs.kv_heads != inputs.heads:
        raise InvalidActivationInputs("kv_heads", Problem.MISMATCH, "GPT-2 needs kv_heads = heads")
    for name in ("heads", "kv_heads", "intermediate", "hidden"):
        if getattr(inputs, name) % t:
            raise InvalidActivationInputs(
                name, Problem.NOT_DIVISIBLE, "must divide by the tensor-parallel size"
            )
    if inputs.sequence_parallel and inputs.seq % t:
        raise InvalidActivationInputs(
            "seq", Problem.NOT_DIVISIBLE, "must divide by the tensor-parallel size"
        )


def _validate_arch(inputs: Inputs, arch: Architecture) -> None:
    shape = ("hidden", "layers", "heads", "kv_heads", "intermediate", "vocab")
    if inputs.family is not arch.family or any(
        getattr(inputs, name) != getattr(arch, name) for name in shape
    ):
        raise InvalidActivationInputs(
            "family", Problem.MISMATCH, "the sizes differ from the configuration's"
        )
    if inputs.profile is Profile.PAPER and (
        not arch.family.typed_sizes or arch.head_dim * arch.heads != arch.hidden
    ):
        raise InvalidActivationInputs(
            "profile",
            Problem.NOT_MODELLED,
            "the paper profile covers GPT-2 and Llama-shaped models only",
        )
    if inputs.tensor_parallel > 1 and not arch.family.typed_sizes:
        raise InvalidActivationInputs(
            "tensor_parallel",
            Problem.NOT_MODELLED,
            "tensor parallelism is modelled for GPT-2 and Llama-like models only",
        )


# --------------------------------------------------------------------------- helpers


@dataclass(frozen=True)
class _Dims:
    """Sharded sizes: every split the model makes is exact after ``validate``."""

    s: int  # full sequence
    s_sp: int  # sequence as stored by sequence-parallel regions (s/t with SP)
    h: int
    a: int  # heads per rank
    k: int  # kv heads per rank
    d: int
    i: int  # intermediate per rank
    v: int  # vocabulary per rank (padded)


def _dims(inputs: Inputs) -> _Dims:
    t = inputs.tensor_parallel
    return _Dims(
        s=inputs.seq,
        s_sp=inputs.seq // t if inputs.sequence_parallel else inputs.seq,
        h=inputs.hidden,
        a=inputs.heads // t,
        k=inputs.kv_heads // t,
        d=inputs.head_dim,
        i=inputs.intermediate // t,
        v=-(-inputs.vocab // t),
    )


_ATTENTION_CORE = (
    Part.ATTN_SOFTMAX,
    Part.ATTN_DROPOUT,
    Part.ATTN_FUSED,
    Part.ATTN_KERNEL_OUTPUT,
    Part.ATTN_SOFTCAP,
    Part.CROSS_ATTN_SCORES,
)


# --------------------------------------------------------------------------- paper profile


def _paper_layer(inputs: Inputs, dims: _Dims) -> dict[Part, int]:
    """One layer, no recomputation, Korthikanti et al. accounting (b = 1).

    GPT-2 (i = 4h, k = a): attention 11sh + 5as², MLP 19sh, norms 4sh: sh(34 + 5as/h).
    With tensor parallelism the 24sh inside the parallel regions and the 5as² split by t;
    the remaining 10sh (norm inputs, projection inputs, two dropout masks) split only with
    sequence parallelism.
    """
    p = inputs.dtype.bytes  # 2 in the paper
    s, r, h, a, k, d, i = dims.s, dims.s_sp, dims.h, dims.a, dims.k, dims.d, dims.i
    drop = inputs.dropout
    gpt2 = inputs.family is Family.GPT2
    parts: dict[Part, int] = {
        Part.ATTN_NORM: p * r * h,  # norm input
        Part.QKV_PROJ_INPUT: p * r * h,
        # QKᵀ keeps Q and K; attention over V keeps V (k kv heads of size d)
        Part.ATTN_QKV: p * s * a * d + 2 * p * s * k * d,
        Part.ATTN_OUT_PROJ_INPUT: p * s * a * d,
        Part.MLP_NORM: p * r * h,
        Part.MLP_IN_PROJ_INPUT: p * r * h,
    }
    if inputs.attention is Attention.EAGER:
        parts[Part.ATTN_SOFTMAX] = p * a * s * s
        if drop:
            # 1-byte mask plus the dropout output kept by the matmul with V
            parts[Part.ATTN_DROPOUT] = a * s * s + p * a * s * s
    else:
        # flash-style kernel (as in Megatron-LM): no s² term; its output is the output
        # projection input already counted; only the fp32 log-sum-exp is added
        parts[Part.ATTN_FUSED] = 4 * a * s
    if gpt2:
        parts[Part.MLP_ACTIVATION] = p * s * i  # GeLU input
        parts[Part.MLP_OUT_PROJ_INPUT] = p * s * i
        if drop:
            parts[Part.ATTN_RESID_DROPOUT] = r * h
            parts[Part.MLP_RESID_DROPOUT] = r * h
    else:
        parts[Part.MLP_ACTIVATION] = 3 * p * s * i  # gate out, up out, SiLU out
        parts[Part.MLP_OUT_PROJ_INPUT] = p * s * i
    return parts


def _paper_outside(inputs: Inputs, dims: _Dims) -> dict[Part, int]:
    p = inputs.dtype.bytes
    parts: dict[Part, int] = {
        Part.FINAL_NORM: p * dims.s_sp * dims.h,
        Part.LM_HEAD_INPUT: p * dims.s_sp * dims.h,
        Part.LOSS: 4 * dims.s * dims.v,
    }
    if inputs.dropout and inputs.family is Family.GPT2:
        parts[Part.EMBEDDINGS] = dims.s_sp * dims.h
    return parts


# --------------------------------------------------------------------------- HF profile


def _hf_layer(inputs: Inputs, dims: _Dims) -> dict[Part, int]:
    """One decoder layer as ``transformers`` 5.x + PyTorch autograd save it (b = 1)."""
    p = inputs.dtype.bytes
    cuda = inputs.device is Device.CUDA
    m = 1 if cuda else p  # dropout mask: bool (fused native_dropout) vs noise tensor
    s, r, h, a, k, d, i = dims.s, dims.s_sp, dims.h, dims.a, dims.k, dims.d, dims.i
    drop = inputs.dropout
    gpt2 = inputs.family is Family.GPT2
    eager = inputs.attention is Attention.EAGER
    cpu_math = not eager and drop and not cuda

    parts: dict[Part, int] = {}
    if gpt2:
        stat = 4 if cuda else p  # native_layer_norm mean/rstd: fp32 on CUDA, dtype on CPU
        norm = p * r * h + 2 * stat * r  # input, mean, rstd
    else:
        # x.to(fp32) kept by pow and mul; rsqrt (fp32, one per token); normalised x in dtype
        # kept by ``weight * x``. With fp32 the casts are no-ops: same sizes.
        norm = 4 * r * h + 4 * r + p * r * h
    parts[Part.ATTN_NORM] = norm
    parts[Part.MLP_NORM] = norm
    # addmm / linear keeps its input (the norm output), shared by q/k/v and gate/up
    parts[Part.QKV_PROJ_INPUT] = p * r * h
    parts[Part.MLP_IN_PROJ_INPUT] = p * r * h

    if cpu_math:
        # math fallback in fp32: scaled Q, Kᵀ, V repeated to all heads, softmax output,
        # dropout noise and dropout output
        parts[Part.ATTN_QKV] = 3 * 4 * s * a * d
        parts[Part.ATTN_SOFTMAX] = 4 * a * s * s
        parts[Part.ATTN_DROPOUT] = 2 * 4 * a * s * s
    elif gpt2:
        # c_attn output (3h) split into views: one storage serves Q, K and V; a filled
        # cache hands attention new copies of K and V (Q's view still keeps the storage)
        parts[Part.ATTN_QKV] = p * s * (a + 2 * k) * d + (
            2 * p * s * k * d if inputs.fills_cache else 0
        )
    elif eager:
        # rotated Q; repeat_kv copies K and V to every head when 1 < k < a (with one
        # key/value head its expand-and-reshape is a view; with k = a nothing repeats)
        repeated = a if 1 < k < a else k
        parts[Part.ATTN_QKV] = p * s * (a + 2 * repeated) * d
    else:
        # SDPA with enable_gqa: Q (a heads), K and V (k heads) kept as they are
        parts[Part.ATTN_QKV] = p * s * (a + 2 * k) * d

    if eager:
        if gpt2:
            parts[Part.ATTN_SOFTMAX] = p * a * s * s
        else:
            # softmax(dtype=fp32) output kept; its cast to dtype kept by matmul with V unless
            # dropout comes between (then the dropout output is kept instead)
            cast = 0 if (drop or p == 4) else p * a * s * s
            parts[Part.ATTN_SOFTMAX] = 4 * a * s * s + cast
        if drop:
            parts[Part.ATTN_DROPOUT] = m * a * s * s + p * a * s * s
    elif not cpu_math:
        # fused kernel: fp32 log-sum-exp (a per token). Its output is laid out (s, a, d),
        # so the transpose(...).contiguous() before the output projection is a no-op and
        # the output is the projection input counted below.
        parts[Part.ATTN_FUSED] = 4 * a * s

    parts[Part.ATTN_OUT_PROJ_INPUT] = p * s * a * d  # attention output, (s, a·d) contiguous
    if gpt2:
        # gelu_new: input (= c_fc output), 0.5·x, tanh(...), 1 + tanh(...)
        parts[Part.MLP_ACTIVATION] = 4 * p * s * i
        if drop:
            parts[Part.ATTN_RESID_DROPOUT] = m * r * h
            parts[Part.MLP_RESID_DROPOUT] = m * r * h
    else:
        # SiLU input (gate output), SiLU output and up output (both kept by the product)
        parts[Part.MLP_ACTIVATION] = 3 * p * s * i
    parts[Part.MLP_OUT_PROJ_INPUT] = p * s * i
    return parts


def _hf_outside(inputs: Inputs, dims: _Dims) -> dict[Part, int]:
    p = inputs.dtype.bytes
    cuda = inputs.device is Device.CUDA
    gpt2 = inputs.family is Family.GPT2
    s, r, h = dims.s, dims.s_sp, dims.h
    parts: dict[Part, int] = {}
    embeddings = 8 * s  # int64 token ids kept by the embedding
    if gpt2:
        embeddings += 8 * s  # int64 position ids (wpe)
        if inputs.dropout:
            embeddings += (1 if cuda else p) * r * h
    parts[Part.EMBEDDINGS] = embeddings
    if not gpt2 and inputs.recompute is not Recompute.FULL:
        # cos and sin, computed once per forward and kept by q·cos, rotate_half(q)·sin, ...;
        # with checkpointed layers they are recomputed instead
        parts[Part.ROTARY] = 2 * p * s * dims.d
    if gpt2 and inputs.attention is Attention.EAGER and inputs.recompute is Recompute.FULL:
        # GPT2Block receives the additive causal mask positionally: the checkpoint keeps it
        parts[Part.CAUSAL_MASK] = p * s * s
    if gpt2:
        parts[Part.FINAL_NORM] = p * r * h + 2 * (4 if cuda else p) * r
    else:
        parts[Part.FINAL_NORM] = 4 * r * h + 4 * r + p * r * h
    parts[Part.LM_HEAD_INPUT] = p * r * h
    # fp32 log_softmax output; labels padded by one and shifted (int64); total_weight scalar
    parts[Part.LOSS] = 4 * s * dims.v + 8 * (s + 1) + 4
    return parts


# --------------------------------------------------------------------------- estimate


def _assumptions(inputs: Inputs) -> tuple[Assumption, ...]:
    out = [Assumption.PER_SAMPLE]
    if inputs.head_dim * inputs.heads == inputs.hidden:
        out.append(Assumption.HEAD_DIM)
    out.append(Assumption.NO_PIPELINE)
    gpt2 = inputs.family is Family.GPT2
    if not inputs.family.typed_sizes:
        # the family module's notes say what its layers keep
        out.append(Assumption.HF_PURE_DTYPE)
        if inputs.recompute is Recompute.FULL:
            out.append(Assumption.HF_CHECKPOINTING)
        if inputs.recompute is Recompute.SELECTIVE:
            out.append(Assumption.HF_SELECTIVE_MODELLED)
        if inputs.dropout:
            out.append(
                Assumption.DROPOUT_MASK_CUDA
                if inputs.device is Device.CUDA
                else Assumption.DROPOUT_MASK_CPU
            )
        out.append(Assumption.PEAK_MODEL)
        return tuple(out)
    if inputs.profile is Profile.PAPER:
        out.append(Assumption.PAPER_TABLE2)
        if not gpt2:
            out.append(Assumption.PAPER_LLAMA_DERIVED)
        out.append(Assumption.PAPER_OUTSIDE_LAYERS)
        if inputs.recompute is Recompute.FULL:
            out.append(Assumption.PAPER_FULL_CHECKPOINT)
        if not inputs.dropout:
            out.append(Assumption.PAPER_NO_DROPOUT)
    else:
        out.append(Assumption.HF_PURE_DTYPE)
        if gpt2:
            out += [Assumption.HF_GELU_NEW, Assumption.HF_LAYERNORM]
        else:
            out += [Assumption.HF_RMSNORM_FP32, Assumption.HF_ROTARY, Assumption.HF_SWIGLU]
        if inputs.attention is Attention.EAGER:
            out.append(Assumption.HF_EAGER_GPT2 if gpt2 else Assumption.HF_EAGER_LLAMA)
        else:
            out.append(Assumption.HF_SDPA)
            if inputs.dropout and inputs.device is Device.CPU:
                out.append(Assumption.HF_SDPA_DROPOUT_CPU)
        out.append(Assumption.HF_LOSS_FP32)
        if inputs.recompute is Recompute.FULL:
            out.append(Assumption.HF_CHECKPOINTING)
        if inputs.recompute is Recompute.SELECTIVE:
            out.append(Assumption.HF_SELECTIVE_MODELLED)
        if inputs.dropout:
            out.append(
                Assumption.DROPOUT_MASK_CUDA
                if inputs.device is Device.CUDA
                else Assumption.DROPOUT_MASK_CPU
            )
    if inputs.tensor_parallel > 1:
        out.append(Assumption.TENSOR_PARALLEL)
        if inputs.vocab % inputs.tensor_parallel:
            out.append(Assumption.VOCAB_PADDED)
    out.append(Assumption.PEAK_MODEL)
    return tuple(out)


def _typed_layout(inputs: Inputs) -> Layout:
    """GPT-2 and Llama from their sizes (both profiles): one stack of identical layers."""
    from gradacc_desktop.core.families import Layout, Stack

    dims = _dims(inputs)
    paper = inputs.profile is Profile.PAPER
    layer = _paper_layer(inputs, dims) if paper else _hf_layer(inputs, dims)
    outside = _paper_outside(inputs, dims) if paper else _hf_outside(inputs, dims)
    p = inputs.dtype.bytes
    # Table 2: 2sbh per layer (paper); HF: the hidden states entering each layer
    checkpoint = p * dims.s * dims.h if paper else p * dims.s_sp * dims.h
    # PAPER: fp32 gradient of the logits. HF: the logits in dtype (kept by the returned
    # output) + their fp32 copy (forward) / fp32 gradient (backward).
    logits = 4 * dims.s * dims.v + (0 if paper else p * dims.s * dims.v)
    return Layout(
        stacks=(
            Stack(StackKind.LAYERS, inputs.layers, layer, {Part.LAYER_CHECKPOINT: checkpoint}),
        ),
        outside=outside,
        logits=logits,
    )


def layout(inputs: Inputs) -> Layout:
    """Per-layer and once-per-model bytes of ``inputs`` before the recomputation choice."""
    if inputs.arch is not None and inputs.profile is Profile.HF:
        from gradacc_desktop.core import families

        return families.layout(inputs.arch, inputs)
    return _typed_layout(inputs)


def estimate(inputs: Inputs) -> Result:
    """Activation bytes per sample: saved for backward, modelled peak, breakdown."""
    validate(inputs)
    shape = layout(inputs)
    per_layer: list[Item] = []
    extra: list[Item] = []
    recomputed = 0
    attention_core = 0
    largest_layer = 0
    for stack in shape.stacks:
        if stack.count < 1:
            continue
        if inputs.recompute is Recompute.FULL:
            kept = dict(stack.checkpoint)
        elif inputs.recompute is Recompute.SELECTIVE:
            kept = {k: v for k, v in stack.parts.items() if k not in _ATTENTION_CORE}
        else:
            kept = dict(stack.parts)
        per_layer += [
            Item(key, n, stack.count, stack.kind)
            for key, n in sorted(kept.items(), key=_order)
            if n
        ]
        largest_layer = max(largest_layer, sum(kept.values()))
        recomputed = max(recomputed, sum(stack.parts.values()))
        attention_core = max(
            attention_core, sum(n for k, n in stack.parts.items() if k in _ATTENTION_CORE)
        )
    outside = [Item(key, n, 1) for key, n in sorted(shape.outside.items(), key=_order) if n]
    breakdown = tuple(per_layer + outside)
    saved = sum(item.total for item in breakdown)

    if inputs.recompute is Recompute.FULL:
        extra.append(Item(Part.RECOMPUTED_LAYER, recomputed, 1))
    elif inputs.recompute is Recompute.SELECTIVE and attention_core:
        extra.append(Item(Part.RECOMPUTED_ATTENTION, attention_core, 1))
    extra.append(Item(Part.LOGITS_TRANSIENT, shape.logits, 1))
    peak = saved + sum(item.total for item in extra)

    return Result(
        inputs=inputs,
        saved_bytes=saved,
        peak_bytes=peak,
        per_layer_bytes=largest_layer,
        breakdown=breakdown,
        peak_extra=tuple(extra),
        assumptions=_assumptions(inputs),
        notes=shape.notes,
    )


_PART_ORDER = {part: n for n, part in enumerate(Part)}


def _order(entry: tuple[Part, int]) -> int:
    return _PART_ORDER[entry[0]]
