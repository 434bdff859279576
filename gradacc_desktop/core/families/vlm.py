"""Language models with a vision tower: LLaVA, Qwen2-VL, Qwen2.5-VL and Gemma 3
(``modeling_llava.py``, ``modeling_qwen2_vl.py``, ``modeling_qwen2_5_vl.py``,
``modeling_gemma3.py`` of ``transformers`` 5.24, with ``modeling_clip.py``,
``modeling_siglip.py``, ``vision_utils.py`` and the image processors).

The model is the whole ``...ForConditionalGeneration``: a vision tower, a projector and a
language model, trained as a causal LM on text with images. The language model is the
family's own code path, reused here: ``core.families.llama`` for LLaVA's Llama/Mistral
and for Qwen2-VL's Qwen2 text model (its M-RoPE cos/sin have the shape of plain rotary
ones), ``core.families.gemma`` for Gemma 3 (``gemma3_text``).

**Sequence.** ``seq`` is the language model's whole sequence, the image tokens included
(as TRL's ``max_length`` counts them): ``images`` × the tokens of one image replace the
placeholders the processor expands, and the remaining ``seq`` − image tokens are text.

* LLaVA: the CLIP tower reads every image at its own size (336² for LLaVA 1.5: the
  processor resizes), 24 × 24 = 576 patch tokens (the ``default`` strategy drops the
  class token; ``full`` keeps it: 577).
* Qwen2-VL / Qwen2.5-VL (dynamic resolution): the processor resizes an image of W×H
  pixels to multiples of 28 (``smart_resize``: between 56² and 28²·1280 pixels, the
  aspect ratio kept), the tower cuts it into (W/14)·(H/14) patches (each patch two
  frames deep: a still image is repeated to the temporal patch of 2) and the merger
  joins 2×2 patches into one language-model token: (W/28)·(H/28) tokens. Without a size,
  448×448 (256 tokens).
* Gemma 3: the SigLIP tower reads 896² images (4 096 patches) and the projector averages
  4×4 patches: 256 tokens per image. Gemma 3's processor passes ``token_type_ids``: the
  language model then builds an explicit mask (image tokens attend to each other both
  ways) and SDPA keeps a copy of it in every layer (p·s²) with K and V repeated to
  every head, images or not.

**Vision tower** (per image, ``StackKind.VISION``): CLIP and SigLIP pre-LN layers as
``core.families.vision`` computes them. The Qwen2-VL blocks keep their LayerNorm (Qwen2.5:
an fp32 RMSNorm), the fused qkv input and output (V is a view of it), Q and K rotated
in fp32 and cast back, the fp32 cos/sin (once), per image (Qwen2.5-VL: per window of
112 pixels, except the full-attention blocks) SDPA's log-sum-exp and output or eager's
fp32 softmax and its cast, the concatenated attention output (the projection's input)
and the MLP (Qwen2-VL: QuickGELU; Qwen2.5-VL: SwiGLU with biases).

**Projector**: LLaVA's two linears around a GELU (the selected hidden state of the tower
is already kept by the next tower layer, except the last layer's output); Qwen2-VL's
merger (LayerNorm or RMSNorm, then two linears around a GELU on 4× wider tokens;
Qwen2.5-VL also keeps the window order's int64 indices); Gemma 3's average pooling
(keeps its input), fp32 RMSNorm and the matrix product. ``masked_scatter`` of the image
features into the embeddings keeps a bool mask of the sequence.

**Frozen tower** (``vision_frozen``: ``requires_grad_(False)`` on ``vision_tower`` /
``visual.patch_embed`` and ``visual.blocks``; the projector, Qwen's ``visual.merger``,
trains, as LLaMA-Factory and the LLaVA recipes freeze them): the tower keeps nothing, the
projector keeps its input.

The tower's last layers run even when an earlier hidden state is selected (LLaVA's
``vision_feature_layer`` −2): their tensors are counted while the forward's output holds
them, as the measure tool counts them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from gradacc_desktop.core.activation import (
    Attention,
    Device,
    Family,
    Inputs,
    InvalidActivationInputs,
    Part,
    Problem,
    Recompute,
    StackKind,
)
from gradacc_desktop.core.families import (
    Architecture,
    ConfigProblem,
    ConfigReader,
    Head,
    Layout,
    ModelConfigError,
    Stack,
    gemma,
    linear,
    llama,
)
from gradacc_desktop.core.families.common import layer_norm, rms_norm_fp32
from gradacc_desktop.core.families.vision_tower import (
    KEEPS,
    Tower,
    encoder_layer,
    nested,
    read_tower,
    sub_config,
)
from gradacc_desktop.core.text import trans_late

MODEL_TYPES = ("llava", "qwen2_vl", "qwen2_5_vl", "gemma3")

#: ...ForConditionalGeneration is this module's own causal-LM head
OWN_HEADS = True

#: the language models' projections are named as Llama's
LORA_NAMING = "llama"

#: Qwen2-VL has no native image size: the estimate's default (256 tokens)
QWEN_DEFAULT_IMAGE = 448
#: Qwen2-VL's image processor bounds (``min_pixels``, ``max_pixels``)
QWEN_MIN_PIXELS = 56 * 56
QWEN_MAX_PIXELS = 28 * 28 * 1280

# LlavaConfig's vision tower when the file has no vision_config (its init_kwargs)
_LLAVA_VISION = {
    "hidden_size": 1024,
    "num_hidden_layers": 24,
    "num_attention_heads": 16,
    "intermediate_size": 4096,
    "image_size": 336,
    "patch_size": 14,
}
_CLIP_VISION = {
    "hidden_size": 768,
    "num_hidden_layers": 12,
    "num_attention_heads": 12,
    "intermediate_size": 3072,
    "image_size": 224,
    "patch_size": 32,
}
_SIGLIP_VISION = {
    "hidden_size": 768,
    "num_hidden_layers": 12,
    "num_attention_heads": 12,
    "intermediate_size": 3072,
    "image_size": 224,
    "patch_size": 16,
}
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
_GEMMA3_TOKENS = 256
_DEFAULT_FEATURE_LAYER = -2
# keys of a flat Qwen2-VL file that belong to the outer config, not the text model
_QWEN_OUTER = ("vision_config", "text_config", "architectures", "model_type")
# fmt: on


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


@dataclass(frozen=True)
class VlmSpec:
    #: "llava", "qwen2_vl", "qwen2_5_vl" or "gemma3"
    kind: str
    #: the language model, as its own family module parses it
    text: Architecture
    #: CLIP (LLaVA) or SigLIP (Gemma 3) tower
    tower: Tower | None = None
    qwen: QwenTower | None = None
    #: LLaVA: hidden states selected (normalised to 0…layers), one or several
    feature_layers: tuple[int, ...] = ()
    feature_list: bool = False
    full_strategy: bool = False
    projector_act: str = "gelu"
    projector_bias: bool = True
    #: Gemma 3: tokens per image after the average pooling
    mm_tokens: int = 0

    def tower_parameters(self) -> int:
        if self.qwen is not None:
            return self.qwen.parameters()
        assert self.tower is not None
        return self.tower.parameters()

    def projector_parameters(self) -> int:
        if self.qwen is not None:
            return 0  # the merger is part of the Qwen tower (``visual.merger``)
        assert self.tower is not None
        hv, ht = self.tower.hidden, self.text.hidden
        if self.kind == "gemma3":
            return hv * ht + hv  # mm_input_projection_weight, mm_soft_emb_norm
        width = hv * len(self.feature_layers)
        return linear(width, ht, self.projector_bias) + linear(ht, ht, self.projector_bias)

    def tokens_per_image(self, width: int | None, height: int | None) -> int:
        if self.qwen is not None:
            rows, cols = self.qwen.grid(width, height)
            return rows * cols // self.qwen.merge**2
        if self.kind == "gemma3":
            return self.mm_tokens
        assert self.tower is not None
        return self.tower.native_patches + (1 if self.full_strategy else 0)


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


# --------------------------------------------------------------------------- parse


def _mapping(config: ConfigReader, key: str) -> Mapping[str, Any]:
    value: Any = config.raw.get(key)
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ModelConfigError(
            ConfigProblem.BAD_VALUE,
            trans_late("ModelConfig", "{key} must be an object").format(key=key),
            key,
        )
    return value


def _tied(config: ConfigReader, text: Mapping[str, Any], default: bool) -> bool:
    """The outer ``tie_word_embeddings``; a text config that ties forces it (transformers
    forwards it to the outer config)."""
    outer = config.flag("tie_word_embeddings", default)
    inner = text.get("tie_word_embeddings")
    return outer or inner is True


def _with_tie(arch: Architecture, tie: bool) -> Architecture:
    return replace(arch, spec=replace(arch.spec, tie_embeddings=tie))


def parse(config: ConfigReader) -> Architecture:
    kind = config.model_type
    if kind == "llava":
        spec = _parse_llava(config)
    elif kind == "gemma3":
        spec = _parse_gemma3(config)
    else:
        spec = _parse_qwen(config)
    text = spec.text
    return Architecture(
        model_type=kind,
        family=Family.VLM,
        head=Head.CAUSAL_LM,
        hidden=text.hidden,
        layers=text.layers,
        heads=text.heads,
        kv_heads=text.kv_heads,
        head_dim=text.head_dim,
        intermediate=text.intermediate,
        vocab=text.vocab,
        max_positions=text.max_positions,
        spec=spec,
        architecture=config.architecture(),
    )


def _parse_llava(config: ConfigReader) -> VlmSpec:
    text_raw = _mapping(config, "text_config")
    text_type = text_raw.get("model_type", "llama")
    if text_type not in llama.MODEL_TYPES:
        raise config.unsupported(
            f"text_config.model_type {text_type!r}: LLaVA's language model is modelled for "
            f"{', '.join(llama.MODEL_TYPES)}",
            "text_config.model_type",
        )
    text = nested("text_config", lambda: llama.parse(ConfigReader(text_raw, text_type)))
    text = _with_tie(text, _tied(config, text_raw, False))
    vision_raw = config.raw.get("vision_config")
    vision_type = (vision_raw or {}).get("model_type", "clip_vision_model")
    if vision_type != "clip_vision_model":
        raise config.unsupported(
            f"vision_config.model_type {vision_type!r}: only a CLIP vision tower is modelled",
            "vision_config.model_type",
        )
    reader = sub_config(config, "vision_config", "clip_vision_model")
    defaults = _LLAVA_VISION if vision_raw is None else _CLIP_VISION
    if vision_raw is None:
        reader = ConfigReader({}, "clip_vision_model")
    tower = nested("vision_config", lambda: read_tower(reader, "clip", defaults))
    strategy = config.text("vision_feature_select_strategy", "default")
    if strategy not in ("default", "full"):
        raise config.unsupported(
            f"vision_feature_select_strategy {strategy!r} is not modelled (default, full)",
            "vision_feature_select_strategy",
        )
    layers, as_list = _feature_layers(config, tower.layers)
    activation = config.text("projector_hidden_act", "gelu")
    if activation not in KEEPS:
        raise config.unsupported(
            f"projector_hidden_act {activation!r} is not modelled", "projector_hidden_act"
        )
    return VlmSpec(
        kind="llava",
        text=text,
        tower=tower,
        feature_layers=layers,
        feature_list=as_list,
        full_strategy=strategy == "full",
        projector_act=activation,
        projector_bias=config.flag("multimodal_projector_bias", True),
    )


def _feature_layers(config: ConfigReader, layers: int) -> tuple[tuple[int, ...], bool]:
    """``vision_feature_layer`` (one index or a list) as indices 0…layers of the tower's
    hidden states (0: the embeddings after pre-LN; k: the output of layer k)."""
    raw = config.raw.get("vision_feature_layer", _DEFAULT_FEATURE_LAYER)
    values = raw if isinstance(raw, list) else [raw]
    out = []
    for value in values:
        if (
            not isinstance(value, int)
            or isinstance(value, bool)
            or not -layers - 1 <= value <= layers
        ):
            raise config.unsupported(
                f"vision_feature_layer {raw!r} must name hidden states of the {layers}-layer tower",
                "vision_feature_layer",
            )
        out.append(value % (layers + 1))
    if not out:
        raise config.unsupported("vision_feature_layer is an empty list", "vision_feature_layer")
    return tuple(out), isinstance(raw, list)


def _parse_gemma3(config: ConfigReader) -> VlmSpec:
    text_raw = _mapping(config, "text_config")
    text = nested("text_config", lambda: gemma.parse(ConfigReader(text_raw, "gemma3_text")))
    text = _with_tie(text, config.flag("tie_word_embeddings", True))
    vision_raw = _mapping(config, "vision_config")
    vision_type = vision_raw.get("model_type", "siglip_vision_model")
    if vision_type != "siglip_vision_model":
        raise config.unsupported(
            f"vision_config.model_type {vision_type!r}: only a SigLIP vision tower is modelled",
            "vision_config.model_type",
        )
    reader = sub_config(config, "vision_config", "siglip_vision_model")
    tower = nested("vision_config", lambda: read_tower(reader, "siglip", _SIGLIP_VISION))
    tokens = config.integer("mm_tokens_per_image", _GEMMA3_TOKENS)
    return VlmSpec(kind="gemma3", text=text, tower=tower, mm_tokens=tokens)


def _parse_qwen(config: ConfigReader) -> VlmSpec:
    kind = config.model_type
    nested_text = config.raw.get("text_config")
    if nested_text is not None:
        text_raw: Mapping[str, Any] = _mapping(config, "text_config")
        where = "text_config"
    else:
        # a flat file: the text model's keys are at the top level (Qwen2VLConfig pops them)
        text_raw = {k: v for k, v in config.raw.items() if k not in _QWEN_OUTER}
        where = ""
    merged = {**_QWEN_TEXT, **{k: v for k, v in text_raw.items() if v is not None}}

    def read_text() -> Architecture:
        return llama.parse(ConfigReader(merged, "qwen2"))

    text = nested(where, read_text) if where else read_text()
    text = _with_tie(text, _tied(config, text_raw, False))
    vision = nested(
        "vision_config",
        lambda: _qwen_tower(sub_config(config, "vision_config", f"{kind}_vision"), kind, text),
    )
    return VlmSpec(kind=kind, text=text, qwen=vision)


def _qwen_tower(config: ConfigReader, kind: str, text: Architecture) -> QwenTower:
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


# --------------------------------------------------------------------------- parameters


def _text_module(spec: VlmSpec) -> Any:
    return gemma if spec.kind == "gemma3" else llama


def parameters(arch: Architecture) -> int:
    """The language model (with its LM head when untied), the tower, the projector."""
    spec: VlmSpec = arch.spec
    text = int(_text_module(spec).parameters(spec.text))
    return text + spec.tower_parameters() + spec.projector_parameters()


def tower_parameters(arch: Architecture) -> int:
    """Parameters of the vision tower (``vision_tower``; Qwen: ``visual``, merger
    included)."""
    spec: VlmSpec = arch.spec
    return spec.tower_parameters()


def lookup_parameters(arch: Architecture) -> int:
    """The input embedding when the LM head has its own weight, and the tower's learned
    positions (CLIP, SigLIP)."""
    spec: VlmSpec = arch.spec
    text = spec.text
    lookups = 0 if text.spec.tie_embeddings else text.vocab * text.hidden
    tower = spec.tower
    if tower is not None:
        lookups += tower.tokens() * tower.hidden
    return lookups


# --------------------------------------------------------------------------- activations


def image_tokens(arch: Architecture, inputs: Inputs) -> int:
    """Language-model tokens the images of one sample take."""
    spec: VlmSpec = arch.spec
    return inputs.images * spec.tokens_per_image(inputs.image_width, inputs.image_height)


def _validate(arch: Architecture, inputs: Inputs) -> None:
    spec: VlmSpec = arch.spec
    if spec.kind == "gemma3" and inputs.images and spec.tower is not None:
        side = math.isqrt(spec.mm_tokens)
        patches = spec.tower.image_size[0] // spec.tower.patch_size
        if side * side != spec.mm_tokens or side > patches or patches % side:
            # Gemma3MultiModalProjector averages squares of patches into the tokens
            raise InvalidActivationInputs(
                "images",
                Problem.NOT_MODELLED,
                f"mm_tokens_per_image {spec.mm_tokens} must be a square whose side divides "
                f"the {patches} patches of a side of the image: images cannot run",
            )
    tokens = image_tokens(arch, inputs)
    if inputs.images and tokens >= inputs.seq:
        raise InvalidActivationInputs(
            "seq",
            Problem.MISMATCH,
            f"must exceed the {tokens} image tokens of {inputs.images} image(s): the "
            "sequence counts the image tokens and the text",
        )
    for name in ("image_width", "image_height"):
        value = getattr(inputs, name)
        if value is not None and value < 1:
            raise InvalidActivationInputs(name, Problem.NOT_POSITIVE, "must be >= 1")


def _text_inputs(spec: VlmSpec, inputs: Inputs) -> Inputs:
    text = spec.text
    return replace(
        inputs,
        arch=text,
        family=text.family,
        # Gemma 3's token_type_ids make the language model build an explicit mask
        padded=inputs.padded or spec.kind == "gemma3",
    )


def layout(arch: Architecture, inputs: Inputs) -> Layout:
    spec: VlmSpec = arch.spec
    _validate(arch, inputs)
    text = _text_module(spec).layout(spec.text, _text_inputs(spec, inputs))
    outside = dict(text.outside)
    stacks: tuple[Stack, ...] = ()
    if inputs.images:
        if spec.qwen is not None:
            stacks, vision = _qwen_parts(spec, spec.qwen, inputs)
        else:
            stacks, vision = _tower_parts(spec, inputs)
        for key, value in vision.items():
            outside[key] = outside.get(key, 0) + value
        # masked_scatter keeps the bool mask of the image positions (one byte a token)
        outside[Part.VISION_PROJECTOR] = outside.get(Part.VISION_PROJECTOR, 0) + inputs.seq
    return Layout(
        stacks=stacks + text.stacks,
        outside=outside,
        logits=text.logits,
        notes=text.notes + _notes(arch, inputs),
    )


def _scaled(parts: Mapping[Part, int], count: int) -> dict[Part, int]:
    return {key: count * value for key, value in parts.items()}


def _tower_parts(spec: VlmSpec, inputs: Inputs) -> tuple[tuple[Stack, ...], dict[Part, int]]:
    """CLIP (LLaVA) or SigLIP (Gemma 3) over ``images`` images at the tower's own size."""
    tower = spec.tower
    assert tower is not None
    n = inputs.images
    p = inputs.dtype.bytes
    s = tower.tokens()
    hv, ht = tower.hidden, spec.text.hidden
    frozen = inputs.vision_frozen
    graph = _tower_graph(inputs)
    checkpoint = {Part.LAYER_CHECKPOINT: n * p * s * hv} if graph else {}
    parts: dict[Part, int] = {}
    if frozen:
        stack = Stack(StackKind.VISION, tower.layers, {}, checkpoint)
        if graph and tower.kind == "clip":
            parts[Part.VISION_EMBEDDINGS] = n * layer_norm(inputs, s, hv)  # pre-LN
    else:
        layer = encoder_layer(
            inputs,
            s=s,
            h=hv,
            a=tower.heads,
            i=tower.intermediate,
            activation=tower.activation,
            inner=tower.heads * tower.head_dim,
        )
        stack = Stack(StackKind.VISION, tower.layers, _scaled(layer, n), checkpoint)
        # the pixels kept by the patch Conv2d (CLIP: and its pre-LayerNorm)
        embeddings = p * tower.channels * tower.image_size[0] * tower.image_size[1]
        if tower.kind == "clip":
            embeddings += layer_norm(inputs, s, hv)
        parts[Part.VISION_EMBEDDINGS] = n * embeddings
    if spec.kind == "gemma3":
        t = spec.mm_tokens
        if not graph:
            # the normalised fp32 tokens (for the norm's weight) and the product's input
            projector = 4 * t * hv + p * t * hv
        else:
            parts[Part.VISION_POOLING] = n * _siglip_pooling(tower, inputs, s)
            # avg_pool keeps its input (the contiguous copy of the tower's output), the
            # fp32 RMSNorm with (1 + weight), the product's input
            projector = p * s * hv + 4 * t * hv + 4 * t + 4 * t * hv + p * t * hv
        parts[Part.VISION_PROJECTOR] = n * projector + (4 * hv if graph else 0)
        return (stack,), parts
    t = spec.tokens_per_image(None, None)
    projector = (KEEPS[spec.projector_act] + 1) * p * t * ht  # activation, linear_2 input
    if spec.feature_list:
        # the selected hidden states concatenated: a new tensor for linear_1
        projector += p * t * hv * len(spec.feature_layers)
    elif n > 1 and not spec.full_strategy:
        # the class token cropped from a batch of images: linear_1 flattens the view
        # into a copy, which it keeps
        projector += p * t * hv
    elif not graph or spec.feature_layers[0] == tower.layers:
        # linear_1 keeps the selected hidden state itself (a view of it: the whole state);
        # a tower with a graph keeps it anyway as the next layer's input, but not the last
        # layer's output
        projector += p * s * hv
    parts[Part.VISION_PROJECTOR] = n * projector
    return (stack,), parts


