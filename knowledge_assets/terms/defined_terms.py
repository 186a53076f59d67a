"""Candidate terms found by where they stand: the subject of a defining sentence, a label
before a colon, the left side of a formula or legend line.
"""

from __future__ import annotations

import bisect
import re

from knowledge_assets.candidates.lexicon import DEFINING_VERBS_ENGLISH, DEFINING_VERBS_INDONESIAN
from knowledge_assets.candidates.text import line_matches, matches_near
from knowledge_assets.contracts import Chunk
from knowledge_assets.terms.document_vocabulary import Vocabulary
from knowledge_assets.terms.mentions import Mention
from knowledge_assets.terms.tokens import (
    Token,
    gaps_are_spaces,
    is_acronym,
    is_connector,
    is_number,
    is_stopword,
    is_title_word,
    starts_sentence,
    tokens,
)

_MAX_TERM_WORDS = 4
_MAX_SYMBOL_WORDS = 5
_VERBS = "|".join(v.replace(" ", r"\s+") for v in DEFINING_VERBS_INDONESIAN + DEFINING_VERBS_ENGLISH)
_MAX_PARENTHESIS_INSIDE = 12
_DEFINING = re.compile(rf"(?:[ \t]*\([^()\n]{{1,{_MAX_PARENTHESIS_INSIDE}}}\))?\s+(?P<verb>{_VERBS})\b")
# The verb alone, where `_DEFINING` is tried from: only spaces and a parenthesis stand before it.
_DEFINING_VERB = re.compile(rf"(?<=\s)(?:{_VERBS})\b")
_ENGLISH_VERB_HEADS = frozenset(v.split()[0] for v in DEFINING_VERBS_ENGLISH)
_LABEL = re.compile(
    r"^[ \t]*(?:[-•*][ \t]+)?(?P<label>[^\W\d_][^\n:()]{0,60}?)(?:[ \t]*\([^()\n]{1,12}\))?:[ \t]+(?=[^\W\d_])",
    re.M,
)
_FORMULA_LINE = re.compile(r"^[ \t]*(?:[-•*][ \t]+)?(?P<lhs>[^\W\d_][^=\n]{0,60}?)[ \t]*=(?!=)[ \t]*\S", re.M)


def defined_terms(chunk: Chunk, known: Vocabulary, words: list[Token] | None = None) -> list[Mention]:
    """The subject of "X adalah …", "X merupakan …", "X is defined as …", "X means …",
    "X refers to …", when X is the whole opening of its sentence."""
    words = tokens(chunk.text) if words is None else words
    ends = [w.end for w in words]
    mentions: list[Mention] = []
    for match in matches_near(_DEFINING, _DEFINING_VERB, chunk.text, _defining_lead):
        last = bisect.bisect_right(ends, match.start()) - 1
        english = match.group("verb").split()[0] in _ENGLISH_VERB_HEADS
        subject = _sentence_opening(chunk.text, words, last)
        if subject and _names_a_term(subject, known, english=english):
            mentions.append(Mention.over(chunk, subject, "defined"))
    return mentions


def _defining_lead(text: str, verb_start: int) -> int:
    """Where a `_DEFINING` match using the verb at `verb_start` may start at the earliest: the
    spaces before the verb, a parenthesis, the spaces or tabs before that."""
    position = verb_start
    while position and text[position - 1].isspace():
        position -= 1
    position = max(0, position - _MAX_PARENTHESIS_INSIDE - 2)
    while position and text[position - 1] in " \t":
        position -= 1
    return position


def _sentence_opening(text: str, words: list[Token], last: int) -> list[Token] | None:
    """The words from the sentence start through `last`, if there are few enough of them."""
    for first in range(last, max(-1, last - _MAX_TERM_WORDS), -1):
        if first < last and not gaps_are_spaces(text, words[first], words[first + 1]):
            return None
        if starts_sentence(text, words[first].start):
            return words[first : last + 1]
    return None


def _names_a_term(words: list[Token], known: Vocabulary, english: bool) -> bool:
    """A sentence-opening subject names a term if it holds no numbers nor function words and
    starts with a capital the document also uses by choice: "Satuan Production adalah BCM"
    is about the unit of Production, "Data adalah …" about data. An English single word
    before "means" or a colon is taken as it stands, English capitalising few terms inside
    a sentence; its further words may be lowercase ("Backlog age refers to")."""
    first, rest = words[0].text, words[1:]
    if not (is_title_word(first) or is_acronym(first)) or is_stopword(first) or is_connector(words[-1].text):
        return False
    if (rest or not english) and not known.may_open_term(first, at_sentence_start=True):
        return False
    return all(
        not is_number(word.text)
        and (is_connector(word.text) or not is_stopword(word.text))
        and (english or is_title_word(word.text) or is_connector(word.text))
        for word in rest
    )


def labels(chunk: Chunk, known: Vocabulary) -> list[Mention]:
    """A term opening a line and followed by a colon and its explanation: "Backlog: maintenance
    work …", "Planned Maintenance (PM): …", "- Standby cuaca: hujan, …"."""
    mentions: list[Mention] = []
    for match in line_matches(_LABEL, ":", chunk.text):  # a label's line holds its colon
        label = match.group("label").rstrip()
        words = [Token(w.text, match.start("label") + w.start, match.start("label") + w.end) for w in tokens(label)]
        if (
            0 < len(words) <= _MAX_TERM_WORDS
            and label == " ".join(w.text for w in words)
            and _names_a_term(words, known, english=True)
        ):
            mentions.append(Mention.over(chunk, words, "defined"))
    return mentions


def formula_symbols(chunk: Chunk) -> list[Mention]:
    """The left side of a formula or legend line: `Pty standar = …`, `MOHH = Machine on …`."""
    mentions: list[Mention] = []
    for match in line_matches(_FORMULA_LINE, "=", chunk.text):  # a formula line holds its `=`
        offset = match.start("lhs")
        words = [Token(w.text, offset + w.start, offset + w.end) for w in tokens(match.group("lhs"))]
        if (
            0 < len(words) <= _MAX_SYMBOL_WORDS
            and all(gaps_are_spaces(chunk.text, a, b) for a, b in zip(words, words[1:]))
            and chunk.text[words[-1].end : match.end("lhs")].strip() == ""
            and not any(is_number(w.text) or (is_stopword(w.text) and not is_connector(w.text)) for w in words)
        ):
            mentions.append(Mention.over(chunk, words, "symbol"))
    return mentions
