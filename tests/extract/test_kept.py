"""What a failed call keeps of the earlier run (extract/kept.py, D58), on text of our own."""

from knowledge_assets import contracts as c
from knowledge_assets.extract.kept import keep_by_chunk, keep_domain, keep_terms, kept_rejections, unanswered_keys
from knowledge_assets.llm.requests import FormulaRequest, GlossaryRequest, SourceChunk, TermBlock
from knowledge_assets.llm.responses import FormulaResponse
from knowledge_assets.llm.results import CallFailure, CallResult, call_usage
from knowledge_assets.store.knowledge import EarlierResult, KeptRow

DOC = "DOC"
TEXTS = {
    "DOC::0001": "Cycle Time (CT) means the time a truck needs for one round trip.",
    "DOC::0002": "Payload means the mass a truck carries on one trip.",
    "DOC::0003": "CT = load time + haul time + dump time + return time",
}
CHUNKS = {cid: c.Chunk(chunk_id=cid, seq=n, page=0, page_no=1, text=text, char_start=0, char_end=len(text))
          for n, (cid, text) in enumerate(TEXTS.items(), start=1)}


def _provenance(chunk_id: str, span: str | None = None) -> c.Provenance:
    return c.Provenance(doc_id=DOC, span=span or TEXTS[chunk_id], chunk_id=chunk_id, page=0)


def _entry(term_id: str, chunk_id: str, status: str = "ok", definition: str | None = None) -> c.GlossaryEntry:
    return c.GlossaryEntry(term_id=term_id, term=term_id.upper(), mention_count=1, provenance=_provenance(chunk_id),
                           extraction_status=status, definition=definition)


def _source(chunk_id: str) -> SourceChunk:
    return SourceChunk(chunk_id=chunk_id, text=TEXTS[chunk_id])


def _result(request, answer) -> CallResult:
    usage = call_usage(request.branch, deployment="m", tier="t", structured_output_mode="json_schema")
    return CallResult(request=request, answer=answer, usage=usage)


FAILED = CallFailure("invalid", "answer failed validation twice")


def test_a_failed_call_leaves_its_terms_or_its_chunks_unanswered_and_an_answered_one_nothing():
    glossary = GlossaryRequest(clusters=[TermBlock(key="t_ct", canonical="Cycle Time", chunks=[_source("DOC::0001")]),
                                         TermBlock(key="t_pl", canonical="Payload", chunks=[_source("DOC::0002")])])
    failed_formulas = FormulaRequest(chunks=[_source("DOC::0003")])
    answered = FormulaRequest(chunks=[_source("DOC::0001")])
    results = [_result(glossary, FAILED), _result(failed_formulas, FAILED),
               _result(answered, FormulaResponse(formulas=[]))]
    assert unanswered_keys(results) == {"t_ct", "t_pl", "DOC::0003"}


def test_an_escalated_entry_whose_call_failed_gives_way_to_the_earlier_answer_for_its_term():
    earlier = EarlierResult(entities=[_entry("t_ct", "DOC::0001", definition=TEXTS["DOC::0001"]),
                                      _entry("t_pl", "DOC::0002", status="no_definition_found")])
    fresh = [_entry("t_ct", "DOC::0001", status="escalated"), _entry("t_pl", "DOC::0002", status="escalated")]
    kept = keep_terms(fresh, earlier, {"t_ct", "t_pl"}, CHUNKS)
    assert kept.entities == earlier.entities and kept.ids == ["t_ct", "t_pl"]


def test_an_answered_term_an_unasked_one_and_an_earlier_escalation_are_not_kept():
    earlier = EarlierResult(entities=[_entry("t_ct", "DOC::0001", definition="old"),
                                      _entry("t_pl", "DOC::0002", status="escalated")])
    answered = _entry("t_ct", "DOC::0001", status="no_definition_found")
    fresh = [answered, _entry("t_pl", "DOC::0002", status="escalated")]
    assert keep_terms(fresh, earlier, {"t_pl"}, CHUNKS).ids == []
    # Escalated, but no failed call asked about it (it was never asked): nothing answers it.
    assert keep_terms([_entry("t_ct", "DOC::0001", status="escalated")], earlier, set(), CHUNKS).ids == []


def test_an_earlier_row_whose_span_its_chunk_no_longer_holds_is_not_kept():
    earlier = EarlierResult(entities=[c.GlossaryEntry(
        term_id="t_ct", term="CT", mention_count=1, extraction_status="ok",
        provenance=_provenance("DOC::0001", "Cycle Time (CT) means the time a loader needs."))])
    assert keep_terms([_entry("t_ct", "DOC::0001", status="escalated")], earlier, {"t_ct"}, CHUNKS).ids == []


