"""``gradacc activation``: activation memory per sample of a transformer.

A view of the plan: the model and the training step take the training description's
flags, the same names as ``gradacc plan``'s (``--model``, ``--model-config`` or the
sizes with ``--ffn-hidden``, ``--seq-len``, ``--precision``, ``--attention``,
``--recompute``, ``--tensor-parallel``, ``--sequence-parallel``, ``--images``, …), and
the JSON adds the plan's own figures for them: ``activation_bytes_per_sample`` (one
sample of the whole model on one GPU) and ``activation_bytes_per_gpu_per_sample`` (on
the GPU that holds the most, with the layout's tensor, pipeline and context split and
the framework's accounting). The estimator's own knobs beside them (``--padded``,
``--dropout``, ``--use-cache``, ``--task``, ``--num-labels``, ``--profile``,
``--device``) change its ``peak_bytes_per_sample`` only; with none of them and one
tensor-parallel rank, ``peak_bytes_per_sample`` is the plan's figure. With
``--tensor-parallel`` the estimator counts one rank's modules itself (what ``--tp``
always did); the plan's per-GPU figure is beside it.

Old spellings, kept with one line on stderr naming the new one: ``--preset`` (now
``--model``), ``--seq`` (``--seq-len``), ``--dtype`` (``--precision``), ``--tp``
(``--tensor-parallel``), ``--sp`` (``--sequence-parallel``), ``--intermediate``
(``--ffn-hidden``).

Registered by the CLI package through ``register(subparsers)`` (the handler is set
as both ``handler`` and ``func``). Bad arguments: argparse errors go through the
parser's ``error``; combinations found after parsing raise ``UsageError`` (the CLI
prints one line on stderr and exits 2, nothing on stdout). ``run`` prints a human
summary or, with ``--json``, one JSON object.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import replace
from decimal import ROUND_CEILING, Decimal
from typing import Any, NoReturn, TextIO

from gradacc_desktop.core.frameworks.rules import Rule, refusals
from gradacc_desktop.core.memory import (
    ASSUMPTION_TEXT,
    GB,
    PART_TEXT,
    STACK_TEXT,
    Accounting,
    Attention,
    Device,
    Family,
    Inputs,
    InvalidActivationInputs,
    Item,
    ModelSource,
    ModelSpec,
    Recompute,
    Result,
    ShapeProblem,
    estimate,
    facts,
    find_model,
)
from gradacc_desktop.core.memory.families import (
    FAMILY_TEXT,
    Architecture,
    family_module,
    hooks,
    parameters,
)
from gradacc_desktop.core.memory.families.heads import Task
from gradacc_desktop.core.memory.families.vision_facts import default_images
from gradacc_desktop.core.memory.families.vision_facts import summary as vision_summary
from gradacc_desktop.core.training.description import TrainingDescription
from gradacc_desktop.core.training.figures import Figures, figures

from ._common import UsageError
from .description import (
    add_description_arguments,
    data_parallel,
    description_from,
    model_spec,
)
from .description_flags import add_gpus_arguments, precision_of

#: GB decimals of ``activation_gb`` (what the calculator's field accepts)
ACTIVATION_GB_DECIMALS = 3

#: activation's old spellings (new flag -> old)
OLD_NAMES = {
    "--model": "--preset",
    "--seq-len": "--seq",
    "--precision": "--dtype",
    "--tensor-parallel": "--tp",
    "--sequence-parallel": "--sp",
    "--ffn-hidden": "--intermediate",
}


def _positive_int(text: str) -> int:
    try:
        value = int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1: {text}")
    return value


def _image_options(args: argparse.Namespace) -> dict[str, Any]:
    """The image inputs given on the command line (empty when none)."""
    options: dict[str, Any] = {}
    if getattr(args, "images", None) is not None:
        options["images"] = args.images
    size = getattr(args, "image_size", None)
    if size is not None:
        options["image_width"], options["image_height"] = size
    if getattr(args, "freeze_vision", False):
        options["vision_frozen"] = True
    return options


def _images_of(arch: Architecture, options: dict[str, Any]) -> dict[str, Any]:
    """``options`` with the images per sample a model with a vision tower is estimated
    with when ``--images`` is not given (one, as the window and the plan)."""
    if "images" in options:
        return options
    return {**options, "images": default_images(arch)}


def _check_images(family: Family, options: dict[str, Any]) -> None:
    if family not in (Family.VISION, Family.VLM) and any(
        key in options for key in ("images", "image_width", "vision_frozen")
    ):
        _fail("--images, --image-size and --freeze-vision are for models with a vision tower")


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``activation`` subcommand to an argparse ``subparsers`` object."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "activation",
        help="estimate activation memory per sample (bytes) of a transformer",
        description="Estimate the activation memory one sample needs in a training step "
        "of a transformer: from a Hugging Face config.json (Llama, Mistral, Qwen, Gemma, "
        "Phi-3, GPT-NeoX, Falcon, OPT, Mixtral, Qwen-MoE, BERT, RoBERTa, T5, Whisper, GPT-2), a "
        "bundled model, or the sizes of a GPT-2 or Llama model. The flags are gradacc "
        "plan's, and the JSON carries the plan's activation figures for them.",
    )
    add_description_arguments(
        parser,
        nodes_help="the world's nodes (the plan's; the activation does not depend on them)",
        old_names=OLD_NAMES,
        seq_help="sequence length (default: the model's context, at most 4096); "
        "encoder-decoders: the source and, unless --target-seq, the target length "
        "(Whisper: its fixed encoder length, 1500); the image tokens count in it",
    )
    add_gpus_arguments(
        parser.add_argument_group("GPUs"),
        gpus_help="data-parallel GPUs, as in plan (the activation does not depend on "
        "them; default: the expert-parallel size)",
    )
    step = parser.add_argument_group("the estimator's own (not part of the plan)")
    step.add_argument(
        "--padded",
        action="store_true",
        help="padded batches (an attention mask is passed): SDPA then keeps a mask per layer",
    )
    step.add_argument(
        "--use-cache",
        choices=["true", "false"],
        help="the model's use_cache in training (default: the config file's; off for "
        "sizes typed in): without recomputation transformers fills a key/value cache",
    )
    step.add_argument(
        "--task",
        choices=[t.value for t in Task],
        help="the head on top (default: the one the config's architectures names; lm: "
        "the language-model head, base: the bare model)",
    )
    step.add_argument(
        "--num-labels", type=_positive_int, metavar="N", help="classes of a classification head"
    )
    step.add_argument("--dropout", action="store_true", help="dropout enabled (p > 0)")
    step.add_argument("--profile", choices=[p.value for p in Accounting], default="hf")
    step.add_argument(
        "--device",
        choices=[d.value for d in Device],
        default="cuda",
        help="hf profile: where the model runs (dropout masks differ)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(handler=run, func=run)
    return parser


def _fail(message: str) -> NoReturn:
    raise UsageError(message)


def _runnable(inputs: Inputs, spec: ModelSpec) -> Inputs:
    """``inputs``, unless the model cannot run their sequence: learned positions stop at
    their table (the window and the plan say the same)."""
    known = facts(spec)
    limit = known.learned_positions
    if limit is not None and inputs.seq > limit:
        _fail(
            f"the model learns positions up to {limit} tokens: it cannot run --seq-len "
            f"{inputs.seq} (give at most {limit})"
        )
    if inputs.arch is not None and inputs.arch.max_target_positions is not None:
        limit = inputs.arch.max_target_positions  # the decoder's own (Whisper)
    if limit is not None and inputs.target_seq is not None and inputs.target_seq > limit:
        _fail(
            f"the model learns positions up to {limit} tokens: its decoder cannot run "
            f"--target-seq {inputs.target_seq} (give at most {limit})"
        )
    if limit is None and known.context is not None and inputs.seq > known.context:
        # rotary (or other computed) positions run past the trained length, but the model
        # was not trained there: say so, and estimate anyway
        sys.stderr.write(
            f"gradacc: warning: --seq-len {inputs.seq} is past the {known.context} tokens "
            "the model was built for (max_position_embeddings); it runs, but was not "
            "trained that long\n"
        )
    return inputs


def _with_task(arch: Architecture, args: argparse.Namespace) -> Architecture:
    """``arch`` with the head ``--task`` / ``--num-labels`` name (the file's otherwise)."""
    if args.task is None and args.num_labels is None:
        return arch  # the file's head (estimated as the LM head, with a note, if unknown)
    task = arch.task if args.task is None else Task(args.task)
    labels = arch.num_labels if args.num_labels is None else args.num_labels
    changed = replace(arch, task=task, num_labels=labels)
    if not changed.task_modelled:
        _fail(f"--task {task.value} is not modelled for {arch.model_type} models")
    return changed


def _options(args: argparse.Namespace) -> dict[str, Any]:
    """The estimator's options the flags give (the images apart)."""
    precision, _ = precision_of(args)
    return {
        "dtype": precision,
        "dropout": bool(args.dropout),
        "attention": Attention(args.attention),
        "fused_loss": bool(args.fused_loss),
        "recompute": Recompute(args.recompute),
        "tensor_parallel": args.tensor_parallel,
        "sequence_parallel": bool(args.sequence_parallel),
        "profile": Accounting(args.profile),
        "device": Device(args.device),
        "padded": bool(args.padded),
        "use_cache": None if args.use_cache is None else args.use_cache == "true",
    }


def inputs_from_args(args: argparse.Namespace) -> Inputs:
    """The estimator's inputs for the flags; a usage error for what it cannot estimate."""
    spec = model_spec(args)  # a bundled model, a config.json or the sizes
    if spec is None:
        _fail(
            "give --model NAME, --model-config PATH or the model's sizes (--layers --hidden "
            "--heads)"
        )
    if spec.source is ModelSource.PARAMS:
        _fail(
            "the activation needs the model's shape: --model, --model-config or its sizes "
            "(--layers --hidden --heads), not --params"
        )
    target_seq = args.target_seq
    options = _options(args)
    images = _image_options(args)
    options.update(images)
    arch = spec.arch if spec.source is ModelSource.CONFIG else None
    model = find_model(spec.name) if spec.name is not None else None
    if model is not None:
        arch = model.arch
    if arch is not None:  # a published or opened config.json
        if target_seq is not None and not arch.encoder_decoder:
            _fail("--target-seq is for encoder-decoder models (T5)")
        arch = _with_task(arch, args)
        _check_images(arch.family, images)
        inputs = arch.inputs(args.seq_len, target_seq=target_seq, **_images_of(arch, options))
        return _runnable(inputs, spec)
    if target_seq is not None:
        _fail("--target-seq is for encoder-decoder models: give their --model or --model-config")
    if args.task is not None or args.num_labels is not None:
        _fail("--task and --num-labels need a model read from a config.json")
    if model is not None:  # a sized preset
        assert model.preset is not None
        _check_images(model.preset.family, images)
        return _runnable(model.preset.inputs(args.seq_len, **options), spec)
    assert spec.shape is not None  # the sizes typed in
    _check_images(spec.shape.family, images)
    if args.seq_len is None:
        _fail("missing --seq-len (a model given by its sizes has no context of its own)")
    typed = facts(spec).activation_inputs(args.seq_len, **options)
    assert typed is not None
    return typed


def _description(args: argparse.Namespace, inputs: Inputs) -> TrainingDescription:
    """The plan's description of the same flags, at the sequence estimated."""
    args.seq_len = inputs.seq
    given = args.gpus is not None or args.world_size is not None
    gpus = data_parallel(args) if given else args.expert_parallel
    return description_from(args, gpus=gpus, target_batch=gpus)


def _split_refused(d: TrainingDescription) -> str | None:
    """The rule book's sentence when the model's heads or key/value groups do not split
    over the tensor-parallel GPUs (the estimator then has no rank to count), else None."""
    if d.tensor_parallel == 1 or d.model is None:
        return None
    split = (Rule.HEADS, Rule.QUERY_GROUPS)
    found = [r for r in refusals(d.shape, facts(d.model), d.framework) if r.rule in split]
    return None if not found else f"--tensor-parallel: {found[0].message}"


def _gb(nbytes: int) -> str:
    return str(Decimal(nbytes) / GB)


def activation_gb(result: Result) -> Decimal:
    """Peak per sample in GB, rounded up to the calculator's 3 decimals."""
    quantum = Decimal(1).scaleb(-ACTIVATION_GB_DECIMALS)
    return (Decimal(result.peak_bytes) / GB).quantize(quantum, rounding=ROUND_CEILING)


def _item(item: Item) -> dict[str, Any]:
    return {
        "key": item.key.value,
        "bytes": item.bytes,
        "count": item.count,
        "total_bytes": item.total,
        "text": PART_TEXT[item.key],
        "stack": item.stack.value if item.stack is not None else None,
    }


def _item_text(item: Item, several: bool) -> str:
    text = PART_TEXT[item.key]
    if several and item.stack is not None:
        return f"{text} ({STACK_TEXT[item.stack].lower()})"
    return text


def params_of(inputs: Inputs) -> int | None:
    """Exact parameter count when the model is known (a config or a preset), else None."""
    if inputs.arch is not None:
        return parameters(inputs.arch)
    return None


def _params_json(inputs: Inputs, preset_params: int | None) -> dict[str, int] | None:
    total = params_of(inputs) if preset_params is None else preset_params
    # full fine-tuning: every parameter is trained (but a frozen vision tower's)
    frozen = _frozen_parameters(inputs)
    return None if total is None else {"total": total, "trainable": total - frozen}


def _frozen_parameters(inputs: Inputs) -> int:
    """Parameters that do not train: a frozen vision tower's (``--freeze-vision``) and
    what the model never trains (Whisper's fixed encoder positions)."""
    if inputs.arch is None:
        return 0
    module = family_module(inputs.arch)
    always = hooks.optional(module, "frozen_parameters")
    frozen = 0 if always is None else int(always(inputs.arch))
    count = hooks.optional(module, "tower_parameters")
    if inputs.vision_frozen and count is not None:
        frozen += int(count(inputs.arch))
    return frozen


def _vision_json(result: Result) -> dict[str, Any] | None:
    """The vision tower's parameters and share of the activation (None: no tower)."""
    facts = vision_summary(result)
    if facts is None:
        return None
    return {
        "tower_parameters": facts.tower_parameters,
        "images": facts.images,
        "tokens_per_image": facts.tokens_per_image,
        "image_tokens": facts.images * facts.tokens_per_image,
        "frozen": result.inputs.vision_frozen,
        "tower_bytes_per_sample": facts.tower_bytes,
        "tower_share": f"{float(facts.share):.4f}",
    }


def _vision_text(result: Result, out: TextIO) -> None:
    facts = vision_summary(result)
    if facts is None:
        return
    frozen = " (frozen)" if result.inputs.vision_frozen else ""
    out.write(f"vision tower: {facts.tower_parameters} parameters{frozen}; ")
    out.write(
        f"{facts.images} image(s) x {facts.tokens_per_image} tokens = "
        f"{facts.images * facts.tokens_per_image} image tokens per sample\n"
    )
    out.write(
        f"vision tower share of the activation: {facts.tower_bytes} bytes "
        f"({float(facts.share) * 100:.1f}%)\n"
    )


def to_json(result: Result, preset_params: int | None = None) -> dict[str, Any]:
    i = result.inputs
    arch: Architecture | None = i.arch
    return {
        "family": i.family.value,
        "family_text": FAMILY_TEXT[i.family],
        "model_type": arch.model_type if arch is not None else i.family.value,
        "params": _params_json(i, preset_params),
        "inputs": {
            "family": i.family.value,
            "hidden": i.hidden,
            "layers": i.layers,
            "heads": i.heads,
            "kv_heads": i.kv_heads,
            "intermediate": i.intermediate,
            "vocab": i.vocab,
            "seq": i.seq,
            "target_seq": i.decoder_seq if arch is not None and arch.encoder_decoder else None,
            "padded": i.padded,
            "images": i.images,
            "image_width": i.image_width,
            "image_height": i.image_height,
            "vision_frozen": i.vision_frozen,
            "use_cache": i.use_cache
            if i.use_cache is not None
            else bool(arch is not None and arch.use_cache),
            "cache_filled": i.fills_cache,
            "task": arch.task.value if arch is not None else Task.LM.value,
            "task_modelled": arch.task_modelled if arch is not None else True,
            "num_labels": arch.num_labels if arch is not None else None,
            "dtype": i.dtype.value,
            "dropout": i.dropout,
            "attention": i.attention.value,
            "recompute": i.recompute.value,
            "tp": i.tensor_parallel,
            "sp": i.sequence_parallel,
            "profile": i.profile.value,
            "device": i.device.value,
        },
        "saved_bytes_per_sample": result.saved_bytes,
        "peak_bytes_per_sample": result.peak_bytes,
        "per_layer_bytes": result.per_layer_bytes,
        "saved_gb_per_sample": _gb(result.saved_bytes),
        "peak_gb_per_sample": _gb(result.peak_bytes),
        "activation_gb": str(activation_gb(result)),
        "breakdown": [_item(item) for item in result.breakdown],
        "peak_extra": [_item(item) for item in result.peak_extra],
        "vision": _vision_json(result),
        "assumptions": [{"key": a.value, "text": ASSUMPTION_TEXT[a]} for a in result.assumptions]
        + [{"key": "family", "text": note} for note in result.notes],
    }


def _print_text(result: Result, out: TextIO, preset_params: int | None = None) -> None:
    i = result.inputs
    sp = " sp" if i.sequence_parallel else ""
    if i.arch is not None:
        a = i.arch
        target = f" target={i.decoder_seq}" if a.encoder_decoder else ""
        out.write(f"model: {a.model_type} ({a.architecture or a.head.value}), ")
        out.write(f"profile: {FAMILY_TEXT[i.family]}{target}\n")
    params = params_of(i) if preset_params is None else preset_params
    if params is not None:
        out.write(f"parameters: {params}\n")
    _vision_text(result, out)
    out.write(
        f"{i.family.value} h={i.hidden} L={i.layers} a={i.heads} kv={i.kv_heads} "
        f"i={i.intermediate} V={i.vocab} s={i.seq} {i.dtype.value} {i.attention.value} "
        f"recompute={i.recompute.value} tp={i.tensor_parallel}{sp} profile={i.profile.value}\n"
    )
    out.write(f"saved for backward per sample: {result.saved_bytes} bytes ")
    out.write(f"({_gb(result.saved_bytes)} GB)\n")
    out.write(f"peak per sample:               {result.peak_bytes} bytes ")
    out.write(f"({_gb(result.peak_bytes)} GB)\n")
    out.write(f"activation per sample for the calculator: {activation_gb(result)} GB\n")
    out.write("breakdown:\n")
    several = len({item.stack for item in result.breakdown if item.stack is not None}) > 1
    for item in result.breakdown:
        text = _item_text(item, several)
        out.write(f"  {item.total:>16} = {item.bytes} x {item.count}  {text}\n")
    for item in result.peak_extra:
        out.write(f"  {item.total:>16} (peak only)  {PART_TEXT[item.key]}\n")
    out.write("assumptions:\n")
    for assumption in result.assumptions:
        out.write(f"  - {ASSUMPTION_TEXT[assumption]}\n")
    for note in result.notes:
        out.write(f"  - {note}\n")


def run(args: argparse.Namespace) -> int:
    """Handler of ``gradacc activation``; returns the exit status."""
    inputs = inputs_from_args(args)
    described = _description(args, inputs)  # its problems refuse the command first
    try:
        result = estimate(inputs)
    except InvalidActivationInputs as exc:
        if exc.field != "tensor_parallel" or exc.problem is not ShapeProblem.NOT_MODELLED:
            _fail(_split_refused(described) or str(exc))
        # a family the estimator does not split per rank: its whole-model figure, which
        # the plan splits evenly over the tensor-parallel GPUs (as the window does)
        sys.stderr.write(
            f"gradacc: note: --tensor-parallel: {exc.detail}: the estimate below is one "
            "GPU's whole model; the plan splits it evenly over the tensor-parallel GPUs\n"
        )
        result = estimate(replace(inputs, tensor_parallel=1, sequence_parallel=False))
    model_params = None
    if inputs.arch is None:  # a sized preset or typed sizes: the catalogue's count
        spec = model_spec(args)
        model_params = None if spec is None else facts(spec).params
    plan = _plan_keys(figures(described))
    if args.json:
        data = {**to_json(result, model_params), **plan}
        sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    else:
        _print_text(result, sys.stdout, model_params)
        _print_plan(plan, sys.stdout)
    return 0


def _plan_keys(figs: Figures) -> dict[str, int | None]:
    """The plan's activation figures, under the plan's JSON names."""
    share = figs.activation_per_gpu
    return {
        # one sample of the whole model on one GPU (gradacc plan's figure)
        "activation_bytes_per_sample": figs.activation.bytes,
        # one sample on the GPU that holds the most: the layout's tensor, pipeline and
        # context split, the framework's accounting and the allocator's reserve
        "activation_bytes_per_gpu_per_sample": None if share is None else math.ceil(share),
    }


def _print_plan(plan: dict[str, int | None], out: TextIO) -> None:
    whole, per_gpu = (
        plan["activation_bytes_per_sample"],
        plan["activation_bytes_per_gpu_per_sample"],
    )
    if whole is None or per_gpu is None:
        return
    out.write(
        f"the plan's activation per sample: {whole} bytes ({_gb(whole)} GB) for the "
        f"whole model on one GPU; {per_gpu} bytes ({_gb(per_gpu)} GB) on the GPU that "
        "holds the most in this layout\n"
    )
