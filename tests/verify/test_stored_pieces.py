"""The stored re-check of a span that crosses a chunk boundary (D56), on rows of our own."""

from knowledge_assets.verify import stored

CHUNKS = {
    "c0": stored.ChunkText("Pasal 2\nBatas dosis tahunan berlaku untuk pekerja dan", None),
    "c1": stored.ChunkText("magang yang berumur di atas 16 tahun.\nPasal 3\nJika dosis", None),
    "c2": stored.ChunkText("dilampaui, pekerja diperiksa.", None),
}
FIRST, SECOND = "Batas dosis tahunan berlaku untuk pekerja dan", "magang yang berumur di atas 16 tahun."


def _glossary(pieces: list[tuple[str, str]], span: str | None = None) -> stored.StoredDocument:
    provenance = {
        "doc_id": "d", "span": span or " ".join(text for _, text in pieces), "page": 0, "page_no": 1,
        "section_no": None, "chunk_id": pieces[0][0],
        "pieces": [{"page": 0, "page_no": 1, "chunk_id": chunk_id, "span": text} for chunk_id, text in pieces],
    }
    row = {"term_id": "t1", "term": "Batas dosis", "definition": provenance["span"], "full_name": None,
           "source_wording": None, "provenance": provenance}
    return stored.StoredDocument("d", "glossary", [row], CHUNKS, {}, set())


def _problems(document: stored.StoredDocument) -> list[tuple[str, str]]:
    return [(f.field, f.problem) for f in stored.unverified_spans(document)]


def test_pieces_in_consecutive_chunks_reaching_the_join_pass():
    assert _problems(_glossary([("c0", FIRST), ("c1", SECOND)])) == []


def test_pieces_of_chunks_that_do_not_follow_each_other_are_refused():
    problems = _problems(_glossary([("c0", FIRST), ("c2", "dilampaui, pekerja diperiksa.")]))
    assert problems == [("provenance.pieces", "pieces are not in consecutive chunks from the provenance chunk")]


def test_a_piece_that_leaves_a_gap_inside_its_chunk_is_refused():
    problems = _problems(_glossary([("c0", "Batas dosis tahunan"), ("c1", SECOND)]))
    assert problems == [("provenance.pieces",
                         "piece 1 does not reach its chunk's edge: a gap lies inside the span")]
    problems = _problems(_glossary([("c0", FIRST), ("c1", "berumur di atas 16 tahun.")]))
    assert problems == [("provenance.pieces",
                         "piece 2 does not reach its chunk's edge: a gap lies inside the span")]


def test_a_span_that_is_not_its_pieces_joined_by_one_space_is_refused():
    problems = _problems(_glossary([("c0", FIRST), ("c1", SECOND)], span=f"{FIRST}\n{SECOND}"))
    assert problems[0] == ("provenance.pieces", "span is not its pieces joined by one space")


def _formula(latex: str) -> stored.StoredDocument:
    chunks = {"f0": stored.ChunkText("Rate:\nLoad = Mass ×", None), "f1": stored.ChunkText("Gravity\nEnd.", None)}
    pieces = [("f0", "Load = Mass ×"), ("f1", "Gravity")]
    provenance = {
        "doc_id": "d", "span": "Load = Mass × Gravity", "page": 0, "page_no": 1, "section_no": None,
        "chunk_id": "f0", "pieces": [{"page": 0, "page_no": 1, "chunk_id": c, "span": t} for c, t in pieces],
    }
    row = {"formula_id": "f", "name": "Load", "formula_latex": latex, "provenance": provenance}
    return stored.StoredDocument("d", "formulas", [row], chunks, {}, set())


def test_a_formula_across_the_join_is_checked_as_a_transcription_of_the_joined_text():
    assert [p for p in _problems(_formula("Load = Mass \\times Gravity")) if p[0] == "formula_latex"] == []
    assert ("formula_latex", "not verbatim in its provenance chunk") in _problems(_formula("Load = Mass \\times Speed"))
