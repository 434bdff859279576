"""Per-op selective recomputation: what a layer keeps and what its backward computes again.

torchtitan's ``selective_ac_option = "op"`` (``torchtitan/parallelisms/
parallelize_llama.py``, ``_save_list``, at d4c86e3 and later) wraps each transformer
block in a checkpoint whose policy saves the outputs of ``aten.mm``, the fused
attention kernels (flash and memory-efficient SDPA), ``reduce_scatter_tensor`` and the
float8 scales' ``abs``/``max`` — except every second ``aten.mm``, counted per block in
forward order. Everything else of the block's forward runs again in the backward.

A Llama layer (q, k, v, o, gate, up, down; no biases) therefore keeps, per token: its
input, the outputs of q, v, gate and down (the 1st, 3rd, 5th and 7th products), the
attention's output and fp32 log-sum-exp, and under tensor parallelism with sequence
parallelism the two reduce-scatters' outputs. It computes k, o and up again (about
36 % of its product FLOPs for Llama 3) and all its element-wise work, not the
attention. The recomputation stops at the last tensor the backward needs, so a layer's
last product (whose output only joins the residual) never runs again. A product with a
bias runs as ``aten.addmm``: neither kept nor counted.

The family modules describe their layers' products (``Stack.products``); a family that
does not is not modelled under this recomputation.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction

from gradacc_desktop.core.memory.activation_types import (
    Inputs,
    InvalidActivationInputs,
    Part,
    Product,
    ShapeProblem,
    Stack,
    dims_of,
)

__all__ = ["kept", "repeated_share", "require_products"]


def _kept_flags(products: tuple[Product, ...]) -> tuple[bool, ...]:
    """Which products' outputs the policy keeps: every odd-numbered plain product."""
    flags: list[bool] = []
    count = 0
    for product in products:
        if product.plain:
            count += 1
        flags.append(product.plain and count % 2 == 1)
    return tuple(flags)


def require_products(stacks: Iterable[Stack]) -> None:
    """Raise ``InvalidActivationInputs`` when a stack's products are not described."""
    if any(stack.count and not stack.products for stack in stacks):
        raise InvalidActivationInputs(
            "recompute",
            ShapeProblem.NOT_MODELLED,
            "per-op selective recomputation is modelled for Llama-like layers only",
        )


def kept(inputs: Inputs, stack: Stack) -> dict[Part, int]:
    """What one layer of ``stack`` keeps per sample under per-op recomputation."""
    dims = dims_of(inputs)
    p = inputs.dtype.bytes
    scattered = inputs.tensor_parallel > 1 and inputs.sequence_parallel
    products = 0
    for product, keep in zip(stack.products, _kept_flags(stack.products), strict=True):
        if keep:
            products += p * dims.s * product.outputs
        if product.row_parallel and scattered:
            products += p * dims.s_sp * dims.h  # the reduce-scatter's output
    out = dict(stack.checkpoint)  # the block's input
    out[Part.KEPT_PRODUCTS] = products
    # the fused attention's output (the output projection's input) and log-sum-exp
    for part in (Part.ATTN_OUT_PROJ_INPUT, Part.ATTN_FUSED):
        out[part] = stack.parts.get(part, 0)
    return out


def repeated_share(stacks: Iterable[Stack]) -> Fraction:
    """The share of the layers' product FLOPs the backward computes again: those whose
    outputs are not kept, but the layer's last (its output only joins the residual, which
    keeps nothing: the checkpoint's recomputation stops before it, ``torch.utils.
    checkpoint``'s early stop, on by default)."""
    again = total = 0
    for stack in stacks:
        flags = _kept_flags(stack.products)
        last = len(stack.products) - 1
        for n, (product, keep) in enumerate(zip(stack.products, flags, strict=True)):
            flops = stack.count * product.inputs * product.outputs
            total += flops
            again += 0 if keep or n == last else flops
    return Fraction(again, total) if total else Fraction(0)
