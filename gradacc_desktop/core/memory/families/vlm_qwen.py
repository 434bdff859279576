"""Qwen2-VL's and Qwen2.5-VL's vision transformer (``modeling_qwen2_vl.py``,
``modeling_qwen2_5_vl.py`` and the image processor of ``transformers`` 5.24), the tower
``core.memory.families.vlm`` puts under the Qwen2 language model: its sizes read from
``vision_config``, the processor's resize (``smart_resize``), its parameters and what its
blocks and merger keep for backward.

Every image of a sample runs in one sequence of patches: the processor resizes an image
to multiples of 28 pixels, the tower cuts it into 14-pixel patches (two frames deep) and
the merger joins 2×2 patches into one language-model token. Qwen2.5-VL attends within
windows of ``window_size`` pixels except in its full-attention blocks.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gradacc_desktop.core.memory.activation_types import Attention, Inputs, Part, StackKind
from gradacc_desktop.core.memory.families.base import Architecture, ConfigReader, Stack, linear
from gradacc_desktop.core.memory.families.common import layer_norm, rms_norm_fp32
from gradacc_desktop.core.memory.families.vision_tower import KEEPS, tower_graph
from gradacc_desktop.core.recompute import Recompute
from gradacc_desktop.core.text import trans_late

#: Qwen2-VL has no native image size: the estimate's default (256 tokens)
QWEN_DEFAULT_IMAGE = 448
#: Qwen2-VL's image processor bounds (``min_pixels``, ``max_pixels``)
QWEN_MIN_PIXELS = 56 * 56
QWEN_MAX_PIXELS = 28 * 28 * 1280


# Qwen2VLTextConfig / Qwen2_5_VLTextConfig defaults (a flat file keeps them at the top)
_QWEN_TEXT = {
    "vocab_size": 152064,
    "hidden_size": 8192,
    "intermediate_size": 29568,
    "num_hidden_layers": 80,
    "num_attention_heads": 64,
    "num_key_value_heads": 8,
    "max_position_embeddings": 32768,
    "sliding_window": 4096,
    "max_window_layers": 80,
}
# keys of a flat Qwen2-VL file that belong to the outer config, not the text model
_QWEN_OUTER = ("vision_config", "text_config", "architectures", "model_type")
_QWEN2_VISION = {
    "depth": 32,
    "embed_dim": 1280,
    "hidden_size": 3584,
    "mlp_ratio": 4,
    "num_heads": 16,
}
_QWEN25_VISION = {
    "depth": 32,
    "hidden_size": 3584,
    "intermediate_size": 3420,
    "num_heads": 16,
    "out_hidden_size": 3584,
    "window_size": 112,
}
_QWEN25_FULL = (7, 15, 23, 31)


@dataclass(frozen=True)
class QwenTower:
    """Qwen2-VL's (``version`` 2) or Qwen2.5-VL's (``version`` 25) vision transformer."""

    version: int
    hidden: int
    layers: int
    heads: int
    intermediate: int
    activation: str
    #: the merger's output (the language model's hidden size)
    out_hidden: int
    patch_size: int = 14
    temporal_patch: int = 2
    merge: int = 2
    channels: int = 3
    #: Qwen2.5-VL: window of the windowed blocks in pixels, and the full-attention blocks
    window: int = 0
    full_blocks: tuple[int, ...] = ()

    @property
    def head_dim(self) -> int:
        return self.hidden // self.heads

    def grid(self, width: int | None, height: int | None) -> tuple[int, int]:
        """(rows, columns) of patches of one image after the processor's resize."""
        w = QWEN_DEFAULT_IMAGE if width is None else width
        h = QWEN_DEFAULT_IMAGE if height is None else height
        factor = self.patch_size * self.merge
        w_bar, h_bar = smart_resize(w, h, factor)
        return h_bar // self.patch_size, w_bar // self.patch_size

    def windows(self, rows: int, cols: int) -> list[int]:
        """Patches in each attention window of one image (Qwen2.5-VL's windowed
        blocks; ``get_vision_window_index``)."""
        size = self.window // self.merge // self.patch_size
        unit_rows, unit_cols = rows // self.merge, cols // self.merge
        out = []
        for r in range(0, unit_rows + size - unit_rows % size, size):
            for c in range(0, unit_cols + size - unit_cols % size, size):
                units = max(0, min(size, unit_rows - r)) * max(0, min(size, unit_cols - c))
                if units:
                    out.append(units * self.merge**2)
        return out

    def parameters(self) -> int:
        e, i = self.hidden, self.intermediate
        patch = self.channels * self.temporal_patch * self.patch_size**2 * e
        attention = linear(e, 3 * e, True) + linear(e, e, True)
        if self.version == 2:
            mlp = linear(e, i, True) + linear(i, e, True)
            norms = 4 * e  # two LayerNorms
            merger_norm = 2 * e
        else:
            mlp = 2 * linear(e, i, True) + linear(i, e, True)
            norms = 2 * e  # two RMSNorms
            merger_norm = e
        wide = e * self.merge**2
        merger = merger_norm + linear(wide, wide, True) + linear(wide, self.out_hidden, True)
        return patch + self.layers * (attention + mlp + norms) + merger


