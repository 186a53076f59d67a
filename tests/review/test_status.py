"""Continuity at the unit level: which decision applies, what a stale entry says, and the
function the review-queue stage calls to leave decided rows out."""

from datetime import datetime

from knowledge_assets import contracts as c
from knowledge_assets.ids import domain_id, term_id
from knowledge_assets.queue import build_queue
from knowledge_assets.review.decisions import Review, record_decision
from knowledge_assets.review.entities import current_entities, find
from knowledge_assets.review.fingerprint import fingerprint, reviewed_content
from knowledge_assets.review.status import queue_key, review_statuses, statuses_of, still_pending
from knowledge_assets.store.knowledge import load_entities
from tests.review.conftest import KPI

MTTR = term_id(KPI, "Mean Time To Repair")
SKT = f"{domain_id(KPI)}:Samudra Karya Tambang (SKT)"


def _review_of(item, decision, content):
    return Review(review_id="rv_1", doc_id=item.doc_id, key=item.key, decision=decision, edited_payload=None,
                  reviewer="alice", reviewed_at=datetime(2026, 9, 10, 14, 3), note=None,
                  fingerprint=fingerprint(content), reviewed_content=content)


def test_the_latest_decision_applies_while_the_content_is_what_the_reviewer_saw(extracted):
    item = find(extracted, MTTR)
    record_decision(extracted, item, "rejected", "bob", note="too vague")
    record_decision(extracted, item, "approved", "alice")
    [status] = [s for s in review_statuses(extracted, KPI) if s.key == item.key]
    assert status.state == "approved" and not status.pending and status.stale_reason is None
    assert status.latest.reviewer == "alice"


def test_a_decision_on_other_content_is_stale_and_says_what_changed_then_and_now(extracted):
    item = find(extracted, MTTR)
    seen = {**reviewed_content("term", item.entity),
            "definition": "MTTR means the average time needed to return a unit to work after a breakdown.",
            "subdomain_tags": ["maintenance"]}
    [status] = statuses_of([item], {item.key: _review_of(item, "approved", seen)})
    assert status.state == "stale" and status.pending
    assert status.stale_reason == (
        "definition, subdomain_tags changed since approved by alice on 2026-09-10 14:03 UTC: "
        'definition was "…rage time needed to return a unit to work after a breakdown.", '
        'now "…e time needed to return a unit to service after a breakdown."; '
        "subdomain_tags was \"['maintenance']\", now \"['equipment', 'maintenance']\""
    )


def test_a_rejection_of_other_content_is_stale_too(extracted):
    item = find(extracted, MTTR)
    seen = {**reviewed_content("term", item.entity), "full_name": None}
    [status] = statuses_of([item], {item.key: _review_of(item, "rejected", seen)})
    assert status.state == "stale"
    assert status.stale_reason.startswith('full_name changed since rejected by alice on 2026-09-10 14:03 UTC: '
                                          'full_name was "null"')


def test_every_current_entity_has_a_status_and_resolved_key_parameters_need_none(extracted):
    statuses = review_statuses(extracted, KPI)
    kinds = [s.key.kind for s in statuses]
    counts = {t: len(extracted.fetch(f"SELECT 1 FROM {t} WHERE doc_id = ?", [KPI]))
              for t in ("glossary", "formulas", "rules")}
    assert (kinds.count("term"), kinds.count("formula"), kinds.count("rule"), kinds.count("domain")) == (
        counts["glossary"], counts["formulas"], counts["rules"], 1)
    assert [s.key.ref for s in statuses if s.key.kind == "key_parameter"] == [SKT]
    assert {s.state for s in statuses} == {"unreviewed"}
    assert len(current_entities(extracted, KPI)) == len(statuses)


def test_the_queue_stage_leaves_decided_rows_out_and_ranks_the_rest_again(extracted):
    glossary = load_entities(extracted, "glossary", KPI, c.GlossaryEntry)
    [domain] = load_entities(extracted, "domain_context", KPI, c.DomainContext)
    rows = build_queue(glossary, domain)
    record_decision(extracted, find(extracted, MTTR), "approved", "alice")
    record_decision(extracted, find(extracted, SKT), "rejected", "alice", note="the company, not a parameter")
    pending = still_pending(rows, review_statuses(extracted, KPI))
    decided = {find(extracted, MTTR).key, find(extracted, SKT).key}
    assert [queue_key(r) for r in pending] == [queue_key(r) for r in rows if queue_key(r) not in decided]
    assert [r.rank for r in pending] == list(range(1, len(rows) - 1))
