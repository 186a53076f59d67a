"""Web pages (.html, .htm), read with lxml's HTML parser (libxml2: it closes the elements HTML
lets a page leave open, `<p>` and `<li>`, as a browser does).

A page is written out as the Markdown the Markdown reader reads (docs/decisions.md D87), and
that text is the document's text: every span is a slice of it. Headings `<h1>`–`<h6>` become
`#` lines of their level; a table becomes pipe rows, its first row the header, as a Markdown
table comes out; a list becomes one `- ` or `1. ` line per item, nested items indented; a
paragraph's `<br>` a line break; `<b>`/`<strong>` `**…**`. What is not the page's text is left
out: the head, scripts, styles, navigation and other controls; when the page marks its `<main>`
content, only that. Attributes are never read: a `title`, an `alt` or a `data-` value is no text
of the document. A line of the page that the Markdown reader would take for markup (`# …`,
`---`, a fence) is escaped with a backslash, so it stays text.
"""

from __future__ import annotations

import codecs
import re
from pathlib import Path

import lxml
import lxml.etree
import lxml.html

from knowledge_assets.ingest import markdown
from knowledge_assets.ingest.blocks import PageBlocks
from knowledge_assets.ingest.document_error import DocumentError
from knowledge_assets.ingest.markdown import blocks_from_markdown

# The HTML parser and the Markdown structure reading both shape the chunks.
PARSER_VERSION = f"lxml-{lxml.__version__}+markdown-{markdown.PARSER_VERSION}+1"

_LEFT_OUT = frozenset({
    "head", "script", "style", "noscript", "template", "nav", "footer", "svg", "canvas", "iframe",
    "object", "embed", "button", "select", "textarea", "input",
})
_HEADINGS = {f"h{level}": level for level in range(1, 7)}
_LISTS = frozenset({"ul", "ol"})
_BLOCKS = frozenset({
    "address", "article", "aside", "blockquote", "body", "caption", "dd", "details", "dialog", "div", "dl",
    "dt", "fieldset", "figcaption", "figure", "form", "header", "hgroup", "hr", "html", "li", "main", "p",
    "section", "summary", "tr", "td", "th",
})
_STRONG = frozenset({"b", "strong"})
_WHITE_SPACE = re.compile(r"\s+")
# Lines the Markdown reader reads as markup: a heading, a fence, a kramdown extension, a rule
# or the front matter's and parts' dashes.
_MARKUP_LINE = re.compile(r"[ \t]*(?:#|```|~~~|\{:|(?:[-*_][ \t]*){3})")
# `<meta charset="…">` or `<meta http-equiv="Content-Type" content="text/html; charset=…">`,
# which HTML requires within the first 1024 bytes.
_DECLARED_CHARSET = re.compile(rb"<meta[^>]+charset\s*=\s*[\"']?\s*([A-Za-z0-9._:-]+)", re.IGNORECASE)
_BOMS = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))


def _tag(element: lxml.etree._Element) -> str | None:
    """The element's lower-case name; None for a comment or a processing instruction."""
    return element.tag.lower() if isinstance(element.tag, str) else None


def _escape(line: str) -> str:
    return "\\" + line if _MARKUP_LINE.match(line) else line


def _inline(element: lxml.etree._Element) -> str:
    """The element's text on one line: what a heading, a table cell or a list item holds."""
    parts: list[str] = [element.text or ""]
    for child in element:
        tag = _tag(child)
        if tag is not None and tag not in _LEFT_OUT and tag not in _LISTS:
            inner = _inline(child)
            parts.append(f" **{inner.strip()}** " if tag in _STRONG and inner.strip() else f" {inner} ")
        parts.append(child.tail or "")
    return " ".join("".join(parts).split())


