"""reStructuredText: titles by their adornment, levels by the order styles first appear, markup
left out, and every block a verbatim slice of the file's text."""

from pathlib import Path

from knowledge_assets.ingest.documents import document_kind, identify
from knowledge_assets.ingest.parse import parse_document
from knowledge_assets.ingest.restructuredtext import blocks_from_restructuredtext


def _blocks(text: str):
    [page] = blocks_from_restructuredtext(text)
    assert page.text == text
    return page.blocks


def _texts(text: str) -> list[str]:
    return [text[block.start : block.end] for block in _blocks(text)]


def _headings(text: str) -> list[tuple[str, tuple[str, ...]]]:
    return [(text[b.start : b.end], b.heading.path) for b in _blocks(text) if b.heading is not None]


def test_heading_levels_follow_the_order_styles_first_appear():
    text = (
        "Intro\n-----\n\nFirst.\n\n"
        "Scope\n=====\n\nSecond.\n\n"
        "Detail\n~~~~~~\n\nThird.\n\n"
        "Terms\n-----\n\nFourth.\n\n"
        "Usage\n=====\n"
    )
    assert _headings(text) == [
        ("Intro", ("Intro",)),
        ("Scope", ("Intro", "Scope")),
        ("Detail", ("Intro", "Scope", "Detail")),
        ("Terms", ("Terms",)),
        ("Usage", ("Terms", "Usage")),
    ]
    assert _texts(text) == ["Intro", "First.", "Scope", "Second.", "Detail", "Third.", "Terms", "Fourth.", "Usage"]


def test_an_overlined_title_is_a_style_apart_and_its_block_is_the_title_alone():
    text = "==========\n  Manual  \n==========\n\nPart\n====\n\nBody.\n"
    assert _headings(text) == [("Manual", ("Manual",)), ("Part", ("Manual", "Part"))]
    assert _texts(text) == ["Manual", "Part", "Body."]


def test_an_underline_shorter_than_the_title_needs_four_characters():
    assert _headings("Long title here\n~~~~\n") == [("Long title here", ("Long title here",))]
    assert _texts("Long title here\n~~~\n") == ["Long title here\n~~~"]


def test_a_transition_is_markup_between_paragraphs():
    assert _texts("Para one.\n\n----------\n\nPara two.\n") == ["Para one.", "Para two."]


def test_an_image_directive_and_its_options_are_markup():
    text = ".. image:: images/logo.png\n   :alt: The logo\n   :width: 200\n\nText after.\n"
    assert _texts(text) == ["Text after."]


def test_a_math_directive_body_is_one_formula_block():
    text = "Before.\n\n.. math::\n   :label: energy\n\n   E = m c^2\n\n   F = m a\n\nAfter.\n"
    blocks = _blocks(text)
    assert [text[b.start : b.end] for b in blocks] == ["Before.", "E = m c^2\n\n   F = m a", "After."]
    assert blocks[1].latex == "E = m c^2\n\n   F = m a" and blocks[0].latex is None


def test_a_note_keeps_its_argument_text_and_body_without_the_marker():
    text = (
        ".. note:: The function ``fit`` was rewritten in v0.8.0.\n"
        "   It now matches Reliasoft.\n\n"
        "   Earlier versions only fitted the Duane model.\n"
    )
    assert _texts(text) == [
        "The function ``fit`` was rewritten in v0.8.0.\n   It now matches Reliasoft.",
        "Earlier versions only fitted the Duane model.",
    ]
    assert _blocks(text)[0].start == len(".. note:: ")


def test_an_admonition_title_and_body_are_text():
    text = ".. admonition:: API Reference\n\n   For inputs see the `API reference <https://x.y>`_.\n"
    assert _texts(text) == ["API Reference", "For inputs see the `API reference <https://x.y>`_."]


def test_comments_and_hyperlink_targets_are_markup():
    text = ".. a comment\n   spanning two lines\n\nText.\n\n.. _label:\n\nMore :math:`x^2` text.\n"
    assert _texts(text) == ["Text.", "More :math:`x^2` text."]


def test_code_and_literal_blocks_are_text_never_read_as_markup():
    text = (
        ".. code:: python\n\n    x = 1\n\n    '''\n    y = 2\n    '''\n\n"
        "Example::\n\n    .. not a comment\n    ----------\n\nAfter.\n"
    )
    assert _texts(text) == [
        "x = 1", "'''\n    y = 2\n    '''", "Example::", ".. not a comment\n    ----------", "After.",
    ]


def test_rst_and_rest_files_are_restructuredtext():
    assert document_kind(Path("x.rst")) == "restructuredtext"
    assert document_kind(Path("x.REST")) == "restructuredtext"


def test_a_parsed_rst_file_chunks_verbatim_under_its_titles(tmp_path):
    path = tmp_path / "growth.rst"
    path.write_text(
        ".. image:: logo.png\n\nGrowth\n''''''\n\nThe MTBF grows.\n\nDuane model\n\"\"\"\"\"\"\"\"\"\"\"\n\n"
        ".. note:: Rewritten in v0.8.0.\n",
        encoding="utf-8",
    )
    parsed = parse_document(identify(path, "RST-1"))
    assert parsed.parser == "restructuredtext"
    # A chunk is one slice from its heading to its last block: the adornment between them lies
    # inside it, but no chunk starts or ends on markup.
    assert [(c.heading_path, c.text) for c in parsed.chunks] == [
        (["Growth"], "Growth\n''''''\n\nThe MTBF grows."),
        (["Growth", "Duane model"], 'Duane model\n"""""""""""\n\n.. note:: Rewritten in v0.8.0.'),
    ]
    for chunk in parsed.chunks:
        assert parsed.pages[chunk.page].text[chunk.char_start : chunk.char_end] == chunk.text
