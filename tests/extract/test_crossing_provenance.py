"""A quote crosses from one chunk into the next only where the text runs on (D56): never over a
finished sentence, on text we wrote."""

from __future__ import annotations

from knowledge_assets.contracts import Chunk
from knowledge_assets.extract.provenance import boundary_texts, locate_provenance


def _chunks(first: str, second: str) -> list[Chunk]:
    return [Chunk(chunk_id=f"D::{seq:04d}", seq=seq, page=seq, page_no=seq + 1, text=text, char_start=0,
                  char_end=len(text)) for seq, text in enumerate((first, second))]


def test_a_sentence_cut_by_a_page_break_is_located_in_two_pieces():
    chunks = _chunks("Downtime is counted from the breakdown", "until the unit is handed back.")
    provenance = locate_provenance("D", chunks, ["counted from the breakdown until the unit"])
    assert provenance is not None and [p.page for p in provenance.pieces] == [0, 1]
    assert [p.span for p in provenance.pieces] == ["counted from the breakdown", "until the unit"]


def test_no_quote_is_stitched_over_a_finished_sentence_or_into_a_capitalised_opening():
    finished = _chunks("Downtime is counted from the breakdown.", "until the unit is handed back.")
    assert locate_provenance("D", finished, ["the breakdown. until the unit"]) is None
    assert boundary_texts(finished) == []
    opening = _chunks("Downtime is counted from the breakdown", "Availability is the share of time.")
    assert locate_provenance("D", opening, ["the breakdown Availability is"]) is None
