"""Section headings: where a chunk's heading stands, and the terms and aliases it names."""

from __future__ import annotations

import re

from knowledge_assets.candidates.lexicon import CONJUNCTIONS
from knowledge_assets.contracts import Chunk
from knowledge_assets.terms.abbreviations import best_long_form_start, is_short_form
from knowledge_assets.terms.mentions import Mention
from knowledge_assets.terms.tokens import Token, is_number, is_stopword, tokens

_MAX_HEADING_WORDS = 6
_HEADING_PARTS = re.compile(r"\s+(?:" + "|".join(sorted(CONJUNCTIONS)) + r")\s+")
# Anchored by `match` at the part's start; `^` would only match at the title's start.
_TRAILING_PARENTHESIS = re.compile(r"(?P<name>.+?)\s*\((?P<inside>[^()]+)\)\s*$", re.S)


def heading_span(chunk: Chunk, words: list[Token] | None = None) -> tuple[int, int] | None:
    """Where the chunk's own section heading stands at its start, without the numbering;
    None for a chunk that continues a section. `words` are the chunk's tokens, if at hand."""
    if not chunk.heading_path:
        return None
    heading = [w.text for w in tokens(chunk.heading_path[-1])]
    opening = (tokens(chunk.text) if words is None else words)[: len(heading)]
    if not heading or [w.text for w in opening] != heading:
        return None
    titled = [w for w in opening if not is_number(w.text)]
    if not titled:
        return None
    line_end = chunk.text.find("\n", opening[-1].end)
    end = len(chunk.text) if line_end < 0 else line_end
    return titled[0].start, len(chunk.text[:end].rstrip())


def heading_terms(chunk: Chunk, words: list[Token] | None = None) -> tuple[list[Mention], list[tuple[str, str]]]:
    """The terms a section heading names, and the aliases it gives them.

    "2.1.11. Breakdown (BD) dan Delay" names `Breakdown` and `Delay`; "2.2.5. Efisiensi Kerja
    (Job Efficiency)" names `Efisiensi Kerja` and gives `Job Efficiency` as its alias (a
    parenthesis that does not abbreviate its heading translates it).
    """
    span = heading_span(chunk, words)
    if span is None:
        return [], []
    start, end = span
    title = chunk.text[start:end]
    mentions: list[Mention] = []
    aliases: list[tuple[str, str]] = []
    bounds = [0, *(i for m in _HEADING_PARTS.finditer(title) for i in m.span()), len(title)]
    for part_start, part_end in zip(bounds[::2], bounds[1::2]):
        name_start, name_end = start + part_start, start + part_end
        if parenthesis := _TRAILING_PARENTHESIS.match(title, part_start, part_end):
            name_end = start + parenthesis.end("name")
            name, inside = parenthesis.group("name"), parenthesis.group("inside").strip()
            if _translates(name, inside):
                aliases.append((name, inside))
                inside_start = start + parenthesis.start("inside")
                mentions.append(Mention.at(chunk, inside_start, inside_start + len(inside), "heading"))
        words = tokens(chunk.text[name_start:name_end])
        if 0 < len(words) <= _MAX_HEADING_WORDS and not all(is_stopword(w.text) for w in words):
            mentions.append(Mention.at(chunk, name_start + words[0].start, name_start + words[-1].end, "heading"))
    return mentions, aliases


def _translates(name: str, inside: str) -> bool:
    """A parenthesis of words that does not abbreviate the name gives it in another language."""
    words = tokens(inside)
    abbreviates = is_short_form(inside) and best_long_form_start(inside, name) is not None
    return bool(words) and all(w.text.isalpha() for w in words) and not abbreviates
