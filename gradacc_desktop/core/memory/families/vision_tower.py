"""The image tower of ViT, CLIP and SigLIP — and of the language models that carry one
(``vlm.py``): its sizes read from a config, its patches and tokens, what one of its layers
keeps for backward, its stack. Moved out of ``vision.py`` so both families share it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gradacc_desktop.core.memory.activation_types import (
    Attention,
    Device,
    Inputs,
    InvalidActivationInputs,
    Part,
    ShapeProblem,
    StackKind,
)
from gradacc_desktop.core.memory.families.base import (
    ConfigProblem,
    ConfigReader,
    ModelConfigError,
    Stack,
    linear,
)
from gradacc_desktop.core.memory.families.common import ACTIVATION_KEEPS, dropout_mask, layer_norm
from gradacc_desktop.core.recompute import Recompute
from gradacc_desktop.core.text import trans_late

#: s·i tensors an activation keeps besides its output (``ACTIVATION_KEEPS`` plus CLIP's
#: QuickGELU: x * sigmoid(1.702 x) keeps x and the sigmoid)
KEEPS: dict[str, int] = {**ACTIVATION_KEEPS, "quick_gelu": 2}
#: each tower's activation when its config names none
DEFAULT_ACTIVATION = {"vit": "gelu", "clip": "quick_gelu", "siglip": "gelu_pytorch_tanh"}


@dataclass(frozen=True)
class Tower:
    """One ViT-style image encoder (pre-LN layers over the patch tokens)."""

    #: "vit", "clip" or "siglip" (the modelling file it follows)
    kind: str
    hidden: int
    layers: int
    heads: int
    head_dim: int
    intermediate: int
    activation: str
    #: native (height, width) in pixels, and the patch size
    image_size: tuple[int, int]
    patch_size: int
    channels: int
    #: a class token is prepended (ViT, CLIP)
    class_token: bool
    #: bias of the q/k/v linears (ViT: ``qkv_bias``; CLIP/SigLIP: always)
    qkv_bias: bool = True
    #: bias of the patch Conv2d (CLIP has none)
    patch_bias: bool = True
    #: SigLIP's multi-head attention pooling head (``vision_use_head``)
    pooling_head: bool = False

    @property
    def native_patches(self) -> int:
        height, width = self.image_size
        return (height // self.patch_size) * (width // self.patch_size)

    def patches(self, width: int | None, height: int | None) -> int:
        """Patches of one image of ``width`` × ``height`` pixels (None: native)."""
        h = self.image_size[0] if height is None else height
        w = self.image_size[1] if width is None else width
        return (h // self.patch_size) * (w // self.patch_size)

    def tokens(self, width: int | None = None, height: int | None = None) -> int:
        return self.patches(width, height) + (1 if self.class_token else 0)

    def layer_parameters(self) -> int:
        h, i, inner = self.hidden, self.intermediate, self.heads * self.head_dim
        attention = 3 * linear(h, inner, self.qkv_bias) + linear(inner, h, True)
        return attention + linear(h, i, True) + linear(i, h, True) + 4 * h

    def parameters(self) -> int:
        """The encoder as ``ViTModel(add_pooling_layer=False)``, ``CLIPVisionModel`` or
        ``SiglipVisionModel`` builds it (embeddings, layers, norms, SigLIP's head)."""
        h = self.hidden
        positions = self.native_patches + (1 if self.class_token else 0)
        patch = self.channels * self.patch_size**2 * h + (h if self.patch_bias else 0)
        embeddings = patch + positions * h + (h if self.class_token else 0)
        norms = {"vit": 2 * h, "clip": 4 * h, "siglip": 2 * h}[self.kind]
        head = 0
        if self.pooling_head:
            # probe, MultiheadAttention (in_proj 3h×h + bias, out_proj), LayerNorm, MLP
            head = h + 3 * h * h + 3 * h + linear(h, h, True) + 2 * h
            head += linear(h, self.intermediate, True) + linear(self.intermediate, h, True)
        return embeddings + self.layers * self.layer_parameters() + norms + head


def _image_size(config: ConfigReader, key: str, default: int) -> tuple[int, int]:
    """``image_size`` as (height, width): a whole number or a pair."""
    value = config.raw.get(key)
    if value is None:
        return default, default
    if isinstance(value, list | tuple) and len(value) == 2:
        pair = tuple(value)
        if all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in pair):
            return int(pair[0]), int(pair[1])
    size = config.integer(key, default)
    return size, size


