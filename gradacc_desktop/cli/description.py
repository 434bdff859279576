"""The training description on the command line: one set of flags, the same for every
command that takes it (``plan``, ``export``, ``memory``, ``time``, ``activation``), read
into one ``TrainingDescription`` — each command is a view of the same plan.

* model: ``--model NAME`` (any bundled model, ``gradacc activation --preset`` takes the
  same names) | ``--model-config PATH`` (a local config.json) | ``--params P`` | the
  sizes ``--layers L --hidden H --heads A [--kv-heads K] [--ffn-hidden F] [--vocab V]
  [--family llama|gpt2]``;
* method: ``--lora-rank R`` (LoRA) with ``--lora-targets`` and ``--base-bits 4`` (QLoRA),
  ``--trainable-params`` for adapters on a model whose projections are not known,
  ``--optimizer``, ``--precision``, ``--master-weights``;
* sequences: ``--seq-len``, ``--target-seq`` (encoder-decoders), ``--attention``;
* GPUs: ``--gpus G`` (data-parallel) or ``--world-size N`` (every GPU);
* hardware and layout: ``--gpu-card CARD | --gpu-memory-gb C``, ``--nodes``,
  ``--tensor-parallel``, ``--pipeline-stages``, ``--virtual-stages``,
  ``--expert-parallel``, ``--context-parallel``, ``--zero-stage``, ``--offload``, ``--recompute``,
  ``--efficiency``, ``--link-gbps``, ``--network-gbps``, ``--speed-profile``;
* figures typed over the derived ones: ``--activation-gb``, ``--other-memory-gb``
  (``--overhead-gb`` is part of the derived other memory);
* the run: ``--dataset-samples``, ``--epochs``, ``--tokens``, ``--price-per-gpu-hour``,
  ``--goodput``.

The flags are added by ``cli.description_flags`` (re-exported here); this module reads
them (``model_spec``, ``description_from``) and checks what no description holds.
"""

from __future__ import annotations

import argparse
import sys
from decimal import Decimal
from typing import Any

from ..core.attention import AttentionKernel
from ..core.batch import Rounding
from ..core.framework import Framework
from ..core.memory import (
    Family,
    LoraTargets,
    ModelSpec,
    Offload,
    UnknownModelError,
    ZeroStage,
    facts,
    problem_text,
    setup_problem,
    typed_shape,
)
from ..core.memory.families import ModelConfigError, file_name, read_model_config
from ..core.precision import MasterWeights
from ..core.time import (
    MISMATCH_TEXT,
    GpuCard,
    ProfileError,
    Recompute,
    custom_card,
    load_gpu_table,
    load_profile,
    profile_mismatches,
)
from ..core.training.description import (
    Method,
    Optimizer,
    RunBudget,
    TrainingDescription,
)
from ..core.training.description import nodes_of as core_nodes_of
from ..core.training.problems import SETUP_KINDS, problems
from ._common import UsageError
from .description_flags import add_description_arguments as add_description_arguments
from .description_flags import add_gpus_arguments as add_gpus_arguments
from .description_flags import precision_of

#: the flags that give a model by its sizes
SIZE_FLAGS = ("layers", "hidden", "heads", "kv_heads", "ffn_hidden", "vocab", "family")


def check_expert_groups(d: TrainingDescription, what: str = "--gpus") -> None:
    """A usage error when the expert groups do not tile the GPUs they are spread over
    (the setup's rule, with the flags named); ``what``: where the data-parallel GPUs
    came from."""
    setup = d.shape
    if setup.expert_span % setup.expert_group == 0:
        return
    ep = d.expert_parallel
    if setup.expert_tensor_parallel:  # Megatron's expert tensor parallelism, given
        raise UsageError(
            f"--expert-parallel {ep} x --expert-tensor-parallel {setup.expert_tensor} = "
            f"{setup.expert_group} must divide the {setup.expert_span} GPUs of a pipeline "
            f"stage (tensor x context x data parallel, {what})"
        )
    folded = setup.context_parallel > 1 and d.framework is Framework.MEGATRON
    kind = "context x data-parallel" if folded else "data-parallel"
    raise UsageError(
        f"--expert-parallel {ep} must divide the {setup.expert_span // setup.tensor_parallel} "
        f"{kind} GPUs ({what}): each group of {ep} holds every routed expert once"
    )


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
    plans_problems: bool = False,
) -> TrainingDescription:
    """The description the flags give; combinations no description holds are usage
    errors (exit 2), with one line saying why. What the description asks for that its
    model, card or layout cannot give (``training.problems``) is one too, in the core's
    words — unless ``plans_problems`` (``gradacc plan``, which reports them as the
    window does)."""
    model = model_spec(args)
    precision, fp8 = precision_of(args)
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
    if args.expert_parallel > 1 and model is None:
        raise UsageError(
            "--expert-parallel needs the model: a mixture of experts (--model or --model-config)"
        )
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
        precision=precision,
        fp8=fp8,
        optimizer=Optimizer(args.optimizer),
        master_weights=MasterWeights(args.master_weights),
        seq_len=args.seq_len,
        target_seq=args.target_seq,
        attention=AttentionKernel(args.attention),
        fused_loss=args.fused_loss,
        images=args.images,
        image_width=args.image_size[0] if args.image_size else None,
        image_height=args.image_size[1] if args.image_size else None,
        vision_frozen=args.freeze_vision,
        card=_card(args),
        gpus=gpus,
        nodes=nodes_of(args, gpus),
        tensor_parallel=args.tensor_parallel,
        pipeline_stages=args.pipeline_stages,
        virtual_stages=args.virtual_stages,
        expert_parallel=args.expert_parallel,
        expert_tensor_parallel=args.expert_tensor_parallel,
        context_parallel=args.context_parallel,
        zero_stage=ZeroStage(args.zero_stage),
        offload=Offload(args.offload),
        recompute=Recompute(args.recompute),
        framework=Framework(args.framework),
        sequence_parallel=args.sequence_parallel,
        tp_comm_overlap=args.tp_comm_overlap,
        grad_reduce_bf16=args.grad_reduce_in_bf16,
        target_batch=target_batch,
        rounding=rounding,
        micro_batch=micro_batch,
        activation_gb=args.activation_gb,
        other_memory_gb=args.other_memory_gb,
        overhead_gb=args.overhead_gb,
        efficiency=args.efficiency,
        cpu_memory_gb=None if args.cpu_memory_gb is None else Decimal(args.cpu_memory_gb),
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
            profile,
            args.seq_len,
            description.precision,
            description.recomputed,
            description.fp8_products,
        )
        for what, measured, planned in found:
            text = MISMATCH_TEXT[what].format(measured=measured, planned=planned)
            sys.stderr.write(f"gradacc: warning: --speed-profile: {text}\n")
    if not plans_problems:
        # the layouts no framework runs are ``checked``'s, for the commands that use one
        found_problems = [
            p
            for p in problems(description, None if model is None else facts(model))
            if p.kind not in SETUP_KINDS
        ]
        if found_problems:
            first = found_problems[0]
            raise UsageError(f"--{first.field.replace('_', '-')}: {first.message}")
    return description


