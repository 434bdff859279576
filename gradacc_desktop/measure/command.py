"""``python -m gradacc_desktop.measure``: the command line (its flags, checks, output and
exit codes; ``gradacc_desktop.measure`` describes them)."""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from gradacc_desktop.core.time.profile import seconds_text

from .batches import freeze_vision_tower, make_batch, to_device, vision_tower
from .building import ATTENTIONS, DTYPES, build, count_parameters
from .errors import MeasureError, is_oom, one_line
from .heads import SEQ2SEQ_LM, SPEECH_SEQ2SEQ
from .saved import measure_saved
from .timing import DTYPE_NAMES, REPEATS, Timing, time_sizes, timing_args, write_profile


def _image_args(args: argparse.Namespace) -> tuple[int, tuple[int, int] | None]:
    """``--images`` and ``--image-size`` (WxH or one number for a square), checked."""
    if args.images < 0:
        raise MeasureError("--images must be 0 or more")
    size = None
    if args.image_size is not None:
        text = str(args.image_size).lower().replace("×", "x")
        pieces = text.split("x") if "x" in text else [text, text]
        if len(pieces) != 2 or not all(p.strip().isdigit() and int(p) > 0 for p in pieces):
            raise MeasureError(f"--image-size must be WxH in pixels, not {args.image_size!r}")
        size = (int(pieces[0]), int(pieces[1]))
    return args.images, size


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m gradacc_desktop.measure",
        description="Measure bytes autograd saves for backward per sample (random weights).",
        epilog="Exit codes: 0 measured; 2 refused (one line 'error: ...' on stderr).",
    )
    p.add_argument("--model-config", required=True, help="path to a Hugging Face config.json")
    p.add_argument("--seq", type=int, required=True, help="sequence length (source tokens)")
    p.add_argument(
        "--target-seq", type=int, default=None, help="seq2seq target length (default --seq)"
    )
    p.add_argument("--micro-batch", type=int, default=1)
    p.add_argument(
        "--images",
        type=int,
        default=0,
        help="images per sample (language models with a vision tower; their tokens are "
        "part of --seq)",
    )
    p.add_argument(
        "--image-size",
        default=None,
        metavar="WxH",
        help="pixels of each image (default: the model's own size)",
    )
    p.add_argument(
        "--freeze-vision", action="store_true", help="freeze the vision tower (requires_grad off)"
    )
    p.add_argument("--dtype", choices=DTYPES, default="bf16")
    p.add_argument("--attention", choices=ATTENTIONS, default="sdpa")
    p.add_argument("--checkpointing", action="store_true", help="gradient checkpointing")
    p.add_argument(
        "--no-dropout", action="store_true", help="turn every dropout off (refused if impossible)"
    )
    p.add_argument("--details", action="store_true", help="list saved bytes by module")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--device",
        default="cpu",
        metavar="DEVICE",
        help="cpu (default), cuda or cuda:N: where the model runs",
    )
    p.add_argument(
        "--time-micro-batches",
        default=None,
        metavar="LIST",
        help="also time forward+backward at these micro-batch sizes, e.g. 1,2,4,8",
    )
    p.add_argument(
        "--repeats",
        default=None,
        metavar="N",
        help=f"timed runs per size after one warm-up; the median is kept (default {REPEATS})",
    )
    p.add_argument(
        "--profile-out",
        default=None,
        metavar="PATH",
        help="write the timings as a speed profile (JSON) for the planner",
    )
    return p