def _patch_size(config: ConfigReader, default: int) -> int:
    value = config.raw.get("patch_size")
    if isinstance(value, list | tuple):
        if len(value) == 2 and value[0] == value[1]:
            value = value[0]
        else:
            raise config.unsupported(
                "patch_size: rectangular patches are not modelled", "patch_size"
            )
    if value is None:
        return default
    return ConfigReader({"patch_size": value}, config.model_type).integer("patch_size")


def activation_of(config: ConfigReader, default: str) -> str:
    activation = config.text("hidden_act", default)
    if activation not in KEEPS:
        raise config.unsupported(f"hidden_act {activation!r} is not modelled", "hidden_act")
    return activation


def read_tower(config: ConfigReader, kind: str, defaults: Mapping[str, int]) -> Tower:
    hidden = config.integer("hidden_size", defaults["hidden_size"])
    heads = config.integer("num_attention_heads", defaults["num_attention_heads"])
    head_dim = hidden // heads
    if kind == "vit" and config.has("head_dim"):
        head_dim = config.integer("head_dim")
    elif hidden % heads:
        raise config.unsupported(
            "hidden_size must divide by num_attention_heads", "num_attention_heads"
        )
    image = _image_size(config, "image_size", defaults["image_size"])
    patch = _patch_size(config, defaults["patch_size"])
    if kind != "vit" and image[0] != image[1]:
        raise config.unsupported("image_size: only square images are modelled", "image_size")
    if image[0] < patch or image[1] < patch:
        raise config.unsupported("image_size must be at least patch_size", "image_size")
    return Tower(
        kind=kind,
        hidden=hidden,
        layers=config.integer("num_hidden_layers", defaults["num_hidden_layers"]),
        heads=heads,
        head_dim=head_dim,
        intermediate=config.integer("intermediate_size", defaults["intermediate_size"]),
        activation=activation_of(config, DEFAULT_ACTIVATION[kind]),
        image_size=image,
        patch_size=patch,
        channels=config.integer("num_channels", 3),
        class_token=kind in ("vit", "clip"),
        qkv_bias=config.flag("qkv_bias", True) if kind == "vit" else True,
        patch_bias=kind != "clip",
        pooling_head=config.flag("vision_use_head", True) if kind == "siglip" else False,
    )


def sub_config(config: ConfigReader, key: str, model_type: str) -> ConfigReader:
    """A nested configuration (``text_config``, ``vision_config``) as its own reader; the
    legacy ``<key>_dict`` of old CLIP files updates it, as ``CLIPConfig`` does."""
    value: Any = config.raw.get(key)
    if value is None:
        value = {}
    if not isinstance(value, Mapping):
        raise ModelConfigError(
            ConfigProblem.BAD_VALUE,
            trans_late("ModelConfig", "{key} must be an object").format(key=key),
            key,
        )
    legacy = config.raw.get(f"{key}_dict")
    if isinstance(legacy, Mapping):
        value = {**value, **legacy}
    return ConfigReader(value, model_type)


def nested(key: str, read: Any) -> Any:
    """Run ``read()``; a refusal names the nested key (``vision_config.hidden_size``)."""
    try:
        return read()
    except ModelConfigError as exc:
        where = f"{key}.{exc.key}" if exc.key else key
        raise ModelConfigError(exc.problem, f"{key}: {exc.detail}", where) from None


