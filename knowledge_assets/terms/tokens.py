"""Words, their shapes and the normalised key that decides when two surfaces are one term."""

from __future__ import annotations

import re
from array import array
from collections.abc import Iterator, Mapping, Sequence
from functools import lru_cache
from typing import NamedTuple

from knowledge_assets.candidates.lexicon import CONNECTORS, STOPWORDS
from knowledge_assets.contracts import Chunk

# A number is one token ("1.250.000", "0,85", "100%"); a word may join its parts with - / '
# so "Gain/Loss", "year-to-date" and "SKT-STD-PRM-001" stay whole; a symbol keeps its
# percent sign ("T%" is a variable of its own, not "T").
# (The word branch reads "a letter, its word characters, then any joiner followed by another
# run of them": the same tokens as repeating "a word character or a joiner before a letter",
# matched a run at a time rather than a character at a time.)
WORD = re.compile(r"\d+(?:[.,]\d+)*%?|[^\W_]\w*(?:[-/'’][^\W_]\w*)*(?:%(?!\w))?")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*%?")
_SENTENCE_END = ".!?:;"
# A dash or star opens a list item at the start of a line and separates clauses
# ("Revisi 01 - 1 Maret 2023 - Penambahan …"); only in a formula line is it a minus.
_BULLETS = "-–*•"
_LONGEST_KEPT_ACRONYM = 4
# A PDF wraps prose at about a hundred characters; a shorter line is a heading, a list item
# or a title-block line, so the next line starts afresh.
_WRAPPED_LINE_MIN = 60


class Token(NamedTuple):
    """A word and where it stands. A tuple, not a dataclass: a long document has a few hundred
    thousand of them, and the funnel builds them once per chunk (`chunk_words`)."""

    text: str
    start: int
    end: int


# `tuple.__new__` builds a Token without the Python-level `__new__` NamedTuple generates:
# tokenising is most of the funnel's work, and this halves the cost of each token.
_new_tuple = tuple.__new__


def tokens(text: str) -> list[Token]:
    return [_new_tuple(Token, (m.group(), m.start(), m.end())) for m in WORD.finditer(text)]


class ChunkWords(Mapping[str, list[Token]]):
    """The words of each chunk of a document by chunk_id, tokenised once and read by every
    extractor, the occurrence search and the noise filter.

    Held per chunk: which of the document's spellings each word is and where it starts, 6 bytes
    a word (a word ends where its spelling does; a start fits two bytes in any chunk shorter
    than 64 KiB, which a chunk of `DEFAULT_MAX_CHARS` is); each reading builds the chunk's
    Tokens afresh from them, at a third of the cost of tokenising it again, every Token of one
    spelling sharing one string (whose hash is computed once). Holding the Tokens themselves
    cost 177 bytes a word: 1.4 GB for the eight million words of a 50 MB text, where this
    takes 48 MB. A reader keeps the list it was given as long as it needs it; nothing here
    keeps it longer."""

    def __init__(self, chunks: Sequence[Chunk]) -> None:
        numbers: dict[str, int] = {}
        number = numbers.setdefault
        self._words: dict[str, tuple[array[int], array[int]]] = {}
        for chunk in chunks:
            found = list(WORD.finditer(chunk.text))
            self._words[chunk.chunk_id] = (
                array("i", [number(m.group(), len(numbers)) for m in found]),
                array(offset_typecode(len(chunk.text)), [m.start() for m in found]),
            )
        self._spellings = list(numbers)

    def __getitem__(self, chunk_id: str) -> list[Token]:
        numbers, starts = self._words[chunk_id]
        spellings = self._spellings
        return [
            _new_tuple(Token, (spelling, start, start + len(spelling)))
            for spelling, start in zip(map(spellings.__getitem__, numbers), starts)
        ]

    def __iter__(self) -> Iterator[str]:
        return iter(self._words)

    def __len__(self) -> int:
        return len(self._words)


def offset_typecode(length: int) -> str:
    """The narrowest `array` typecode that holds every offset into a text of `length` characters."""
    return "H" if length <= 0xFFFF else "i"


def chunk_words(chunks: Sequence[Chunk]) -> ChunkWords:
    return ChunkWords(chunks)


def collapse(text: str) -> str:
    """The surface as a reader sees it: one space wherever the source broke a line."""
    return " ".join(text.split())


def is_number(word: str) -> bool:
    return _NUMBER.fullmatch(word) is not None


def is_stopword(word: str) -> bool:
    return word.lower() in STOPWORDS


def is_connector(word: str) -> bool:
    return word.lower() in CONNECTORS


# Keys and shapes are asked of every word of a document; its vocabulary is small.
@lru_cache(maxsize=1 << 16)
def is_acronym(word: str) -> bool:
    """`PA`, `MOHH`, `KPIs`, `P2H`: two or more capitals and no other lowercase than a plural s."""
    core = word[:-1] if word.endswith("s") else word
    capitals = sum(c.isupper() for c in core)
    return (
        capitals >= 2
        and len(word) <= 10
        and not any(c.islower() for c in core)
        and all(c.isalnum() or c in "&-" for c in core)
        and not re.search(r"\d{2}", core)
    )


