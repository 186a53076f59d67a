"""reStructuredText (Sphinx documentation): titles are adorned lines; paragraphs split at blank
lines; a directive decides whether what it holds is text.

The rules are docutils', as far as locating blocks needs them:
- a section title is an unindented line followed by an underline of one repeated punctuation
  character (any of docutils' ``!"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~``), optionally with an
  overline of the same line above it, where the title may be inset. The underline is at least
  as long as the title; docutils also takes a shorter one of 4 characters or more (with a
  warning) and reads a shorter one of fewer as text, and so does this parser. A title's level
  is the order in which its style (the character, with or without an overline) first appears
  in the document, as docutils assigns levels. The heading block is the title text alone;
- a line of 4 or more repeated punctuation characters that adorns no title is a transition (or
  one docutils reports as broken): markup, as the over- and underlines are;
- explicit markup (`.. ` at the start of a block) is markup with its indented lines when it is
  a comment (`.. any text`), a hyperlink target (`.. _label:`, `__ url`) or a substitution
  definition (`.. |name| image:: …`); a footnote or citation (`.. [1] …`) is text; a directive
  (`.. name:: argument`) reads as `_DIRECTIVES` says. Its options (the `:alt: …` field lines
  after the directive line) are markup;
- a paragraph ending in `::` introduces a literal block: the indented lines after it are text
  as they stand, never read as markup, split at blank lines as Markdown's fenced code is;
- any other indented block (a block quote, a definition's later paragraphs, a directive's
  body) is read again, dedented, by the same rules, except that docutils allows section titles
  only at the top level: nested, a title is a paragraph.
Inline markup (:math:`…`, ``literal``, **bold**, `link <…>`_) stays in the text, which later
stages read. Tables are text as written, borders included.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from knowledge_assets.ingest.blocks import Block, PageBlocks, decode_utf8, lines_with_offsets
from knowledge_assets.ingest.headings import Outline

PARSER_VERSION = "1"

_Line = tuple[int, str]  # where the line starts in the page text, and the line from there
_Reading = Literal["markup", "text", "literal", "math"]

# One character repeated, any printable ASCII that is no letter or digit: what docutils accepts.
_ADORNMENT = re.compile(r"([!-/:-@\[-`{-~])\1*[ \t]*")
_MIN_MARKER = 4  # docutils reads a shorter lone punctuation line (`...`, `::`) as text
_EXPLICIT = re.compile(r"\.\.(?: +|$)")
_ANONYMOUS_TARGET = re.compile(r"__(?: +|$)")
_SIMPLE_NAME = r"[^\W_]+(?:[-._+:][^\W_]+)*"
_DIRECTIVE = re.compile(rf"\.\. +(?P<name>{_SIMPLE_NAME}) ?::(?: +|$)")
_FOOTNOTE = re.compile(r"\.\. +\[[^\]\s]+\](?: +|$)")
_OPTION = re.compile(r":(?![: ])(?:[^:\\]|\\.)*(?<! ):(?: +|$)")
_LITERAL_MARKER = "::"

# How a directive's argument (the rest of its line and the lines up to its options or a blank
# line) and its body read: "text" is a paragraph (the argument) or reST read again (the body),
# "literal" is code kept as it stands, "math" one block holding the formula, "markup" nothing.
_DIRECTIVES: dict[str, tuple[_Reading, _Reading]] = {
    # Paths, file names, builder settings and generated lists: nothing a reader reads as prose.
    **dict.fromkeys(("image", "raw", "toctree", "contents", "include", "literalinclude", "highlight"),
                    ("markup", "markup")),
    # The argument is an image path or a builder expression, but the body is the document's own
    # text: a figure's caption and legend, the content `only` shows on some builders.
    "figure": ("markup", "text"),
    "only": ("markup", "text"),
    # The argument names the language.
    **dict.fromkeys(("code", "code-block", "sourcecode"), ("markup", "literal")),
    # Sphinx sets an argument formula apart from the body's, as an equation of its own.
    "math": ("math", "math"),
}
# Admonitions (`note:: text`, `admonition:: Title`, `warning::` …) and any directive not listed:
# what they hold is kept as text, so an unknown directive loses none of it.
_PROSE_DIRECTIVE: tuple[_Reading, _Reading] = ("text", "text")


@dataclass(frozen=True)
class _Title:
    after: int  # the index of the line after its underline
    start: int
    end: int
    style: tuple[str, bool]  # the adornment character, and whether an overline goes with it


def _indentation(line: str) -> int:
    return len(line) - len(line.lstrip())


def _is_blank(line: str) -> bool:
    return not line.strip()


def _is_indented(line: str) -> bool:
    return line[:1].isspace()


def _indented_end(lines: list[_Line], start: int) -> int:
    """Where the indented block from `start` ends: before the first line that is neither blank
    nor indented, trailing blank lines left out."""
    end = start
    for index in range(start, len(lines)):
        line = lines[index][1]
        if not _is_blank(line) and not _is_indented(line):
            break
        if not _is_blank(line):
            end = index + 1
    return end


def _dedent(lines: list[_Line]) -> list[_Line]:
    """The lines with the block's indentation taken off, offsets moved past it."""
    indent = min((_indentation(line) for _, line in lines if not _is_blank(line)), default=0)
    return [(offset + indent, line[indent:]) if not _is_blank(line) else (offset, "") for offset, line in lines]


