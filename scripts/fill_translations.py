"""Fill Portuguese translations of unfinished entries in the pt-BR catalogue.

    python scripts/fill_translations.py 'English source' 'Tradução' [...pairs]

Only entries still marked unfinished whose source matches exactly are touched;
the file is re-read right before writing so concurrent edits are kept.
"""

from __future__ import annotations

import html
import re
import sys
from pathlib import Path

TS = Path(__file__).resolve().parent.parent / "resources" / "i18n" / "gradacc_pt_BR.ts"


def escape(text: str) -> str:
    return html.escape(text, quote=False).replace("'", "&apos;").replace('"', "&quot;")


def fill(pairs: dict[str, str]) -> int:
    text = TS.read_text(encoding="utf-8")
    count = 0
    for source, translation in pairs.items():
        pattern = re.compile(
            r"(<source>" + re.escape(escape(source)) + r"</source>\s*)"
            r'<translation type="unfinished">[^<]*</translation>'
        )
        text, n = pattern.subn(
            lambda m, t=translation: m.group(1) + f"<translation>{escape(t)}</translation>", text
        )
        count += n
    TS.write_text(text, encoding="utf-8")
    return count


if __name__ == "__main__":
    args = sys.argv[1:]
    if len(args) % 2:
        sys.exit("pairs of source and translation expected")
    print(fill(dict(zip(args[::2], args[1::2], strict=True))), "filled")