@lru_cache(maxsize=1 << 16)
def is_title_word(word: str) -> bool:
    """Capitalised, and not a code such as "SKT-STD-PRM-001"."""
    return word[:1].isupper() and not any(c.isdigit() for c in word)


def gaps_are_spaces(text: str, left: Token, right: Token) -> bool:
    """Whether two tokens belong to one run of words: only spaces between them, or a line
    break inside wrapped prose."""
    gap = text[left.end : right.start]
    if gap.strip():
        return False
    if "\n" not in gap:
        return True
    line_start = text.rfind("\n", 0, left.end) + 1
    return gap.count("\n") == 1 and _wraps(text[line_start : left.end])


def starts_sentence(text: str, position: int) -> bool:
    """Whether the word at `position` opens a sentence, a list item or a line after a short one."""
    index = last_visible(text, position)
    if index < 0 or text[index] in _SENTENCE_END:
        return True
    if text[index] in _BULLETS:
        line_start = text.rfind("\n", 0, index) + 1
        line_end = text.find("\n", index)
        in_formula = "=" in text[line_start : len(text) if line_end < 0 else line_end]
        return not text[line_start:index].strip() or not in_formula
    if text[index] != "\n":
        return False
    previous_line = text[text.rfind("\n", 0, index) + 1 : index].rstrip()
    return not previous_line or previous_line[-1] in _SENTENCE_END or not _wraps(previous_line)


def last_visible(text: str, position: int) -> int:
    """The index of the last character before `position` that is not a space or a tab."""
    index = position - 1
    while index >= 0 and text[index] in " \t":
        index -= 1
    return index


def _wraps(line: str) -> bool:
    """Whether a line is prose that continues on the next line. A formula or legend line
    never does, however long."""
    return len(line) >= _WRAPPED_LINE_MIN and "=" not in line


def singular(word: str) -> str:
    """An English plural reduced to its singular; used for keys only, never for a canonical."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


@lru_cache(maxsize=1 << 16)
def word_key(word: str) -> str:
    # A short acronym keeps its final S ("CMMS"); a longer word in capitals is a word
    # typed in upper case ("HOURS") and takes the plural rule like any other.
    if is_acronym(word) and len(word) <= _LONGEST_KEPT_ACRONYM:
        return (word[:-1] if word.endswith("s") else word).lower()
    parts = re.split(r"[-/'’]", word.lower())
    if len(set(parts)) == 1:
        # Indonesian reduplication marks the plural: "unit-unit" is "unit".
        return singular(parts[0])
    return singular("".join(parts))


def key_words(surface: str) -> list[str]:
    return [word_key(w) for w in WORD.findall(surface)]


@lru_cache(maxsize=1 << 16)
def term_key(surface: str) -> str:
    """Case, spacing, joiner and plural variants of a surface share one key:
    "Cut-off", "cut off" and "cutoffs" are all `cutoff`; "Gain/Loss" and "Gain / Loss" meet;
    a name written with markup meets its plain form (`*W<sub>max</sub>*` and `W_max`). A
    one-letter name keeps its case: notation gives `m` and `M` two meanings."""
    key = "".join(key_words(plain_name(surface)))
    return plain_name(surface) if len(key) == 1 and plain_name(surface).isalpha() else key


_KRAMDOWN_CHARACTER = re.compile(r"\{\{\{([^{}]*)\}\{[^{}]*\}\}\}")
_SUBSCRIPT = re.compile(r"<sub>([^<>]*)</sub>")
_SUPERSCRIPT = re.compile(r"<sup>([^<>]*)</sup>")


def plain_name(surface: str) -> str:
    """A name as a reader sees it once its Markdown is rendered, in plain text: emphasis
    dropped, an HTML subscript written `_x` and a superscript `^x` (the plain-text convention
    of TeX and of RFCs), kramdown-rfc's `{{{β}{…}}}` as the character it shows:
    `*W<sub>max</sub>*` is `W_max`, `W<sub>cubic</sub>(*t*)` is `W_cubic(t)`. Text without
    markup comes back collapsed and otherwise as it is."""
    if not any(mark in surface for mark in ("*", "<su", "{{{")):
        return collapse(surface)
    plain = _KRAMDOWN_CHARACTER.sub(r"\1", surface)
    plain = _SUBSCRIPT.sub(r"_\1", _SUPERSCRIPT.sub(r"^\1", plain))
    return collapse(plain.replace("*", ""))


def iter_lines(text: str) -> Iterator[tuple[int, str]]:
    """Each line with the offset where it starts."""
    offset = 0
    for line in text.split("\n"):
        yield offset, line
        offset += len(line) + 1
