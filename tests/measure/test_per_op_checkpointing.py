"""Per-op selective recomputation against PyTorch's own selective checkpointing.

A Llama-like model from ``transformers`` runs one training forward with every decoder
layer under ``torch.utils.checkpoint`` (non-reentrant) and a context made by
``create_selective_checkpoint_contexts`` whose policy is torchtitan's rule as its
``parallelize_llama.py`` states it: keep the outputs of ``aten.mm`` and of the fused
attention kernels, except every second ``aten.mm`` counted per layer in forward order
(on the CPU, SDPA's flash kernel is ``_scaled_dot_product_flash_attention_for_cpu``).
A dispatch mode under the checkpoint's records what the checkpoint stores (it keeps a
detached copy of each output the policy saves: the storages those ``aten.detach`` calls
return) and the products the backward's recomputation multiplies; the estimate must
equal both exactly, and the whole forward's saved bytes within the tolerance of the
other family tests."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from torch.utils._python_dispatch import TorchDispatchMode  # noqa: E402
from torch.utils.checkpoint import (  # noqa: E402
    CheckpointPolicy,
    create_selective_checkpoint_contexts,
)

from gradacc_desktop.core.memory.activation import (  # noqa: E402
    Accounting,
    Attention,
    Device,
    Part,
    Precision,
    Recompute,
    estimate,
    repeated_products,
)
from gradacc_desktop.core.memory.families import parse_model_config  # noqa: E402
from gradacc_desktop.measure import build_model, measure_saved, random_batch  # noqa: E402
from tests.measure.harness import TOLERANCE  # noqa: E402

aten = torch.ops.aten
MM = aten.mm.default
KEPT_OPS = {
    MM,
    aten._scaled_dot_product_flash_attention.default,
    aten._scaled_dot_product_efficient_attention.default,
    aten._scaled_dot_product_flash_attention_for_cpu.default,
}

_BASE = {
    "hidden_size": 256,
    "num_hidden_layers": 2,
    "num_attention_heads": 8,
    "num_key_value_heads": 2,
    "intermediate_size": 512,
    "vocab_size": 3000,
}
CONFIGS = {
    "llama": _BASE | {"model_type": "llama"},
    "qwen3": _BASE | {"model_type": "qwen3", "head_dim": 48, "num_hidden_layers": 3},
    # q/k/v biases: those products are addmm, neither kept nor counted
    "qwen2-biases": _BASE | {"model_type": "qwen2"},
}


class _Record(TorchDispatchMode):
    """Under the checkpoint's own mode: the storages it keeps (the forward's detached
    outputs), and the FLOPs of every product (forward and recomputation apart)."""

    def __init__(self, log: dict[str, Any], recompute: bool) -> None:
        super().__init__()
        self.log = log
        self.recompute = recompute

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        out = func(*args, **(kwargs or {}))
        if func in (MM, aten.addmm.default):
            a, b = args[-2], args[-1]
            flops = a.shape[0] * a.shape[1] * b.shape[1]
            self.log["recomputed" if self.recompute else "forward"] += flops
        if not self.recompute and func is aten.detach.default:
            storage = out.untyped_storage()
            if storage.data_ptr() not in self.log["storages"]:
                self.log["storages"].add(storage.data_ptr())
                self.log["kept"] += storage.nbytes()
        return out


def _context(log: dict[str, Any]) -> Any:
    def make() -> tuple[Any, Any]:
        count = {False: 0, True: 0}

        def policy(ctx: Any, func: Any, *args: Any, **kwargs: Any) -> CheckpointPolicy:
            if func is MM:
                count[ctx.is_recompute] += 1
            keep = func in KEPT_OPS and not (func is MM and count[ctx.is_recompute] % 2 == 0)
            return CheckpointPolicy.MUST_SAVE if keep else CheckpointPolicy.PREFER_RECOMPUTE

        forward, recompute = create_selective_checkpoint_contexts(policy)

        @contextlib.contextmanager
        def under(mode: Any, recomputing: bool) -> Iterator[None]:
            with _Record(log, recomputing), mode:
                yield

        return under(forward, False), under(recompute, True)

    return make


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_per_op_checkpointing_keeps_what_the_estimate_says(name: str) -> None:
    config, seq = CONFIGS[name], 128
    model = build_model(dict(config), attention="sdpa")
    log: dict[str, Any] = {"kept": 0, "forward": 0, "recomputed": 0, "storages": set()}
    model.activation_checkpointing_enable(
        activation_checkpointing_kwargs={"use_reentrant": False, "context_fn": _context(log)}
    )
    batch = random_batch(model, seq, 1)
    outside = measure_saved(model, batch).saved_bytes
    kept = log["kept"]
    layer_forward = log["forward"]

    log.update(forward=0, recomputed=0)
    model.zero_grad()
    loss = model(**batch).loss
    loss.backward()  # the policy's recomputation runs and the gradients come out
    assert all(p.grad is not None for p in model.parameters() if p.requires_grad)

    arch = parse_model_config(config)
    inputs = arch.inputs(
        seq=seq,
        dtype=Precision.BF16,
        attention=Attention.SDPA,
        recompute=Recompute.SELECTIVE_OP,
        profile=Accounting.HF,
        device=Device.CPU,
    )
    result = estimate(inputs)
    in_layers = sum(
        item.total
        for item in result.breakdown
        if item.key in (Part.KEPT_PRODUCTS, Part.ATTN_OUT_PROJ_INPUT, Part.ATTN_FUSED)
    )
    assert in_layers == kept
    # the dispatch mode sees the layers' products only (the output layer's run once)
    assert repeated_products(inputs) == Fraction(log["recomputed"], layer_forward)
    measured = outside + kept
    assert abs(result.saved_bytes - measured) <= TOLERANCE * measured