def smart_resize(width: int, height: int, factor: int) -> tuple[int, int]:
    """Qwen2-VL's image processor: (width, height) as multiples of ``factor`` between
    ``QWEN_MIN_PIXELS`` and ``QWEN_MAX_PIXELS`` pixels, the aspect ratio kept."""
    h_bar = max(factor, round(height / factor) * factor)
    w_bar = max(factor, round(width / factor) * factor)
    if h_bar * w_bar > QWEN_MAX_PIXELS:
        beta = math.sqrt((height * width) / QWEN_MAX_PIXELS)
        h_bar = max(factor, math.floor(height / beta / factor) * factor)
        w_bar = max(factor, math.floor(width / beta / factor) * factor)
    elif h_bar * w_bar < QWEN_MIN_PIXELS:
        beta = math.sqrt(QWEN_MIN_PIXELS / (height * width))
        h_bar = math.ceil(height * beta / factor) * factor
        w_bar = math.ceil(width * beta / factor) * factor
    return w_bar, h_bar


def read_qwen_tower(config: ConfigReader, kind: str, text: Architecture) -> QwenTower:
    version = 2 if kind == "qwen2_vl" else 25
    d = _QWEN2_VISION if version == 2 else _QWEN25_VISION
    heads = config.first_int(("num_heads", "num_attention_heads"), d["num_heads"])
    layers = config.first_int(("depth", "num_hidden_layers"), d["depth"])
    if version == 2:
        hidden = config.integer("embed_dim", d["embed_dim"])
        intermediate = hidden * config.integer("mlp_ratio", d["mlp_ratio"])
        out = config.integer("hidden_size", d["hidden_size"])
        activation = config.text("hidden_act", "quick_gelu")
        window, full = 0, ()
    else:
        hidden = config.integer("hidden_size", d["hidden_size"])
        intermediate = config.integer("intermediate_size", d["intermediate_size"])
        out = config.integer("out_hidden_size", d["out_hidden_size"])
        activation = config.text("hidden_act", "silu")
        window = config.integer("window_size", d["window_size"])
        blocks = config.raw.get("fullatt_block_indexes", list(_QWEN25_FULL))
        if not isinstance(blocks, list | tuple) or not all(
            isinstance(b, int) and not isinstance(b, bool) for b in blocks
        ):
            raise config.unsupported(
                "fullatt_block_indexes must be a list of block numbers", "fullatt_block_indexes"
            )
        full = tuple(sorted({b for b in blocks if 0 <= b < layers}))
    if activation not in KEEPS:
        raise config.unsupported(f"hidden_act {activation!r} is not modelled", "hidden_act")
    if hidden % heads:
        raise config.unsupported("the hidden size must divide by num_heads", "num_heads")
    if out != text.hidden:
        key = "hidden_size" if version == 2 else "out_hidden_size"
        raise config.unsupported(
            f"{key} ({out}) must equal the language model's hidden_size ({text.hidden}): "
            "the merged image tokens replace text embeddings",
            key,
        )
    patch = config.integer("patch_size", 14)
    merge = config.integer("spatial_merge_size", 2)
    if version == 25 and (window // merge // patch) < 1:
        raise config.unsupported("window_size must cover at least one merged token", "window_size")
    return QwenTower(
        version=version,
        hidden=hidden,
        layers=layers,
        heads=heads,
        intermediate=intermediate,
        activation=activation,
        out_hidden=out,
        patch_size=patch,
        temporal_patch=config.integer("temporal_patch_size", 2),
        merge=merge,
        channels=config.integer("in_channels", 3),
        window=window,
        full_blocks=full,
    )


def qwen_parts(tower: QwenTower, inputs: Inputs) -> tuple[tuple[Stack, ...], dict[Part, int]]:
    """Qwen2-VL / Qwen2.5-VL: every image of the sample in one sequence of patches."""
    p = inputs.dtype.bytes
    n = inputs.images
    rows, cols = tower.grid(inputs.image_width, inputs.image_height)
    per_image = rows * cols
    s = n * per_image
    e, a, d, i = tower.hidden, tower.heads, tower.head_dim, tower.intermediate
    frozen = inputs.vision_frozen
    qwen25 = tower.version == 25
    parts: dict[Part, int] = {}
    stacks: list[Stack] = []
    # the merger (trained even with a frozen tower): its norm, the first linear's input (a
    # view of the norm's output), the GELU input, the second linear's input (4× wider
    # tokens, 4× fewer); Qwen2.5-VL also the reverse window order's int64 index
    if not qwen25:
        merger = layer_norm(inputs, s, e)
    elif not tower_graph(inputs, hooked=True):
        merger = p * s * e  # the weight's product keeps the normalised tokens only
    else:
        merger = rms_norm_fp32(p, s, e)
    merger += 3 * p * s * e
    if qwen25:
        merger += 8 * (s // tower.merge**2)
    parts[Part.VISION_PROJECTOR] = merger
    full_recompute = inputs.recompute is Recompute.FULL
    if frozen:
        # under checkpointing the hooked patch embedding's output needs a gradient: the
        # blocks keep their inputs (Qwen2.5-VL: the window order's index too)
        graph = tower_graph(inputs, hooked=True)
        checkpoint = {Part.LAYER_CHECKPOINT: p * s * e} if graph else {}
        stacks.append(Stack(StackKind.VISION, tower.layers, {}, checkpoint))
        if graph and qwen25:
            parts[Part.VISION_EMBEDDINGS] = 8 * (s // tower.merge**2)
    else:
        eager = inputs.attention is Attention.EAGER
        kinds: list[tuple[StackKind, int, list[int]]] = []
        full_chunks = [per_image] * n
        if qwen25:
            windows = tower.windows(rows, cols) * n
            full = len(tower.full_blocks)
            if tower.layers - full:
                kinds.append((StackKind.VISION_WINDOW, tower.layers - full, windows))
            if full:
                kinds.append((StackKind.VISION, full, full_chunks))
        else:
            kinds.append((StackKind.VISION, tower.layers, full_chunks))
        for kind, count, chunks in kinds:
            norm = rms_norm_fp32(p, s, e) if qwen25 else layer_norm(inputs, s, e)
            layer: dict[Part, int] = {
                Part.ATTN_NORM: norm,
                Part.QKV_PROJ_INPUT: p * s * e,
                # Q and K rotated (fp32 math, cast back), the fused qkv output (V is a view)
                Part.ATTN_QKV: 2 * p * s * e + 3 * p * s * e,
                # the concatenated attention output, the projection's input
                Part.ATTN_OUT_PROJ_INPUT: p * s * e,
                Part.MLP_NORM: norm,
                Part.MLP_IN_PROJ_INPUT: p * s * e,
                Part.MLP_OUT_PROJ_INPUT: p * s * i,
            }
            if qwen25:
                # SwiGLU: the gate (the activation's input), its output, the up output
                layer[Part.MLP_ACTIVATION] = (KEEPS[tower.activation] + 2) * p * s * i
            else:
                layer[Part.MLP_ACTIVATION] = KEEPS[tower.activation] * p * s * i
            if eager:
                squares = sum(c * c for c in chunks)
                # fp32 softmax and its cast (kept by the product with V), per chunk
                layer[Part.ATTN_SOFTMAX] = (4 + (0 if p == 4 else p)) * a * squares
            else:
                # per chunk: the fp32 log-sum-exp and the kernel's output
                layer[Part.ATTN_FUSED] = 4 * a * s
                layer[Part.ATTN_KERNEL_OUTPUT] = p * s * e
            stacks.append(Stack(kind, count, layer, {Part.LAYER_CHECKPOINT: p * s * e}))
        # the pixels as the Conv3d reads them (each patch 2 frames deep), the fp32 cos and
        # sin of the tower's rotary embedding (Qwen2.5-VL: and the window order's index)
        embeddings = p * s * tower.channels * tower.temporal_patch * tower.patch_size**2
        if not full_recompute:  # checkpointed blocks recompute what they need of them
            embeddings += 2 * 4 * s * d
        if qwen25:
            embeddings += 8 * (s // tower.merge**2)
        parts[Part.VISION_EMBEDDINGS] = embeddings
    return tuple(stacks), parts


def flat_text_config(raw: Mapping[str, Any]) -> dict[str, Any]:
    """A flat file's text-model keys: at the top level (Qwen2VLConfig pops them)."""
    return {k: v for k, v in raw.items() if k not in _QWEN_OUTER}


def text_with_defaults(text_raw: Mapping[str, Any]) -> dict[str, Any]:
    """The text model's keys over the text config class's defaults (nulls left out)."""
    return {**_QWEN_TEXT, **{k: v for k, v in text_raw.items() if v is not None}}


def qwen_notes(tower: QwenTower, inputs: Inputs, tokens: int) -> list[str]:
    """What the estimate says about the resize (and Qwen2.5-VL's windows)."""
    notes: list[str] = []
    rows, cols = tower.grid(inputs.image_width, inputs.image_height)
    notes.append(
        trans_late(
            "Activation",
            "Dynamic resolution: each image is resized to {width}×{height} pixels "
            "(multiples of 28), {patches} patches in the tower, merged 2×2 into "
            "{tokens} tokens.",
        ).format(
            width=cols * tower.patch_size,
            height=rows * tower.patch_size,
            patches=rows * cols,
            tokens=tokens,
        )
    )
    if tower.version == 25:
        notes.append(
            trans_late(
                "Activation",
                "Qwen2.5-VL's tower attends within windows of {window} pixels except in "
                "{full} full-attention blocks.",
            ).format(window=tower.window, full=len(tower.full_blocks))
        )
    return notes
