"""Measure the activation memory a real PyTorch model saves for backward.

This module is the empirical counterpart of :mod:`gradacc_desktop.core.activation`:
it runs one *training* forward pass and adds up the bytes of every tensor that
autograd keeps from the forward pass until the backward pass. It needs ``torch``
(and ``transformers`` for the command line), which the desktop app itself does not:
both are imported only inside the functions here.

Use it from your own training script in three lines::

    from gradacc_desktop.measure import measure_activation
    saved = measure_activation(model, {"input_ids": ids, "labels": ids})
    print(saved / ids.shape[0], "bytes per sample")

or from the command line, with a random-weight model built from a Hugging Face
``config.json`` (nothing is downloaded)::

    python -m gradacc_desktop.measure --model-config config.json --seq 2048 \\
        --micro-batch 1 --dtype bf16 --attention sdpa [--checkpointing]

How it counts: a ``torch.autograd.graph.saved_tensors_hooks`` pack hook sees every
tensor an autograd node saves (``ctx.save_for_backward`` and the built-in
derivative formulas alike). Tensors are deduplicated by the address of their
underlying storage, and the *whole* storage is counted (a saved view keeps its
base alive). Parameters and buffers of the model are excluded: they are not
activations. With non-reentrant activation checkpointing the checkpoint's own
hooks take over inside each checkpointed region, so what is held there is the
checkpoint's inputs, which the hook below also sees because the checkpoint saves
them explicitly (reentrant) or keeps them alive through its frame (counted via the
boundary tensors the next autograd node saves).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

__all__ = ["Measurement", "SavedTensor", "main", "measure_activation", "measure_saved"]

_DTYPES = ("bf16", "fp16", "fp32")


@dataclass(frozen=True)
class SavedTensor:
    """One distinct storage autograd held for backward."""

    shape: tuple[int, ...]
    dtype: str
    nbytes: int
    module: str


@dataclass
class Measurement:
    """What one training forward saved for backward (whole micro-batch)."""

    saved_bytes: int = 0
    tensors: list[SavedTensor] = field(default_factory=list)

    def by_module(self) -> dict[str, int]:
        totals: dict[str, int] = {}
        for t in self.tensors:
            totals[t.module] = totals.get(t.module, 0) + t.nbytes
        return totals


def measure_saved(model: Any, batch: Mapping[str, Any]) -> Measurement:
    """Run ``model(**batch)`` in training mode; return every storage saved for backward.

    The forward runs with gradients enabled (the model is put in ``train()`` mode and
    restored afterwards). No backward pass is run; the graph is released at the end.
    """
    import torch

    excluded: set[int] = set()
    for p in model.parameters():
        excluded.add(p.untyped_storage().data_ptr())
    for b in model.buffers():
        excluded.add(b.untyped_storage().data_ptr())

    seen: set[int] = set()
    result = Measurement()
    stack: list[str] = ["<model>"]
    names = {id(m): n or "<model>" for n, m in model.named_modules()}

    def pre_hook(module: Any, _args: Any) -> None:
        stack.append(names.get(id(module), type(module).__name__))

    def post_hook(_module: Any, _args: Any, _out: Any) -> None:
        if len(stack) > 1:
            stack.pop()

    handles = []
    for m in model.modules():
        handles.append(m.register_forward_pre_hook(pre_hook))
        handles.append(m.register_forward_hook(post_hook))

    def pack(tensor: Any) -> Any:
        if isinstance(tensor, torch.Tensor) and tensor.device.type != "meta":
            storage = tensor.untyped_storage()
            ptr = storage.data_ptr()
            if ptr not in excluded and ptr not in seen and storage.nbytes() > 0:
                seen.add(ptr)
                result.saved_bytes += storage.nbytes()
                result.tensors.append(
                    SavedTensor(
                        shape=tuple(tensor.shape),
                        dtype=str(tensor.dtype).removeprefix("torch."),
                        nbytes=storage.nbytes(),
                        module=stack[-1],
                    )
                )
        return tensor

    def unpack(tensor: Any) -> Any:
        return tensor

    was_training = model.training
    model.train()
    try:
        with torch.enable_grad(), torch.autograd.graph.saved_tensors_hooks(pack, unpack):
            out = model(**batch)
        del out
    finally:
        for h in handles:
            h.remove()
        model.train(was_training)
    return result


def measure_activation(model: Any, batch: Mapping[str, Any]) -> int:
    """Bytes autograd saves for backward in one training forward of ``model(**batch)``.

    ``batch`` is the keyword arguments of the forward call, e.g.
    ``{"input_ids": ids, "labels": ids}``; include ``labels`` so the loss (and its
    float32 log-softmax) is part of the graph, as in training. Divide the result by
    the micro-batch size to get the "activation per sample" the calculator asks for.
    Parameters and buffers are not counted; each storage is counted once.
    """
    return measure_saved(model, batch).saved_bytes


def build_model(
    config: Mapping[str, Any] | str,
    *,
    dtype: str = "bf16",
    attention: str = "sdpa",
    checkpointing: bool = False,
    dropout: bool | None = None,
) -> Any:
    """Random-weight ``AutoModelForCausalLM`` from a config dict or ``config.json`` path.

    ``dropout``: None keeps the config's dropout probabilities; False sets them all to
    0.0; True keeps them (and sets 0.1 where the config has none or 0).
    """
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM

    if isinstance(config, str):
        import json

        # a local file only: nothing is downloaded
        with open(config, encoding="utf-8") as fh:
            raw = json.load(fh)
        cfg = AutoConfig.for_model(**raw)
    else:
        cfg = AutoConfig.for_model(**dict(config))
    if dropout is not None:
        for key in ("attn_pdrop", "resid_pdrop", "embd_pdrop", "attention_dropout"):
            if hasattr(cfg, key):
                setattr(cfg, key, 0.1 if dropout and not getattr(cfg, key) else getattr(cfg, key))
                if not dropout:
                    setattr(cfg, key, 0.0)
    cfg.use_cache = False
    torch_dtype = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}[dtype]
    model = AutoModelForCausalLM.from_config(cfg, attn_implementation=attention)
    model = model.to(torch_dtype)
    if checkpointing:
        enable = getattr(model, "activation_checkpointing_enable", None)
        (enable or model.gradient_checkpointing_enable)()
    model.train()
    return model


def random_batch(model: Any, seq: int, micro_batch: int = 1, seed: int = 0) -> dict[str, Any]:
    import torch

    gen = torch.Generator().manual_seed(seed)
    vocab = int(model.config.vocab_size)
    ids = torch.randint(0, vocab, (micro_batch, seq), generator=gen)
    return {"input_ids": ids, "labels": ids.clone()}


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m gradacc_desktop.measure",
        description="Measure bytes autograd saves for backward per sample (random weights).",
    )
    p.add_argument("--model-config", required=True, help="path to a Hugging Face config.json")
    p.add_argument("--seq", type=int, required=True, help="sequence length (tokens)")
    p.add_argument("--micro-batch", type=int, default=1)
    p.add_argument("--dtype", choices=_DTYPES, default="bf16")
    p.add_argument("--attention", choices=("eager", "sdpa"), default="sdpa")
    p.add_argument("--checkpointing", action="store_true", help="gradient checkpointing")
    p.add_argument("--no-dropout", action="store_true", help="set dropout probabilities to 0")
    p.add_argument("--details", action="store_true", help="list saved bytes by module")
    return p


def main(argv: list[str] | None = None, out: Callable[[str], None] = print) -> int:
    args = _parser().parse_args(argv)
    if args.seq < 1 or args.micro_batch < 1:
        print("error: --seq and --micro-batch must be >= 1", file=sys.stderr)
        return 2
    model = build_model(
        args.model_config,
        dtype=args.dtype,
        attention=args.attention,
        checkpointing=args.checkpointing,
        dropout=False if args.no_dropout else None,
    )
    m = measure_saved(model, random_batch(model, args.seq, args.micro_batch))
    per_sample = m.saved_bytes // args.micro_batch
    if args.details:
        for name, nbytes in m.by_module().items():
            out(f"{nbytes:>16,d}  {name}")
    out(f"saved bytes (micro-batch {args.micro_batch}): {m.saved_bytes}")
    out(f"saved bytes per sample: {per_sample}")
    out(f"activation per sample: {Decimal(per_sample) / Decimal(10**9):.3f} GB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
