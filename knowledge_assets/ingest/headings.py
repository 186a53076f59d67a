"""Section headings: their labels (`2.1.3.`, `A.`, `BAB II`) and the outline they build.

Plain text (PDF text layers, .txt) has no heading markup, so a line counts as a heading only
when it is shaped like one *and* its number continues the outline: after `2.1.4` the next
heading may be `2.1.5`, `2.1.4.1`, `2.2` or `3.` — a list item `1.` inside section 2.1.4 may not.
Markdown and MinerU mark headings explicitly; there only the label is read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from knowledge_assets.ingest.blocks import Heading

_NUMBERED = re.compile(r"(?P<num>\d{1,3}(?:\.\d{1,3})*)(?P<dot>\.?)\s+(?P<title>\S.*)")
_LETTERED = re.compile(r"(?P<letter>[A-Z])\.\s+(?P<title>\S.*)")
_BAB = re.compile(r"BAB\s+(?P<roman>[IVXLC]+)\b\.?\s*(?P<title>.*)", re.IGNORECASE)
_ROMAN = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100}
_MAX_HEADING_CHARS = 90
_SENTENCE_END = (".", ",", ";", ":")

_BAB_RANK, _LETTER_RANK, _NUMBER_RANK = 0, 1, 2


@dataclass(frozen=True)
class Label:
    scheme: str  # "number" | "letter" | "bab"
    value: tuple[int, ...]
    section_no: str
    title: str


def _roman_value(roman: str) -> int:
    values = [_ROMAN[c] for c in roman.upper()]
    return sum(-v if i + 1 < len(values) and v < values[i + 1] else v for i, v in enumerate(values))


def read_label(text: str) -> Label | None:
    """The section label a heading starts with, if any."""
    text = text.strip()
    if match := _BAB.fullmatch(text):
        roman = match["roman"].upper()
        return Label("bab", (_roman_value(roman),), f"BAB {roman}", match["title"])
    if match := _NUMBERED.fullmatch(text):
        num = match["num"]
        if "." not in num and not match["dot"]:
            return None  # "2 unit ..." is a count, not a heading; a top level number needs "2."
        return Label("number", tuple(int(p) for p in num.split(".")), num, match["title"])
    if match := _LETTERED.fullmatch(text):
        return Label("letter", (ord(match["letter"]) - ord("A") + 1,), match["letter"], match["title"])
    return None


def _continues(current: tuple[int, ...], candidate: tuple[int, ...]) -> bool:
    if not current:
        return all(part == 1 for part in candidate[1:])
    if candidate == current + (1,):
        return True
    return any(candidate == current[:k] + (current[k] + 1,) for k in range(len(current)))


class Outline:
    """The heading path as headings arrive in reading order."""

    def __init__(self) -> None:
        self._path: list[tuple[tuple[int, ...], str]] = []  # (rank key, heading text)
        self._bab: int | None = None
        self._letter: int | None = None
        self._numbers: tuple[int, ...] = ()
        self._list_item: int | None = None  # the last top-level number read as a list item

    def detect(self, line: str) -> Heading | None:
        """A plain-text line as a heading, if it is shaped like one and continues the outline."""
        text = line.strip()
        label = read_label(text)
        if label is None:
            return None
        # "4." right after a list item "3." continues the list, even where "4." would also
        # continue the outline (a list inside section 3.2).
        continues_list = (
            self._list_item is not None
            and label.scheme == "number"
            and label.value == (self._list_item + 1,)
        )
        if (
            len(text) > _MAX_HEADING_CHARS
            or text.endswith(_SENTENCE_END)
            or not (label.title[:1].isupper() or label.title[:1] == "(")
            or continues_list
            or not self._continues(label)
        ):
            if label.scheme == "number" and len(label.value) == 1:
                self._list_item = label.value[0]
            return None
        self._list_item = None
        return self._push(label, self._rank(label), text)

    def explicit(self, text: str, level: int | None = None) -> Heading:
        """A heading the source marks as one (Markdown `#`, MinerU `text_level`)."""
        text = text.strip()
        label = read_label(text)
        if level is None:
            level = len(label.value) if label and label.scheme == "number" else 1
        return self._push(label, (level,), text)

    def _rank(self, label: Label) -> tuple[int, ...]:
        if label.scheme == "bab":
            return (_BAB_RANK,)
        if label.scheme == "letter":
            return (_LETTER_RANK,)
        return (_NUMBER_RANK, len(label.value))

    def _continues(self, label: Label) -> bool:
        if label.scheme == "bab":
            return label.value[0] == (self._bab or 0) + 1
        if label.scheme == "letter":
            return label.value[0] == (self._letter or 0) + 1
        return _continues(self._numbers, label.value)

    def _note(self, label: Label) -> None:
        if label.scheme == "bab":
            self._bab, self._letter, self._numbers = label.value[0], None, ()
        elif label.scheme == "letter":
            self._letter, self._numbers = label.value[0], ()
        else:
            self._numbers = label.value

    def _push(self, label: Label | None, rank: tuple[int, ...], text: str) -> Heading:
        if label is not None:
            self._note(label)
        while self._path and self._path[-1][0] >= rank:
            self._path.pop()
        self._path.append((rank, text))
        return Heading(
            text=text,
            section_no=label.section_no if label else None,
            path=tuple(t for _, t in self._path),
        )
