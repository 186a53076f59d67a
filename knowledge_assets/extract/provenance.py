"""Provenance for an extracted entity: the first candidate quote found verbatim in one of the
entity's source chunks. A quote that is found nowhere is never used as a span, nor is one that
instructs a model or lies in a passage that does (the guard refuses such a value; its quote must
not survive as the evidence a reviewer reads and an export carries)."""

from __future__ import annotations

from collections.abc import Sequence

from knowledge_assets.contracts import Chunk, Provenance
from knowledge_assets.verify.instructions import instruction_cue, passage_cue
from knowledge_assets.verify.spans import is_verbatim


def chunk_provenance(doc_id: str, chunk: Chunk, span: str) -> Provenance:
    return Provenance(doc_id=doc_id, span=span, page=chunk.page, section_no=chunk.section_no, chunk_id=chunk.chunk_id)


def locate_provenance(doc_id: str, chunks: Sequence[Chunk], candidates: Sequence[str | None]) -> Provenance | None:
    for candidate in candidates:
        if not candidate or not candidate.strip() or instruction_cue(candidate):
            continue
        for chunk in chunks:
            if is_verbatim(candidate, chunk.text) and passage_cue(candidate, [chunk.text]) is None:
                return chunk_provenance(doc_id, chunk, candidate)
    return None


def first_line_provenance(doc_id: str, chunk: Chunk) -> Provenance:
    """A span that is verbatim by construction: the chunk's first non-empty line."""
    line = next(line.strip() for line in chunk.text.splitlines() if line.strip())
    return chunk_provenance(doc_id, chunk, line)


def cited_first(chunks: Sequence[Chunk], chunk_id: str | None) -> list[Chunk]:
    """The chunk an answer cites first, then the others: a span is looked for where it was said to be."""
    return sorted(chunks, key=lambda chunk: chunk.chunk_id != chunk_id)