def encoder_layer(
    inputs: Inputs,
    *,
    s: int,
    h: int,
    a: int,
    i: int,
    activation: str,
    masked: bool = False,
    hidden_dropout: bool = False,
    inner: int | None = None,
) -> dict[Part, int]:
    """One pre-LN encoder layer over ``s`` tokens (b = 1) without recomputation.
    ``masked``: SDPA receives an explicit mask; ``hidden_dropout``: the layer drops out
    its attention and MLP outputs (ViT); ``inner``: heads × head size when ≠ h."""
    p = inputs.dtype.bytes
    e = h if inner is None else inner
    drop = inputs.dropout
    eager = inputs.attention is Attention.EAGER
    cpu_math = not eager and drop and inputs.device is Device.CPU
    parts: dict[Part, int] = {
        Part.ATTN_NORM: layer_norm(inputs, s, h),
        # the norm output, kept once by the q, k and v linears
        Part.QKV_PROJ_INPUT: p * s * h,
        Part.ATTN_OUT_PROJ_INPUT: p * s * e,
        Part.MLP_NORM: layer_norm(inputs, s, h),
        Part.MLP_IN_PROJ_INPUT: p * s * h,
        Part.MLP_ACTIVATION: KEEPS[activation] * p * s * i,
        Part.MLP_OUT_PROJ_INPUT: p * s * i,
    }
    if cpu_math:
        # math fallback in fp32: scaled Q, Kᵀ and V, the softmax, the dropout noise and
        # the dropout output
        parts[Part.ATTN_QKV] = 3 * 4 * s * e
        parts[Part.ATTN_SOFTMAX] = 4 * a * s * s
        parts[Part.ATTN_DROPOUT] = 2 * 4 * a * s * s
    else:
        parts[Part.ATTN_QKV] = 3 * p * s * e
    if eager:
        # fp32 softmax; its cast to the dtype is kept by the product with V unless dropout
        # comes between (then the dropout output is kept instead)
        cast = 0 if (drop or p == 4) else p * a * s * s
        parts[Part.ATTN_SOFTMAX] = 4 * a * s * s + cast
        if drop:
            parts[Part.ATTN_DROPOUT] = dropout_mask(inputs, a * s * s) + p * a * s * s
    elif not cpu_math:
        parts[Part.ATTN_FUSED] = 4 * a * s
        if masked:
            parts[Part.ATTN_MASK] = p * s * s
    if drop and hidden_dropout:
        parts[Part.ATTN_RESID_DROPOUT] = dropout_mask(inputs, s * h)
        parts[Part.MLP_RESID_DROPOUT] = dropout_mask(inputs, s * h)
    return parts


def tower_tokens(tower: Tower, inputs: Inputs) -> int:
    return tower.tokens(inputs.image_width, inputs.image_height)


def check_image_size(tower: Tower, inputs: Inputs) -> None:
    """An image smaller than one patch has no patch; a position table that is not a
    square grid cannot be interpolated (transformers reshapes it to a square)."""
    for name, value in (("image_width", inputs.image_width), ("image_height", inputs.image_height)):
        if value is not None and value < tower.patch_size:
            raise InvalidActivationInputs(
                name,
                ShapeProblem.NOT_POSITIVE,
                f"must be at least the patch size ({tower.patch_size})",
            )
    height, width = tower.image_size
    other = (inputs.image_width or width, inputs.image_height or height) != (width, height)
    if other and height // tower.patch_size != width // tower.patch_size:
        raise InvalidActivationInputs(
            "image_width",
            ShapeProblem.NOT_MODELLED,
            "this model's position table is not a square grid: only its own image size runs",
        )


def tower_graph(inputs: Inputs, hooked: bool) -> bool:
    """Whether the image tower builds an autograd graph: trained, or frozen under gradient
    checkpointing when ``enable_input_require_grads`` hooks its patch embedding (models
    whose main input is ``input_ids``: CLIP, SigLIP and the VLMs, not ViT)."""
    return not inputs.vision_frozen or (hooked and inputs.recompute is Recompute.FULL)


def tower_stack(
    tower: Tower,
    inputs: Inputs,
    *,
    tokens: int,
    count: int = 1,
    hidden_dropout: bool = False,
    graph: bool = True,
) -> Stack:
    """The tower's layers over ``tokens`` patch tokens (``count`` images in one batch each
    of that many tokens: bytes scale with ``count``); a frozen tower keeps nothing, or only
    its checkpoints when it still builds a graph (``tower_graph``)."""
    p = inputs.dtype.bytes
    if inputs.vision_frozen:
        checkpoint = {Part.LAYER_CHECKPOINT: count * p * tokens * tower.hidden} if graph else {}
        return Stack(StackKind.VISION, tower.layers, {}, checkpoint)
    layer = encoder_layer(
        inputs,
        s=tokens,
        h=tower.hidden,
        a=tower.heads,
        i=tower.intermediate,
        activation=tower.activation,
        hidden_dropout=hidden_dropout,
        inner=tower.heads * tower.head_dim,
    )
    parts = {key: count * value for key, value in layer.items()}
    return Stack(
        StackKind.VISION,
        tower.layers,
        parts,
        {Part.LAYER_CHECKPOINT: count * p * tokens * tower.hidden},
    )


def pixels(tower: Tower, inputs: Inputs) -> int:
    """Elements of one image as the patch Conv2d reads it (channels × height × width)."""
    height = tower.image_size[0] if inputs.image_height is None else inputs.image_height
    width = tower.image_size[1] if inputs.image_width is None else inputs.image_width
    return tower.channels * height * width
