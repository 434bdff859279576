"""Image encoders: ViT, CLIP and SigLIP (``modeling_vit.py``, ``modeling_clip.py`` and
``modeling_siglip.py`` of ``transformers`` 5.24, with their configuration classes,
``masking_utils.py``, ``integrations/sdpa_attention.py`` and ``loss/loss_utils.py``).

These models take images, not token sequences. A sample is **one image** (and, for CLIP
and SigLIP, one caption of ``seq`` text tokens; a ViT ignores ``seq``). The image is cut
into patches by a ``Conv2d`` whose kernel and stride are the patch size: an image of
W×H pixels gives (H // P)·(W // P) patches, plus a class token for ViT and CLIP. At a
size other than the model's own the position table is interpolated
(``interpolate_pos_encoding=True``: bicubic, keeps nothing for backward).

One pre-LN encoder layer (ViT, CLIP, SigLIP alike; s tokens, h hidden, a heads, i
intermediate, p bytes per element) keeps:

* ``LayerNorm`` before the attention: its input and two statistics per token (fp32 on
  CUDA, the dtype on CPU); the q/k/v linears keep its output once (p·s·h);
* Q, K and V (3·p·s·h). Eager: the fp32 softmax (4·a·s²) and its cast to the dtype kept
  by the product with V (p·a·s²). SDPA: the fp32 log-sum-exp (4·a·s) and, with an
  explicit mask, SDPA's own copy of it (p·s²); on CPU, SDPA with dropout takes the fp32
  math path (Q, K, V copies and three fp32 s² tensors);
* the attention output (the output projection's input, p·s·h);
* ``LayerNorm`` before the MLP (its input is the new residual sum), the ``fc1`` input,
  the activation (exact/tanh GELU keep their input: p·s·i; CLIP's ``quick_gelu``, x·σ(1.702x),
  keeps the input and the sigmoid: 2·p·s·i) and the ``fc2`` input (p·s·i);
* ViT with dropout: the noise of the two hidden dropouts (CPU: the dtype; CUDA: 1 byte).

Heads (``Head``):

* ``vit`` ``ViTForImageClassification`` (the default; any other head of the file is
  estimated as it): the final ``LayerNorm``, the classifier's input (a view of the
  class token: the whole normalised sequence is kept) and ``cross_entropy`` over
  ``num_labels`` logits in the dtype. ``ViTModel``: the pooler (dense on the class token,
  tanh) instead, and no loss.
* ``clip`` ``CLIPModel`` with ``return_loss=True``: the vision tower (pre-LN before the
  layers, post-LN on the class token: the last hidden state is kept whole), the causal
  text tower (the pooled end-of-text token is gathered with two int64 indices), both
  projections, the L2 normalisations, the scaled similarity and the symmetric
  cross-entropy.
* ``siglip`` ``SiglipModel`` with ``return_loss=True``: bidirectional text tower whose last
  token is projected by ``head``; the vision tower's post-LN and its multi-head attention
  pooling head (``torch.nn.MultiheadAttention`` with a learned probe: the probe, the
  patch tokens, K and V packed, the scaled query, the attention weights, the output
  projection input, then a LayerNorm and an MLP on one token); the sigmoid loss (fp32
  sign matrix, ``logsigmoid`` input and buffer).

The contrastive losses compare every image with every caption of the micro-batch: per
sample (micro-batch 1) they are a few hundred bytes; with b samples the b×b logits grow
with b, still negligible next to the towers.

Gradient checkpointing checkpoints every encoder layer (``GradientCheckpointingLayer``):
each keeps its input. A frozen vision tower (``vision_frozen``: ``requires_grad_(False)``
on ``vit`` / ``vision_model``; pixels never need a gradient) keeps nothing: its forward
builds no graph. What reads its output with trainable weights (a classifier, CLIP's
visual projection) still keeps that output.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from gradacc_desktop.core.memory.activation_types import (
    Attention,
    Device,
    Family,
    Inputs,
    InvalidActivationInputs,
    Part,
    ShapeProblem,
    StackKind,
)
from gradacc_desktop.core.memory.families.base import (
    ActivationLayout,
    Architecture,
    ConfigReader,
    Head,
    Stack,
    linear,
)
from gradacc_desktop.core.memory.families.common import dropout_mask, layer_norm
from gradacc_desktop.core.memory.families.vision_tower import (
    DEFAULT_ACTIVATION,
    KEEPS,
    Tower,
    activation_of,
    check_image_size,
    encoder_layer,
    nested,
    pixels,
    read_tower,
    sub_config,
    tower_graph,
    tower_stack,
    tower_tokens,
)
from gradacc_desktop.core.recompute import Recompute
from gradacc_desktop.core.text import trans_late

MODEL_TYPES = ("vit", "clip", "siglip")

#: the heads the files name (ViTModel, CLIPModel, SiglipModel) are this module's own
OWN_HEADS = True

#: the text towers learn their positions: no longer caption can be run
LEARNED_POSITIONS = ("clip", "siglip")


# transformers 5.24 configuration defaults
_VIT = {
    "hidden_size": 768,
    "num_hidden_layers": 12,
    "num_attention_heads": 12,
    "intermediate_size": 3072,
    "image_size": 224,
    "patch_size": 16,
}
_CLIP_VISION = {
    "hidden_size": 768,
    "num_hidden_layers": 12,
    "num_attention_heads": 12,
    "intermediate_size": 3072,
    "image_size": 224,
    "patch_size": 32,
}
_CLIP_TEXT = {
    "vocab_size": 49408,
    "hidden_size": 512,
    "num_hidden_layers": 12,
    "num_attention_heads": 8,
    "intermediate_size": 2048,
    "max_position_embeddings": 77,
}
_SIGLIP_VISION = {
    "hidden_size": 768,
    "num_hidden_layers": 12,
    "num_attention_heads": 12,
    "intermediate_size": 3072,
    "image_size": 224,
    "patch_size": 16,
}
_SIGLIP_TEXT = {
    "vocab_size": 32000,
    "hidden_size": 768,
    "num_hidden_layers": 12,
    "num_attention_heads": 12,
    "intermediate_size": 3072,
    "max_position_embeddings": 64,
}
_CLIP_PROJECTION = 512
_VIT_CLASSIFICATION = "ViTForImageClassification"
_VIT_MODEL = "ViTModel"


@dataclass(frozen=True)
class TextTower:
    """CLIP's (causal) or SigLIP's (bidirectional) text encoder."""

    kind: str
    vocab: int
    hidden: int
    layers: int
    heads: int
    intermediate: int
    activation: str
    positions: int
    #: SigLIP's ``head`` (hidden -> projection_size) on the last token
    projection: int = 0

    def parameters(self) -> int:
        h, i = self.hidden, self.intermediate
        layer = 4 * linear(h, h, True) + linear(h, i, True) + linear(i, h, True) + 4 * h
        head = linear(h, self.projection, True) if self.kind == "siglip" else 0
        return (self.vocab + self.positions) * h + self.layers * layer + 2 * h + head


@dataclass(frozen=True)
class VisionSpec:
    vision: Tower
    text: TextTower | None = None
    #: ViT: logits of the classifier (``num_labels``)
    labels: int = 0
    #: ViTModel's pooler width (0: no pooler)
    pooler: int = 0
    #: CLIP: width of the shared embedding space
    projection: int = 0
    #: ViT: the hidden dropout probability applies (embeddings and every layer)
    hidden_dropout: bool = False
    #: ``architectures[0]`` named another head: estimated for the family's own
    other_head: str = ""


# --------------------------------------------------------------------------- parse


def parse(config: ConfigReader) -> Architecture:
    mt = config.model_type
    if mt == "vit":
        return _parse_vit(config)
    return _parse_pair(config)


def _check_pooling(config: ConfigReader, tower: Tower) -> None:
    if tower.kind == "siglip" and not tower.pooling_head:
        raise config.unsupported(
            "vision_use_head false: SiglipModel needs the pooling head to compare images with text",
            "vision_use_head",
        )


def _labels(config: ConfigReader) -> int:
    """``num_labels`` as transformers derives it: the length of ``id2label``, else the
    ``num_labels`` key, else 2."""
    id2label = config.raw.get("id2label")
    if isinstance(id2label, Mapping) and id2label:
        labels = len(id2label)
    elif id2label is not None and not isinstance(id2label, Mapping):
        raise config.unsupported("id2label must be an object", "id2label")
    else:
        labels = config.integer("num_labels", 2)
    problem = config.text("problem_type", "single_label_classification")
    if problem != "single_label_classification" or labels < 2:
        raise config.unsupported(
            "only single-label classification (cross-entropy over at least 2 labels) is "
            "modelled; regression and multi-label losses are not",
            "problem_type" if config.has("problem_type") else "num_labels",
        )
    return labels


def _parse_vit(config: ConfigReader) -> Architecture:
    tower = read_tower(config, "vit", _VIT)
    architecture = config.architecture()
    base = architecture == _VIT_MODEL
    labels = 0 if base else _labels(config)
    pooler = config.integer("pooler_output_size", tower.hidden) if base else 0
    if base and config.text("pooler_act", "tanh") != "tanh":
        raise config.unsupported("pooler_act: only the tanh pooler is modelled", "pooler_act")
    spec = VisionSpec(
        vision=tower,
        labels=labels,
        pooler=pooler,
        hidden_dropout=True,
        other_head="" if architecture in ("", _VIT_CLASSIFICATION, _VIT_MODEL) else architecture,
    )
    return Architecture(
        model_type="vit",
        family=Family.VISION,
        head=Head.IMAGE_FEATURES if base else Head.IMAGE_CLASSIFICATION,
        hidden=tower.hidden,
        layers=tower.layers,
        heads=tower.heads,
        kv_heads=tower.heads,
        head_dim=tower.head_dim,
        intermediate=tower.intermediate,
        vocab=labels or pooler,
        max_positions=tower.tokens(),
        spec=spec,
        architecture=architecture,
    )


def _text_tower(config: ConfigReader, kind: str) -> TextTower:
    defaults = _CLIP_TEXT if kind == "clip" else _SIGLIP_TEXT
    hidden = config.integer("hidden_size", defaults["hidden_size"])
    heads = config.integer("num_attention_heads", defaults["num_attention_heads"])
    if hidden % heads:
        raise config.unsupported(
            "hidden_size must divide by num_attention_heads", "num_attention_heads"
        )
    return TextTower(
        kind=kind,
        vocab=config.integer("vocab_size", defaults["vocab_size"]),
        hidden=hidden,
        layers=config.integer("num_hidden_layers", defaults["num_hidden_layers"]),
        heads=heads,
        intermediate=config.integer("intermediate_size", defaults["intermediate_size"]),
        activation=activation_of(config, DEFAULT_ACTIVATION[kind]),
        positions=config.integer("max_position_embeddings", defaults["max_position_embeddings"]),
        projection=config.integer("projection_size", hidden) if kind == "siglip" else 0,
    )


def _parse_pair(config: ConfigReader) -> Architecture:
    kind = config.model_type
    vision_defaults = _CLIP_VISION if kind == "clip" else _SIGLIP_VISION
    vision_config = sub_config(config, "vision_config", f"{kind}_vision_model")
    vision = nested("vision_config", lambda: read_tower(vision_config, kind, vision_defaults))
    nested("vision_config", lambda: _check_pooling(vision_config, vision))
    text = nested(
        "text_config",
        lambda: _text_tower(sub_config(config, "text_config", f"{kind}_text_model"), kind),
    )
    projection = 0
    if kind == "clip":
        projection = config.integer("projection_dim", _CLIP_PROJECTION)
    elif text.projection != vision.hidden:
        # image and text embeddings are compared by a matrix product
        raise config.unsupported(
            "text_config.projection_size (default: its hidden_size) must equal "
            "vision_config.hidden_size: SigLIP compares the two embeddings directly",
            "text_config.projection_size",
        )
    architecture = config.architecture()
    own = "CLIPModel" if kind == "clip" else "SiglipModel"
    spec = VisionSpec(
        vision=vision,
        text=text,
        projection=projection,
        other_head="" if architecture in ("", own) else architecture,
    )
    return Architecture(
        model_type=kind,
        family=Family.VISION,
        head=Head.CONTRASTIVE,
        hidden=vision.hidden,
        layers=vision.layers,
        heads=vision.heads,
        kv_heads=vision.heads,
        head_dim=vision.head_dim,
        intermediate=vision.intermediate,
        vocab=text.vocab,
        max_positions=text.positions,
        spec=spec,
        architecture=architecture,
    )


# --------------------------------------------------------------------------- parameters


def parameters(arch: Architecture) -> int:
    spec: VisionSpec = arch.spec
    vision = spec.vision.parameters()
    if arch.model_type == "vit":
        h = spec.vision.hidden
        head = linear(h, spec.labels, True) if spec.labels else linear(h, spec.pooler, True)
        return vision + head
    assert spec.text is not None
    text = spec.text.parameters()
    if arch.model_type == "clip":
        # visual and text projections (no bias) and the logit scale
        return vision + text + (spec.vision.hidden + spec.text.hidden) * spec.projection + 1
    return vision + text + 2  # SigLIP: logit scale and bias


def tower_parameters(arch: Architecture) -> int:
    """Parameters of the image tower (the ``vit`` / ``vision_model`` submodule)."""
    spec: VisionSpec = arch.spec
    return spec.vision.parameters()


def lookup_parameters(arch: Architecture) -> int:
    """Tables used by lookups only: learned positions (both towers) and the text
    tower's token embedding."""
    spec: VisionSpec = arch.spec
    tower = spec.vision
    lookups = tower.tokens() * tower.hidden
    if spec.text is not None:
        lookups += (spec.text.vocab + spec.text.positions) * spec.text.hidden
    return lookups


