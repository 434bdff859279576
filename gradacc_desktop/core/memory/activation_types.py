"""The shared vocabulary of the activation estimator and the model families.

``core.memory.activation`` (the estimate) and ``core.memory.families`` (one module per model family)
both speak these types: the family profile of a model, the breakdown keys, the options
of one estimate (``Inputs``) and the sharded sizes every layer accounting starts from
(``dims``). Nothing here imports either of them, so imports go one way:
``activation`` -> ``families`` -> this module.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gradacc_desktop.core.precision import Precision
from gradacc_desktop.core.recompute import Recompute

if TYPE_CHECKING:
    from gradacc_desktop.core.memory.families import Architecture

# decimal gigabyte
GB = 10**9


class Family(enum.Enum):
    """The profile that estimates a model. GPT-2 and Llama can be typed as sizes alone;
    the others come from a ``config.json`` (``core.memory.families``)."""

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
    # families read from a config.json only (core.memory.families: one module each)
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


class Attention(enum.Enum):
    # explicit softmax(QKᵀ)V: stores s² scores per head
    EAGER = "eager"
    # fused SDPA / flash attention: stores Q, K, V, output and log-sum-exp, no s² term
    SDPA = "sdpa"


class Accounting(enum.Enum):
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
    #: per-op selective recomputation: every second product's output, the
    #: reduce-scatters' outputs under tensor parallelism
    KEPT_PRODUCTS = "kept_products"
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
    # image towers (core.memory.families.vision, core.memory.families.vlm)
    VISION_EMBEDDINGS = "vision_embeddings"
    VISION_POOLING = "vision_pooling"
    VISION_PROJECTOR = "vision_projector"
    OTHER = "other"
    LOSS = "loss"
    #: a fused linear cross-entropy (Liger): the head's input gradient and the labels
    FUSED_LOSS = "fused_loss"
    # peak only (transients, not saved for backward)
    RECOMPUTED_LAYER = "recomputed_layer"
    RECOMPUTED_ATTENTION = "recomputed_attention"
    LOGITS_TRANSIENT = "logits_transient"
    #: a fused linear cross-entropy's chunk of logits (in place of the whole logits)
    LOSS_CHUNK = "loss_chunk"


class ShapeProblem(enum.Enum):
    NOT_POSITIVE = "not_positive"
    NOT_DIVISIBLE = "not_divisible"
    MISMATCH = "mismatch"
    # the choice is not modelled for this family (the detail says which)
    NOT_MODELLED = "not_modelled"


class InvalidActivationInputs(ValueError):
    def __init__(self, field_name: str, problem: ShapeProblem, detail: str) -> None:
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
    dtype: Precision = Precision.BF16
    dropout: bool = False
    attention: Attention = Attention.SDPA
    recompute: Recompute = Recompute.NONE
    tensor_parallel: int = 1
    sequence_parallel: bool = False
    profile: Accounting = Accounting.HF
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
    #: the head and the loss fused and chunked (Liger's fused linear cross-entropy): the
    #: whole logits are never made (a causal LM's loss only)
    fused_loss: bool = False
    #: eager attention's softmax is Megatron's fused scale-mask-softmax kernel
    #: (``FusedScaleMaskSoftmax``): it keeps its output in the data type only
    fused_softmax: bool = False
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


class Assumption(enum.Enum):
    PER_SAMPLE = "per_sample"
    HEAD_DIM = "head_dim"
    NO_PIPELINE = "no_pipeline"
    PAPER_TABLE2 = "paper_table2"
    PAPER_LLAMA_DERIVED = "paper_llama_derived"
    PAPER_OUTSIDE_LAYERS = "paper_outside_layers"
    PAPER_FULL_CHECKPOINT = "paper_full_checkpoint"
    PAPER_NO_DROPOUT = "paper_no_dropout"
    FUSED_SOFTMAX = "fused_softmax"
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
    FUSED_LOSS = "fused_loss"
    HF_CHECKPOINTING = "hf_checkpointing"
    HF_SELECTIVE_MODELLED = "hf_selective_modelled"
    PER_OP = "per_op"
    DROPOUT_MASK_CUDA = "dropout_mask_cuda"
    DROPOUT_MASK_CPU = "dropout_mask_cpu"
    TENSOR_PARALLEL = "tensor_parallel"
    VOCAB_PADDED = "vocab_padded"
    PEAK_MODEL = "peak_model"


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


@dataclass(frozen=True)
class Product:
    """One matrix product of a layer's forward, on one tensor-parallel rank: its input
    and output widths per token (a row-parallel product's output is the whole hidden
    size, a partial sum), whether it is a plain ``aten.mm`` (no bias) and whether it is
    row-parallel (a reduction follows it under tensor parallelism)."""

    inputs: int
    outputs: int
    plain: bool = True
    row_parallel: bool = False


@dataclass(frozen=True)
class Stack:
    """``count`` layers that keep the same tensors.

    ``parts``: one layer without recomputation. ``checkpoint``: what one layer keeps
    when every layer is recomputed (the checkpoint's inputs). ``products``: the layer's
    matrix products in forward order, for per-op selective recomputation (empty: the
    family does not describe them, and that recomputation is not modelled).
    """

    kind: StackKind
    count: int
    parts: Mapping[Part, int]
    checkpoint: Mapping[Part, int]
    products: tuple[Product, ...] = ()


@dataclass(frozen=True)
class ActivationLayout:
    """Bytes per sample autograd keeps, as one family builds them for ``inputs``."""

    stacks: tuple[Stack, ...]
    #: once per model (already reflecting the recomputation choice)
    outside: Mapping[Part, int]
    #: peak transient around the loss (logits in the model dtype, fp32 copy/gradient)
    logits: int
    #: the family's own assumptions, English, marked with ``trans_late("Activation", …)``
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Dims:
    """Sharded sizes: every split the model makes is exact after ``activation.validate``."""

    s: int  # full sequence
    s_sp: int  # sequence as stored by sequence-parallel regions (s/t with SP)
    h: int
    a: int  # heads per rank
    k: int  # kv heads per rank
    d: int
    i: int  # intermediate per rank
    v: int  # vocabulary per rank (padded)


def dims_of(inputs: Inputs) -> Dims:
    t = inputs.tensor_parallel
    return Dims(
        s=inputs.seq,
        s_sp=inputs.seq // t if inputs.sequence_parallel else inputs.seq,
        h=inputs.hidden,
        a=inputs.heads // t,
        k=inputs.kv_heads // t,
        d=inputs.head_dim,
        i=inputs.intermediate // t,
        v=-(-inputs.vocab // t),
    )


#: the attention core's tensors: what selective recomputation drops and recomputes
ATTENTION_CORE = (
    Part.ATTN_SOFTMAX,
    Part.ATTN_DROPOUT,
    Part.ATTN_FUSED,
    Part.ATTN_KERNEL_OUTPUT,
    Part.ATTN_SOFTCAP,
    Part.CROSS_ATTN_SCORES,
)
