"""Lines and their offsets, as every text parser reads a page."""

import pytest

from knowledge_assets.ingest.blocks import lines_with_offsets


@pytest.mark.parametrize(
    "text",
    [
        "",
        "one line",
        "Judul\n\nParagraf pertama.\nlanjutan\n",
        "windows\r\nlines\r\n\r\nand a lone\rreturn",
        "form\ffeed, vertical\vtab, \x1cfile \x1dgroup \x1erecord, next\x85line, \u2028line \u2029para",
        "returns before a break\r\r\n\n\r",
    ],
)
def test_lines_are_where_splitlines_puts_them_without_their_line_break(text):
    expected, offset = [], 0
    for raw in text.splitlines(keepends=True):
        expected.append((offset, raw.rstrip("\r\n")))
        offset += len(raw)
    assert list(lines_with_offsets(text)) == expected


def test_lines_come_one_at_a_time():
    lines = lines_with_offsets("first\nsecond\n")
    assert next(lines) == (0, "first")
    assert next(lines) == (6, "second")
