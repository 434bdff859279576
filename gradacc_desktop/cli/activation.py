"""``gradacc activation``: activation memory per sample of a decoder-only transformer.

Registered by the CLI package through ``register(subparsers)`` (the handler is set
as both ``handler`` and ``func``). Bad arguments: argparse errors go through the
parser's ``error``; combinations found after parsing raise ``UsageError`` (the CLI
prints one line on stderr and exits 2, nothing on stdout). ``run`` prints a human
summary or, with ``--json``, one JSON object.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from decimal import ROUND_CEILING, Decimal
from typing import Any, NoReturn, TextIO

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
    ModelSpec,
    Precision,
    Recompute,
    Result,
    UnknownModelError,
    estimate,
    facts,
    find_model,
)
from gradacc_desktop.core.memory.families import (
    FAMILY_TEXT,
    Architecture,
    ModelConfigError,
    family_module,
    file_name,
    hooks,
    parameters,
    read_model_config,
)
from gradacc_desktop.core.memory.families.heads import Task
from gradacc_desktop.core.memory.families.vision_facts import default_images
from gradacc_desktop.core.memory.families.vision_facts import summary as vision_summary

from ._common import UsageError, image_size_type

#: GB decimals of ``activation_gb`` (what the calculator's field accepts)
ACTIVATION_GB_DECIMALS = 3


def _positive_int(text: str) -> int:
    try:
        value = int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1: {text}")
    return value


def _count(text: str) -> int:
    try:
        value = int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0: {text}")
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
        "preset, or the sizes of a GPT-2 or Llama model.",
    )
    model = parser.add_argument_group("model (a config.json, a preset or the sizes)")
    model.add_argument(
        "--model-config",
        metavar="PATH",
        help="the model's Hugging Face config.json (a local file; nothing is downloaded)",
    )
    model.add_argument("--preset", metavar="NAME", help="model preset, e.g. gpt2, llama-3-8b")
    model.add_argument("--family", choices=[f.value for f in Family if f.typed_sizes])
    model.add_argument("--hidden", type=_positive_int, metavar="N")
    model.add_argument("--layers", type=_positive_int, metavar="N")
    model.add_argument("--heads", type=_positive_int, metavar="N")
    model.add_argument("--kv-heads", type=_positive_int, metavar="N", help="default: heads")
    model.add_argument(
        "--intermediate", type=_positive_int, metavar="N", help="MLP size (gpt2 default: 4h)"
    )
    model.add_argument("--vocab", type=_positive_int, metavar="N")
    run_group = parser.add_argument_group("training step")
    run_group.add_argument(
        "--seq",
        type=_positive_int,
        metavar="N",
        help="sequence length (default: the model's context, at most 4096); "
        "encoder-decoders: the source and, unless --target-seq, the target length "
        "(Whisper: its fixed encoder length, 1500)",
    )
    run_group.add_argument(
        "--target-seq",
        type=_positive_int,
        metavar="N",
        help="encoder-decoders (T5; Whisper: the transcript, within its decoder's "
        "positions): target (decoder) length",
    )
    run_group.add_argument(
        "--padded",
        action="store_true",
        help="padded batches (an attention mask is passed): SDPA then keeps a mask per layer",
    )
    images = parser.add_argument_group(
        "images (image encoders, language models with a vision tower)"
    )
    images.add_argument(
        "--images",
        type=_count,
        metavar="N",
        help="images per sample (VLMs; default 0); their tokens count in --seq",
    )
    images.add_argument(
        "--image-size",
        type=image_size_type,
        metavar="WxH",
        help="pixels of each image, e.g. 1024x768, or one number for a square (default: the "
        "model's own; Qwen2-VL 448x448)",
    )
    images.add_argument(
        "--freeze-vision",
        action="store_true",
        help="the vision tower is frozen (requires_grad_(False)): it keeps nothing for backward",
    )
    run_group.add_argument("--dtype", choices=[d.value for d in Precision], default="bf16")
    run_group.add_argument("--attention", choices=[a.value for a in Attention], default="sdpa")
    run_group.add_argument("--recompute", choices=[r.value for r in Recompute], default="none")
    run_group.add_argument(
        "--tp", type=_positive_int, default=1, metavar="N", help="tensor-parallel size"
    )
    run_group.add_argument("--sp", action="store_true", help="sequence parallelism")
    run_group.add_argument(
        "--use-cache",
        choices=["true", "false"],
        help="the model's use_cache in training (default: the config file's; off for "
        "sizes typed in): without recomputation transformers fills a key/value cache",
    )
    run_group.add_argument(
        "--task",
        choices=[t.value for t in Task],
        help="the head on top (default: the one the config's architectures names; lm: "
        "the language-model head, base: the bare model)",
    )
    run_group.add_argument(
        "--num-labels", type=_positive_int, metavar="N", help="classes of a classification head"
    )
    run_group.add_argument("--dropout", action="store_true", help="dropout enabled (p > 0)")
    run_group.add_argument("--profile", choices=[p.value for p in Accounting], default="hf")
    run_group.add_argument(
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
            f"the model learns positions up to {limit} tokens: it cannot run --seq "
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
            f"gradacc: warning: --seq {inputs.seq} is past the {known.context} tokens the "
            "model was built for (max_position_embeddings); it runs, but was not trained "
            "that long\n"
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


def inputs_from_args(args: argparse.Namespace) -> Inputs:
    """Build ``Inputs``; bad combinations go through the parser's ``error``."""
    sizes = ("family", "hidden", "layers", "heads", "kv_heads", "intermediate", "vocab")
    target_seq = getattr(args, "target_seq", None)
    options: dict[str, Any] = {
        "dtype": Precision(args.dtype),
        "dropout": bool(args.dropout),
        "attention": Attention(args.attention),
        "recompute": Recompute(args.recompute),
        "tensor_parallel": args.tp,
        "sequence_parallel": bool(args.sp),
        "profile": Accounting(args.profile),
        "device": Device(args.device),
        "padded": bool(getattr(args, "padded", False)),
        "use_cache": None if args.use_cache is None else args.use_cache == "true",
    }
    images = _image_options(args)
    options.update(images)
    config = getattr(args, "model_config", None)
    if config is not None:
        given = [name for name in (*sizes, "preset") if getattr(args, name) is not None]
        if given:
            _fail(f"--model-config cannot be combined with --{given[0].replace('_', '-')}")
        try:
            arch = read_model_config(config)
        except ModelConfigError as exc:
            _fail(f"{config}: {exc.detail}")
        if target_seq is not None and not arch.encoder_decoder:
            _fail("--target-seq is for encoder-decoder models (T5)")
        arch = _with_task(arch, args)
        _check_images(arch.family, images)
        return _runnable(
            arch.inputs(args.seq, target_seq=target_seq, **_images_of(arch, options)),
            ModelSpec.config(arch, file_name(config)),
        )
    if args.preset is not None:
        given = [name for name in sizes if getattr(args, name) is not None]
        if given:
            _fail(f"--preset cannot be combined with --{given[0].replace('_', '-')}")
        try:
            model = find_model(args.preset)
        except UnknownModelError as exc:
            _fail(f"unknown preset {args.preset!r} (choose from: {', '.join(exc.known)})")
        spec = ModelSpec.bundled(model.name)
        if model.arch is not None:  # a published config.json
            if target_seq is not None and not model.arch.encoder_decoder:
                _fail("--target-seq is for encoder-decoder models (T5)")
            arch = _with_task(model.arch, args)
            _check_images(arch.family, images)
            inputs = arch.inputs(args.seq, target_seq=target_seq, **_images_of(arch, options))
            return _runnable(inputs, spec)
        if target_seq is not None:
            _fail("--target-seq is for encoder-decoder models (T5)")
        if args.task is not None or args.num_labels is not None:
            _fail("--task and --num-labels need a model read from a config.json")
        assert model.preset is not None
        _check_images(model.preset.family, images)
        return _runnable(model.preset.inputs(args.seq, **options), spec)
    if target_seq is not None:
        _fail("--target-seq is for encoder-decoder models: give their --preset or --model-config")
    if args.task is not None or args.num_labels is not None:
        _fail("--task and --num-labels need --preset or --model-config")

    if args.family is None:
        _fail("give --preset NAME or --family with the model sizes")
    family = Family(args.family)
    _check_images(family, images)
    missing = [n for n in ("hidden", "layers", "heads", "vocab") if getattr(args, n) is None]
    if family is Family.LLAMA and args.intermediate is None:
        missing.append("intermediate")
    if args.seq is None:
        missing.append("seq")
    if missing:
        _fail("missing " + ", ".join("--" + n for n in missing))
    intermediate = args.intermediate if args.intermediate is not None else 4 * args.hidden
    return Inputs(
        family=family,
        hidden=args.hidden,
        layers=args.layers,
        heads=args.heads,
        kv_heads=args.kv_heads if args.kv_heads is not None else args.heads,
        intermediate=intermediate,
        vocab=args.vocab,
        seq=args.seq,
        **options,
    )


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
    try:
        result = estimate(inputs)
    except InvalidActivationInputs as exc:
        _fail(str(exc))
    preset_params = None
    if args.preset is not None and inputs.arch is None:
        preset_params = _preset_params(args.preset)
    if args.json:
        data = to_json(result, preset_params)
        sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    else:
        _print_text(result, sys.stdout, preset_params)
    return 0


def _preset_params(name: str) -> int | None:
    try:
        return facts(ModelSpec.bundled(name)).params
    except UnknownModelError:
        return None
