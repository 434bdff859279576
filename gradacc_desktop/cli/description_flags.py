"""The flags of the training description (``cli.description`` reads them): the model,
the method, the sequences, the hardware and layout, the figures typed over the derived
ones and the run, added to a command's parser by the ``add_*`` functions.

One name per idea in every command (``--model``, ``--model-config``, ``--seq-len``,
``--precision``, ``--tensor-parallel``, ``--pipeline-stages``, ``--ffn-hidden``,
``--nodes``, …). A command whose flags were once spelled otherwise passes ``old_names``
(new flag → old spelling): the old spelling keeps working, hidden from ``--help``, and
says the new name in one line on stderr (``_common.add_old_name``)."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from ..core.attention import AttentionKernel
from ..core.batch import DATASET_LIMITS, GPU_MEMORY_LIMITS, OTHER_MEMORY_LIMITS, SEQ_LEN_LIMITS
from ..core.framework import Framework
from ..core.limits import Limits, whole
from ..core.memory import (
    DEFAULT_OVERHEAD_GB,
    LORA_RANK_LIMITS,
    SHAPE_LIMITS,
    Family,
    Offload,
    Precision,
    ZeroStage,
)
from ..core.memory.setup import SERVER_GPUS
from ..core.names import unknown_name
from ..core.precision import FP8, MasterWeights
from ..core.recompute import Recompute
from ..core.time import (
    BANDWIDTH_LIMITS,
    EPOCHS_LIMITS,
    GOODPUT_LIMITS,
    LAYOUT_LIMITS,
    PARAMS_LIMITS,
    PRICE_LIMITS,
    TOKENS_LIMITS,
    UTILISATION_LIMITS,
    GpuTableError,
    load_gpu_table,
)
from ..core.training.description import CPU_MEMORY_LIMITS, Optimizer
from ._common import GPUS, add_old_name, decimal_type, image_size_type, int_type, say_renamed

#: images per sample: the estimator's range
IMAGES_LIMITS = SHAPE_LIMITS["images"]

#: typed figures may be given to the byte (9 decimals of a GB)
BYTE_DECIMALS = 9
ACTIVATION_FLAG = decimal_type(
    Limits(Decimal(1).scaleb(-BYTE_DECIMALS), Decimal(100_000), False, BYTE_DECIMALS)
)
OTHER_MEMORY_FLAG = decimal_type(
    Limits(OTHER_MEMORY_LIMITS.minimum, OTHER_MEMORY_LIMITS.maximum, False, BYTE_DECIMALS)
)
NODES = int_type(whole(1, 1_000_000))
LAYOUT = int_type(LAYOUT_LIMITS)
LORA_RANK = int_type(LORA_RANK_LIMITS)
SIZE = int_type(whole(1, 10_000_000))

#: a command's old spellings: new flag -> old spelling
OldNames = Mapping[str, str]


def _flag(container: Any, flag: str, old_names: OldNames | None, **kwargs: Any) -> None:
    """``container.add_argument(flag, **kwargs)``, and the flag's old spelling when the
    command had one."""
    action = container.add_argument(flag, **kwargs)
    old = (old_names or {}).get(flag)
    if old is not None:
        add_old_name(container, action, old)


def precision_of(args: argparse.Namespace) -> tuple[Precision, bool]:
    """``--precision`` and ``--fp8``: the training's precision and whether its matrix
    products run in FP8. ``--precision fp8`` (``gradacc time``'s old spelling) is bf16
    with FP8 products, said once on stderr."""
    if args.precision == FP8:
        say_renamed("--precision fp8 is now --precision bf16 --fp8")
        args.precision, args.fp8 = Precision.BF16.value, True
    return Precision(args.precision), bool(args.fp8)


def card_ids() -> list[str]:
    try:
        return [card.id for card in load_gpu_table().cards]
    except GpuTableError:  # a broken bundle must not take the whole CLI down
        return []


def _card_id(text: str) -> str:
    """A known card's id (an unknown one is refused with the ids it may have meant)."""
    known = card_ids()
    if text in known:
        return text
    raise argparse.ArgumentTypeError(unknown_name("card", text, known))


def add_gpus_arguments(
    parser: Any,
    *,
    gpus_type: Any = GPUS,
    world_type: Any = LAYOUT,
    gpus_help: str = "data-parallel GPUs (the world is G x tensor x pipeline x context)",
) -> None:
    """``--gpus`` (the data-parallel GPUs, as in ``plan``) or ``--world-size`` (every GPU,
    the data-parallel ones found by dividing by the model-parallel sizes);
    ``description.data_parallel`` reads them."""
    parser.add_argument("--gpus", type=gpus_type, metavar="G", help=gpus_help)
    parser.add_argument(
        "--world-size",
        type=world_type,
        metavar="N",
        help="every GPU, instead of --gpus: data x tensor x pipeline x context",
    )


def add_model_arguments(
    parser: argparse.ArgumentParser, *, required: bool = False, old_names: OldNames | None = None
) -> None:
    """``--model`` | ``--model-config`` | ``--params``, or the model's sizes."""
    group = parser.add_mutually_exclusive_group(required=required)
    _flag(
        group,
        "--model",
        old_names,
        metavar="NAME",
        help="a bundled model (every command takes the same names), e.g. "
        "llama-3.1-8b, mistral-7b, gpt2",
    )
    group.add_argument(
        "--model-config",
        metavar="PATH",
        help="the model's Hugging Face config.json (a local file; nothing is downloaded)",
    )
    group.add_argument(
        "--params",
        type=int_type(PARAMS_LIMITS),
        metavar="P",
        help="parameters of the model (no shape: attention, kernel widths and tensor-/"
        "pipeline-parallel traffic are not counted; give the sizes instead)",
    )
    sizes = parser.add_argument_group(
        "model sizes (instead of --model, --model-config or --params)"
    )
    sizes.add_argument("--layers", type=SIZE, metavar="L", help="transformer layers")
    sizes.add_argument("--hidden", type=SIZE, metavar="H", help="hidden size")
    sizes.add_argument("--heads", type=SIZE, metavar="A", help="attention heads")
    sizes.add_argument(
        "--kv-heads", type=SIZE, metavar="K", help="key/value heads (default: --heads)"
    )
    _flag(
        sizes,
        "--ffn-hidden",
        old_names,
        type=SIZE,
        metavar="F",
        help="the MLP's width (default: 8H/3 rounded up to 256 for llama, 4H for gpt2)",
    )
    sizes.add_argument("--vocab", type=SIZE, metavar="V", help="vocabulary (default 32000)")
    sizes.add_argument(
        "--family",
        choices=[Family.LLAMA.value, Family.GPT2.value],
        default=None,
        help="llama: gated (SwiGLU) MLP, rotary positions (default); gpt2: plain GeLU "
        "MLP, learned positions up to --seq-len",
    )


def add_method_arguments(
    parser: argparse.ArgumentParser, *, old_names: OldNames | None = None
) -> None:
    group = parser.add_argument_group("method")
    group.add_argument(
        "--lora-rank", type=LORA_RANK, metavar="R", help="train LoRA adapters of rank R"
    )
    group.add_argument(
        "--lora-targets",
        metavar="NAMES",
        help="what LoRA adapts: query_value (default), attention, all_linear, or PEFT "
        "target_modules names, comma-separated (q_proj,v_proj; all-linear; c_attn ...)",
    )
    group.add_argument(
        "--base-bits",
        type=int,
        choices=[16, 4],
        default=None,
        help="frozen base of LoRA: 16-bit, or 4-bit NF4 with double quantization (QLoRA)",
    )
    group.add_argument(
        "--trainable-params",
        type=int_type(PARAMS_LIMITS),
        metavar="T",
        help="the adapters' parameters, when the model's projections are not known",
    )
    group.add_argument(
        "--optimizer", choices=[o.value for o in Optimizer], default=Optimizer.ADAM.value
    )
    _flag(
        group,
        "--precision",
        old_names,
        # fp8: gradacc time's old spelling of bf16 with --fp8
        choices=[*(p.value for p in Precision), FP8],
        metavar="{" + ",".join(p.value for p in Precision) + "}",
        default=Precision.BF16.value,
        help="what the weights, gradients and activations are kept in (default bf16)",
    )
    group.add_argument(
        "--master-weights",
        choices=[m.value for m in MasterWeights],
        default=MasterWeights.FP32.value,
        help="what a bf16 training's optimizer updates: an fp32 master copy with fp32 "
        "states (mixed precision; default), a bf16 one with bf16 states (DeepSpeed's "
        "bf16_master_weights_and_grads) or none (pure bf16: torchtune, FSDP2 without a "
        "mixed-precision policy)",
    )
    group.add_argument(
        "--fp8",
        action="store_true",
        help="FP8 matrix products (Transformer Engine) around 16-bit training: the card's "
        "FP8 peak; memory as in --precision",
    )


def add_layout_arguments(
    parser: argparse.ArgumentParser,
    *,
    nodes_help: str,
    old_names: OldNames | None = None,
) -> None:
    group = parser.add_argument_group("layout")
    group.add_argument(
        "--nodes",
        type=NODES,
        metavar="N",
        help=f"{nodes_help} (default: the fewest nodes of at most {SERVER_GPUS} GPUs that "
        "split the world evenly)",
    )
    add_split_arguments(group, old_names=old_names)
    group.add_argument("--offload", choices=[o.value for o in Offload], default=Offload.NONE.value)
    add_recompute_argument(group)


def add_recompute_argument(group: Any) -> None:
    group.add_argument(
        "--recompute",
        choices=[r.value for r in Recompute],
        default=Recompute.NONE.value,
        help="activation recomputation: none, selective (the attention core, Megatron's "
        "--recompute-granularity selective), selective-op (torchtitan's per-op selective "
        "checkpointing: every second product kept) or full (every layer's forward)",
    )


def add_split_arguments(group: Any, *, old_names: OldNames | None = None) -> None:
    """How a model is split over its GPUs: tensor, pipeline (and its virtual stages),
    experts, context, ZeRO, the framework and sequence parallelism."""
    _flag(
        group,
        "--tensor-parallel",
        old_names,
        type=LAYOUT,
        default=1,
        metavar="TP",
        help="tensor-parallel size (inside one node)",
    )
    group.add_argument(
        "--pipeline-stages",
        type=LAYOUT,
        default=1,
        metavar="PP",
        help="pipeline stages (1F1B; the accumulation steps are its micro-batches)",
    )
    group.add_argument(
        "--virtual-stages",
        type=LAYOUT,
        default=1,
        metavar="V",
        help="interleaved 1F1B: model chunks per GPU (Megatron's virtual pipeline "
        "stages); the bubble shrinks V times",
    )
    add_expert_parallel_argument(group)
    add_context_parallel_argument(group)
    group.add_argument(
        "--zero-stage",
        type=int,
        choices=[int(z) for z in ZeroStage],
        default=0,
        metavar="{0,1,2,3}",
    )
    group.add_argument(
        "--framework",
        choices=[f.value for f in Framework],
        default=Framework.DEEPSPEED.value,
        help="what runs the step, and so counts the memory and moves the gradients "
        "(default deepspeed; megatron: fp32 gradient buffer, ZeRO-1 is its distributed "
        "optimizer; fsdp: FSDP2's per-parameter sharding)",
    )
    _flag(
        group,
        "--sequence-parallel",
        old_names,
        action="store_true",
        help="Megatron's sequence parallelism beside --tensor-parallel: norms, dropouts "
        "and residuals on 1/TP of the tokens (their activations and work split too)",
    )
    group.add_argument(
        "--tp-comm-overlap",
        action="store_true",
        help="Megatron's --tp-comm-overlap (Transformer Engine): the tensor-parallel "
        "all-gathers and reduce-scatters run inside the matrix products; with "
        "--sequence-parallel and --framework megatron",
    )
    group.add_argument(
        "--grad-reduce-in-bf16",
        action="store_true",
        help="Megatron's --grad-reduce-in-bf16: its gradient buffer and the data-parallel "
        "reduction in bf16 instead of fp32 (2 bytes a parameter less); with --framework "
        "megatron and bf16",
    )


def add_link_arguments(group: Any) -> None:
    """The bandwidths typed over the card's (GB/s per GPU and direction)."""
    group.add_argument(
        "--link-gbps",
        type=decimal_type(BANDWIDTH_LIMITS),
        metavar="GB/s",
        help="between GPUs of one node, per GPU and direction (default: the card's link)",
    )
    group.add_argument(
        "--network-gbps",
        type=decimal_type(BANDWIDTH_LIMITS),
        metavar="GB/s",
        help="between nodes, per GPU and direction (default: the card's typical network; "
        "8 x 200 Gb/s InfiniBand for 8 GPUs is 25)",
    )


def add_expert_parallel_argument(group: Any) -> None:
    group.add_argument(
        "--expert-parallel",
        type=LAYOUT,
        default=1,
        metavar="EP",
        help="a mixture of experts: spread each sparse layer's routed experts over EP of "
        "the data-parallel GPUs (Megatron's --expert-model-parallel-size, DeepSpeed-MoE's "
        "ep_size); EP must divide the data-parallel GPUs and the experts",
    )
    group.add_argument(
        "--expert-tensor-parallel",
        type=LAYOUT,
        default=None,
        metavar="ETP",
        help="Megatron only: split each routed expert over ETP GPUs "
        "(--expert-tensor-parallel-size; default: the tensor-parallel size); the groups of "
        "EP x ETP GPUs then tile a pipeline stage's tensor x context x data-parallel GPUs "
        "(MoE parallel folding: EP may take tensor-parallel GPUs)",
    )


def add_context_parallel_argument(group: Any) -> None:
    group.add_argument(
        "--context-parallel",
        type=LAYOUT,
        default=1,
        metavar="CP",
        help="split each sequence over CP GPUs of a replica (Megatron's "
        "--context-parallel-size; ring attention): adds GPUs, world = dp x tp x pp x CP; "
        "the sequence length must be divisible by 2 x CP",
    )


def add_hardware_arguments(parser: argparse.ArgumentParser, *, card_group: Any = None) -> None:
    """The card and its speed; ``card_group``: where ``--gpu-card`` goes (``time`` puts
    it beside ``--achieved-tflops``)."""
    group = parser.add_argument_group("hardware")
    (group if card_group is None else card_group).add_argument(
        "--gpu-card",
        type=_card_id,
        metavar="CARD",
        help="a known card: its usable memory and speed (e.g. a100-80gb, h100-80gb, rtx-4090-24gb)",
    )
    group.add_argument(
        "--gpu-memory-gb",
        type=decimal_type(GPU_MEMORY_LIMITS),
        metavar="C",
        help="usable memory of one GPU, instead of --gpu-card (no time per step: no speed)",
    )
    group.add_argument(
        "--cpu-memory-gb",
        type=int_type(CPU_MEMORY_LIMITS),
        metavar="M",
        help="each node's CPU memory in GB (default: not given); an offload it cannot hold "
        "does not fit",
    )
    group.add_argument(
        "--efficiency",
        type=decimal_type(UTILISATION_LIMITS),
        metavar="E",
        help="one share of the card's peak for every kernel, e.g. 0.45 (default: the "
        "efficiency model: products, attention and element-wise work by the model's shape)",
    )
    add_link_arguments(group)
    group.add_argument(
        "--speed-profile",
        metavar="PATH",
        help="a speed profile from python -m gradacc_desktop.measure --profile-out: its "
        "measured micro-step seconds replace the roofline",
    )


def add_sequence_arguments(
    parser: argparse.ArgumentParser,
    *,
    old_names: OldNames | None = None,
    seq_help: str = "tokens per sample (the model's image tokens included)",
) -> None:
    group = parser.add_argument_group("sequences")
    _flag(group, "--seq-len", old_names, type=int_type(SEQ_LEN_LIMITS), metavar="L", help=seq_help)
    group.add_argument(
        "--attention",
        choices=[a.value for a in AttentionKernel],
        default=AttentionKernel.SDPA.value,
        help="the attention kernel: sdpa (fused: SDPA, FlashAttention 2; under megatron "
        "Transformer Engine's cuDNN kernel, flash's speed from Hopper on; no scores kept; "
        "default), flash (FlashAttention 3 on Hopper, 4 on Blackwell: as sdpa, its own "
        "speed) or eager (the scores are written out: more memory and time)",
    )
    group.add_argument(
        "--fused-loss",
        action="store_true",
        help="the head and the loss fused over chunks of tokens (Liger's fused linear "
        "cross-entropy, use_liger_kernel): a causal LM's whole logits are never kept "
        "(Hugging Face modules; not with --framework megatron)",
    )
    group.add_argument(
        "--target-seq",
        type=int_type(SEQ_LEN_LIMITS),
        metavar="L",
        help="encoder-decoders (T5): the target length (default: --seq-len)",
    )
    group.add_argument(
        "--images",
        type=int_type(IMAGES_LIMITS),
        metavar="N",
        help="language models with a vision tower: images per sample (default 1); their "
        "tokens are part of --seq-len",
    )
    group.add_argument(
        "--image-size",
        type=image_size_type,
        metavar="WxH",
        help="models with a vision tower: pixels of each image (default: the model's own)",
    )
    group.add_argument(
        "--freeze-vision",
        action="store_true",
        help="models with a vision tower: the tower does not train",
    )


def add_memory_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(
        "memory (derived from the model when absent; decimal GB, to the byte)"
    )
    group.add_argument(
        "--activation-gb",
        type=ACTIVATION_FLAG,
        metavar="X",
        help="one sample of the whole model on one GPU (default: estimated from the "
        "model at --seq-len); the first pipeline stage holds it divided by --tensor-parallel",
    )
    group.add_argument(
        "--other-memory-gb",
        type=OTHER_MEMORY_FLAG,
        metavar="O",
        help="everything but activations per GPU (default: the model states for the "
        "setup, as DeepSpeed counts them, + --overhead-gb)",
    )
    group.add_argument(
        "--overhead-gb",
        type=decimal_type(OTHER_MEMORY_LIMITS),
        default=DEFAULT_OVERHEAD_GB,
        metavar="GB",
        help="CUDA context and allocator slack per GPU in the derived other memory (default 1)",
    )


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("the run")
    group.add_argument("--dataset-samples", type=int_type(DATASET_LIMITS), metavar="N")
    group.add_argument(
        "--epochs", type=int_type(EPOCHS_LIMITS), metavar="E", help="passes over the dataset"
    )
    group.add_argument("--tokens", type=int_type(TOKENS_LIMITS), metavar="T", help="a token budget")
    group.add_argument("--price-per-gpu-hour", type=decimal_type(PRICE_LIMITS), metavar="$")
    add_goodput_argument(group)


def add_goodput_argument(group: Any) -> None:
    group.add_argument(
        "--goodput",
        type=decimal_type(GOODPUT_LIMITS),
        metavar="G",
        help="share of the wall-clock time spent training, e.g. 0.9 (restarts and "
        "checkpoints take the rest; default 1)",
    )


def add_description_arguments(
    parser: argparse.ArgumentParser,
    *,
    nodes_help: str,
    old_names: OldNames | None = None,
    card_group: Any = None,
    seq_help: str | None = None,
) -> None:
    """Every flag of the description but the GPUs and the batch (the command adds its
    own); ``old_names``: the command's old spellings (new flag -> old)."""
    add_model_arguments(parser, old_names=old_names)
    add_method_arguments(parser, old_names=old_names)
    if seq_help is None:
        add_sequence_arguments(parser, old_names=old_names)
    else:
        add_sequence_arguments(parser, old_names=old_names, seq_help=seq_help)
    add_hardware_arguments(parser, card_group=card_group)
    add_layout_arguments(parser, nodes_help=nodes_help, old_names=old_names)
    add_memory_arguments(parser)
    add_run_arguments(parser)