def _tower_graph(inputs: Inputs) -> bool:
    """Whether the tower builds an autograd graph: trained, or frozen under gradient
    checkpointing, whose ``enable_input_require_grads`` makes the tower's patch embedding
    output require a gradient (transformers hooks every input embedding)."""
    return not inputs.vision_frozen or inputs.recompute is Recompute.FULL


def _siglip_pooling(tower: Tower, inputs: Inputs, s: int) -> int:
    """SigLIP's post-LayerNorm (and, with ``vision_use_head``, its pooling head, whose
    output the forward's output holds)."""
    p = inputs.dtype.bytes
    stat = 4 if inputs.device is Device.CUDA else p
    hv = tower.hidden
    pooling = layer_norm(inputs, s, hv)
    if tower.pooling_head:
        pooling += p * hv + p * s * hv + 2 * p * s * hv + p * hv + p * tower.heads * s + p * hv
        pooling += (
            p * hv + 2 * stat + p * hv + (KEEPS[tower.activation] + 1) * p * tower.intermediate
        )
    return pooling


def _qwen_parts(
    spec: VlmSpec, tower: QwenTower, inputs: Inputs
) -> tuple[tuple[Stack, ...], dict[Part, int]]:
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
    elif not _tower_graph(inputs):
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
        graph = _tower_graph(inputs)
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