def test_the_formulas_of_a_failed_chunk_are_kept_beside_this_runs_and_never_twice():
    ct = c.FormulaEntry(formula_id="f_ct", name="CT", provenance=_provenance("DOC::0003"))
    payload = c.FormulaEntry(formula_id="f_pl", name="Payload", provenance=_provenance("DOC::0002"))
    earlier = EarlierResult(entities=[ct, payload])
    fresh = [c.FormulaEntry(formula_id="f_pl", name="Payload", unit="t", provenance=_provenance("DOC::0002"))]
    kept = keep_by_chunk(iter(fresh), earlier, {"DOC::0003", "DOC::0002"}, CHUNKS, "formula_id")
    assert kept.ids == []  # nothing drawn yet: the ids are gathered as the entities are
    assert list(kept.entities) == [*fresh, ct] and kept.ids == ["f_ct"]
    kept = keep_by_chunk([], earlier, {"DOC::0001"}, CHUNKS, "formula_id")
    assert list(kept.entities) == [] and kept.ids == []


def test_a_failed_domain_call_keeps_the_earlier_title_and_key_parameters_and_derives_the_rest_again():
    previous = c.DomainContext(domain_id="d_1", title="Cycle Time (CT)", provenance=_provenance("DOC::0001"),
                               key_parameters=[c.KeyParameter(surface="CT", term_id="t_ct")], n_terms=9)
    built = c.DomainContext(domain_id="d_1", outline=["1. Haulage"], provenance=_provenance("DOC::0002"))
    earlier = EarlierResult(entities=[previous])
    kept = keep_domain(built, earlier, answered=False, chunks=CHUNKS)
    [domain] = kept.entities
    assert kept.ids == ["d_1"] and domain.title == "Cycle Time (CT)" and domain.outline == ["1. Haulage"]
    assert domain.key_parameters == [c.KeyParameter(surface="CT")] and domain.n_terms == 0
    assert keep_domain(built, earlier, answered=True, chunks=CHUNKS).entities == [built]
    assert keep_domain(built, EarlierResult(), answered=False, chunks=CHUNKS).ids == []


def test_a_kept_entry_keeps_its_span_check_rejections_and_its_first_runs_mark():
    rejected = [c.RejectedField(entry_term="T_CT", field="definition", offending_value="x", reason="r",
                                branch="glossary"),
                c.RejectedField(entry_term="OTHER", field="definition", offending_value="y", reason="r",
                                branch="glossary")]
    first = KeptRow("t_ct", kept_from_run_id="run-1", kept_from_revision=1, run_id="run-2")
    earlier = EarlierResult(entities=[], rejected=rejected, run_id="run-2", revision=1, kept={"t_ct": first})
    assert kept_rejections(earlier, [_entry("t_ct", "DOC::0001")]) == rejected[:1]
    assert earlier.mark("t_ct", "run-3") == KeptRow("t_ct", "run-1", 1, "run-3")
    assert earlier.mark("t_pl", "run-3") == KeptRow("t_pl", "run-2", 1, "run-3")


def test_an_earlier_entry_whose_span_crosses_into_the_next_chunk_is_kept_when_its_pieces_still_hold():
    texts = {"DOC::0001": "Downtime is counted from the breakdown", "DOC::0002": "until the unit is handed back."}
    chunks = {cid: c.Chunk(chunk_id=cid, seq=n, page=n, page_no=n + 1, text=text, char_start=0, char_end=len(text))
              for n, (cid, text) in enumerate(texts.items())}
    pieces = [c.SpanPiece(page=n, page_no=n + 1, chunk_id=cid, span=text)
              for n, (cid, text) in enumerate(texts.items())]
    crossing = c.Provenance(doc_id=DOC, span=" ".join(texts.values()), page=0, chunk_id="DOC::0001", pieces=pieces)
    earlier = EarlierResult(entities=[c.GlossaryEntry(term_id="t_dt", term="Downtime", mention_count=1,
                                                      extraction_status="ok", provenance=crossing)])
    fresh = [_entry("t_dt", "DOC::0001", status="escalated")]
    assert keep_terms(fresh, earlier, {"t_dt"}, chunks).ids == ["t_dt"]
    moved = {**chunks, "DOC::0002": chunks["DOC::0002"].model_copy(update={"text": "Availability is the share."})}
    assert keep_terms(fresh, earlier, {"t_dt"}, moved).ids == []
