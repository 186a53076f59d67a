"""Plain page texts into blocks: found as they are read, page after page."""

from knowledge_assets.ingest import plain
from knowledge_assets.ingest.headings import Outline


def test_a_pages_blocks_are_found_only_as_they_are_read(monkeypatch):
    read = []
    detect = Outline.detect
    monkeypatch.setattr(Outline, "detect", lambda self, line: read.append(line) or detect(self, line))
    pages = plain.blocks_from_page_texts(["1. Scope\nThe rule applies.\n" + "More text here.\n" * 1000])
    assert read == []
    blocks = iter(pages[0].blocks)
    heading = next(blocks)
    assert heading.heading is not None and heading.heading.section_no == "1"
    assert len(read) <= 3  # the heading, and the line read to know it has no title line


def test_a_title_on_the_line_after_a_lone_label_extends_its_heading_block():
    text = "BAB I\nKETENTUAN UMUM\nPasal 1\nDalam peraturan ini yang dimaksud dengan kata.\n"
    blocks = list(plain.blocks_from_page_texts([text])[0].blocks)
    assert [text[b.start : b.end] for b in blocks] == [
        "BAB I\nKETENTUAN UMUM", "Pasal 1", "Dalam peraturan ini yang dimaksud dengan kata.",
    ]
    assert blocks[0].heading.path == ("BAB I KETENTUAN UMUM",)