def _available_memory() -> int | None:
    """MemAvailable of /proc/meminfo in bytes, None where there is no such file."""
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _error(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


def _glue_negative_values(argv: list[str]) -> list[str]:
    """``--time-micro-batches -1,2`` as ``--time-micro-batches=-1,2``: argparse would take
    the value for an option and print its usage; this way the value is refused in one line."""
    glued: list[str] = []
    index = 0
    while index < len(argv):
        item = argv[index]
        if (
            item in ("--time-micro-batches", "--repeats")
            and index + 1 < len(argv)
            and re.match(r"-[0-9]", argv[index + 1])
        ):
            glued.append(f"{item}={argv[index + 1]}")
            index += 2
            continue
        glued.append(item)
        index += 1
    return glued


def main(argv: list[str] | None = None, out: Callable[[str], None] = print) -> int:
    if argv is None:
        argv = sys.argv[1:]
    try:
        args = _parser().parse_args(_glue_negative_values(list(argv)))
    except SystemExit as exc:  # argparse has printed usage and the error
        return exc.code if isinstance(exc.code, int) else 2
    for flag, value in (
        ("--seq", args.seq),
        ("--micro-batch", args.micro_batch),
        ("--target-seq", args.target_seq),
    ):
        if value is not None and value < 1:
            return _error(f"{flag} must be >= 1 (got {value})")
    try:
        timing = timing_args(args)
    except MeasureError as exc:
        return _error(str(exc))
    try:
        return _run(args, out, timing)
    except MeasureError as exc:
        return _error(str(exc))
    except (MemoryError, RuntimeError) as exc:
        if is_oom(exc):
            return _error(f"out of memory ({one_line(exc)}); try a smaller --seq or --micro-batch")
        return _error(f"the forward pass failed: {one_line(exc)}")
    except Exception as exc:  # never a traceback from the command line
        return _error(f"the forward pass failed: {one_line(exc)}")


def _run(args: argparse.Namespace, out: Callable[[str], None], timing: Timing | None = None) -> int:
    device = _device(args.device)
    try:
        params: int | None = count_parameters(args.model_config)
    except MeasureError:
        params = None  # the real build below says what is wrong (or counts them itself)
    available = _available_memory()
    if params is not None and available is not None and params * 4 > available:
        # the model is built in float32 then cast: refuse before the OOM killer steps in
        raise MeasureError(
            f"out of memory: {params:,d} parameters need {params * 4 / 1e9:.1f} GB to build, "
            f"{available / 1e9:.1f} GB available"
        )
    built = build(
        args.model_config,
        dtype=args.dtype,
        attention=args.attention,
        checkpointing=args.checkpointing,
        dropout=False if args.no_dropout else None,
    )
    model, head, notes = built.model, built.head, list(built.notes)
    images, image_size = _image_args(args)
    if (images or image_size or args.freeze_vision) and vision_tower(model) is None:
        raise MeasureError("--images, --image-size and --freeze-vision need a vision tower")
    if args.freeze_vision:
        freeze_vision_tower(model)
    if device != "cpu":
        model = model.to(device)
    if params is None:
        params = int(model.num_parameters())
    ran = getattr(model.config, "_attn_implementation", None) or args.attention
    if ran != args.attention:
        notes.append(f"asked for --attention {args.attention}, transformers ran {ran}")
    target_seq = None
    if head == SEQ2SEQ_LM:
        target_seq = args.target_seq or args.seq
    elif args.target_seq is not None:
        notes.append(f"--target-seq ignored: {type(model).__name__} is not a seq2seq model")
    limit = _position_limit(model.config)
    if limit is not None and args.seq > limit[0]:
        raise MeasureError(
            f"--seq {args.seq} is longer than the {limit[0]} positions "
            f"{type(model).__name__} has ({limit[1]} in the config)"
        )
    if limit is not None and target_seq is not None and target_seq > limit[0]:
        raise MeasureError(
            f"--target-seq {target_seq} is longer than the {limit[0]} positions "
            f"{type(model).__name__}'s decoder has ({limit[1]} in the config)"
        )
    if type(model).__name__ in SPEECH_SEQ2SEQ.values():
        positions = int(model.config.max_source_positions)
        if args.seq != positions:
            raise MeasureError(
                f"--seq {args.seq}: {type(model).__name__}'s encoder always runs over its "
                f"{positions} positions (30 s of audio, {2 * positions} log-mel frames): "
                f"give --seq {positions}"
            )
        if args.target_seq is None:  # the decoder's learned positions, as the estimate
            target_seq = min(args.seq, int(model.config.max_target_positions))
    batch = to_device(
        device,
        make_batch(model, head, args.seq, args.micro_batch, 0, target_seq, images, image_size),
    )
    m = measure_saved(model, batch)
    del batch
    per_sample = m.saved_bytes // args.micro_batch
    timed: dict[str, Any] | None = None
    if timing is not None:
        timed = time_sizes(model, head, args, target_seq, device, timing)
        if timing.profile_out is not None:
            write_profile(timing.profile_out, timed, args, model, params, ran, target_seq)
    if args.json:
        result = {
            "model_class": type(model).__name__,
            "head": head,
            "attention": ran,
            "parameters": params,
            "saved_bytes": m.saved_bytes,
            "saved_bytes_per_sample": per_sample,
            "micro_batch": args.micro_batch,
            "seq": args.seq,
            "target_seq": target_seq,
            "notes": notes,
        }
        if timed is not None:
            result["timing"] = {
                "device": timed["device"],
                "dtype": DTYPE_NAMES[args.dtype],
                "repeats": timed["repeats"],
                "points": [
                    {"micro_batch": b, "seconds": seconds_text(s), "repeats": timed["repeats"]}
                    for b, s in timed["points"]
                ],
                "out_of_memory_at": timed["out_of_memory_at"],
                "profile": timing.profile_out if timing is not None else None,
            }
        out(json.dumps(result))
        return 0
    out(f"model: {type(model).__name__} ({head})")
    out(f"attention: {ran}")
    out(f"parameters: {params}")
    for note in notes:
        out(f"note: {note}")
    if args.details:
        for name, nbytes in m.by_module().items():
            out(f"{nbytes:>16,d}  {name}")
    out(f"saved bytes (micro-batch {args.micro_batch}): {m.saved_bytes}")
    out(f"saved bytes per sample: {per_sample}")
    out(f"activation per sample: {Decimal(per_sample) / Decimal(10**9):.3f} GB")
    if timed is not None and timing is not None:
        out(
            f"micro-step time (forward + backward, median of {timed['repeats']}, "
            f"{timed['device']}):"
        )
        for b, seconds in timed["points"]:
            out(f"  micro-batch {b}: {seconds_text(seconds)} s")
        if timing.profile_out is not None:
            out(f"profile written: {timing.profile_out}")
    return 0


def _device(name: str) -> str:
    """``name`` checked against what this torch can run on (MeasureError if it cannot)."""
    if name == "cpu":
        return name
    import torch

    if not torch.cuda.is_available():
        raise MeasureError(f"--device {name}: CUDA is not available to this torch")
    index = int(name.partition(":")[2] or torch.cuda.current_device())
    count = torch.cuda.device_count()
    if index >= count:
        raise MeasureError(f"--device {name}: this machine has {count} CUDA device(s)")
    return f"cuda:{index}"


def _position_limit(cfg: Any) -> tuple[int, str] | None:
    """(tokens, config key) for learned absolute position embeddings, else None.

    Rotary, ALiBi and relative (T5) positions have no hard limit in the forward pass.
    """
    model_type = cfg.model_type
    if model_type == "gpt2":
        return int(cfg.n_positions), "n_positions"
    if model_type in ("bert", "opt"):
        return int(cfg.max_position_embeddings), "max_position_embeddings"
    if model_type in ("bart", "mbart"):  # encoder and decoder: a table each, offset by 2
        return int(cfg.max_position_embeddings), "max_position_embeddings"
    if model_type == "roberta":  # positions start after the padding index
        limit = int(cfg.max_position_embeddings) - int(cfg.pad_token_id or 0) - 1
        return limit, "max_position_embeddings - pad_token_id - 1"
    return None
