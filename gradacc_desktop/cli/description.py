"""The training description on the command line: one set of flags, the same for every
command that takes it (``plan``, ``export``; ``memory`` and ``time`` take its model
flags), read into one ``TrainingDescription``.

* model: ``--model NAME`` (any bundled model, ``gradacc activation --preset`` takes the
  same names) | ``--model-config PATH`` (a local config.json) | ``--params P`` | the
  sizes ``--layers L --hidden H --heads A [--kv-heads K] [--ffn-hidden F] [--vocab V]
  [--family llama|gpt2]``;
* method: ``--lora-rank R`` (LoRA) with ``--lora-targets`` and ``--base-bits 4`` (QLoRA),
  ``--trainable-params`` for adapters on a model whose projections are not known,
  ``--optimizer``, ``--precision``;
* sequences: ``--seq-len``, ``--target-seq`` (encoder-decoders), ``--attention``;
* hardware and layout: ``--gpu-card CARD | --gpu-memory-gb C``, ``--nodes``,
  ``--tensor-parallel``, ``--pipeline-stages``, ``--virtual-stages``,
  ``--expert-parallel``, ``--context-parallel``, ``--zero-stage``, ``--offload``, ``--recompute``,
  ``--efficiency``, ``--link-gbps``, ``--network-gbps``, ``--speed-profile``;
* figures typed over the derived ones: ``--activation-gb``, ``--other-memory-gb``
  (``--overhead-gb`` is part of the derived other memory);
* the run: ``--dataset-samples``, ``--epochs``, ``--tokens``, ``--price-per-gpu-hour``,
  ``--goodput``.
"""

from __future__ import annotations

import argparse
import sys
from decimal import Decimal
from typing import Any

from ..core.activation import SHAPE_LIMITS, Attention, Family
from ..core.compute import (
    BANDWIDTH_LIMITS,
    EPOCHS_LIMITS,
    GOODPUT_LIMITS,
    PARAMS_LIMITS,
    PRICE_LIMITS,
    TOKENS_LIMITS,
    UTILISATION_LIMITS,
    Recompute,
)
from ..core.families import ModelConfigError, file_name, read_model_config
from ..core.gpus import GpuCard, GpuTableError, custom_card, load_gpu_table
from ..core.layout import LAYOUT_LIMITS
from ..core.limits import Limits, whole
from ..core.lora import LORA_RANK_LIMITS, LoraTargets
from ..core.memory import DEFAULT_OVERHEAD_GB, ZeroStage
from ..core.models import ModelSpec, UnknownModelError, facts, typed_shape
from ..core.planning import (
    DATASET_LIMITS,
    GPU_MEMORY_LIMITS,
    OTHER_MEMORY_LIMITS,
    SEQ_LEN_LIMITS,
    Rounding,
)
from ..core.profile import MISMATCH_TEXT, ProfileError, load_profile, profile_mismatches
from ..core.setup import Offload, Precision
from ..core.training.description import (
    Method,
    Optimizer,
    RunBudget,
    TrainingDescription,
    context_problem,
    context_problem_text,
    expert_problem,
    expert_problem_text,
)
from ._common import UsageError, decimal_type, image_size_type, int_type

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
#: the flags that give a model by its sizes
SIZE_FLAGS = ("layers", "hidden", "heads", "kv_heads", "ffn_hidden", "vocab", "family")


def card_ids() -> list[str]:
    try:
        return [card.id for card in load_gpu_table().cards]
    except GpuTableError:  # a broken bundle must not take the whole CLI down
        return []


