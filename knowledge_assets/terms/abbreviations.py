"""Abbreviation ↔ long-form pairs, by the Schwartz–Hearst algorithm.

A. Schwartz and M. Hearst, "A simple algorithm for identifying abbreviation definitions in
biomedical text", PSB 2003. Both forms of the paper are found: `long form (SF)` and
`SF (long form)`. The long form is the shortest run of words ending at the parenthesis in
which every character of the short form occurs in order, the first at the start of a word;
so `Physical of Availability (PA)` and `Rencana Kerja dan Anggaran Biaya (RKAB)` pair, the
connecting words of either language being simply skipped.

Additions of ours, for bilingual technical text and specifications:
- a short form must contain a capital: a lowercase parenthesis in an Indonesian sentence is
  an English gloss, `rencana produksi (plan)`, not an abbreviation;
- formula legends pair too: `PA = Physical Availability, kesiapan fisik unit (%)`. There the
  long form follows, so it is the longest leading run of words of which each contributes a
  character of the short form (`CT = Cycle Time unit loading` gives `Cycle Time`);
- a parenthesis may hold both forms, `Nilai Batas … (Derived Air Concentration / DAC)`, or the
  long form and a remark after a dash, `WMA (Weighted Moving Average - default to 8)`.

Implemented here rather than taken from a package: the maintained implementations ship
inside NLP frameworks (scispaCy needs spaCy and a model) for one short function.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass

from knowledge_assets.terms.tokens import WORD, is_stopword

_PARENTHESIS = re.compile(r"\(([^()\n]{1,80})\)")
_LONG_SLASH_SHORT = re.compile(r"(?P<long>[^/]{3,}?)\s+/\s+(?P<short>\S{2,10})")
_REMARK = re.compile(r"\s+[-–—]\s+|;\s*|,\s+(?=default|e\.g\.|i\.e\.|see\b)")
_LEGEND = re.compile(
    r"^[ \t]*(?:[-•*][ \t]+)?(?P<short>[^\W\d_][\w&-]{1,9})[ \t]*=[ \t]*(?P<rest>[^\n]+)", re.M
)
_LEGEND_LONG_END = re.compile(r"[,;(]")
_FORMULA_OPERATOR = re.compile(r"(?:^|\s)[x×*/+=−-](?:\s|$)|\d")
# Where a long form may begin at the latest: the sentence or clause the parenthesis is in.
# A table's cell separator ends a clause too: a long form never reaches into the cell before.
_CLAUSE_BREAK = re.compile(r"[.!?:;)\]]\s|\n\s*\n|\|")
_MAX_SHORT_CHARS = 10


@dataclass(frozen=True)
class AbbreviationPair:
    short: str
    short_start: int
    short_end: int
    long: str
    long_start: int
    long_end: int


def find_abbreviation_pairs(text: str) -> list[AbbreviationPair]:
    """Every `long (SF)`, `SF (long)` and legend `SF = long, …` pair in a text, with offsets."""
    clause_start = _clause_starts(text)
    pairs = [pair for match in _PARENTHESIS.finditer(text) if (pair := _parenthesis_pair(text, match, clause_start))]
    pairs += [pair for match in _LEGEND.finditer(text) if (pair := _legend_pair(match))]
    return pairs


def best_long_form_start(short: str, candidate: str) -> int | None:
    """Schwartz–Hearst's findBestLongForm: where in `candidate` the long form for `short`
    begins, matching the short form's characters right to left; None if it has none."""
    matched = _match_backwards(short, candidate)
    if matched is None:
        return None
    start = matched[0]
    while start > 0 and not candidate[start - 1].isspace():
        start -= 1
    return start


def _match_backwards(short: str, candidate: str) -> list[int] | None:
    """Positions in `candidate` of the short form's letters and digits, first to last."""
    characters = [c.lower() for c in short if c.isalnum()]
    positions: list[int] = []
    index = len(candidate) - 1
    for number, character in reversed(list(enumerate(characters))):
        while index >= 0 and (
            candidate[index].lower() != character
            or (number == 0 and index > 0 and candidate[index - 1].isalnum())
        ):
            index -= 1
        if index < 0:
            return None
        positions.append(index)
        index -= 1
    return positions[::-1]


