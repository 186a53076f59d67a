"""The review-queue stage leaves out entries whose latest decision still applies."""

from knowledge_assets.ids import term_id
from knowledge_assets.review.decisions import record_decision
from knowledge_assets.review.entities import find
from tests.review.conftest import KPI

MTTR = term_id(KPI, "Mean Time To Repair")
MTTR_DEFINITION = "MTTR means the average time needed to return a unit to service after a breakdown."


def _queued(store):
    rows = store.fetch("SELECT term_id, rank FROM review_queue WHERE doc_id = ? ORDER BY rank", [KPI])
    assert [r["rank"] for r in rows] == list(range(1, len(rows) + 1))
    return [r["term_id"] for r in rows]


def test_a_decided_entry_leaves_the_stored_queue_and_returns_when_its_content_changes(pipeline):
    pipeline.extract()
    assert MTTR in _queued(pipeline.store)
    record_decision(pipeline.store, find(pipeline.store, MTTR), "approved", "alice")
    pipeline.extract()
    assert MTTR not in _queued(pipeline.store)
    text = pipeline.document.read_text(encoding="utf-8")
    pipeline.document.write_text(text.replace(MTTR_DEFINITION, MTTR_DEFINITION.replace("return", "bring")),
                                 encoding="utf-8")
    pipeline.extract()
    assert MTTR in _queued(pipeline.store)