# --------------------------------------------------------------------------- activations


def _vit_layout(arch: Architecture, inputs: Inputs) -> ActivationLayout:
    spec: VisionSpec = arch.spec
    tower = spec.vision
    p = inputs.dtype.bytes
    s = tower_tokens(tower, inputs)
    h = tower.hidden
    frozen = inputs.vision_frozen
    # ViT's main input is pixel_values: checkpointing hooks no embedding of it
    stack = tower_stack(
        tower, inputs, tokens=s, hidden_dropout=True, graph=tower_graph(inputs, hooked=False)
    )
    outside: dict[Part, int] = {}
    if not frozen:
        # the pixels in the dtype, kept by the patch Conv2d; the embedding dropout noise
        embeddings = p * pixels(tower, inputs)
        if inputs.dropout:
            embeddings += dropout_mask(inputs, s * h)
        outside[Part.VISION_EMBEDDINGS] = embeddings
        outside[Part.VISION_POOLING] = layer_norm(inputs, s, h)  # the final LayerNorm
    if spec.labels:
        # the classifier reads the class token, a view: the whole normalised sequence
        outside[Part.LM_HEAD_INPUT] = p * s * h
        # log_softmax in the dtype, the int64 label, the total weight (a dtype scalar)
        outside[Part.LOSS] = p * spec.labels + 8 + p
        logits = 2 * p * spec.labels
    else:
        # ViTModel: the pooler (dense on the class token view, tanh keeps its output)
        if not frozen:
            outside[Part.VISION_POOLING] += p * s * h + p * spec.pooler
        logits = 0
    return ActivationLayout(
        stacks=(stack,),
        outside=outside,
        logits=logits,
        notes=_notes(arch, inputs),
    )


