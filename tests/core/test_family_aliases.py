"""Model types transformers implements as another family's model under a new name
(XLM-R and CamemBERT are RoBERTa, mT5 is T5, RefinedWeb is Falcon): read as that family,
counted as transformers counts them, and refused files point to what comes nearest."""

from __future__ import annotations

import pytest

from gradacc_desktop.core.memory.activation import Family, estimate
from gradacc_desktop.core.memory.families import (
    ConfigProblem,
    Head,
    ModelConfigError,
    parameters,
    parse_model_config,
    read_model_config,
)
from tests.configs import config_path, raw_config

# num_parameters() of the model transformers 5.24 builds from each file (mT5: with the
# checkpoint's own lm_head, as from_pretrained keeps it: the published 300M)
PUBLISHED = {
    "FacebookAI__xlm-roberta-base.json": ("xlm-roberta", Family.BERT, Head.MASKED_LM, 278_295_186),
    "almanach__camembert-base.json": ("camembert", Family.BERT, Head.MASKED_LM, 110_655_493),
    "google__mt5-small.json": ("mt5", Family.T5, Head.SEQ2SEQ_LM, 300_176_768),
    "tiiuae__falcon-7b-RefinedWebModel.json": (
        "falcon",
        Family.FALCON,
        Head.CAUSAL_LM,
        6_921_720_704,
    ),
}


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_aliases_count_like_transformers(name: str) -> None:
    model_type, family, head, count = PUBLISHED[name]
    arch = read_model_config(config_path(name))
    assert (arch.model_type, arch.family, arch.head) == (model_type, family, head)
    assert parameters(arch) == count


def test_xlm_roberta_is_roberta_with_its_own_defaults() -> None:
    arch = read_model_config(config_path("FacebookAI__xlm-roberta-base.json"))
    # position ids start after the padding index: 514 rows, 512 usable positions
    assert arch.max_positions == 512 and arch.spec.positions_from_ids
    assert arch.vocab == 250_002 and arch.spec.type_vocab == 1
    raw = raw_config("FacebookAI__xlm-roberta-base.json")
    del raw["vocab_size"]
    assert parse_model_config(raw).vocab == 30_522  # XLMRobertaConfig's default, not RoBERTa's


def test_roberta_and_xlm_roberta_of_one_shape_keep_the_same_bytes() -> None:
    raw = raw_config("FacebookAI__xlm-roberta-base.json")
    xlmr = parse_model_config(raw)
    roberta = parse_model_config(raw | {"model_type": "roberta"})
    assert estimate(xlmr.inputs(256)).saved_bytes == estimate(roberta.inputs(256)).saved_bytes


def test_mt5_defaults_are_mt5_small() -> None:
    arch = parse_model_config({"model_type": "mt5", "tie_word_embeddings": False})
    assert (arch.hidden, arch.layers, arch.heads, arch.intermediate, arch.vocab) == (
        512, 8, 6, 1024, 250_112
    )  # fmt: skip
    assert arch.spec.gated and arch.spec.activation == "gelu_new"
    assert parameters(arch) == 300_176_768


def test_refinedweb_files_read_as_falcon() -> None:
    old = read_model_config(config_path("tiiuae__falcon-7b-RefinedWebModel.json"))
    new = read_model_config(config_path("tiiuae__falcon-7b-instruct.json"))
    assert (old.hidden, old.layers, old.heads, old.kv_heads) == (4544, 32, 71, 1)
    assert estimate(old.inputs(1024)).saved_bytes == estimate(new.inputs(1024)).saved_bytes
    assert any("RefinedWeb" in n for n in estimate(old.inputs(1024)).notes)
    # Falcon-40B's RefinedWeb file: the new decoder architecture, 8 key/value heads
    forty = parse_model_config(
        {"model_type": "RefinedWeb", "n_head": 128, "n_head_kv": 8, "n_layer": 60,
         "hidden_size": 8192, "vocab_size": 65024, "parallel_attn": True, "bias": False}
    )  # fmt: skip
    assert forty.spec.new_architecture and forty.kv_heads == 8
    assert parameters(forty) == parameters(
        read_model_config(config_path("tiiuae__falcon-40b-instruct.json"))
    )


def test_a_falcon_file_with_refinedweb_keys_is_still_refused() -> None:
    """transformers' FalconConfig ignores n_head: a "falcon" file naming only it would
    build the default model; only the RefinedWeb types read the old names."""
    with pytest.raises(ModelConfigError) as caught:
        parse_model_config({"model_type": "falcon", "n_head": 71, "n_layer": 32})
    assert caught.value.problem is ConfigProblem.UNSUPPORTED


@pytest.mark.parametrize(
    ("raw", "problem", "words"),
    [
        ({"architectures": ["MT5ForConditionalGeneration"]}, ConfigProblem.NO_MODEL_TYPE,
         '"model_type": "mt5"'),
        ({"architectures": ["SomethingNew"]}, ConfigProblem.NO_MODEL_TYPE, "no model_type key"),
        ({"model_type": "phi"}, ConfigProblem.UNKNOWN_MODEL_TYPE, "closest supported name is phi3"),
        ({"model_type": "my_model", "auto_map": {"AutoConfig": "x.Y"}},
         ConfigProblem.UNKNOWN_MODEL_TYPE, "remote code"),
    ],
)  # fmt: skip
def test_refusals_point_to_what_comes_nearest(
    raw: dict[str, object], problem: ConfigProblem, words: str
) -> None:
    with pytest.raises(ModelConfigError) as caught:
        parse_model_config(raw)
    assert caught.value.problem is problem and caught.value.key == "model_type"
    assert words in caught.value.detail
