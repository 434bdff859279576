"""Model families read from a Hugging Face ``config.json``: shape, parameters, activations.

Pure Python, no Qt and no ``torch``. A ``config.json`` (already decoded, or read from
a local file by ``read_model_config``; nothing is ever downloaded) becomes an
``Architecture``: its ``model_type``, the family profile that estimates it, the head
(causal LM, masked LM, sequence-to-sequence LM), the sizes every family has and the
family's own details (``spec``). Each family lives in one module of this package with
four names (``hooks.FamilyModule``; the optional ones a few define are declared in
``hooks`` too, and the registry checks every module against both):

``MODEL_TYPES``
    the ``model_type`` values it reads;
``parse(config: ConfigReader) -> Architecture``
    the sizes, with the defaults of the ``transformers`` configuration class where a
    key is absent (the same model ``transformers`` would build);
``parameters(arch) -> int``
    the exact number of parameters (``model.num_parameters()``: tied weights once);
``layout(arch, inputs) -> ActivationLayout``
    what autograd keeps for backward, in bytes per sample (``activation.Part`` keys):
    per layer (one ``Stack`` per kind of layer) and once per model.

``activation.estimate`` turns a ``ActivationLayout`` into a ``Result`` the same way for every
family (full recomputation keeps each stack's ``checkpoint``; selective drops the
attention core; the peak adds one recomputed layer and the logits transient).
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import Any

from gradacc_desktop.core.memory.activation_types import Family, Inputs
from gradacc_desktop.core.memory.families import heads, hooks
from gradacc_desktop.core.memory.families.base import ActivationLayout as ActivationLayout
from gradacc_desktop.core.memory.families.base import Architecture as Architecture
from gradacc_desktop.core.memory.families.base import ConfigProblem as ConfigProblem
from gradacc_desktop.core.memory.families.base import ConfigReader as ConfigReader
from gradacc_desktop.core.memory.families.base import Head as Head
from gradacc_desktop.core.memory.families.base import ModelConfigError as ModelConfigError
from gradacc_desktop.core.memory.families.base import Stack as Stack
from gradacc_desktop.core.memory.families.base import linear as linear
from gradacc_desktop.core.memory.families.base import single_stack as single_stack
from gradacc_desktop.core.memory.families.heads import DEFAULT_PAD_TOKEN, Task, task_of_class
from gradacc_desktop.core.memory.families.hooks import FamilyModule
from gradacc_desktop.core.memory.families.registry import MODULES
from gradacc_desktop.core.text import trans_late

#: a config.json larger than this is not a model configuration (real ones are < 20 kB)
MAX_CONFIG_BYTES = 2_000_000


FAMILY_TEXT: dict[Family, str] = {
    Family.GPT2: trans_late("Activation", "GPT-2"),
    Family.LLAMA: trans_late("Activation", "Llama-like (Llama, Mistral, Qwen2, Qwen3)"),
    Family.GEMMA: trans_late("Activation", "Gemma (1, 2, 3)"),
    Family.PHI3: trans_late("Activation", "Phi-3"),
    Family.GPT_NEOX: trans_late("Activation", "GPT-NeoX / Pythia"),
    Family.FALCON: trans_late("Activation", "Falcon"),
    Family.OPT: trans_late("Activation", "OPT"),
    Family.MOE: trans_late("Activation", "Mixture of experts (Mixtral, Qwen-MoE)"),
    Family.BERT: trans_late("Activation", "BERT / RoBERTa encoder"),
    Family.T5: trans_late("Activation", "T5 encoder-decoder"),
    Family.LLAMA_VARIANT: trans_late(
        "Activation", "Llama variant (OLMo 2, Command-R, StarCoder2, GLM-4, StableLM, Granite)"
    ),
    Family.DISTILBERT: trans_late("Activation", "DistilBERT encoder"),
    Family.DEBERTA: trans_late("Activation", "DeBERTa-v2/v3 encoder"),
    Family.MODERNBERT: trans_late("Activation", "ModernBERT encoder"),
    Family.BART: trans_late("Activation", "BART / mBART encoder-decoder"),
    Family.DEEPSEEK: trans_late("Activation", "DeepSeek-V2/V3 (latent attention, experts)"),
    Family.GPT_OSS: trans_late("Activation", "gpt-oss (mixture of experts)"),
    Family.MAMBA: trans_late("Activation", "Mamba state-space model (Mamba, Falcon-Mamba)"),
    Family.JAMBA: trans_late("Activation", "Jamba (Mamba + attention + experts)"),
    Family.WHISPER: trans_late("Activation", "Whisper speech encoder-decoder"),
    Family.VISION: trans_late("Activation", "Image encoder (ViT, CLIP, SigLIP)"),
    Family.VLM: trans_late("Activation", "Language model with a vision tower"),
}


# --------------------------------------------------------------------------- registry


def _table(modules: tuple[ModuleType, ...]) -> dict[str, ModuleType]:
    table: dict[str, ModuleType] = {}
    for module in modules:
        hooks.check(module)
        for model_type in module.MODEL_TYPES:
            table[model_type] = module
    return table


_REGISTRY: dict[str, ModuleType] = _table(MODULES)


def supported_model_types() -> tuple[str, ...]:
    """Every ``model_type`` a config may have, sorted (case aside)."""
    return tuple(sorted(_REGISTRY, key=str.lower))


def family_module(arch_or_type: Architecture | str) -> FamilyModule:
    model_type = arch_or_type if isinstance(arch_or_type, str) else arch_or_type.model_type
    module: FamilyModule = _REGISTRY[model_type]
    return module


def parse_model_config(raw: Any) -> Architecture:
    """The ``Architecture`` of a decoded ``config.json``; ``ModelConfigError`` if not one."""
    if not isinstance(raw, Mapping):
        raise ModelConfigError(
            ConfigProblem.NOT_OBJECT,
            trans_late("ModelConfig", "the file is not a JSON object").format(),
        )
    model_type = raw.get("model_type")
    if not isinstance(model_type, str) or not model_type:
        guess = _type_of_class(raw)
        if guess:
            detail = trans_late(
                "ModelConfig",
                "the file has no model_type key; its architectures name a {guess} model: "
                'add "model_type": "{guess}"',
            ).format(guess=guess)
        else:
            detail = trans_late(
                "ModelConfig", "the file has no model_type key; supported types are {types}"
            ).format(types=", ".join(supported_model_types()))
        raise ModelConfigError(ConfigProblem.NO_MODEL_TYPE, detail, "model_type")
    try:
        module = family_module(model_type)
    except KeyError:
        raise ModelConfigError(
            ConfigProblem.UNKNOWN_MODEL_TYPE, _unknown_type(raw, model_type), "model_type"
        ) from None
    config = ConfigReader(raw, model_type)
    arch = module.parse(config)
    if not arch.architecture:
        arch = replace(arch, architecture=config.architecture())
    return replace(
        arch,
        # a family that builds the heads its files name itself (image encoders: ViTModel,
        # CLIPModel) declares OWN_HEADS: the generic task heads do not apply
        task=Task.LM if hooks.optional(module, "OWN_HEADS") else task_of_class(arch.architecture),
        num_labels=_num_labels(config),
        pad_token=config.has("pad_token_id")
        or ("pad_token_id" not in raw and model_type in DEFAULT_PAD_TOKEN),
        use_cache=config.flag("use_cache", True),
    )


def _num_labels(config: ConfigReader) -> int:
    """``PretrainedConfig``'s rule: ``num_labels`` when given, else the size of
    ``id2label``, else 2."""
    if config.has("num_labels"):
        return config.integer("num_labels")
    labels = config.raw.get("id2label")
    if isinstance(labels, Mapping) and labels:
        return len(labels)
    return 2


def _type_of_class(raw: Mapping[str, Any]) -> str:
    """The supported ``model_type`` whose classes ``architectures[0]`` names
    (``XLMRobertaForMaskedLM`` -> ``xlm-roberta``), or ""."""
    names = raw.get("architectures")
    if not isinstance(names, list) or not names or not isinstance(names[0], str):
        return ""
    prefix = names[0].split("For", 1)[0].removesuffix("Model").removesuffix("LMHead")
    wanted = prefix.lower()
    for model_type in supported_model_types():
        if model_type.replace("-", "").replace("_", "").lower() == wanted:
            return model_type
    return ""


#: model types published with remote code only (transformers 5.24 has no class for them)
REMOTE_CODE_TYPES = frozenset({"internlm2"})


def _unknown_type(raw: Mapping[str, Any], model_type: str) -> str:
    """Why ``model_type`` is refused, naming what comes nearest."""
    types = supported_model_types()
    if model_type in REMOTE_CODE_TYPES:
        return trans_late(
            "ModelConfig",
            "model_type {model_type} needs remote code (trust_remote_code): transformers "
            "has no class for it, so it is not modelled; supported types are {types}",
        ).format(model_type=repr(model_type), types=", ".join(types))
    if isinstance(raw.get("auto_map"), Mapping):
        return trans_late(
            "ModelConfig",
            "model_type {model_type} is remote code (the file has an auto_map): "
            "transformers has no class for it, so it is not modelled; supported types are "
            "{types}",
        ).format(model_type=repr(model_type), types=", ".join(types))
    folded = {t.lower().replace("-", "_"): t for t in types}
    near = difflib.get_close_matches(model_type.lower().replace("-", "_"), folded, n=1)
    if near:
        return trans_late(
            "ModelConfig",
            "model_type {model_type} is not supported (the closest supported name is "
            "{near}); supported types are {types}",
        ).format(model_type=repr(model_type), near=folded[near[0]], types=", ".join(types))
    return trans_late(
        "ModelConfig",
        "model_type {model_type} is not supported; supported types are {types}",
    ).format(model_type=repr(model_type), types=", ".join(types))


def file_name(path: str) -> str:
    """The last part of a path the user chose, whichever separator it uses."""
    return path.replace("\\", "/").rsplit("/", 1)[-1] or path


def read_model_config_text(path: str | Path) -> str:
    """The text of a local ``config.json`` (never a download), size-checked and decoded."""
    file = Path(path)
    try:
        with file.open("rb") as fh:
            data = fh.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise ModelConfigError(
            ConfigProblem.UNREADABLE,
            trans_late("ModelConfig", "cannot read {name}: {why}").format(
                name=file.name, why=exc.strerror or str(exc)
            ),
        ) from None
    if len(data) > MAX_CONFIG_BYTES:
        raise ModelConfigError(
            ConfigProblem.TOO_LARGE,
            trans_late("ModelConfig", "{name} is larger than a model configuration").format(
                name=file.name
            ),
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ModelConfigError(
            ConfigProblem.NOT_JSON,
            trans_late("ModelConfig", "not valid JSON: not UTF-8 text").format(),
        ) from None


def read_model_config(path: str | Path) -> Architecture:
    """Read a local ``config.json`` (never a download) and parse it."""
    return parse_model_config_text(read_model_config_text(path))


def parse_model_config_text(data: bytes | str) -> Architecture:
    try:
        raw = json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise ModelConfigError(
            ConfigProblem.NOT_JSON,
            trans_late("ModelConfig", "not valid JSON: {why}").format(why=str(exc)),
        ) from None
    return parse_model_config(raw)


def parameters(arch: Architecture) -> int:
    """Exact parameter count (``num_parameters()`` of the model ``transformers`` builds,
    with the head ``architectures`` names)."""
    return heads.parameters(arch, family_module(arch).parameters(arch))


def layout(arch: Architecture, inputs: Inputs) -> ActivationLayout:
    """What ``arch`` keeps for ``inputs``: the family's layers and its task head."""
    shape = heads.apply(arch, inputs, family_module(arch).layout(arch, inputs))
    if inputs.fills_cache:
        shape = replace(shape, notes=(*shape.notes, CACHE_NOTE))
    return shape


CACHE_NOTE = trans_late(
    "Activation",
    "use_cache is on and no layer is recomputed: transformers fills its generation cache "
    "during the training forward. Where K and V are views of a fused projection (Phi-3, "
    "GPT-NeoX, GPT-2) the cache's copies change what autograd keeps; elsewhere the cache "
    "holds tensors autograd keeps anyway. Set use_cache to false to train without it.",
)