def is_short_form(text: str) -> bool:
    return (
        any(c.isupper() for c in text)
        and text[0].isalnum()
        and len(text.split()) <= 2
        and sum(c.isalnum() for c in text) <= _MAX_SHORT_CHARS
        and "/" not in text
    )


def _parenthesis_pair(text: str, match: re.Match[str], clause_start: Callable[[int], int]) -> AbbreviationPair | None:
    inside = match.group(1).strip()
    inside_start = match.start(1) + match.group(1).index(inside)
    if slash := _LONG_SLASH_SHORT.fullmatch(inside):
        # `(Derived Air Concentration / DAC)`: both forms inside, the short one last.
        long_start = inside_start + slash.start("long")
        return _pair(slash.group("short"), inside_start + slash.start("short"), slash.group("long"),
                     long_start, long_start + len(slash.group("long")))
    # `WMA (Weighted Moving Average - default to 8)`: a remark after a dash is not the long form.
    remark = _REMARK.search(inside)
    inside = inside[: remark.start()] if remark else inside
    clause_start = clause_start(match.start())
    before = text[clause_start : match.start()].rstrip()
    if remark or len(inside.split()) > 2 or len(inside) > len(before):
        # `SF (long form)`: the short form is the word just before the parenthesis.
        words = list(WORD.finditer(before))
        if not words:
            return None
        word = words[-1]
        return _pair(
            word.group(), clause_start + word.start(), inside, inside_start, inside_start + len(inside)
        )
    long_start = _long_form_start_before(inside, before)
    if long_start is None:
        return None
    return _pair(inside, inside_start, before[long_start:], clause_start + long_start, clause_start + len(before))


def _clause_start(text: str, position: int) -> int:
    breaks = list(_CLAUSE_BREAK.finditer(text, 0, position))
    return breaks[-1].end() if breaks else 0


def _clause_starts(text: str) -> Callable[[int], int]:
    """`_clause_start` for any position of `text`, its clause breaks found once: the last break
    ending at or before the position. Only a break running across the position (which the
    search stopping there reads otherwise) sends it to `_clause_start`."""
    breaks = [(m.start(), m.end()) for m in _CLAUSE_BREAK.finditer(text)]
    ends = [end for _, end in breaks]

    def clause_start(position: int) -> int:
        before = bisect.bisect_right(ends, position)
        if before < len(breaks) and breaks[before][0] < position:
            return _clause_start(text, position)
        return ends[before - 1] if before else 0

    return clause_start


def _long_form_start_before(short: str, before: str) -> int | None:
    if not is_short_form(short):
        return None
    start = best_long_form_start(short, before)
    if start is None:
        return None
    letters = sum(c.isalnum() for c in short)
    words = len(before[start:].split())
    # The paper's bounds: no more words than min(|SF| + 5, 2·|SF|), and longer than the SF.
    if words > min(letters + 5, letters * 2) or len(before) - start <= len(short):
        return None
    return start


def _pair(short: str, short_start: int, long: str, long_start: int, long_end: int) -> AbbreviationPair | None:
    # The long form must begin where the short form's first letter matches, and must not
    # contain the short form itself as a word (the paper's guard against "(PA) … PA …").
    if not is_short_form(short) or short.lower() in long.lower().split() or best_long_form_start(short, long) != 0:
        return None
    return AbbreviationPair(short, short_start, short_start + len(short), long, long_start, long_end)


def _legend_pair(match: re.Match[str]) -> AbbreviationPair | None:
    short, rest = match.group("short"), match.group("rest")
    if not (is_short_form(short) and (sum(c.isupper() for c in short) >= 2 or len(short) <= 4)):
        return None
    end = _LEGEND_LONG_END.search(rest)
    head = rest[: end.start() if end else len(rest)].rstrip()
    if not head or _FORMULA_OPERATOR.search(head):
        return None
    for word in reversed(list(WORD.finditer(head))):
        candidate = head[: word.end()]
        if _every_word_contributes(short, candidate):
            start = match.start("rest")
            return AbbreviationPair(
                short, match.start("short"), match.end("short"), candidate, start, start + len(candidate)
            )
    return None


def _every_word_contributes(short: str, candidate: str) -> bool:
    positions = _match_backwards(short, candidate)
    if positions is None or best_long_form_start(short, candidate) != 0:
        return False
    content = [w for w in WORD.finditer(candidate) if not is_stopword(w.group())]
    return all(any(w.start() <= p < w.end() for p in positions) for w in content)
