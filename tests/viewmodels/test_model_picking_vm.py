"""The model picker's groups and filter without widgets: every bundled model once, under
its family's heading or the rest's; a heading never a choice; the filter's every-word
rule over the label, the name and the size; the size in the locale's digits."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QLocale

from gradacc_desktop.core.memory import catalogue as bundled
from gradacc_desktop.viewmodels.formats import PlanFormats
from gradacc_desktop.viewmodels.training.fields import NO_MODEL, PARAMS_MODEL, SHAPE_MODEL, Choice
from gradacc_desktop.viewmodels.training.model import TrainingViewModel
from gradacc_desktop.viewmodels.training.picking import (
    Heading,
    family,
    grouped,
    matches,
    model_size,
)


def test_a_family_is_the_letters_a_label_starts_with() -> None:
    assert family("Qwen2.5 7B") == family("Qwen3 8B") == family("Qwen2-VL 2B") == "Qwen"
    assert family("GPT-2 XL (1.5B)") == "GPT" and family("gpt-oss 20B (MoE)") == "gpt"
    assert family("Llama 3.1 8B") == "Llama" and family("Phi-4") == "Phi"


def test_families_of_several_get_a_heading_and_the_rest_go_last() -> None:
    models = [
        ("bert", "BERT base"),
        ("gpt2", "GPT-2 small"),
        ("gpt-oss", "gpt-oss 20B"),
        ("llama-8b", "Llama 3 8B"),
        ("llava", "LLaVA 1.5 7B"),
        ("llama-70b", "Llama 3 70B"),
    ]
    assert grouped(models, "Other models") == [
        (Heading("GPT"), "GPT"),
        ("gpt2", "GPT-2 small"),
        ("gpt-oss", "gpt-oss 20B"),
        (Heading("Llama"), "Llama"),
        ("llama-8b", "Llama 3 8B"),
        ("llama-70b", "Llama 3 70B"),
        (Heading("Other models"), "Other models"),
        ("bert", "BERT base"),
        ("llava", "LLaVA 1.5 7B"),
    ]


@pytest.mark.parametrize(
    ("typed", "kept"),
    [
        ("", True),
        ("llama", True),
        ("LLAMA 8b", True),
        ("3.1 8B", True),
        ("llama-3.1", True),  # the name
        ("8,0b", True),  # the size
        ("llama 70b", False),  # every word must be found
        ("qwen", False),
    ],
)
def test_every_typed_word_is_in_the_label_the_name_or_the_size(typed: str, kept: bool) -> None:
    assert matches(typed, "Llama 3.1 8B", "llama-3.1-8b", "8,0B") is kept


def test_the_size_of_a_bundled_model_in_the_locales_digits() -> None:
    pt, en = PlanFormats(QLocale("pt_BR")), PlanFormats(QLocale("en"))
    assert model_size(en, "gpt2") == "124M"
    # 999,885,952 parameters round to a thousand millions: a billion, as its card says
    assert (model_size(pt, "gemma-3-1b-it"), model_size(en, "gemma-3-1b-it")) == ("1B", "1B")
    assert (model_size(pt, "gpt2-xl"), model_size(en, "gpt2-xl")) == ("1,6B", "1.6B")
    assert model_size(en, "llama-3-70b") == "70.6B"
    assert model_size(en, "llama-3.1-405b") == "406B"
    assert model_size(en, SHAPE_MODEL) == model_size(en, "no-such-model") == ""


@pytest.mark.parametrize(("language", "rest", "own"), [
    ("en", "Other models", "Your own model"),
    ("pt_BR", "Outros modelos", "Seu próprio modelo"),
])  # fmt: skip
def test_the_model_options_hold_every_model_once_under_headings(  # type: ignore[no-untyped-def]
    catalogue, language: str, rest: str, own: str
) -> None:
    catalogue(language)
    vm = TrainingViewModel(QLocale(language))
    options = vm.options(Choice.MODEL)
    data = [d for d, _ in options]
    assert data[0] == NO_MODEL and data[-2:] == [SHAPE_MODEL, PARAMS_MODEL]
    models = [
        d for d in data if isinstance(d, str) and d not in (NO_MODEL, SHAPE_MODEL, PARAMS_MODEL)
    ]
    assert sorted(models) == sorted(m.name for m in bundled())
    headings = [d.name for d in data if isinstance(d, Heading)]
    assert {"Llama", "Qwen", "Gemma", "Mistral", "Phi", "GPT", rest, own} <= set(headings)
    assert data.index(Heading(own)) == len(data) - 3
    # a heading is shown, never chosen
    before = vm.choice(Choice.MODEL)
    vm.set_choice(Choice.MODEL, Heading("Llama"))
    assert vm.choice(Choice.MODEL) == before
