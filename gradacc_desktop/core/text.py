"""Marking English text for translation where the data lives, without Qt.

The core keeps the words that belong to its data (a part of the activation
formula, an assumption, the memory-units note) next to that data, wrapped in
``trans_late(context, text)``. At run time it returns ``text`` unchanged; the
translation tools extract it (``lupdate -tr-function-alias
QT_TRANSLATE_NOOP+=trans_late``), and a view-model translates it with
``QCoreApplication.translate(context, text)`` when it shows it. So each English
string exists once, and the core stays free of Qt.
"""

from __future__ import annotations


def trans_late(context: str, text: str) -> str:
    """Mark ``text`` for translation in ``context``; returns it unchanged."""
    del context  # read by the translation tools, not at run time
    return text
