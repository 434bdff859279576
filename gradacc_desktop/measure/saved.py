"""Counting what one training forward saves for backward: every storage an autograd
node holds when the forward ends (``gradacc_desktop.measure`` says how it counts).
``torch`` is imported only inside the functions."""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


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

    packed: list[tuple[Any, str]] = []  # (weak reference to the saved tensor, module)
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
        # Only remembered here: what counts is what is still held when the forward ends
        # (a node whose output is thrown away, e.g. top-k values nobody uses, frees its
        # saved tensors during the forward, and their addresses can be reused).
        if isinstance(tensor, torch.Tensor) and tensor.device.type != "meta":
            packed.append((weakref.ref(tensor), stack[-1]))
        return tensor

    def unpack(tensor: Any) -> Any:
        return tensor

    result = Measurement()
    was_training = model.training
    model.train()
    try:
        with torch.enable_grad(), torch.autograd.graph.saved_tensors_hooks(pack, unpack):
            out = model(**batch)
        # autograd's graph (held by ``out``) keeps every saved tensor it still needs
        seen: set[int] = set()
        for ref, module in packed:
            tensor = ref()
            if tensor is None:
                continue
            storage = tensor.untyped_storage()
            ptr = storage.data_ptr()
            if ptr in excluded or ptr in seen or storage.nbytes() == 0:
                continue
            seen.add(ptr)
            result.saved_bytes += storage.nbytes()
            result.tensors.append(
                SavedTensor(
                    shape=tuple(tensor.shape),
                    dtype=str(tensor.dtype).removeprefix("torch."),
                    nbytes=storage.nbytes(),
                    module=module,
                )
            )
        tensor = None  # no saved tensor at all (a frozen model) leaves it unbound
        del tensor, out
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
