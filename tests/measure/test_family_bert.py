"""BERT and RoBERTa read from a config, trained as masked LMs: the estimate against the
bytes autograd really saves, and the exact parameter count."""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from tests.configs import config_path, raw_config  # noqa: E402
from tests.measure.harness import TOLERANCE, compare  # noqa: E402

SMALL: dict[str, dict[str, Any]] = {
    "bert": {
        "model_type": "bert",
        "hidden_size": 128,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "intermediate_size": 256,
        "vocab_size": 2000,
    },
    # untied decoder (its own weight and bias), gelu_new in the layers and the head
    "bert-untied-gelu-new": {
        "model_type": "bert",
        "hidden_size": 96,
        "num_hidden_layers": 3,
        "num_attention_heads": 6,
        "intermediate_size": 200,
        "vocab_size": 1500,
        "hidden_act": "gelu_new",
        "tie_word_embeddings": False,
        "type_vocab_size": 3,
    },
    # a classification file is estimated (and measured) as masked-LM training; position
    # ids from the input ids, 130 rows = 128 usable positions
    "roberta-classifier": {
        "model_type": "roberta",
        "architectures": ["RobertaForSequenceClassification"],
        "hidden_size": 64,
        "num_hidden_layers": 3,
        "num_attention_heads": 2,
        "intermediate_size": 160,
        "vocab_size": 1200,
        "max_position_embeddings": 130,
        "type_vocab_size": 1,
        "pad_token_id": 1,
    },
    # XLM-R and CamemBERT: RoBERTa's modules under other names
    "xlm-roberta": {
        "model_type": "xlm-roberta",
        "hidden_size": 64,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "intermediate_size": 128,
        "vocab_size": 2500,
        "max_position_embeddings": 258,
        "type_vocab_size": 1,
    },
    "camembert": {
        "model_type": "camembert",
        "hidden_size": 96,
        "num_hidden_layers": 2,
        "num_attention_heads": 3,
        "intermediate_size": 192,
        "vocab_size": 1800,
        "max_position_embeddings": 258,
        "type_vocab_size": 1,
    },
}


@pytest.mark.parametrize("padded", [False, True], ids=["dense", "padded"])
@pytest.mark.parametrize("checkpointing", [False, True], ids=["keep", "ckpt"])
@pytest.mark.parametrize("attention", ["eager", "sdpa"])
@pytest.mark.parametrize("seq", [40, 128])
@pytest.mark.parametrize("name", sorted(SMALL))
def test_estimate_matches_what_autograd_saves(
    name: str, seq: int, attention: str, checkpointing: bool, padded: bool
) -> None:
    c = compare(SMALL[name], seq, attention=attention, checkpointing=checkpointing, padded=padded)
    assert abs(c.error) <= TOLERANCE, (c.measured, c.estimated)
    assert c.params_estimated == c.params_measured


@pytest.mark.parametrize("checkpointing", [False, True], ids=["keep", "ckpt"])
@pytest.mark.parametrize("attention", ["eager", "sdpa"])
@pytest.mark.parametrize("name", ["bert", "roberta-classifier"])
def test_with_dropout_on_cpu(name: str, attention: str, checkpointing: bool) -> None:
    # CPU dropout keeps a noise tensor in the dtype; SDPA with dropout takes the math path
    c = compare(SMALL[name], 64, attention=attention, checkpointing=checkpointing, dropout=True)
    assert abs(c.error) <= TOLERANCE, (c.measured, c.estimated)


PUBLISHED = (
    "google-bert__bert-base-uncased.json",
    "google-bert__bert-large-uncased.json",
    "FacebookAI__roberta-base.json",
    "FacebookAI__roberta-large.json",
    "FacebookAI__xlm-roberta-base.json",
    "almanach__camembert-base.json",
)


@pytest.mark.parametrize("name", PUBLISHED)
def test_published_configs_count_like_transformers(name: str) -> None:
    from transformers import AutoConfig, AutoModelForMaskedLM

    from gradacc_desktop.core.memory.families import parameters, read_model_config

    arch = read_model_config(config_path(name))
    raw = raw_config(name)
    with torch.device("meta"):
        model = AutoModelForMaskedLM.from_config(AutoConfig.for_model(**raw))
    assert parameters(arch) == model.num_parameters()