def nodes_of(args: argparse.Namespace, gpus: int) -> int:
    """``--nodes``, or the nodes the world of ``gpus`` data-parallel GPUs takes when
    nobody says (``default_nodes``: nodes of at most 8 GPUs)."""
    a = args
    return core_nodes_of(a.nodes, gpus, a.tensor_parallel, a.pipeline_stages, a.context_parallel)


def model_parallel(args: argparse.Namespace) -> int:
    """GPUs one replica spans: tensor x pipeline x context (the world over the
    data-parallel GPUs)."""
    return int(args.tensor_parallel * args.pipeline_stages * args.context_parallel)


def data_parallel(args: argparse.Namespace) -> int:
    """The data-parallel GPUs: ``--gpus``, or ``--world-size`` over the model-parallel
    sizes (a usage error when neither, both, or an uneven split is given)."""
    gpus, world = args.gpus, args.world_size
    if gpus is not None and world is not None:
        raise UsageError(
            "--gpus (the data-parallel GPUs) and --world-size (every GPU) are alternatives: "
            "give one"
        )
    if world is None:
        if gpus is None:
            raise UsageError("the following arguments are required: --gpus (or --world-size)")
        return int(gpus)
    shards = model_parallel(args)
    if world % shards:
        raise UsageError(
            f"--world-size {world} is not a multiple of --tensor-parallel x "
            f"--pipeline-stages x --context-parallel = {shards}"
        )
    return int(world // shards)


def gpus_flag_text(args: argparse.Namespace) -> str:
    """Where the data-parallel GPUs came from, for a message: ``--gpus``, or the world
    size divided."""
    if args.world_size is None:
        return "--gpus"
    return "--world-size / (--tensor-parallel x --pipeline-stages" + (
        " x --context-parallel)" if args.context_parallel > 1 else ")"
    )


def checked(d: TrainingDescription, what: str = "--gpus") -> TrainingDescription:
    """``d``, or a usage error when no framework runs its layout (as ``gradacc plan``
    refuses it); ``what``: where the data-parallel GPUs came from."""
    check_expert_groups(d, what)
    setup = d.shape
    problem = setup_problem(setup)
    if problem is not None:
        raise UsageError(problem_text(problem, setup))
    return d


def refuse_given(args: argparse.Namespace, defaults: dict[str, Any], why: str) -> None:
    """A usage error naming the first flag of ``defaults`` (dest -> its default) that the
    command line gives: "--flag {why}"."""
    for flag, default in defaults.items():
        if getattr(args, flag) != default:
            raise UsageError(f"--{flag.replace('_', '-')} {why}")


def layout_dict(description: TrainingDescription) -> dict[str, Any]:
    return {
        "data_parallel": description.gpus,
        "tensor_parallel": description.tensor_parallel,
        "pipeline_stages": description.pipeline_stages,
        "virtual_stages": description.layout.virtual,
        # GPUs of the data-parallel group each MoE layer's experts are spread over
        "expert_parallel": description.expert_parallel,
        # GPUs each routed expert is split over (Megatron's; the tensor-parallel size
        # unless given)
        "expert_tensor_parallel": description.shape.expert_tensor,
        # GPUs each sequence is split over (they add to the world)
        "context_parallel": description.context_parallel,
        "world_size": description.world,
    }
