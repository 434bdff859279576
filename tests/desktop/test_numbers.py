"""What a user types or pastes is what is computed, shown and copied (issue 9, items 1-2).

Each scenario runs twice, typed and pasted, on a fresh app: both must give the same,
expected, field text and copied results.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from tests.desktop.conftest import StartApp
from tests.desktop.driver import App, plain_number


@dataclass(frozen=True)
class Case:
    id: str
    lang: str
    field: str  # a MNEMONICS name
    text: str  # what the user types or pastes
    shown: str  # the field's text once focus has left (without its unit)
    results: dict[str, str]  # RESULT_LABELS name -> copied value
    # a different valid value entered first, so that "nothing happened" cannot pass
    before: str | None = None


CASES = [
    # pt-BR: "," is the decimal separator, a lone "." a decimal point
    Case(
        "pt-period-decimal",
        "pt_BR",
        "activation",
        "0.25",
        "0,25",
        {"activation": "0,25 GB", "peak_memory": "M = 4 × 0,25 GB = 1 GB"},
    ),
    Case(
        "pt-grouped-decimal",
        "pt_BR",
        "activation",
        "1.234,5",
        "1.234,5",
        {"activation": "1.234,5 GB", "peak_memory": "M = 4 × 1.234,5 GB = 4.938 GB"},
    ),
    Case(
        "pt-unit",
        "pt_BR",
        "activation",
        "0,75 GB",
        "0,75",
        {"activation": "0,75 GB", "peak_memory": "M = 4 × 0,75 GB = 3 GB"},
    ),
    Case(
        "pt-spaces",
        "pt_BR",
        "activation",
        " 0,75 ",
        "0,75",
        {"activation": "0,75 GB", "peak_memory": "M = 4 × 0,75 GB = 3 GB"},
    ),
    # whole-number field: "." before exactly three digits groups thousands
    Case(
        "pt-int-thousands",
        "pt_BR",
        "micro_batch",
        "1.024",
        "1.024",
        {
            "micro_batch": "1.024",
            "effective_batch": "E = 1.024 × 8 × 1 = 8.192",
            "peak_memory": "M = 1.024 × 0,5 GB = 512 GB",
        },
    ),
    Case(
        "pt-int-millions",
        "pt_BR",
        "micro_batch",
        "1.000.000",
        "1.000.000",
        {
            "micro_batch": "1.000.000",
            "effective_batch": "E = 1.000.000 × 8 × 1 = 8.000.000",
            "peak_memory": "M = 1.000.000 × 0,5 GB = 500.000 GB",
        },
    ),
    # English: "." decimal, "," groups thousands; "0,5" is never 5
    Case(
        "en-comma-half",
        "en",
        "activation",
        "0,5",
        "0.5",
        {"activation": "0.5 GB", "peak_memory": "M = 4 × 0.5 GB = 2 GB"},
        before="0.75",
    ),
    Case(
        "en-comma-quarter",
        "en",
        "activation",
        "0,25",
        "0.25",
        {"activation": "0.25 GB", "peak_memory": "M = 4 × 0.25 GB = 1 GB"},
    ),
    Case(
        "en-grouped-decimal",
        "en",
        "activation",
        "1,234.5",
        "1,234.5",
        {"activation": "1,234.5 GB", "peak_memory": "M = 4 × 1,234.5 GB = 4,938 GB"},
    ),
    Case(
        "en-unit",
        "en",
        "activation",
        "0.75 GB",
        "0.75",
        {"activation": "0.75 GB", "peak_memory": "M = 4 × 0.75 GB = 3 GB"},
    ),
    Case(
        "en-int-thousands",
        "en",
        "micro_batch",
        "1,024",
        "1,024",
        {
            "micro_batch": "1,024",
            "effective_batch": "E = 1,024 × 8 × 1 = 8,192",
            "peak_memory": "M = 1,024 × 0.5 GB = 512 GB",
        },
    ),
]


def enter(app: App, how: str, name: str, text: str) -> None:
    if how == "typed":
        app.type_into(name, text)
    else:
        app.paste_into(name, text)


@pytest.mark.parametrize("how", ["typed", "pasted"])
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_number_reads_the_same_typed_or_pasted(start_app: StartApp, case: Case, how: str) -> None:
    app = start_app(case.lang)
    if case.before is not None:
        app.type_into(case.field, case.before)
        app.key("Tab")
        assert plain_number(app.field_text(case.field), case.lang) == case.before
    enter(app, how, case.field, case.text)
    app.key("Tab")  # focus leaves: the field shows its canonical form
    results = app.copy_results()
    app.screenshot(f"{case.id}-{how}")
    assert results is not None, f"{how} {case.text!r}: nothing copied"
    got = {name: results[name] for name in case.results}
    shown = plain_number(app.field_text(case.field), case.lang)
    expected = plain_number(case.shown, case.lang)
    assert (shown, got) == (expected, case.results), f"{how} {case.text!r}"


@pytest.mark.parametrize(
    ("lang", "after"),
    [
        (
            "pt_BR",
            {
                "micro_batch": "2",
                "effective_batch": "E = 2 × 8 × 1 = 16",
                "peak_memory": "M = 2 × 0,5 GB = 1 GB",
            },
        ),
        (
            "en",
            {
                "micro_batch": "2",
                "effective_batch": "E = 2 × 8 × 1 = 16",
                "peak_memory": "M = 2 × 0.5 GB = 1 GB",
            },
        ),
    ],
)
def test_refused_value_is_kept_and_copies_nothing(
    start_app: StartApp, lang: str, after: dict[str, str]
) -> None:
    """0 is out of range: the field keeps "0" (no revert), Copy copies nothing; a valid
    value afterwards is computed at once."""
    app = start_app(lang)
    app.type_into("micro_batch", "0")
    app.key("Tab")
    copied = app.copy_results()
    app.screenshot(f"refused-zero-{lang}", keep=True)
    shown = plain_number(app.field_text("micro_batch"), lang)
    assert (shown, copied) == ("0", None)

    app.type_into("micro_batch", "2")
    app.key("Tab")
    results = app.copy_results()
    assert results is not None, "nothing copied after a valid value"
    assert {name: results[name] for name in after} == after
    assert plain_number(app.field_text("micro_batch"), lang) == "2"


@pytest.mark.parametrize("how", ["typed", "pasted"])
@pytest.mark.parametrize(("lang", "default"), [("pt_BR", "0,5"), ("en", "0.5")])
def test_unreadable_text_changes_no_result(
    start_app: StartApp, lang: str, default: str, how: str
) -> None:
    """ "abc" can never become a number: the results either wait for a value (field keeps
    "abc") or stay as they were (field keeps its value); never a different number."""
    app = start_app(lang)
    before = app.copy_results()
    assert before is not None
    enter(app, how, "activation", "abc")
    app.key("Tab")
    results = app.copy_results()
    app.screenshot(f"unreadable-{how}-{lang}", keep=how == "pasted")
    shown = plain_number(app.field_text("activation"), lang)
    if shown == default:
        assert results is not None, "the field shows a value but nothing was copied"
        assert results["peak_memory"] == before["peak_memory"]
    else:
        assert shown == "abc", f"the field shows {shown!r}"
        assert results is None, f"a result from unreadable text:\n{results and results.text}"