class _Writer:
    """Collects the page's Markdown blocks in reading order; inline text gathers until a block
    element ends the paragraph it belongs to."""

    def __init__(self) -> None:
        self.blocks: list[str] = []
        self._inline: list[str] = []

    def element(self, element: lxml.etree._Element) -> None:
        tag = _tag(element)
        if tag is None or tag in _LEFT_OUT:
            pass
        elif tag in _HEADINGS:
            self._block("#" * _HEADINGS[tag] + " " + _inline(element))
        elif tag == "table":
            self._block("\n".join(_table_rows(element)))
        elif tag in _LISTS:
            self._block("\n".join(_list_lines(element, depth=0)))
        elif tag == "pre":
            self._block("\n".join(_escape(line) for line in element.text_content().strip("\n").splitlines()))
        elif tag == "br":
            self._inline.append("\n")
        elif tag in _STRONG and (inner := _inline(element)):
            self._inline.append(f"**{inner}**")
        else:
            self._children(element, block=tag in _BLOCKS)
        self._text(element.tail)

    def _text(self, text: str | None) -> None:
        """Text as HTML renders it: a run of white space, line breaks included, is one space."""
        if text:
            self._inline.append(_WHITE_SPACE.sub(" ", text))

    def _children(self, element: lxml.etree._Element, *, block: bool) -> None:
        if block:
            self.flush()
        self._text(element.text)
        for child in element:
            self.element(child)
        if block:
            self.flush()

    def _block(self, text: str) -> None:
        self.flush()
        if text.strip(" #"):
            self.blocks.append(text)

    def flush(self) -> None:
        lines = (line.strip() for line in "".join(self._inline).split("\n"))
        paragraph = "\n".join(_escape(line) for line in lines if line)
        self._inline = []
        if paragraph:
            self.blocks.append(paragraph)


def _table_rows(table: lxml.etree._Element) -> list[str]:
    """One `| … |` line per row, the first row the header with its `| --- |` line under it; a
    pipe in a cell is escaped, as Markdown writes it, so that it divides no cells."""
    rows = []
    for row in table.xpath("./tr | ./thead/tr | ./tbody/tr | ./tfoot/tr"):
        cells = [_inline(cell).replace("|", "\\|") for cell in row if _tag(cell) in ("td", "th")]
        if any(cells):
            rows.append(cells)
    if len(rows) > 1:
        rows.insert(1, ["---"] * len(rows[0]))
    return ["| " + " | ".join(cells) + " |" for cells in rows]


def _list_lines(items: lxml.etree._Element, depth: int) -> list[str]:
    lines = []
    number = 0
    for item in items:
        if _tag(item) != "li":
            continue
        number += 1
        marker = f"{number}." if _tag(items) == "ol" else "-"
        if text := _inline(item):
            lines.append("  " * depth + f"{marker} {text}")
        for nested in item.iter("ul", "ol"):
            if next(nested.iterancestors("ul", "ol")) is items:
                lines += _list_lines(nested, depth + 1)
    return lines


def markdown_from_html(text: str, origin: Path | str) -> str:
    if not text.strip():
        return ""  # libxml2 calls it "Document is empty"; it is a document without text
    try:
        root = lxml.html.document_fromstring(text)
    except (lxml.etree.ParserError, ValueError) as exc:
        raise DocumentError(origin, f"not a readable HTML page ({exc})") from None
    main = root.find(".//main")
    writer = _Writer()
    writer.element(main if main is not None else root)
    writer.flush()
    return "\n\n".join(writer.blocks) + "\n"


def blocks_from_html(text: str, origin: Path | str) -> list[PageBlocks]:
    return blocks_from_markdown(markdown_from_html(text, origin))


def decode_html(data: bytes, origin: Path | str) -> str:
    """The page's characters: its byte-order mark, else the charset it declares, else UTF-8
    (HTML's default). Bytes that are not of that encoding fail the page, naming both."""
    encoding = next((name for bom, name in _BOMS if data.startswith(bom)), None)
    if encoding is None:
        declared = _DECLARED_CHARSET.search(data[:1024])
        encoding = declared.group(1).decode("ascii") if declared else "utf-8"
    try:
        return data.decode(encoding)
    except LookupError:
        raise DocumentError(origin, f"the page declares an unknown charset '{encoding}'") from None
    except UnicodeDecodeError as exc:
        raise DocumentError(
            origin,
            f"not valid {encoding} (byte 0x{data[exc.start]:02x} at offset {exc.start}); save the page as "
            "UTF-8, or declare its charset in a <meta charset> tag, and ingest it again",
        ) from None


def parse_html(path: Path) -> list[PageBlocks]:
    return blocks_from_html(decode_html(path.read_bytes(), path), path)
