"""What the domain request carries: the candidates and the chunks holding them, and the
opening of the definitions."""

from knowledge_assets.contracts import Chunk
from knowledge_assets.extract.domain import domain_request


def chunk(seq: int, text: str, *heading_path: str) -> Chunk:
    return Chunk(chunk_id=f"D::{seq:04d}", seq=seq, page=0, page_no=1, heading_path=list(heading_path), text=text,
                 char_start=0, char_end=len(text))


def test_the_request_holds_every_candidate_chunk_and_the_definitions_opening():
    chunks = [chunk(0, "Widget Handbook", "Widget Handbook"), chunk(1, "Filler one.", "Widget Handbook"),
              chunk(2, "Filler two.", "Widget Handbook"),
              *[chunk(i, f"Filler {i}.", "Widget Handbook", f"{i}. Part") for i in range(3, 30)],
              chunk(30, "In this handbook the following terms are used:", "Widget Handbook",
                    "30. Terms and Definitions"),
              chunk(31, "Widget: a small part.", "Widget Handbook", "30. Terms and Definitions"),
              chunk(32, "This document specifies widget checks.", "Widget Handbook", "31. Checks")]
    request = domain_request(chunks)
    held = [c.chunk_id for c in request.chunks]
    assert held == ["D::0000", "D::0001", "D::0002", "D::0030", "D::0031", "D::0032"]
    assert {c.chunk_id for c in request.candidates} <= set(held)
    assert [(c.kind, c.cue) for c in request.candidates] == [("title", "top_heading"), ("title", "first_lines"),
                                                             ("purpose", "purpose_statement")]
