"""Section headings: their labels (`2.1.3.`, `A.`, `Appendix A.`, `BAB II`, `Pasal 5`) and the
outline they build.

Plain text (PDF text layers, .txt) has no heading markup, so a line counts as a heading only
when it is shaped like one *and* its number continues the outline: after `2.1.4` the next
heading may be `2.1.5`, `2.1.4.1`, `2.2` or `3.` — a list item `1.` inside section 2.1.4 may not.
Markdown and MinerU mark headings explicitly; there only the label is read, and in Markdown the
statutory structure written as plain lines (`BAB I`, `Pasal 1`) is detected as in plain text.

Conventions recognised, with the cue words in `candidates/packs/*/structure.json`:
- Indonesian statutory drafting (UU 12/2011, Lampiran II): `BAB` (roman) > `Bagian` (ordinal
  word: Kesatu, Kedua …) > `Paragraf` (number) > `Pasal` (number, numbered through the whole
  body and again from 1 in the Penjelasan); a BAB, Bagian or Paragraf label stands on its own
  line with its title on the next line; inside a Pasal, numbered and lettered lines are its
  ayat, angka and huruf — list items, never sections, and so are the numbered and lettered
  items of the preamble (Menimbang, Mengingat); `LAMPIRAN` and `PENJELASAN` open a part of
  their own.
- RFC plain text (RFC 7322): `1.`, `6.2.1.`, `Appendix A.` then `A.1.`; the unnumbered front
  sections (Abstract, Status of This Memo …); the Table of Contents lists the headings, so its
  entries are not headings — the contents end where the body repeats their first entry.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from knowledge_assets.candidates.packs import cues
from knowledge_assets.ingest.blocks import Heading

_STRUCTURE = cues("structure")


def _words(key: str) -> str:
    return "|".join(re.escape(w) for w in _STRUCTURE.get(key, ()))


_NUMBERED = re.compile(r"(?P<num>\d{1,3}(?:\.\d{1,3})*)(?P<dot>\.?)\s+(?P<title>\S.*)")
_LETTERED = re.compile(r"(?P<letter>[A-Z])\.\s+(?P<title>\S.*)")
_BAB = re.compile(rf"(?:{_words('chapter')})\s+(?P<roman>[IVXLC]+)\b\.?\s*(?P<title>.*)", re.IGNORECASE)
_APPENDIX = re.compile(rf"(?:{_words('appendix')})\s+(?P<letter>[A-Z])\b\.?(?:\s+(?P<title>\S.*))?")
_APPENDIX_SECTION = re.compile(r"(?P<letter>[A-Z])\.(?P<num>\d{1,3}(?:\.\d{1,3})*)\.?\s+(?P<title>\S.*)")
_BAGIAN = re.compile(rf"(?:{_words('part')})\s+(?P<ordinal>Ke[a-z ]+?)")
_PARAGRAF = re.compile(rf"(?:{_words('paragraph')})\s+(?P<num>\d{{1,3}})")
_PASAL = re.compile(rf"(?:{_words('article')})\s+(?:(?P<roman>[IVXLC]+)|(?P<num>[0-9lIO]{{1,4}})(?P<suffix>[A-Z]?))")
_PREAMBLE = re.compile(rf"(?:{_words('preamble')})\s*(?::|$)")
_ANNEX = re.compile(rf"(?P<word>{_words('annex')})(?:\s+(?P<roman>[IVXLC]+))?")
_ORDINALS = {word.replace(" ", ""): i for i, word in enumerate(_STRUCTURE.get("ordinals", ()), start=1)}
_FRONT_HEADINGS = frozenset(_STRUCTURE.get("front_headings", ()))
_CONTENTS = frozenset(_STRUCTURE.get("contents", ()))
_OCR_DIGITS = str.maketrans("lIO", "110")
_ROMAN = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100}
_MAX_HEADING_CHARS = 90
_MAX_TITLE_LINES = 3
_SENTENCE_END = (".", ",", ";", ":")
_TOC_LEADER = re.compile(r"(?:\s*\.{2,}\s*\d*|\s+\d+)$")

# Detected headings rank below every explicit Markdown level (1–6), so statutory labels found
# in a Markdown file nest under its `#` headings.
_DETECTED = 7
_RANKS = {"annex": 0, "bab": 1, "bagian": 2, "paragraf": 3, "pasal": 4, "letter": 5, "number": 6,
          "appendix": 6, "front": 6}
_TITLED = frozenset({"annex", "bab", "bagian", "paragraf"})  # labels whose title may follow on the next line
_LEGAL = frozenset({"annex", "bab", "bagian", "paragraf", "pasal"})


@dataclass(frozen=True)
class Label:
    scheme: str  # "number" | "letter" | "bab" | "appendix" | "bagian" | "paragraf" | "pasal" | "annex" | "front"
    value: tuple[int, ...]
    section_no: str
    title: str


def _roman_value(roman: str) -> int:
    values = [_ROMAN[c] for c in roman.upper()]
    return sum(-v if i + 1 < len(values) and v < values[i + 1] else v for i, v in enumerate(values))


def _legal_label(text: str) -> Label | None:
    """A statutory label standing alone on its line (`Pasal 5`, `Bagian Kedua`, `LAMPIRAN II`)."""
    if match := _PASAL.fullmatch(text):
        if match["roman"]:
            number, shown = _roman_value(match["roman"]), match["roman"]
        else:
            # OCR reads 1 as l or I and 0 as O inside numbers ("Pasal lO" is Pasal 10).
            shown = match["num"].translate(_OCR_DIGITS) + match["suffix"]
            number = int(match["num"].translate(_OCR_DIGITS))
        return Label("pasal", (number, 1 if match["suffix"] else 0), f"Pasal {shown}", "")
    if (match := _BAGIAN.fullmatch(text)) and (rank := _ORDINALS.get(match["ordinal"].replace(" ", "").lower())):
        return Label("bagian", (rank,), f"Bagian {match['ordinal'].replace(' ', '')}", "")
    if match := _PARAGRAF.fullmatch(text):
        return Label("paragraf", (int(match["num"]),), f"Paragraf {match['num']}", "")
    if match := _ANNEX.fullmatch(text):
        roman = match["roman"] or ""
        return Label("annex", (_roman_value(roman) if roman else 0,), f"{match['word']} {roman}".strip(), "")
    return None


def read_label(text: str) -> Label | None:
    """The section label a heading starts with, if any."""
    text = text.strip()
    if match := _BAB.fullmatch(text):
        roman = match["roman"].upper()
        return Label("bab", (_roman_value(roman),), f"BAB {roman}", match["title"])
    if label := _legal_label(text):
        return label
    if match := _APPENDIX.fullmatch(text):
        letter = match["letter"]
        return Label("appendix", (ord(letter) - ord("A") + 1,), f"Appendix {letter}", match["title"] or "")
    if match := _NUMBERED.fullmatch(text):
        num = match["num"]
        if "." not in num and not match["dot"] and not _capitals(match["title"]):
            # "2 unit ..." is a count, not a heading: a top level number needs "2." or a title
            # in capitals ("2 GLOSSARY", "3 KECCAK-p PERMUTATIONS", as NIST standards set them).
            return None
        return Label("number", tuple(int(p) for p in num.split(".")), num, match["title"])
    if match := _APPENDIX_SECTION.fullmatch(text):
        value = (ord(match["letter"]) - ord("A") + 1, *(int(p) for p in match["num"].split(".")))
        return Label("appendix", value, f"{match['letter']}.{match['num']}", match["title"])
    if match := _LETTERED.fullmatch(text):
        return Label("letter", (ord(match["letter"]) - ord("A") + 1,), match["letter"], match["title"])
    if text in _FRONT_HEADINGS:
        return Label("front", (), "", text)
    return None


def _capitals(title: str) -> bool:
    """A title set in capitals: its first word all capitals (two letters or more), every word
    opening with a capital or a digit."""
    words = title.split()
    first = re.match(r"[^\W\d_]*", words[0]).group() if words else ""
    return (
        len(first) >= 2 and first.isupper()
        and all(word[0].isupper() or word[0].isdigit() or not word[0].isalnum() for word in words)
    )


def _continues(current: tuple[int, ...], candidate: tuple[int, ...]) -> bool:
    if not current:
        return all(part == 1 for part in candidate[1:])
    if candidate == current + (1,):
        return True
    return any(candidate == current[:k] + (current[k] + 1,) for k in range(len(current)))


def _shaped(label: Label, text: str) -> bool:
    """A heading is short, does not end like a sentence, and its title starts with a capital."""
    return (
        len(text) <= _MAX_HEADING_CHARS
        and not text.endswith(_SENTENCE_END)
        and (label.title[:1].isupper() or label.title[:1] == "(")
    )


def _toc_key(text: str) -> str:
    """A contents entry or heading without its dot leaders, page number or spacing."""
    return " ".join(_TOC_LEADER.sub("", text).split())


class Outline:
    """The heading path as headings arrive in reading order."""

    def __init__(self) -> None:
        self._path: list[tuple[tuple[int, ...], str]] = []  # (rank key, heading text)
        self._bab: int | None = None
        self._letter: int | None = None
        self._numbers: tuple[int, ...] = ()
        self._appendix: tuple[int, ...] = ()
        self._list_item: int | None = None  # the last top-level number read as a list item
        # A list "2.", "3." … right under heading "1." shows the "1." was the list's first item
        # (a standard's announcement: "1. Name of Standard: …"): the real "1" may still come.
        self._first_was_item = False
        self._bagian: int | None = None
        self._paragraf: int | None = None
        self._pasal: tuple[int, int] | None = None
        self._enumerating = False  # inside a Pasal or a preamble, numbers and letters are list items
        self._titled: Label | None = None  # the label whose title may be the next line
        self._title_lines = 0
        self._toc: str | None = None  # inside the contents: "" until the first entry, then its key

    def detect(self, line: str) -> Heading | None:
        """A plain-text line as a heading, if it is shaped like one and continues the outline."""
        self._titled = None
        text = line.strip()
        if self._in_contents(text):
            return None
        if _PREAMBLE.match(text):
            self._enumerating = True
        label = read_label(text)
        if label is None:
            return None
        if label.scheme in _LEGAL or label.scheme == "front":
            return self._legal_or_front(label, text)
        if self._enumerating:
            return None
        # "4." right after a list item "3." continues the list, even where "4." would also
        # continue the outline (a list inside section 3.2).
        continues_list = (
            self._list_item is not None
            and label.scheme == "number"
            and label.value == (self._list_item + 1,)
        )
        if not _shaped(label, text) or continues_list or not self._continues(label):
            if label.scheme == "number" and len(label.value) == 1:
                if self._list_item is None and label.value == (2,) and self._numbers == (1,):
                    self._first_was_item = True
                self._list_item = label.value[0]
            return None
        self._list_item = None
        self._first_was_item = False
        return self._accept(label, text)

    def detect_legal(self, line: str) -> Heading | None:
        """A Markdown paragraph line as a statutory heading (`BAB I`, `Pasal 1`), if it is one."""
        text = line.strip()
        label = read_label(text)
        if label is None or label.scheme not in _LEGAL:
            return None
        return self._legal_or_front(label, text)

    def title_line(self, line: str) -> Heading | None:
        """The line after a lone `BAB I` / `Bagian Kesatu` / `Paragraf 1` as (more of) its title,
        if it is one: the heading again with its title, to replace the heading so far. A title
        may wrap over up to three lines; the next label (`Pasal 5`) ends it."""
        label, self._titled = self._titled, None
        text = line.strip()
        if (
            label is None
            or not text
            or len(text) > _MAX_HEADING_CHARS
            or text.endswith(_SENTENCE_END)
            or read_label(text) is not None
            or not text[:1].isupper()
            or (label.scheme in {"bab", "annex"} and not text.isupper())
        ):
            return None
        rank, heading_text = self._path.pop()
        self._path.append((rank, f"{heading_text} {text}"))
        self._title_lines += 1
        self._titled = label if self._title_lines < _MAX_TITLE_LINES else None
        return self._heading(label)

    def explicit(self, text: str, level: int | None = None) -> Heading:
        """A heading the source marks as one (Markdown `#`, MinerU `text_level`)."""
        text = text.strip()
        label = read_label(text)
        if level is None:
            level = len(label.value) if label and label.scheme == "number" else 1
        return self._push(label, (level,), text)

    def _in_contents(self, text: str) -> bool:
        """Whether the line is a contents entry; the contents end where the body starts, at the
        first entry's heading, or at a line of prose."""
        if self._toc is None:
            if text in _CONTENTS:
                self._toc = ""
            return False
        if not text:
            return True
        key = _toc_key(text)
        prose = read_label(text) is None and (len(text) > _MAX_HEADING_CHARS or text.endswith("."))
        if key == self._toc or prose:
            self._toc = None
            return False
        if not self._toc and read_label(key) is not None:
            self._toc = key
        return True

    def _legal_or_front(self, label: Label, text: str) -> Heading | None:
        if (label.title and not _shaped(label, text)) or not self._continues(label):
            return None
        self._list_item = None
        heading = self._accept(label, text)
        self._titled = label if label.scheme in _TITLED and not label.title else None
        self._title_lines = 0
        return heading

    def _accept(self, label: Label, text: str) -> Heading:
        # Front sections (Abstract) stand level with the top numbered sections.
        depth = {"number": (len(label.value),), "appendix": (len(label.value),), "front": (1,)}.get(label.scheme, ())
        return self._push(label, (_DETECTED, _RANKS[label.scheme], *depth), text)

    def _continues(self, label: Label) -> bool:
        scheme, value = label.scheme, label.value
        if scheme == "bab":
            return value[0] == (self._bab or 0) + 1
        if scheme == "letter":
            return value[0] == (self._letter or 0) + 1
        if scheme == "appendix":
            return _continues(self._appendix, value) if self._appendix or len(value) == 1 else False
        if scheme == "bagian":
            return value[0] in {1, (self._bagian or 0) + 1}
        if scheme == "paragraf":
            return value[0] in {1, (self._paragraf or 0) + 1}
        if scheme == "pasal":
            # Pasal 1 again opens the Penjelasan; Pasal 5A is inserted after Pasal 5.
            last = self._pasal or (0, 0)
            return value[0] == 1 and value[1] == 0 or value == (last[0] + 1, 0) or value == (last[0], 1)
        if scheme in {"annex", "front"}:
            return True
        if self._first_was_item and value == (1,):
            return True
        return _continues(self._numbers, value)

    def _note(self, label: Label) -> None:
        scheme, value = label.scheme, label.value
        if scheme == "annex":
            self._bab = self._letter = self._bagian = self._paragraf = self._pasal = None
            self._numbers, self._enumerating = (), False
        elif scheme == "bab":
            self._bab, self._letter, self._numbers = value[0], None, ()
            self._bagian = self._paragraf = None
        elif scheme == "bagian":
            self._bagian, self._paragraf = value[0], None
        elif scheme == "paragraf":
            self._paragraf = value[0]
        elif scheme == "pasal":
            self._pasal, self._enumerating = (value[0], value[1]), True
        elif scheme == "letter":
            self._letter, self._numbers = value[0], ()
        elif scheme == "appendix":
            self._appendix = value
        elif scheme == "number":
            self._numbers = value

    def _push(self, label: Label | None, rank: tuple[int, ...], text: str) -> Heading:
        if label is not None:
            self._note(label)
        while self._path and self._path[-1][0] >= rank:
            self._path.pop()
        self._path.append((rank, text))
        return self._heading(label)

    def _heading(self, label: Label | None) -> Heading:
        return Heading(
            text=self._path[-1][1],
            section_no=(label.section_no or None) if label else None,
            path=tuple(t for _, t in self._path),
        )
