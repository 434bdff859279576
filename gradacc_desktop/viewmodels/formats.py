"""Translation and locale formatting for the planner's text builders.

The builders are plain classes, not ``QObject``s: ``Translating`` (in
``viewmodels.formatting``, shared with the estimator) gives them the ``self.tr`` a
``QObject`` has. lupdate files a ``self.tr`` string under the name of
the class it is written in, and ``tr`` looks it up under the name of the object's
class, so a builder that writes strings is never subclassed (``@final``).
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import final

from PySide6.QtCore import QCoreApplication, QLocale

from gradacc_desktop.core.text import Message, Phrase
from gradacc_desktop.viewmodels.formatting import Translating, format_counted, format_number

__all__ = ["PlanFormats", "Translating"]


@final
class PlanFormats(Translating):
    """Numbers, gigabytes and counts in the planner's locale (set on a language switch)."""

    def __init__(self, locale: QLocale) -> None:
        self.locale = locale

    def format(self, value: int | Decimal) -> str:
        return format_number(self.locale, value)

    def unit_gb(self) -> str:
        return self.tr("GB")

    def format_gb(self, value: Decimal) -> str:
        return self.tr("{value} GB").format(value=self.format(value))

    def signed(self, value: int) -> str:
        sign = self.locale.positiveSign() if value > 0 else ""
        return sign + self.format(value)

    def counted(self, translate: Callable[[int], str], count: int) -> str:
        """Translate a ``%n`` plural message for any ``count`` (see ``format_counted``)."""
        return format_counted(self.locale, translate, count)

    def digits(self, text: str) -> str:
        """A whole number the core gave as text, grouped the locale's way ("4.096");
        any other text as it is."""
        return self.format(int(text)) if text.isdecimal() else text

    def said(self, text: str) -> str:
        """A text from the core in the window's language: a ``Message`` translated in its
        context with its values filled in (numbers the locale's way, inner messages
        translated too), a ``Phrase`` translated; any other text as it is."""
        if isinstance(text, Message):
            values = {name: self._value(value) for name, value in text.values.items()}
            phrase = text.phrase
            return QCoreApplication.translate(phrase.context, phrase).format(**values)
        if isinstance(text, Phrase):
            return QCoreApplication.translate(text.context, text)
        return str(text)

    def _value(self, value: object) -> str:
        if isinstance(value, bool):
            return str(value)
        if isinstance(value, int | Decimal):
            return self.format(value)
        if isinstance(value, str):
            return self.said(value)
        return str(value)

    def gpus_text(self, gpus: int) -> str:
        return self.counted(lambda n: self.tr("%n GPU(s)", "", n), gpus)
