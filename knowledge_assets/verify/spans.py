"""The span check: is a value a verbatim transcription of its source?

"Verbatim" here means: equal, character for character and case-sensitively, after
  1. Unicode NFKC (ligatures such as "ﬁ" become "fi", non-breaking spaces become spaces),
  2. dropping soft hyphens (U+00AD), and
  3. collapsing every run of whitespace, line breaks included, to one space.
A word hyphenated across a line break ("equip-\\nment") is found both as "equipment" and as
"equip- ment"/"equip-ment" would not be: the source is searched once as written and once with
such line-break hyphens removed. Nothing else is forgiven: no case folding, no quote or dash
substitution, no spelling repair — a value that fails is nulled and logged, never repaired.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_WHITESPACE = re.compile(r"\s+")
_LINE_BREAK_HYPHEN = re.compile(r"(?<=[^\W\d_])-[ \t]*\r?\n\s*(?=[^\W\d_])")


def normalise(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).replace("\u00ad", "")
    return _WHITESPACE.sub(" ", text).strip()


@lru_cache(maxsize=256)
def _searchable_forms(source: str) -> tuple[str, ...]:
    return normalise(source), normalise(_LINE_BREAK_HYPHEN.sub("", source))


def is_verbatim(value: str, source: str) -> bool:
    """True when `value` occurs verbatim in `source` (in the sense of the module docstring)."""
    needle = normalise(value)
    return bool(needle) and any(needle in form for form in _searchable_forms(source))
