"""Language models with a vision tower: LLaVA, Qwen2-VL, Qwen2.5-VL and Gemma 3
(``modeling_llava.py``, ``modeling_qwen2_vl.py``, ``modeling_qwen2_5_vl.py``,
``modeling_gemma3.py`` of ``transformers`` 5.24, with ``modeling_clip.py``,
``modeling_siglip.py``, ``vision_utils.py`` and the image processors).

The model is the whole ``...ForConditionalGeneration``: a vision tower, a projector and a
language model, trained as a causal LM on text with images. The language model is the
family's own code path, reused here: ``core.memory.families.llama`` for LLaVA's Llama/Mistral
and for Qwen2-VL's Qwen2 text model (its M-RoPE cos/sin have the shape of plain rotary
ones), ``core.memory.families.gemma`` for Gemma 3 (``gemma3_text``).

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
``core.memory.families.vision`` computes them. The Qwen2-VL blocks keep their LayerNorm (Qwen2.5:
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

Qwen2-VL's and Qwen2.5-VL's own tower (its sizes, the resize, its blocks and merger) is
``core.memory.families.vlm_qwen``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from gradacc_desktop.core.memory.activation_types import (
    Device,
    Family,
    Inputs,
    InvalidActivationInputs,
    Part,
    ShapeProblem,
    StackKind,
)
from gradacc_desktop.core.memory.families import gemma, llama
from gradacc_desktop.core.memory.families.base import (
    ActivationLayout,
    Architecture,
    ConfigProblem,
    ConfigReader,
    Head,
    ModelConfigError,
    Stack,
    linear,
)
from gradacc_desktop.core.memory.families.common import layer_norm
from gradacc_desktop.core.memory.families.vision_tower import (
    KEEPS,
    Tower,
    encoder_layer,
    nested,
    read_tower,
    sub_config,
    tower_graph,
)
from gradacc_desktop.core.memory.families.vlm_qwen import (
    QwenTower,
    flat_text_config,
    qwen_notes,
    qwen_parts,
    read_qwen_tower,
    text_with_defaults,
)
from gradacc_desktop.core.text import trans_late

MODEL_TYPES = ("llava", "qwen2_vl", "qwen2_5_vl", "gemma3")

#: ...ForConditionalGeneration is this module's own causal-LM head
OWN_HEADS = True


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
_GEMMA3_TOKENS = 256
_DEFAULT_FEATURE_LAYER = -2
# fmt: on


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
        text_raw = flat_text_config(config.raw)
        where = ""
    merged = text_with_defaults(text_raw)

    def read_text() -> Architecture:
        return llama.parse(ConfigReader(merged, "qwen2"))

    text = nested(where, read_text) if where else read_text()
    text = _with_tie(text, _tied(config, text_raw, False))
    vision = nested(
        "vision_config",
        lambda: read_qwen_tower(sub_config(config, "vision_config", f"{kind}_vision"), kind, text),
    )
    return VlmSpec(kind=kind, text=text, qwen=vision)


# --------------------------------------------------------------------------- parameters


def _text_module(spec: VlmSpec) -> Any:
    return gemma if spec.kind == "gemma3" else llama


def parameters(arch: Architecture) -> int:
    """The language model (with its LM head when untied), the tower, the projector."""
    spec: VlmSpec = arch.spec
    text = int(_text_module(spec).parameters(spec.text))
    return text + spec.tower_parameters() + spec.projector_parameters()


def lora_naming(arch: Architecture) -> str | None:
    """The language models' projections are named as Llama's."""
    return "llama"


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
                ShapeProblem.NOT_MODELLED,
                f"mm_tokens_per_image {spec.mm_tokens} must be a square whose side divides "
                f"the {patches} patches of a side of the image: images cannot run",
            )
    tokens = image_tokens(arch, inputs)
    if inputs.images and tokens >= inputs.seq:
        raise InvalidActivationInputs(
            "seq",
            ShapeProblem.MISMATCH,
            f"must exceed the {tokens} image tokens of {inputs.images} image(s): the "
            "sequence counts the image tokens and the text",
        )
    for name in ("image_width", "image_height"):
        value = getattr(inputs, name)
        if value is not None and value < 1:
            raise InvalidActivationInputs(name, ShapeProblem.NOT_POSITIVE, "must be >= 1")


def _text_inputs(spec: VlmSpec, inputs: Inputs) -> Inputs:
    text = spec.text
    return replace(
        inputs,
        arch=text,
        family=text.family,
        # Gemma 3's token_type_ids make the language model build an explicit mask
        padded=inputs.padded or spec.kind == "gemma3",
    )


def layout(arch: Architecture, inputs: Inputs) -> ActivationLayout:
    spec: VlmSpec = arch.spec
    _validate(arch, inputs)
    text = _text_module(spec).layout(spec.text, _text_inputs(spec, inputs))
    outside = dict(text.outside)
    stacks: tuple[Stack, ...] = ()
    if inputs.images:
        if spec.qwen is not None:
            stacks, vision = qwen_parts(spec.qwen, inputs)
        else:
            stacks, vision = _tower_parts(spec, inputs)
        for key, value in vision.items():
            outside[key] = outside.get(key, 0) + value
        # masked_scatter keeps the bool mask of the image positions (one byte a token)
        outside[Part.VISION_PROJECTOR] = outside.get(Part.VISION_PROJECTOR, 0) + inputs.seq
    return ActivationLayout(
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
    graph = tower_graph(inputs, hooked=True)
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
        notes.extend(qwen_notes(spec.qwen, inputs, per))
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
