"""The heads the measure tool builds and the model types it knows: which class of
``transformers`` a config becomes (a language-model head, a task head, an image model)
and the batch each head is trained with (``gradacc_desktop.measure`` describes them).
``transformers`` is imported only inside the functions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .errors import MeasureError

CAUSAL_LM = "causal-lm"
MASKED_LM = "masked-lm"
SEQ2SEQ_LM = "seq2seq-lm"
#: task heads (``architectures[0]`` names them): the bare model and the fine-tuning heads
BASE = "base"
SEQUENCE_CLASSIFICATION = "sequence-classification"
TOKEN_CLASSIFICATION = "token-classification"
QUESTION_ANSWERING = "question-answering"
MULTIPLE_CHOICE = "multiple-choice"
_TASK_MAPPINGS = (
    (SEQUENCE_CLASSIFICATION, "MODEL_FOR_SEQUENCE_CLASSIFICATION_MAPPING_NAMES"),
    (TOKEN_CLASSIFICATION, "MODEL_FOR_TOKEN_CLASSIFICATION_MAPPING_NAMES"),
    (QUESTION_ANSWERING, "MODEL_FOR_QUESTION_ANSWERING_MAPPING_NAMES"),
    (MULTIPLE_CHOICE, "MODEL_FOR_MULTIPLE_CHOICE_MAPPING_NAMES"),
    (BASE, "MODEL_MAPPING_NAMES"),
)
#: The model types this tool is tested with (tests/measure/test_measure_command.py).
#: Other types transformers knows are built the same way when it has an LM head.
SUPPORTED_MODEL_TYPES = (
    "gpt2", "llama", "mistral", "qwen2", "qwen3", "gemma", "gemma2", "gemma3_text",
    "gemma3", "phi3", "gpt_neox", "falcon", "opt", "mixtral", "qwen2_moe", "qwen3_moe",
    "bert", "roberta", "xlm-roberta", "camembert", "t5", "mt5",
    "distilbert", "deberta-v2", "modernbert",
    "olmo2", "cohere", "starcoder2", "glm4", "stablelm", "granite",
    "vit", "clip", "siglip", "llava", "qwen2_vl", "qwen2_5_vl",
    "deepseek_v2", "deepseek_v3",
    "gpt_oss",
    "mamba", "falcon_mamba", "jamba",
    "bart", "mbart",
    "whisper",
)  # fmt: skip
#: Multimodal configs measured as their text model: model_type -> text-only class.
TEXT_ONLY: dict[str, str] = {}
#: Speech-to-text encoder-decoders: model_type -> the seq2seq class built whatever the file
#: names (transformers' causal-LM mapping would pick the decoder alone). Their batch is
#: log-mel ``input_features`` of the model's fixed length, not token ids.
SPEECH_SEQ2SEQ = {"whisper": "WhisperForConditionalGeneration"}
#: Image encoders and language models with a vision tower: model_type -> (class, head).
#: The heads of the image encoders (a VLM is trained as a causal LM with images).
IMAGE_CLASSIFICATION = "image-classification"
CONTRASTIVE = "contrastive"
IMAGE_FEATURES = "image-features"
IMAGE_MODELS = {
    "vit": ("ViTForImageClassification", IMAGE_CLASSIFICATION),
    "clip": ("CLIPModel", CONTRASTIVE),
    "siglip": ("SiglipModel", CONTRASTIVE),
    "llava": ("LlavaForConditionalGeneration", CAUSAL_LM),
    "qwen2_vl": ("Qwen2VLForConditionalGeneration", CAUSAL_LM),
    "qwen2_5_vl": ("Qwen2_5_VLForConditionalGeneration", CAUSAL_LM),
    "gemma3": ("Gemma3ForConditionalGeneration", CAUSAL_LM),
}


def _class_names(mapping: Mapping[str, Any]) -> set[str]:
    names: set[str] = set()
    for value in mapping.values():
        names.update([value] if isinstance(value, str) else value)
    return names


def head_of_class(name: str) -> str | None:
    """The head kind of an LM class name, None when it is not a labels-trained LM head."""
    from transformers.models.auto import modeling_auto as ma

    if name in _class_names(ma.MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES):
        return SEQ2SEQ_LM
    if name in _class_names(ma.MODEL_FOR_MASKED_LM_MAPPING_NAMES):
        return MASKED_LM
    if name in _class_names(ma.MODEL_FOR_CAUSAL_LM_MAPPING_NAMES):
        return CAUSAL_LM
    for head, mapping in _TASK_MAPPINGS:
        if name in _class_names(getattr(ma, mapping)):
            return head
    return None


def head_of_type(cfg: Any) -> str:
    from transformers.models.auto import modeling_auto as ma

    model_type = cfg.model_type
    if getattr(cfg, "is_encoder_decoder", False) and (
        model_type in ma.MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES
    ):
        return SEQ2SEQ_LM
    if model_type in ma.MODEL_FOR_MASKED_LM_MAPPING_NAMES:
        return MASKED_LM
    if model_type in ma.MODEL_FOR_CAUSAL_LM_MAPPING_NAMES:
        return CAUSAL_LM
    if model_type in ma.MODEL_FOR_SEQ_TO_SEQ_CAUSAL_LM_MAPPING_NAMES:
        return SEQ2SEQ_LM
    raise MeasureError(
        f"transformers has no language-model head for model_type {model_type!r}; "
        "supported model types: " + ", ".join(SUPPORTED_MODEL_TYPES)
    )


TASK_BATCH_HEADS = (
    BASE, SEQUENCE_CLASSIFICATION, TOKEN_CLASSIFICATION, QUESTION_ANSWERING, MULTIPLE_CHOICE
)  # fmt: skip
IMAGE_HEADS = {name: head for name, head in IMAGE_MODELS.values()} | {"ViTModel": IMAGE_FEATURES}