def _extent(lines: list[_Line]) -> tuple[int, int]:
    """From the first non-blank character to the end of the last non-blank line (there is one)."""
    filled = [(offset, line) for offset, line in lines if not _is_blank(line)]
    (first_offset, first), (last_offset, last) = filled[0], filled[-1]
    return first_offset + _indentation(first), last_offset + len(last.rstrip())


def _adorns(adornment: str, title: str) -> bool:
    length = len(adornment.rstrip())
    return length >= len(title) or length >= _MIN_MARKER


def _title_at(lines: list[_Line], index: int) -> _Title | None:
    offset, line = lines[index]
    if _ADORNMENT.fullmatch(line):
        if index + 2 >= len(lines):
            return None
        title_offset, title = lines[index + 1]
        underline = lines[index + 2][1]
        if _is_blank(title) or underline.rstrip() != line.rstrip() or not _adorns(line, title.strip()):
            return None
        start = title_offset + _indentation(title)
        return _Title(index + 3, start, start + len(title.strip()), (line[0], True))
    if index + 1 < len(lines):
        underline = lines[index + 1][1]
        if _ADORNMENT.fullmatch(underline) and _adorns(underline, line.rstrip()):
            return _Title(index + 2, offset, offset + len(line.rstrip()), (underline[0], False))
    return None


def _directive_parts(rest: _Line, body: list[_Line]) -> tuple[list[_Line], list[_Line]]:
    """A directive's argument lines and its content, divided as docutils divides them: the
    argument runs to the first option line or blank line, the options to the blank line."""
    lines = [rest, *body] if not _is_blank(rest[1]) else body
    blank = next((i for i, (_, line) in enumerate(lines) if _is_blank(line)), len(lines))
    head = lines[:blank]
    options = next((i for i, (_, line) in enumerate(head) if _OPTION.match(line.lstrip())), len(head))
    return head[:options], lines[blank + 1 :]


