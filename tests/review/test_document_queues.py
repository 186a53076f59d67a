"""knowledge_assets/review/document_queues.py: the documents a session starts from, and a whole queue."""

from __future__ import annotations

from knowledge_assets.ingest.documents import identify
from knowledge_assets.review.decisions import record_decision
from knowledge_assets.review.document_queues import document_summaries, queue_entries, reviewed_source, worklist
from knowledge_assets.review.entities import find
from knowledge_assets.store.registry import latest_source, register
from tests.review.conftest import KPI, PRM


def test_each_document_is_summarised_with_its_counts_and_review_states(extracted, tmp_path):
    record_decision(extracted, find(extracted, worklist(extracted, KPI)[0].id), "approved", "alice")
    late = tmp_path / "late.txt"
    late.write_text("Registered, never run.\n", encoding="utf-8")
    register(extracted, identify(late, "LATE-1"))
    summaries = {s.doc_id: s for s in document_summaries(extracted)}
    assert list(summaries) == ["LATE-1", KPI, PRM]
    kpi = summaries[KPI]
    glossary = extracted.fetch("SELECT count(*) n, count(definition) d FROM glossary WHERE doc_id = ?", [KPI])[0]
    assert (kpi.terms, kpi.definitions) == (glossary["n"], glossary["d"])
    assert (kpi.revision, kpi.pages, kpi.kind, kpi.title) == (1, 1, "markdown", "Maintenance KPI Procedure")
    assert kpi.states["approved"] == 1 and kpi.states["unreviewed"] == len(worklist(extracted, KPI))
    assert kpi.extracted and kpi.last_run is not None
    assert not summaries["LATE-1"].extracted and summaries["LATE-1"].states == {}
    assert [s.doc_id for s in document_summaries(extracted, [PRM])] == [PRM]


def test_the_queue_holds_every_entity_pending_first_in_worklist_order_then_decided(extracted):
    pending = worklist(extracted, PRM)
    decided = find(extracted, pending[1].id)
    record_decision(extracted, decided, "rejected", "bob", note="not a term")
    entries = queue_entries(extracted, PRM)
    assert [e.ref for e in entries[:len(pending) - 1]] == [item.id for item in worklist(extracted, PRM)]
    assert [e.reason for e in entries[:len(pending) - 1]] == [item.reason for item in worklist(extracted, PRM)]
    assert entries[-1].ref == decided.key.ref and entries[-1].state == "rejected"
    assert [e.position for e in entries] == list(range(1, len(entries) + 1))


def test_the_reviewed_source_is_the_registration_whose_content_was_parsed_not_the_latest(extracted, tmp_path):
    parsed = reviewed_source(extracted, PRM)
    assert parsed is not None and parsed.kind == "pdf" and parsed.path.is_file()
    # A later revision at another path, not run yet: the entries still come from the first.
    later = latest_source(extracted, PRM)[0]
    extracted.append("documents", [{
        "doc_id": PRM, "revision": 2, "content_sha256": "f" * 64, "kind": "pdf", "key_source": later.key_source,
        "source_path": str(tmp_path / "moved.pdf"), "file_name": "moved.pdf", "registered_at": "2999-01-01 00:00:00"}])
    assert latest_source(extracted, PRM)[0].path == tmp_path / "moved.pdf"
    assert reviewed_source(extracted, PRM) == parsed
