"""Marking English text for translation where the data lives, without Qt.

The core keeps the words that belong to its data (a part of the activation
formula, an assumption, the memory-units note, why a config key was not read)
next to that data, wrapped in ``trans_late(context, text)``. At run time it
returns ``text`` unchanged, as a ``Phrase`` that remembers its context; the
translation tools extract it (``lupdate -tr-function-alias
QT_TRANSLATE_NOOP+=trans_late``), and a view-model translates it with
``QCoreApplication.translate(context, text)`` when it shows it. So each English
string exists once, and the core stays free of Qt.

A phrase with placeholders is filled with ``Phrase.format(**values)``: the result
is a ``Message``, the English sentence (a ``str``, so the command line prints it
as it is) that still knows its phrase and its values, so the window can say the
same sentence in Portuguese with the values written the locale's way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class Phrase(str):
    """English text marked for translation in ``context``."""

    context: str

    def __new__(cls, context: str, text: str) -> Phrase:
        phrase = super().__new__(cls, text)
        phrase.context = context
        return phrase

    def format(self, *args: object, **values: Any) -> Message:
        """The English sentence with ``values`` in place (a ``Message``)."""
        if args:
            raise TypeError("a phrase takes its values by name")
        return Message(self, values)

    def __getnewargs__(self) -> tuple[str, str]:  # type: ignore[override]
        return self.context, str(self)


class Message(str):
    """A filled-in ``Phrase``: the English sentence, its phrase and its values."""

    phrase: Phrase
    values: Mapping[str, Any]

    def __new__(cls, phrase: Phrase, values: Mapping[str, Any]) -> Message:
        message = super().__new__(cls, str.format(phrase, **values))
        message.phrase = phrase
        message.values = dict(values)
        return message

    def __getnewargs__(self) -> tuple[Phrase, dict[str, Any]]:  # type: ignore[override]
        return self.phrase, dict(self.values)


def trans_late(context: str, text: str) -> Phrase:
    """Mark ``text`` for translation in ``context``; returns it (as a ``Phrase``)."""
    return Phrase(context, text)
