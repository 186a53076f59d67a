"""Provenance for an extracted entity: the first candidate quote found verbatim in one of the
entity's source chunks. A quote that is found nowhere is never used as a span, nor is one that
instructs a model or lies in a passage that does (the guard refuses such a value; its quote must
not survive as the evidence a reviewer reads and an export carries)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from knowledge_assets.contracts import Chunk, Provenance, SpanPiece
from knowledge_assets.crossing import JOIN, continues, joined
from knowledge_assets.verify.instructions import instruction_cue, passage_cue
from knowledge_assets.verify.spans import crossing_pieces, is_verbatim


def chunk_provenance(doc_id: str, chunk: Chunk, span: str) -> Provenance:
    return Provenance(doc_id=doc_id, span=span, page=chunk.page, section_no=chunk.section_no, chunk_id=chunk.chunk_id)


def following_chunks(chunks: Iterable[Chunk]) -> dict[str, Chunk]:
    """chunk_id -> the chunk that follows it in reading order, of those among `chunks`, where
    the text goes on into it (`crossing.continues`): only there may a value cross, so nothing is
    stitched over a sentence end, a heading or the furniture after a finished sentence."""
    by_seq = {chunk.seq: chunk for chunk in chunks}
    return {chunk.chunk_id: by_seq[seq + 1] for seq, chunk in by_seq.items()
            if seq + 1 in by_seq and continues(chunk.text, by_seq[seq + 1].text)}


def boundary_texts(chunks: Iterable[Chunk]) -> list[str]:
    """The joined text of each two consecutive chunks among `chunks`: where a value may cross."""
    chunks = list(chunks)
    following = following_chunks(chunks)
    return [joined(chunk.text, following[chunk.chunk_id].text) for chunk in chunks if chunk.chunk_id in following]


def crossing_provenance(doc_id: str, first: Chunk, second: Chunk, value: str | None) -> Provenance | None:
    """The provenance of `value` running from the end of `first` into the start of `second`,
    the chunk after it; None when it does not (`verify.spans.crossing_pieces`)."""
    split = crossing_pieces(value, first.text, second.text)
    if split is None:
        return None
    pieces = [SpanPiece(page=chunk.page, page_no=chunk.page_no, chunk_id=chunk.chunk_id, span=text)
              for chunk, text in zip((first, second), split)]
    return Provenance(doc_id=doc_id, span=JOIN.join(split), page=first.page, section_no=first.section_no,
                      chunk_id=first.chunk_id, pieces=pieces)


def locate_provenance(doc_id: str, chunks: Sequence[Chunk], candidates: Sequence[str | None]) -> Provenance | None:
    following = following_chunks(chunks)
    for candidate in candidates:
        if not candidate or not candidate.strip() or instruction_cue(candidate):
            continue
        for chunk in chunks:
            if is_verbatim(candidate, chunk.text) and passage_cue(candidate, [chunk.text]) is None:
                return chunk_provenance(doc_id, chunk, candidate)
        for chunk in chunks:
            second = following.get(chunk.chunk_id)
            if second is None or passage_cue(candidate, [joined(chunk.text, second.text)]) is not None:
                continue
            if provenance := crossing_provenance(doc_id, chunk, second, candidate):
                return provenance
    return None


def first_line_provenance(doc_id: str, chunk: Chunk) -> Provenance:
    """A span that is verbatim by construction: the chunk's first non-empty line."""
    line = next(line.strip() for line in chunk.text.splitlines() if line.strip())
    return chunk_provenance(doc_id, chunk, line)


def cited_first(chunks: Sequence[Chunk], chunk_id: str | None) -> list[Chunk]:
    """The chunk an answer cites first, then the others: a span is looked for where it was said to be."""
    return sorted(chunks, key=lambda chunk: chunk.chunk_id != chunk_id)
