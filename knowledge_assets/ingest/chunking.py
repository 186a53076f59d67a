"""Section-aware chunking: a chunk is a run of blocks of one section on one page, sliced
verbatim from the page text, never longer than the size cap unless a single line is, and never
across page furniture."""

from __future__ import annotations

import re
from collections.abc import Iterator

from knowledge_assets.contracts import Chunk
from knowledge_assets.ids import chunk_id
from knowledge_assets.ingest.blocks import Block, PageBlocks

DEFAULT_MAX_CHARS = 1500


# A line ending so ends a sentence, a list item or a lead-in: a cut after it splits no sentence.
_SENTENCE_LINE_END = re.compile(r"[.;:!?][ \t]*\n")


def _fit(block: Block, text: str, max_chars: int) -> list[Block]:
    """Splits an over-long block where a line ends a sentence (`…, Batubara adalah endapan …`
    is never cut from its end), else at line breaks, then at spaces, keeping every piece
    verbatim. A sentence end is taken only in the window's second half, so no piece is short."""
    if block.end - block.start <= max_chars or block.heading is not None or block.latex:
        return [block]
    pieces, start = [], block.start
    while block.end - start > max_chars:
        window = text[start : start + max_chars]
        sentence_ends = [m.end() - 1 for m in _SENTENCE_LINE_END.finditer(window, max_chars // 2)]
        cut = sentence_ends[-1] if sentence_ends else max(window.rfind("\n"), window.rfind(" "))
        end = start + (cut if cut > 0 else max_chars)
        pieces.append(Block(start, end))
        start = end
        while start < block.end and text[start].isspace():
            start += 1
    if start < block.end:
        pieces.append(Block(start, block.end))
    return pieces


def chunk_pages(doc_id: str, pages: list[PageBlocks], max_chars: int = DEFAULT_MAX_CHARS) -> Iterator[Chunk]:
    """The chunks in reading order, each made as it is reached: a caller that writes them as
    they come never holds a long document's chunks all at once."""
    path: tuple[str, ...] = ()
    section_no: str | None = None
    seq = 0

    def emit(page: PageBlocks, run: list[Block]) -> Chunk:
        nonlocal seq
        start, end = run[0].start, run[-1].end
        latex = "\n".join(b.latex for b in run if b.latex) or None
        chunk = Chunk(
            chunk_id=chunk_id(doc_id, seq),
            seq=seq,
            page=page.page,
            page_no=page.page + 1,
            section_no=section_no,
            heading_path=list(path),
            text=page.text[start:end],
            latex=latex,
            char_start=start,
            char_end=end,
        )
        seq += 1
        return chunk

    for page in pages:
        run: list[Block] = []
        for block in page.blocks:
            if block.furniture:
                if run:
                    yield emit(page, run)
                run = []
                continue
            if block.heading is not None:
                if run:
                    yield emit(page, run)
                run = []
                path, section_no = block.heading.path, block.heading.section_no
            for piece in _fit(block, page.text, max_chars):
                if run and piece.end - run[0].start > max_chars:
                    yield emit(page, run)
                    run = []
                run.append(piece)
        if run:
            yield emit(page, run)
