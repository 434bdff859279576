"""The models a training can name, and what each one gives the rest of the core.

**One catalogue** (``catalogue``): every bundled model — the published ``config.json``
files of ``resources/data/models`` first, then the sized GPT-2 and Llama presets of
``resources/data/model_presets.json`` whose name no config takes — by one
case-insensitive name. Every command and dialog offers exactly these names.

**A model choice** (``ModelSpec``): a bundled model by name, a ``config.json`` the user
opened (already read into an ``Architecture``), a shape typed in (GPT-2 or Llama sizes)
or a bare parameter count. ``facts`` turns a choice into ``ModelFacts``: the exact
parameter count, what the time model needs (the parameters a token computes with, the
attention's shape, hidden size and layers), the activation estimator's inputs, the
largest layer ZeRO-3 gathers and the projections LoRA adapts — each ``None`` where the
choice does not fix it (a bare parameter count has no shape).
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from typing import Any

from ..names import unknown_name
from ..time.compute import Shape
from .activation import Family, Inputs
from .families import Architecture, Head, family_module, hooks, parameters
from .families.moe import MoeSpec
from .lora import LoraLayout, ModelShape, layout_of_projections, layout_of_shape
from .model_size import ModelSize, size_of, sized_preset
from .presets import Preset, PresetError, load_config_presets, load_presets

__all__ = [
    "CatalogueModel",
    "ExpertFacts",
    "ModelFacts",
    "ModelSource",
    "ModelSpec",
    "UnknownModelError",
    "catalogue",
    "facts",
    "find_model",
    "known_models",
]


class UnknownModelError(LookupError):
    def __init__(self, name: str, known: tuple[str, ...]) -> None:
        super().__init__(unknown_name("model", name, known))
        self.name = name
        self.known = known


@dataclass(frozen=True)
class CatalogueModel:
    """One bundled model: a published config.json (``arch``) or a sized preset."""

    name: str
    label: str
    source: str
    arch: Architecture | None = None
    preset: Preset | None = None


@cache
def _catalogue() -> tuple[CatalogueModel, ...]:
    """Read once: the files ship with the app and do not change while it runs."""
    models: dict[str, CatalogueModel] = {}
    for config in load_config_presets():
        models.setdefault(
            config.name.lower(),
            CatalogueModel(config.name, config.label, config.source, arch=config.arch),
        )
    for preset in load_presets():
        models.setdefault(
            preset.name.lower(),
            CatalogueModel(preset.name, preset.label, preset.source, preset=preset),
        )
    return tuple(sorted(models.values(), key=_picker_order))


def _picker_order(model: CatalogueModel) -> tuple[str, int, str]:
    """Grouped by family (the label's first word: Gemma, Llama, Qwen2.5, …), smallest
    first within it: the order the model picker and ``--model``'s list show."""
    if model.arch is not None:
        size = parameters(model.arch)
    else:
        assert model.preset is not None
        p = model.preset
        size = 12 * p.layers * p.hidden * p.hidden + p.vocab * p.hidden  # an order only
    return model.label.split()[0].lower(), size, model.label


def catalogue() -> tuple[CatalogueModel, ...]:
    """Every bundled model, grouped by family and smallest first (a published config
    before a sized preset of the same name; empty when the bundle is broken)."""
    try:
        return _catalogue()
    except PresetError:
        return ()


def known_models() -> tuple[str, ...]:
    return tuple(model.name for model in catalogue())


def find_model(name: str) -> CatalogueModel:
    """The bundled model called ``name`` (case-insensitive); ``UnknownModelError`` else."""
    wanted = name.strip().lower()
    for model in catalogue():
        if model.name.lower() == wanted:
            return model
    raise UnknownModelError(name, known_models())


# --------------------------------------------------------------------------- a choice


class ModelSource(enum.Enum):
    BUNDLED = "bundled"
    CONFIG = "config"  # a config.json the user opened
    SHAPE = "shape"  # GPT-2 or Llama sizes typed in
    PARAMS = "params"  # a parameter count alone


@dataclass(frozen=True)
class TypedShape:
    """A GPT-2 or Llama model given by its sizes (``max_positions``: GPT-2's learned
    position table, and the longest sequence either may be trained at)."""

    family: Family
    hidden: int
    layers: int
    heads: int
    kv_heads: int
    intermediate: int
    vocab: int
    max_positions: int

    def model_shape(self) -> ModelShape:
        return ModelShape(
            hidden=self.hidden,
            layers=self.layers,
            heads=self.heads,
            kv_heads=self.kv_heads,
            intermediate=self.intermediate,
            vocab=self.vocab,
            family=self.family,
            position_embeddings=self.max_positions if self.family is Family.GPT2 else 0,
        )


#: a typed shape's defaults: Llama 2's vocabulary, and the FFN width rule of Meta's
#: Llama code (two thirds of 4h, rounded up to a multiple of 256)
DEFAULT_VOCAB = 32_000
FFN_MULTIPLE = 256


def default_ffn_hidden(hidden: int, family: Family) -> int:
    """The FFN width a block of ``hidden`` gets when none is given: 4h for GPT-2's plain
    MLP, 8h/3 rounded up to a multiple of 256 for a gated (SwiGLU) one — both about
    8h² parameters per layer."""
    if family is Family.GPT2:
        return 4 * hidden
    return -(-(8 * hidden // 3) // FFN_MULTIPLE) * FFN_MULTIPLE


def typed_shape(
    layers: int,
    hidden: int,
    heads: int,
    *,
    kv_heads: int | None = None,
    ffn_hidden: int | None = None,
    vocab: int | None = None,
    family: Family = Family.LLAMA,
    max_positions: int = 4096,
) -> TypedShape:
    """A model given by its sizes, with the defaults above (``ValueError`` when the sizes
    do not make a model: heads must divide the hidden size, key/value heads the heads)."""
    shape = TypedShape(
        family=family,
        hidden=hidden,
        layers=layers,
        heads=heads,
        kv_heads=heads if kv_heads is None else kv_heads,
        intermediate=default_ffn_hidden(hidden, family) if ffn_hidden is None else ffn_hidden,
        vocab=DEFAULT_VOCAB if vocab is None else vocab,
        max_positions=max_positions,
    )
    shape.model_shape()  # checks the sizes
    return shape


@dataclass(frozen=True)
class ModelSpec:
    """What the user chose: exactly one of a bundled ``name``, an ``arch`` read from a
    file (``file_name`` says which), a typed ``shape`` or a ``params`` count."""

    source: ModelSource
    name: str | None = None
    arch: Architecture | None = None
    file_name: str = ""
    shape: TypedShape | None = None
    params: int | None = None
    #: the config.json's text, kept so a saved description reopens the same model
    text: str = field(default="", compare=False, repr=False)

    def __post_init__(self) -> None:
        wanted = {
            ModelSource.BUNDLED: self.name,
            ModelSource.CONFIG: self.arch,
            ModelSource.SHAPE: self.shape,
            ModelSource.PARAMS: self.params,
        }[self.source]
        if wanted is None:
            raise ValueError(f"a {self.source.value} model needs its value")
        if self.params is not None and (
            isinstance(self.params, bool) or not isinstance(self.params, int) or self.params < 1
        ):
            raise ValueError(f"params must be an integer >= 1, got {self.params!r}")

    @classmethod
    def bundled(cls, name: str) -> ModelSpec:
        return cls(ModelSource.BUNDLED, name=find_model(name).name)

    @classmethod
    def config(cls, arch: Architecture, file_name: str, text: str = "") -> ModelSpec:
        return cls(ModelSource.CONFIG, arch=arch, file_name=file_name, text=text)

    @classmethod
    def typed_params(cls, params: int) -> ModelSpec:
        return cls(ModelSource.PARAMS, params=params)

    @classmethod
    def typed_shape(cls, shape: TypedShape) -> ModelSpec:
        return cls(ModelSource.SHAPE, shape=shape)


@dataclass(frozen=True)
class ExpertFacts:
    """A mixture of experts' routed experts (Mixtral, Qwen-MoE): what expert parallelism
    spreads over GPUs. The router, attention, norms, dense layers and Qwen2-MoE's shared
    expert stay on every GPU."""

    #: routed experts per sparse layer
    experts: int
    #: experts each token is sent to
    top_k: int
    sparse_layers: int
    #: one sparse layer's routed experts: gate, up and down of every expert, the one
    #: module ZeRO-3 gathers (``MixtralExperts``, ``Qwen3MoeExperts``)
    layer_params: int
    #: the largest module ZeRO-3 gathers besides the experts (embedding, a projection)
    largest_other: int

    @property
    def params(self) -> int:
        """Every routed expert of every sparse layer."""
        return self.sparse_layers * self.layer_params

    def largest_layer(self, expert_parallel: int | Fraction = 1) -> int:
        """The largest module ZeRO-3 gathers on a GPU that holds ``1/expert_parallel`` of
        each layer's experts."""
        return max(self.largest_other, math.floor(self.layer_params / Fraction(expert_parallel)))


@dataclass(frozen=True)
class VisionFacts:
    """A model with an image tower (ViT/CLIP/SigLIP, or a language model with one)."""

    #: (width, height) in pixels the model's processor gives an image
    default_size: tuple[int, int]
    #: the image size changes the figures (image encoders, Qwen2-VL's dynamic size)
    resizable: bool
    #: a language model reading images: images per sample is asked for
    takes_images: bool
    #: parameters of the tower (what freezing it stops training)
    tower_params: int


@dataclass(frozen=True)
class ModelFacts:
    """What a model choice fixes; ``None`` where it fixes nothing."""

    label: str
    #: every parameter (what memory holds)
    params: int
    #: the time model's view: the parameters a token computes with and the attention
    size: ModelSize | None
    #: the projections LoRA adapts (None: the model's blocks are not known well enough)
    lora: LoraLayout | None
    #: parameters of the largest single weight ZeRO-3 gathers (None: unknown)
    largest_layer: int | None
    #: the longest sequence the model can run, when its positions are learned
    learned_positions: int | None
    encoder_decoder: bool
    default_seq: int | None
    #: key/value heads (tensor parallelism must divide them and the heads)
    kv_heads: int | None = None
    #: the context the model was built for (max_position_embeddings; None: relative)
    context: int | None = None
    #: a mixture of experts' routed experts (None: no routed experts)
    experts: ExpertFacts | None = None
    #: the image tower (None: no tower)
    vision: VisionFacts | None = None
    #: parameters no fine-tuning trains (Whisper's fixed encoder positions)
    frozen_params: int = 0
    #: the output layer shares the token embedding's weight (counted once in ``params``)
    tied_embeddings: bool = False
    #: what the activation estimator reads (None: a bare parameter count)
    _arch: Architecture | None = None
    _preset: Any = None  # a sized Preset or a TypedShape

    @property
    def causal_lm(self) -> bool:
        """A language model's head and loss (what a fused linear cross-entropy replaces);
        False for an encoder, an encoder-decoder's or a task head."""
        return self._arch is None or self._arch.head.value == "causal-lm"

    @property
    def has_shape(self) -> bool:
        return self._arch is not None or self._preset is not None

    @property
    def compute_params(self) -> int:
        return self.size.compute_params if self.size is not None else self.params

    @property
    def attention_shape(self) -> Shape | None:
        return self.size.shape if self.size is not None else None

    def activation_inputs(
        self, seq: int, target_seq: int | None = None, **options: Any
    ) -> Inputs | None:
        """The estimator's inputs at ``seq`` (None without a shape)."""
        if self._arch is not None:
            target = target_seq if self._arch.encoder_decoder else None
            return self._arch.inputs(seq, target_seq=target, **options)
        shape = self._preset
        if isinstance(shape, Preset):
            return shape.inputs(seq, **options)
        if isinstance(shape, TypedShape):
            return Inputs(
                family=shape.family,
                hidden=shape.hidden,
                layers=shape.layers,
                heads=shape.heads,
                kv_heads=shape.kv_heads,
                intermediate=shape.intermediate,
                vocab=shape.vocab,
                seq=seq,
                **options,
            )
        return None


def _lora_of_arch(arch: Architecture, total: int) -> LoraLayout | None:
    """Llama-style (Llama, Mistral, Qwen2/3, Gemma) and GPT-2 blocks; other families'
    projections are not modelled for LoRA."""
    naming = {Family.LLAMA: "llama", Family.GEMMA: "llama", Family.GPT2: "gpt2"}.get(arch.family)
    # a family module may say how its projections are named (``lora_naming``)
    module = family_module(arch)
    own = hooks.optional(module, "lora_naming")
    naming = own(arch) if own is not None else naming
    if naming is None:
        return None
    return layout_of_projections(
        naming=naming,
        hidden=arch.hidden,
        heads=arch.heads,
        kv_heads=arch.kv_heads,
        head_dim=arch.head_dim,
        intermediate=arch.intermediate,
        layers=arch.layers,
        total=total,
    )


def _largest(embedding: int, lora: LoraLayout | None, size: ModelSize) -> int:
    """The largest weight: the embedding, or one projection of a block."""
    projection = lora.largest_layer if lora is not None else size.hidden * size.hidden
    return max(embedding, projection)


def _largest_of_arch(
    arch: Architecture, lora: LoraLayout | None, size: ModelSize
) -> tuple[int, ExpertFacts | None]:
    """The parameters of the largest module ZeRO-3 gathers at once, as DeepSpeed's
    ``estimate_zero3_model_states_mem_needs`` finds it on the model ``transformers``
    builds (each module's own parameters): the embedding or a block's projection; a
    masked LM's decoder, whose tied weight comes with the output bias; a mixture of
    experts' routed experts, one module per layer (``MixtralExperts``,
    ``Qwen3MoeExperts``: gate, up and down of every expert) — with those experts."""
    largest = _largest(arch.vocab * arch.hidden, lora, size)
    if arch.head is Head.MASKED_LM:
        largest = max(largest, arch.vocab * arch.hidden + arch.vocab)
    spec = arch.spec
    # a family module may say it itself: ``routed_experts(arch)`` -> (experts, top-k,
    # layers with experts, parameters of one layer's experts module), e.g. gpt-oss
    routed = hooks.optional(family_module(arch), "routed_experts")
    if routed is not None:
        count, top_k, sparse_layers, layer_params = routed(arch)
    elif isinstance(spec, MoeSpec):
        count, top_k, sparse_layers = spec.experts, spec.top_k, spec.sparse_layers
        layer_params = spec.experts * 3 * arch.hidden * spec.expert_intermediate
    else:
        return largest, None
    if not count or not sparse_layers:
        return largest, None
    experts = ExpertFacts(
        experts=count,
        top_k=top_k,
        sparse_layers=sparse_layers,
        layer_params=layer_params,
        largest_other=largest,
    )
    return experts.largest_layer(), experts


def _of_arch(label: str, arch: Architecture, name: str) -> ModelFacts:
    total = parameters(arch)
    size = size_of(name, arch)
    lora = _lora_of_arch(arch, total)
    learned_types = hooks.optional(family_module(arch), "LEARNED_POSITIONS") or ()
    learned = (
        arch.max_positions
        if arch.model_type in _LEARNED_POSITIONS or arch.model_type in learned_types
        else None
    )
    largest, experts = _largest_of_arch(arch, lora, size)
    return ModelFacts(
        label=label,
        params=total,
        size=size,
        lora=lora,
        largest_layer=largest,
        learned_positions=learned,
        encoder_decoder=arch.encoder_decoder,
        default_seq=arch.default_seq,
        kv_heads=arch.kv_heads,
        context=arch.max_positions,
        experts=experts,
        vision=_vision_of_arch(arch),
        frozen_params=_frozen_of_arch(arch),
        tied_embeddings=bool(getattr(arch.spec, "tie_embeddings", False)),
        _arch=arch,
    )


def _frozen_of_arch(arch: Architecture) -> int:
    frozen = hooks.optional(family_module(arch), "frozen_parameters")
    return int(frozen(arch)) if frozen is not None else 0


def _vision_of_arch(arch: Architecture) -> VisionFacts | None:
    from .families.vision_facts import default_image_size, resizable

    size = default_image_size(arch)
    if size is None:
        return None
    count = hooks.optional(family_module(arch), "tower_parameters")
    return VisionFacts(
        default_size=size,
        resizable=resizable(arch),
        takes_images=arch.family is Family.VLM,
        tower_params=int(count(arch)) if count is not None else 0,
    )


#: model types whose positions are a learned table: no longer sequence can be run
_LEARNED_POSITIONS = frozenset({"gpt2", "opt", "bert", "roberta", "xlm-roberta", "camembert"})


def _of_shape(
    label: str, shape: ModelShape, max_positions: int, source: Any, name: str
) -> ModelFacts:
    size = sized_preset(name, shape)
    lora = layout_of_shape(shape)
    return ModelFacts(
        label=label,
        params=lora.total,
        size=size,
        lora=lora,
        largest_layer=_largest(shape.vocab * shape.hidden, lora, size),
        learned_positions=max_positions if shape.family is Family.GPT2 else None,
        encoder_decoder=False,
        default_seq=min(max_positions, 4096),
        kv_heads=shape.kv_heads,
        context=max_positions,
        tied_embeddings=bool(shape.tied_embeddings),
        _preset=source,
    )


def facts(spec: ModelSpec) -> ModelFacts:
    """What ``spec`` fixes (``UnknownModelError`` for a bundled name no longer known)."""
    if spec.source is ModelSource.BUNDLED:
        assert spec.name is not None
        model = find_model(spec.name)
        if model.arch is not None:
            return _of_arch(model.label, model.arch, model.name)
        assert model.preset is not None
        preset = model.preset
        return _of_shape(
            model.label,
            ModelShape.from_preset(preset),
            preset.max_position_embeddings,
            preset,
            model.name,
        )
    if spec.source is ModelSource.CONFIG:
        assert spec.arch is not None
        label = spec.file_name or spec.arch.architecture or spec.arch.model_type
        return _of_arch(label, spec.arch, label)
    if spec.source is ModelSource.SHAPE:
        assert spec.shape is not None
        typed = spec.shape
        label = typed.family.value
        return _of_shape(label, typed.model_shape(), typed.max_positions, typed, label)
    assert spec.params is not None
    return ModelFacts(
        label="",
        params=spec.params,
        size=None,
        lora=None,
        largest_layer=None,
        learned_positions=None,
        encoder_decoder=False,
        default_seq=None,
    )
