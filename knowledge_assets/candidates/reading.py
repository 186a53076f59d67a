"""A layout-proof reading of a chunk's text: what the finders match, with the offset in the
original text of every character, so whatever they cut from the reading is mapped back to an
exact slice of the original (the span check quotes the original, never the reading).

The layouts a converter or a PDF text layer gives the same sentence are read alike:
- line ends: CRLF, a lone CR and a form feed (a page break) are line breaks; spaces and tabs
  before a line break are dropped (`"adalah \\n"` reads `"adalah\\n"`);
- a word split across lines by a line-break hyphen reads joined (`kewa-\\njiban` reads
  `kewajiban`), as the span check finds it (decisions D11);
- page furniture left inside the text, a line of its own: a URL (`www.peraturan.go.id`), a
  page number between dashes, alone or after a short running footer (`- 6 -`,
  `2024, No.8 - 3 -`), OCR often reading its digits as letters (`- lo -`, `-4t-`). The line is
  skipped, so a sentence reads on across it;
- a blank line inside a sentence is skipped too: where furniture was skipped, or after a line
  ending in a comma or a function word (`atau nilai yang sesuai`, a heading never does), when
  the line after it goes on in lowercase.
Runs of spaces inside a line and indentation stay as they are: a column layout is read by them
(`Bit      A binary digit`), and every pattern of the finders reads any run of blanks as one.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass

from knowledge_assets.candidates.lexicon import STOPWORDS

_LINE = re.compile(r"(?P<line>[^\r\n\f]*)(?P<end>\r\n|[\r\n\f]|$)")
# A page number between dashes, its digits as OCR reads them (l/I for 1, o/O for 0, t for 1).
_PAGE_NUMBER = r"-[ \t]*(?:\d{1,4}|[\dlIoOt]{1,3})[ \t]*-"
_FURNITURE = re.compile(
    rf"[ \t]*(?:(?:www\.|https?://)\S+|{_PAGE_NUMBER}|[^\s-][^\n-]{{0,24}}?[ \t]*-[ \t]*\d{{1,4}}[ \t]*-)[ \t]*"
)
_SENTENCE_END = (".", ";", ":", "!", "?")
_SPLIT_WORD = re.compile(r"[^\W\d_]-$")


@dataclass(frozen=True)
class Reading:
    """`text` is what the finders read; `origin[i]` is where `text[i]` stands in the original,
    and `origin[len(text)]` the original's length."""

    text: str
    origin: tuple[int, ...]

    def position(self, original: int) -> int:
        """The reading offset of the first character at or after `original`."""
        return bisect_left(self.origin, original)

    def bounds(self, start: int, end: int) -> tuple[int, int]:
        """The original bounds of `text[start:end]`: everything the reading skipped between
        its first and last character is inside them."""
        if end <= start:
            return self.origin[start], self.origin[start]
        return self.origin[start], self.origin[end - 1] + 1


def is_furniture(line: str) -> bool:
    """Whether a line is page furniture left inside the text (module docstring)."""
    return bool(_FURNITURE.fullmatch(line))


def read(text: str) -> Reading:
    """The layout-proof reading of `text` (module docstring)."""
    lines = [(m.start("line"), m.group("line").rstrip(" \t"), m.end("line"))
             for m in _LINE.finditer(text) if m.end() > m.start()]
    furniture = {i for i, (_, line, _) in enumerate(lines) if is_furniture(line)}
    kept = _without_blanks_inside_sentences(lines, furniture)
    out: list[str] = []
    origin: list[int] = []
    join_next = False
    for position, index in enumerate(kept):
        start, line, line_end = lines[index]
        skip = len(line) - len(line.lstrip(" \t")) if join_next else 0
        last = position == len(kept) - 1
        following = lines[kept[position + 1]][1].lstrip(" \t") if not last else ""
        join_next = (not last and kept[position + 1] == index + 1 and bool(_SPLIT_WORD.search(line))
                     and following[:1].islower())
        shown = line[skip:-1] if join_next else line[skip:]
        out.append(shown)
        origin.extend(range(start + skip, start + skip + len(shown)))
        if not join_next and (not last or line_end < len(text)):
            out.append("\n")
            origin.append(line_end)
    origin.append(len(text))
    return Reading("".join(out), tuple(origin))


def _without_blanks_inside_sentences(lines: list[tuple[int, str, int]], furniture: set[int]) -> list[int]:
    """The indexes of the lines to read: not the furniture, nor the blank lines of a run that
    stands inside a sentence (module docstring)."""
    kept: list[int] = []
    index = 0
    while index < len(lines):
        run_end = index
        while run_end < len(lines) and (run_end in furniture or not lines[run_end][1].strip()):
            run_end += 1
        if run_end == index:
            kept.append(index)
            index += 1
            continue
        before = lines[kept[-1]][1].strip() if kept else ""
        after = lines[run_end][1].strip() if run_end < len(lines) else ""
        inside = (before and not before.endswith(_SENTENCE_END) and after[:1].islower()
                  and (_goes_on(before) or any(i in furniture for i in range(index, run_end))))
        if not inside:
            kept += [i for i in range(index, run_end) if i not in furniture]
        index = run_end
    return kept


def _goes_on(line: str) -> bool:
    """Whether a line ends where a sentence cannot: in a comma or a function word."""
    return line.endswith(",") or line.rsplit(None, 1)[-1].lower() in STOPWORDS
