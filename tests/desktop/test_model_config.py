"""A model's config.json opened in the estimator on a real desktop: the file dialog
driven with real keys, the sizes read back through the X clipboard, and the value
the calculator receives."""

from __future__ import annotations

import time
from decimal import ROUND_CEILING, Decimal

import pytest

from gradacc_desktop.core.memory.activation import GB, estimate
from gradacc_desktop.core.memory.families import read_model_config
from tests.configs import config_path
from tests.desktop.conftest import StartApp
from tests.desktop.driver import plain_number

# the estimator's own mnemonics: "&Estimar a partir do modelo…" (calculator),
# "Abrir config.&json…", "Dimensão &oculta" / "&Hidden size", "&Usar este valor"
KEYS = {
    "pt_BR": {"estimate": "e", "open_config": "j", "hidden": "o", "use": "u"},
    "en": {"estimate": "e", "open_config": "j", "hidden": "h", "use": "u"},
}


@pytest.mark.parametrize("lang", ["pt_BR", "en"])
def test_a_config_json_opened_with_the_keyboard_fills_the_calculator(
    start_app: StartApp, lang: str
) -> None:
    path = config_path("Qwen__Qwen3-0.6B.json")
    peak = Decimal(estimate(read_model_config(path).inputs(seq=4096)).peak_bytes) / GB
    expected = peak.quantize(Decimal("0.001"), rounding=ROUND_CEILING).normalize()
    app = start_app(lang)
    keys = KEYS[lang]
    app.key("alt+" + keys["estimate"])
    time.sleep(1.0)
    app.key("alt+" + keys["open_config"])
    time.sleep(1.0)  # the file dialog, its file name field focused
    app.type(str(path))
    app.key("Return")
    time.sleep(1.0)
    app.screenshot(f"estimator-config-{lang}", keep=True)
    # the size the file gives, read back from the (read-only) field through the clipboard
    app.key("alt+" + keys["hidden"], "ctrl+a")
    hidden = app.copy()
    assert plain_number(hidden, lang) == "1024", hidden
    app.key("alt+" + keys["use"])
    time.sleep(0.8)
    shown = plain_number(app.field_text("activation"), lang)
    assert shown is not None, "nothing copied from the activation field"
    number = shown.replace(",", ".") if lang == "pt_BR" else shown
    assert Decimal(number) == expected, (shown, expected)