def _pair_layout(arch: Architecture, inputs: Inputs) -> ActivationLayout:
    spec: VisionSpec = arch.spec
    tower, text = spec.vision, spec.text
    assert text is not None
    p = inputs.dtype.bytes
    s_img = tower_tokens(tower, inputs)
    s = inputs.seq
    hv, ht = tower.hidden, text.hidden
    frozen = inputs.vision_frozen
    stat = 4 if inputs.device is Device.CUDA else p
    clip = arch.model_type == "clip"
    graph = tower_graph(inputs, hooked=True)
    vision_stack = tower_stack(tower, inputs, tokens=s_img, graph=graph)
    text_layer = encoder_layer(
        inputs,
        s=s,
        h=ht,
        a=text.heads,
        i=text.intermediate,
        activation=text.activation,
        masked=inputs.padded,
    )
    text_stack = Stack(StackKind.TEXT, text.layers, text_layer, {Part.LAYER_CHECKPOINT: p * s * ht})
    outside: dict[Part, int] = {}
    if graph:
        # the pixels are kept by the patch Conv2d for its trained weight only
        embeddings = 0 if frozen else p * pixels(tower, inputs)
        if clip:
            embeddings += layer_norm(inputs, s_img, hv)  # pre_layrnorm
        if embeddings:
            outside[Part.VISION_EMBEDDINGS] = embeddings
        if clip:
            # post_layernorm on the class token, a view of the last hidden state (kept
            # whole); its output is the visual projection's input (below)
            outside[Part.VISION_POOLING] = p * s_img * hv + 2 * stat
        else:
            pooling = layer_norm(inputs, s_img, hv)
            if tower.pooling_head:
                a, i = tower.heads, tower.intermediate
                # MultiheadAttention: K and V packed in one copy, the scaled query, the
                # attention weights (a × s); the LayerNorm and the activation on one token;
                # for the trained weights also the probe (query input), the patch tokens
                # (key and value input), the output projection, fc1 and fc2 inputs
                pooling += 2 * p * s_img * hv + p * hv + p * a * s_img
                pooling += p * hv + 2 * stat + KEEPS[tower.activation] * p * i
                if not frozen:
                    pooling += p * hv + p * s_img * hv + p * hv + p * hv + p * i
            outside[Part.VISION_POOLING] = pooling
    # token ids kept by the embedding (the position ids are a buffer's slice)
    outside[Part.EMBEDDINGS] = 8 * s
    eager = inputs.attention is Attention.EAGER
    if inputs.recompute is Recompute.FULL and (inputs.padded or (clip and eager)):
        # the layers receive the mask positionally: the checkpoints keep it once (eager:
        # additive, in the dtype, and CLIP's causal mask even without padding; SDPA: bool)
        outside[Part.SHARED_MASK] = p * s * s if eager else s * s
    outside[Part.FINAL_NORM] = layer_norm(inputs, s, ht)
    if clip:
        e = spec.projection
        # the visual projection's input (the normalised class token), the gathered
        # end-of-text token and its two int64 indices
        outside[Part.LM_HEAD_INPUT] = p * hv + p * ht + 16
        # per tower: the embedding (kept by the norm and the division) and two scalars;
        # the similarity keeps both normalised embeddings; exp(logit_scale) and the
        # logit; two cross-entropies (log-softmax, int64 target, total weight)
        outside[Part.LOSS] = 4 * p * e + 10 * p + 16
    else:
        e = tower.hidden
        # the text head reads the last token, a view: the whole normalised sequence
        outside[Part.LM_HEAD_INPUT] = p * s * ht
        if not graph:
            # the image embedding needs no gradient: only the text side's tensors
            outside[Part.LOSS] = 2 * p * e + 3 * p + 12
        else:
            # embeddings and their norms, the similarity's two operands, exp(scale), the
            # logit, then in fp32 the ±1 matrix, the product and logsigmoid's buffer
            outside[Part.LOSS] = 4 * p * e + 4 * p + 12
    return ActivationLayout(
        stacks=(vision_stack, text_stack),
        outside=outside,
        logits=2 * p,
        notes=_notes(arch, inputs),
    )