def add_model_arguments(parser: argparse.ArgumentParser, *, required: bool = False) -> None:
    """``--model`` | ``--model-config`` | ``--params``."""
    group = parser.add_mutually_exclusive_group(required=required)
    group.add_argument(
        "--model",
        metavar="NAME",
        help="a bundled model (gradacc activation --preset takes the same names), e.g. "
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
    sizes.add_argument(
        "--ffn-hidden",
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


def add_method_arguments(parser: argparse.ArgumentParser) -> None:
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
    group.add_argument(
        "--precision", choices=[p.value for p in Precision], default=Precision.BF16.value
    )
    group.add_argument(
        "--fp8",
        action="store_true",
        help="FP8 matrix products (Transformer Engine) around 16-bit training: the card's "
        "FP8 peak; memory as in --precision",
    )


def add_layout_arguments(parser: argparse.ArgumentParser, *, nodes_help: str) -> None:
    group = parser.add_argument_group("layout")
    group.add_argument("--nodes", type=NODES, default=1, metavar="N", help=nodes_help)
    add_split_arguments(group)
    group.add_argument("--offload", choices=[o.value for o in Offload], default=Offload.NONE.value)
    group.add_argument(
        "--recompute", choices=[r.value for r in Recompute], default=Recompute.NONE.value
    )


def add_split_arguments(group: Any) -> None:
    """How a model is split over its GPUs: tensor, pipeline (and its virtual stages),
    experts, ZeRO (``plan``, ``export`` and ``time``'s predicted speed)."""
    group.add_argument(
        "--tensor-parallel",
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


def check_context_seq(context_parallel: int, seq_len: int | None) -> None:
    """A usage error when ``context_parallel`` GPUs cannot split the sequence."""
    if seq_len is None:
        return
    problem = context_problem(context_parallel, seq_len)
    if problem is not None:
        text = context_problem_text(problem, context_parallel, seq_len)
        raise UsageError(f"--context-parallel: {text}")


def check_expert_model(expert_parallel: int, model: ModelSpec | None) -> None:
    """A usage error when ``expert_parallel`` GPUs cannot share ``model``'s experts."""
    if expert_parallel == 1:
        return
    if model is None:
        raise UsageError(
            "--expert-parallel needs the model: a mixture of experts (--model or --model-config)"
        )
    found = facts(model)
    problem = expert_problem(expert_parallel, found)
    if problem is not None:
        text = expert_problem_text(problem, expert_parallel, found)
        raise UsageError(f"--expert-parallel: {text}")


def check_expert_data(expert_parallel: int, data_parallel: int, what: str = "--gpus") -> None:
    """A usage error when ``expert_parallel`` does not divide the data-parallel GPUs."""
    if data_parallel % expert_parallel:
        raise UsageError(
            f"--expert-parallel {expert_parallel} must divide the {data_parallel} "
            f"data-parallel GPUs ({what}): each group of {expert_parallel} holds every "
            "routed expert once"
        )


def add_hardware_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("hardware")
    group.add_argument(
        "--gpu-card",
        choices=card_ids(),
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


def add_sequence_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("sequences")
    group.add_argument("--seq-len", type=int_type(SEQ_LEN_LIMITS), metavar="L")
    group.add_argument(
        "--attention",
        choices=[a.value for a in Attention],
        default=Attention.SDPA.value,
        help="the attention kernel: sdpa (fused, flash: no scores kept; default) or eager "
        "(the scores are written out: more memory and time)",
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


def add_description_arguments(parser: argparse.ArgumentParser, *, nodes_help: str) -> None:
    """Every flag of the description but the batch (the command adds its own)."""
    add_model_arguments(parser)
    add_method_arguments(parser)
    add_sequence_arguments(parser)
    add_hardware_arguments(parser)
    add_layout_arguments(parser, nodes_help=nodes_help)
    add_memory_arguments(parser)
    add_run_arguments(parser)


# --------------------------------------------------------------------------- reading


def _sizes(args: argparse.Namespace) -> ModelSpec | None:
    given = [flag for flag in SIZE_FLAGS if getattr(args, flag, None) is not None]
    if not given:
        return None
    for flag in ("model", "model_config", "params"):
        if getattr(args, flag, None) is not None:
            raise UsageError(f"--{flag.replace('_', '-')} and the model's sizes are alternatives")
    missing = [f"--{f}" for f in ("layers", "hidden", "heads") if getattr(args, f) is None]
    if missing:
        raise UsageError(f"a model given by its sizes needs {', '.join(missing)} too")
    family = Family(args.family or Family.LLAMA.value)
    seq = getattr(args, "seq_len", None)
    try:
        shape = typed_shape(
            args.layers,
            args.hidden,
            args.heads,
            kv_heads=args.kv_heads,
            ffn_hidden=args.ffn_hidden,
            vocab=args.vocab,
            family=family,
            max_positions=seq or (1024 if family is Family.GPT2 else 4096),
        )
    except ValueError as exc:
        raise UsageError(f"the model's sizes: {exc}") from None
    return ModelSpec.typed_shape(shape)


def model_spec(args: argparse.Namespace) -> ModelSpec | None:
    """The model the flags name (a bad name or file is a usage error)."""
    sized = _sizes(args)
    if sized is not None:
        return sized
    if getattr(args, "model", None) is not None:
        try:
            return ModelSpec.bundled(args.model)
        except UnknownModelError as exc:
            raise UsageError(f"--model: {exc}") from None
    if getattr(args, "model_config", None) is not None:
        try:
            arch = read_model_config(args.model_config)
        except ModelConfigError as exc:
            raise UsageError(f"--model-config: {args.model_config}: {exc.detail}") from None
        return ModelSpec.config(arch, file_name(args.model_config))
    if getattr(args, "params", None) is not None:
        return ModelSpec.typed_params(args.params)
    return None


def lora_targets(text: str | None) -> LoraTargets | tuple[str, ...]:
    if text is None:
        return LoraTargets.QUERY_VALUE
    try:
        return LoraTargets(text.strip())
    except ValueError:
        names = tuple(name.strip() for name in text.split(",") if name.strip())
        if not names:
            raise UsageError("--lora-targets: give at least one target module") from None
        return names


def _method(args: argparse.Namespace) -> Method:
    if args.lora_rank is None:
        for flag in ("lora_targets", "base_bits", "trainable_params"):
            if getattr(args, flag) is not None:
                raise UsageError(f"--{flag.replace('_', '-')} goes with --lora-rank")
        return Method.FULL
    return Method.QLORA if args.base_bits == 4 else Method.LORA


def _card(args: argparse.Namespace) -> GpuCard | None:
    if args.gpu_card is not None:
        if args.gpu_memory_gb is not None:
            raise UsageError("--gpu-card and --gpu-memory-gb are alternatives: give one")
        return load_gpu_table().by_id(args.gpu_card)
    if args.gpu_memory_gb is not None:
        return custom_card(args.gpu_memory_gb)
    return None


def description_from(
    args: argparse.Namespace,
    *,
    gpus: int,
    target_batch: int,
    micro_batch: int | None = None,
    rounding: Rounding = Rounding.CEIL,
) -> TrainingDescription:
    """The description the flags give; combinations no description holds are usage
    errors (exit 2), with one line saying why."""
    model = model_spec(args)
    if args.virtual_stages > 1 and args.pipeline_stages == 1:
        raise UsageError("--virtual-stages interleaves pipeline stages: give --pipeline-stages")
    if args.fp8 and args.precision == Precision.FP32.value:
        raise UsageError("--fp8 goes with 16-bit training (--precision bf16 or fp16)")
    if model is None:
        for flag in ("efficiency", "speed_profile"):
            if getattr(args, flag) is not None:
                flag_name = flag.replace("_", "-")
                raise UsageError(f"--{flag_name} needs --params, --model or --model-config")
    method = _method(args)
    targets = lora_targets(args.lora_targets)
    if model is not None and method.adapters:
        lora = facts(model).lora
        if lora is None and args.trainable_params is None:
            raise UsageError(
                "--lora-rank: this model's projections are not known: give the adapters' "
                "parameters with --trainable-params"
            )
        if lora is not None:
            try:
                lora.names(targets)
            except ValueError as exc:
                raise UsageError(f"--lora-targets: {exc}") from None
    check_expert_model(args.expert_parallel, model)
    check_context_seq(args.context_parallel, args.seq_len)
    if args.target_seq is not None and (model is None or not facts(model).encoder_decoder):
        raise UsageError("--target-seq is for encoder-decoder models (T5)")
    imaged = args.images is not None or args.image_size is not None or args.freeze_vision
    if imaged and (model is None or facts(model).vision is None):
        raise UsageError("--images, --image-size and --freeze-vision need a vision tower")
    profile = None
    if args.speed_profile is not None:
        try:
            profile = load_profile(args.speed_profile)
        except ProfileError as exc:
            raise UsageError(f"--speed-profile: {exc}") from None
    description = TrainingDescription(
        model=model,
        method=method,
        lora_rank=args.lora_rank or 16,
        lora_targets=targets,
        trainable_params=args.trainable_params,
        precision=Precision(args.precision),
        fp8=args.fp8,
        optimizer=Optimizer(args.optimizer),
        seq_len=args.seq_len,
        target_seq=args.target_seq,
        attention=Attention(args.attention),
        images=args.images,
        image_width=args.image_size[0] if args.image_size else None,
        image_height=args.image_size[1] if args.image_size else None,
        vision_frozen=args.freeze_vision,
        card=_card(args),
        gpus=gpus,
        nodes=args.nodes,
        tensor_parallel=args.tensor_parallel,
        pipeline_stages=args.pipeline_stages,
        virtual_stages=args.virtual_stages,
        expert_parallel=args.expert_parallel,
        context_parallel=args.context_parallel,
        zero_stage=ZeroStage(args.zero_stage),
        offload=Offload(args.offload),
        recompute=Recompute(args.recompute),
        target_batch=target_batch,
        rounding=rounding,
        micro_batch=micro_batch,
        activation_gb=args.activation_gb,
        other_memory_gb=args.other_memory_gb,
        overhead_gb=args.overhead_gb,
        efficiency=args.efficiency,
        link_gbps=args.link_gbps,
        network_gbps=args.network_gbps,
        profile=profile,
        run=RunBudget(
            dataset_samples=args.dataset_samples,
            epochs=args.epochs,
            tokens=args.tokens,
            price_per_gpu_hour=args.price_per_gpu_hour,
            goodput=args.goodput,
        ),
    )
    if profile is not None and args.seq_len is not None:
        found = profile_mismatches(
            profile, args.seq_len, description.training_precision, description.recompute
        )
        for what, measured, planned in found:
            text = MISMATCH_TEXT[what].format(measured=measured, planned=planned)
            sys.stderr.write(f"gradacc: warning: --speed-profile: {text}\n")
    return description


def layout_dict(description: TrainingDescription) -> dict[str, Any]:
    return {
        "data_parallel": description.gpus,
        "tensor_parallel": description.tensor_parallel,
        "pipeline_stages": description.pipeline_stages,
        "virtual_stages": description.layout.virtual,
        # GPUs of the data-parallel group each MoE layer's experts are spread over
        "expert_parallel": description.expert_parallel,
        # GPUs each sequence is split over (they add to the world)
        "context_parallel": description.context_parallel,
        "world_size": description.world,
    }
