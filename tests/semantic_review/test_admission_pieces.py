"""Admission recomputes the span check for provenance in two pieces (D56) on text we wrote."""

from __future__ import annotations

from knowledge_assets import contracts as c
from knowledge_assets.semantic_review.admission import PROVENANCE_SPAN, _entity
from knowledge_assets.semantic_review.vocabulary import ENTITY_KINDS

FIRST = "2. Waktu siaga adalah waktu ketika alat siap dipakai tetapi tidak"
SECOND = "dioperasikan karena menunggu perintah.\n3. Waktu rusak adalah waktu perbaikan."


def _chunk(seq: int, text: str) -> c.Chunk:
    return c.Chunk(chunk_id=f"D::{seq:04d}", seq=seq, page=seq, page_no=seq + 1, text=text,
                   char_start=0, char_end=len(text))


CHUNKS = {ch.chunk_id: ch for ch in (_chunk(0, FIRST), _chunk(1, SECOND), _chunk(2, "Lampiran."))}
GLOSSARY = next(kind for kind in ENTITY_KINDS if kind.payload == "glossary.json")


def _term(definition: str, pieces: list[tuple[str, str]]) -> dict:
    span = " ".join(text for _, text in pieces)
    return {
        "term_id": "t1", "term": "Waktu siaga", "definition": definition,
        "provenance": {"doc_id": "D", "span": span, "page": 0, "chunk_id": pieces[0][0],
                       "pieces": [{"chunk_id": chunk_id, "span": text} for chunk_id, text in pieces]},
    }


def _verdicts(item: dict) -> dict[str, bool]:
    return {span.field: span.verbatim for span in _entity(GLOSSARY, item, CHUNKS).spans}


def test_a_span_running_from_one_chunk_into_the_next_is_admitted_with_its_definition():
    definition = "waktu ketika alat siap dipakai tetapi tidak dioperasikan karena menunggu perintah."
    item = _term(definition, [("D::0000", FIRST), ("D::0001", "dioperasikan karena menunggu perintah.")])
    assert _verdicts(item) == {"definition": True, PROVENANCE_SPAN: True}


def test_pieces_of_chunks_that_do_not_follow_each_other_are_not_admitted():
    definition = "waktu ketika alat siap dipakai tetapi tidak Lampiran."
    item = _term(definition, [("D::0000", FIRST), ("D::0002", "Lampiran.")])
    assert _verdicts(item) == {"definition": False, PROVENANCE_SPAN: False}


def test_a_first_piece_that_stops_before_its_chunk_ends_is_not_admitted():
    # Text between the pieces that lies inside a chunk would be stitched over, not skipped.
    item = _term("alat siap dioperasikan", [("D::0000", "Waktu siaga adalah waktu ketika alat siap"),
                                            ("D::0001", "dioperasikan karena menunggu perintah.")])
    assert _verdicts(item) == {"definition": False, PROVENANCE_SPAN: False}


def test_pieces_that_do_not_start_at_the_provenance_chunk_or_do_not_join_to_the_span_are_not_admitted():
    definition = "waktu ketika alat siap dipakai tetapi tidak dioperasikan karena menunggu perintah."
    item = _term(definition, [("D::0000", FIRST), ("D::0001", "dioperasikan karena menunggu perintah.")])
    item["provenance"]["chunk_id"] = "D::0001"
    assert _verdicts(item)[PROVENANCE_SPAN] is False
    item = _term(definition, [("D::0000", FIRST), ("D::0001", "dioperasikan karena menunggu perintah.")])
    item["provenance"]["span"] = FIRST + "  dioperasikan karena menunggu perintah."
    assert _verdicts(item)[PROVENANCE_SPAN] is False