def validate_images(arch: Architecture, inputs: Inputs) -> None:
    if inputs.images > 1:
        raise InvalidActivationInputs(
            "images", ShapeProblem.NOT_MODELLED, "a sample of an image encoder is one image"
        )
    check_image_size(arch.spec.vision, inputs)


def layout(arch: Architecture, inputs: Inputs) -> ActivationLayout:
    validate_images(arch, inputs)
    if arch.model_type == "vit":
        return _vit_layout(arch, inputs)
    return _pair_layout(arch, inputs)


def _notes(arch: Architecture, inputs: Inputs) -> tuple[str, ...]:
    spec: VisionSpec = arch.spec
    tower = spec.vision
    notes = [
        trans_late(
            "Activation",
            "One sample is one image of {width}×{height} pixels: {patches} patches of "
            "{patch}×{patch} pixels{cls}.",
        ).format(
            width=tower.image_size[1] if inputs.image_width is None else inputs.image_width,
            height=tower.image_size[0] if inputs.image_height is None else inputs.image_height,
            patches=tower.patches(inputs.image_width, inputs.image_height),
            patch=tower.patch_size,
            cls=trans_late("Activation", " plus a class token").format()
            if tower.class_token
            else "",
        ),
        trans_late(
            "Activation",
            "Pre-LN encoder layers: each LayerNorm keeps its input and two statistics per token.",
        ),
    ]
    if (inputs.image_width, inputs.image_height) != (None, None) and tower.patches(
        inputs.image_width, inputs.image_height
    ) != tower.native_patches:
        notes.append(
            trans_late(
                "Activation",
                "An image size other than the model's: the position table is interpolated "
                "(interpolate_pos_encoding=True).",
            )
        )
    if arch.model_type == "vit":
        notes.append(
            trans_late(
                "Activation",
                "ViT reads no text: the sequence length is not used.",
            )
        )
        if spec.labels:
            notes.append(
                trans_late(
                    "Activation",
                    "Image classification: cross-entropy over {labels} labels on the class token.",
                ).format(labels=spec.labels)
            )
        else:
            notes.append(
                trans_late(
                    "Activation",
                    "ViTModel: the forward with its pooler, no loss (the loss your code "
                    "puts on its output is not counted).",
                )
            )
    else:
        notes.append(
            trans_late(
                "Activation",
                "Contrastive training (return_loss=True): one image and one caption of "
                "the sequence length per sample; the b×b similarity of a micro-batch of b "
                "is counted for b = 1.",
            )
        )
        if arch.model_type == "clip":
            notes.append(
                trans_late(
                    "Activation",
                    "CLIP's text tower is causal and uses QuickGELU (x·sigmoid(1.702x): "
                    "two tensors kept).",
                )
            )
        else:
            notes.append(
                trans_late(
                    "Activation",
                    "SigLIP: sigmoid loss; the image is pooled by a multi-head attention "
                    "head with a learned probe.",
                )
            )
    if spec.other_head:
        notes.append(
            trans_late(
                "Activation",
                "The file names {head}: estimated for the family's own training head.",
            ).format(head=spec.other_head)
        )
    if inputs.vision_frozen:
        notes.append(
            trans_late(
                "Activation",
                "Frozen image tower: its forward builds no graph and keeps nothing; only "
                "what reads its output with trainable weights keeps that output.",
            )
        )
    return tuple(notes)
