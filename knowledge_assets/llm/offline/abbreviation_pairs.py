"""Reading helpers the offline extractor shares: abbreviation pairs (the subdomain lexicon is
knowledge_assets/subdomains.py; lines and sentences live below, in candidates/text.py).
Everything returns offsets into the text it was given, so whatever the extractor quotes is an
exact substring of its input, as the span check requires.
"""

from __future__ import annotations

import re

from knowledge_assets.candidates.model import trim
from knowledge_assets.candidates.text import Bounds

_FUNCTION_WORDS = frozenset({"of", "and", "on", "to", "for", "the", "dan", "di", "in", "&"})
_ABBREVIATION = re.compile(r"\(([A-Z][A-Za-z]{0,6}[A-Z][a-z]?|[A-Z][a-z]{1,3})\)")
_WORD_BEFORE = re.compile(r"([^\s()]+)\s*$")
_MAX_LONG_FORM_WORDS = 6


def _initials_match(words: list[str], letters: str) -> bool:
    content = [w for w in words if w.lower() not in _FUNCTION_WORDS]
    return any("".join(w[0] for w in group).lower() == letters for group in (words, content) if group)


def _letters_in_order(words: list[str], letters: str) -> bool:
    joined = "".join(words).lower()
    if not joined.startswith(letters[0]):
        return False
    position = 0
    for letter in letters:
        position = joined.find(letter, position) + 1
        if position == 0:
            return False
    return True


def abbreviation_pairs(text: str) -> list[tuple[Bounds, str]]:
    """`Long Form (ABBR)` pairs: the bounds of the long form and the abbreviation. The long
    form, never across a blank line or a table cell's border, is the fewest words before the
    parenthesis whose initials spell the abbreviation
    (function words may be skipped: "Physical of Availability (PA)"), else whose letters
    contain it in order ("Quantity (Qty)", "Standby Hours (STB)")."""
    pairs = []
    for match in _ABBREVIATION.finditer(text):
        abbreviation = match.group(1)
        letters = re.sub(r"(?<=[A-Z])s$", "", abbreviation).lower()
        words: list[tuple[int, str]] = []
        cursor = match.start()
        while len(words) < _MAX_LONG_FORM_WORDS and (word := _WORD_BEFORE.search(text, 0, cursor)):
            if "\n\n" in text[word.end():cursor] or "|" in text[word.end():cursor]:
                break
            # A table's cell border ends the long form: `SLO value. |Service-level agreement (SLA)`.
            cell = word.group(1).rpartition("|")
            if cell[2]:
                words.insert(0, (word.end(1) - len(cell[2]), cell[2]))
            if cell[1]:
                break
            cursor = word.start(1)
        bounds = _long_form(words, letters, match.start())
        if bounds:
            pairs.append(((bounds[0], trim(text, bounds[0], bounds[1])[1]), abbreviation))
    return pairs


def _long_form(words: list[tuple[int, str]], letters: str, end: int) -> Bounds | None:
    for test in (_initials_match, _letters_in_order):
        for count in range(1, len(words) + 1):
            tail = words[-count:]
            if not tail[0][1][0].isalpha():
                continue
            if test([w for _, w in tail], letters):
                return tail[0][0], end
    return None