def _notes(arch: Architecture, inputs: Inputs) -> tuple[str, ...]:
    spec: VlmSpec = arch.spec
    per = spec.tokens_per_image(inputs.image_width, inputs.image_height)
    notes: list[str] = [
        trans_late(
            "Activation",
            "The sequence length counts the image tokens: {images} image(s) × {tokens} "
            "tokens, the rest is text.",
        ).format(images=inputs.images, tokens=per)
    ]
    if spec.qwen is not None:
        rows, cols = spec.qwen.grid(inputs.image_width, inputs.image_height)
        notes.append(
            trans_late(
                "Activation",
                "Dynamic resolution: each image is resized to {width}×{height} pixels "
                "(multiples of 28), {patches} patches in the tower, merged 2×2 into "
                "{tokens} tokens.",
            ).format(
                width=cols * spec.qwen.patch_size,
                height=rows * spec.qwen.patch_size,
                patches=rows * cols,
                tokens=per,
            )
        )
        if spec.qwen.version == 25:
            notes.append(
                trans_late(
                    "Activation",
                    "Qwen2.5-VL's tower attends within windows of {window} pixels except in "
                    "{full} full-attention blocks.",
                ).format(window=spec.qwen.window, full=len(spec.qwen.full_blocks))
            )
    else:
        assert spec.tower is not None
        if (inputs.image_width, inputs.image_height) != (None, None):
            notes.append(
                trans_late(
                    "Activation",
                    "The processor resizes every image to {size}×{size} pixels: the image "
                    "size does not change the estimate.",
                ).format(size=spec.tower.image_size[0])
            )
    if spec.kind == "gemma3":
        notes.append(
            trans_late(
                "Activation",
                "Gemma 3 with token_type_ids (as its processor passes them): image tokens "
                "attend to each other both ways, so every layer gets an explicit mask.",
            )
        )
    if inputs.vision_frozen:
        notes.append(
            trans_late(
                "Activation",
                "Frozen vision tower: it keeps nothing for the backward pass; the "
                "projector trains and keeps its input.",
            )
        )
    if (
        spec.tower is not None
        and spec.kind == "llava"
        and min(spec.feature_layers) < spec.tower.layers
    ):
        notes.append(
            trans_late(
                "Activation",
                "The tower's layers after the selected hidden state still run; their "
                "tensors are counted while the forward's output holds them.",
            )
        )
    return tuple(notes)