class _Reader:
    """Collects the blocks of one text, in reading order; the heading levels are the styles'
    order of first appearance, kept across the whole document."""

    def __init__(self, text: str) -> None:
        self.blocks: list[Block] = []
        self._text = text
        self._outline = Outline()
        self._styles: list[tuple[str, bool]] = []

    def read(self, lines: list[_Line], *, nested: bool) -> None:
        index = 0
        while index < len(lines):
            index = self._construct(lines, index, nested=nested)

    def _construct(self, lines: list[_Line], index: int, *, nested: bool) -> int:
        """Reads what starts at `index` and returns the index after it."""
        line = lines[index][1]
        if _is_blank(line):
            return index + 1
        if _EXPLICIT.match(line) or _ANONYMOUS_TARGET.match(line):
            return self._explicit(lines, index)
        if _is_indented(line):
            end = _indented_end(lines, index)
            self.read(_dedent(lines[index:end]), nested=True)
            return end
        if (title := _title_at(lines, index)) is not None:
            self._title(title, nested=nested)
            return title.after
        if _ADORNMENT.fullmatch(line) and len(line.rstrip()) >= _MIN_MARKER:
            return index + 1
        return self._paragraph(lines, index)

    def _title(self, title: _Title, *, nested: bool) -> None:
        if nested:
            self.blocks.append(Block(title.start, title.end))
            return
        if title.style not in self._styles:
            self._styles.append(title.style)
        level = self._styles.index(title.style) + 1
        heading = self._outline.explicit(self._text[title.start : title.end], level=level)
        self.blocks.append(Block(title.start, title.end, heading=heading))

    def _paragraph(self, lines: list[_Line], index: int) -> int:
        end = next((i for i in range(index, len(lines)) if _is_blank(lines[i][1])), len(lines))
        start, stop = _extent(lines[index:end])
        # docutils drops a paragraph that is `::` alone: it only announces the literal block.
        if self._text[start:stop] != _LITERAL_MARKER:
            self.blocks.append(Block(start, stop))
        if not self._text[start:stop].endswith(_LITERAL_MARKER):
            return end
        following = next((i for i in range(end, len(lines)) if not _is_blank(lines[i][1])), None)
        if following is None or not _is_indented(lines[following][1]):
            return end
        literal_end = _indented_end(lines, following)
        self._literal(lines[following:literal_end])
        return literal_end

    def _literal(self, lines: list[_Line]) -> None:
        """Code as it stands: blank lines split it, as they split Markdown's fenced code."""
        group: list[_Line] = []
        for offset, line in lines:
            if not _is_blank(line):
                group.append((offset, line))
            elif group:
                self.blocks.append(Block(*_extent(group)))
                group = []
        if group:
            self.blocks.append(Block(*_extent(group)))

    def _explicit(self, lines: list[_Line], index: int) -> int:
        offset, line = lines[index]
        if line.rstrip() == ".." and (index + 1 == len(lines) or _is_blank(lines[index + 1][1])):
            return index + 1  # an empty comment ends a construct and claims no indented block after it
        end = _indented_end(lines, index + 1)
        if directive := _DIRECTIVE.match(line):
            argument, body = _DIRECTIVES.get(directive["name"].lower(), _PROSE_DIRECTIVE)
            marker_end = directive.end()
        elif footnote := _FOOTNOTE.match(line):
            argument, body = _PROSE_DIRECTIVE
            marker_end = footnote.end()
        else:
            return end  # a comment, a hyperlink target, a substitution definition
        arguments, content = _directive_parts((offset + marker_end, line[marker_end:]), lines[index + 1 : end])
        if arguments and argument != "markup":
            self._add(_extent(arguments), math=argument == "math")
        if body == "text":
            self.read(_dedent(content), nested=True)
        elif body == "literal":
            self._literal(content)
        elif body == "math" and content:
            self._add(_extent(content), math=True)
        return end

    def _add(self, extent: tuple[int, int], *, math: bool) -> None:
        start, end = extent
        self.blocks.append(Block(start, end, latex=self._text[start:end] if math else None))


def blocks_from_restructuredtext(text: str) -> list[PageBlocks]:
    reader = _Reader(text)
    reader.read(list(lines_with_offsets(text)), nested=False)
    return [PageBlocks(0, text, reader.blocks)]


def parse_restructuredtext(path: Path) -> list[PageBlocks]:
    return blocks_from_restructuredtext(decode_utf8(path.read_bytes(), str(path)))
