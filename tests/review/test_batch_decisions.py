"""Batch decisions and undo over a real extracted store: one row per entry, undo appends."""

from __future__ import annotations

from dataclasses import replace

import pytest

from knowledge_assets import contracts as c
from knowledge_assets.review.batch_decisions import EntriesChanged, decide_all, undo
from knowledge_assets.review.decisions import Shown, history, record_decision
from knowledge_assets.review.document_queues import progress, queue_entries
from knowledge_assets.review.entities import ReviewError
from knowledge_assets.review.fingerprint import fingerprint
from knowledge_assets.review.status import review_statuses
from tests.review.conftest import PRM, snapshot


def _undefined_terms(store) -> list:
    return [e for e in queue_entries(store, PRM) if e.reason == c.REVIEW_REASON_NO_DEFINITION]


def test_a_batch_rejection_records_one_row_per_entry_with_the_reviewer_and_note(extracted):
    chosen = [e.status.item for e in queue_entries(extracted, PRM)[:3]]
    recorded = decide_all(extracted, chosen, "rejected", "alice", "not a term of this standard")
    rows = history(extracted, PRM)
    assert [(r.key, r.decision, r.reviewer, r.note) for r in rows] == [
        (item.key, "rejected", "alice", "not a term of this standard") for item in chosen]
    assert {r.review_id for r in rows} == {r.review_id for r in recorded}


def test_a_batch_rejection_without_a_note_and_a_batch_edit_are_refused_before_anything_is_written(extracted):
    chosen = [e.status.item for e in queue_entries(extracted, PRM)[:2]]
    with pytest.raises(ReviewError, match="needs a note"):
        decide_all(extracted, chosen, "rejected", "alice")
    with pytest.raises(ReviewError, match="entry by entry"):
        decide_all(extracted, chosen, "edited", "alice")
    assert history(extracted, PRM) == []


def test_undo_withdraws_a_first_decision_and_restores_an_earlier_one(extracted):
    first, second = (e.status.item for e in queue_entries(extracted, PRM)[:2])
    record_decision(extracted, second, "approved", "bob", "checked against §2")
    batch = decide_all(extracted, [first, second], "rejected", "alice", "wrong")
    done = undo(extracted, PRM, [r.review_id for r in batch], "alice")
    assert done.superseded == []
    states = {s.key: s.state for s in review_statuses(extracted, PRM)}
    assert states[first.key] == "unreviewed" and states[second.key] == "approved"
    latest = {r.key: r for r in history(extracted, PRM)}
    assert latest[first.key].decision == "withdrawn" and latest[first.key].reviewer == "alice"
    assert "restores approved by bob" in latest[second.key].note
    assert len(history(extracted, PRM)) == 5  # appended, nothing deleted


def test_undo_leaves_a_decision_a_later_one_superseded(extracted):
    item = queue_entries(extracted, PRM)[0].status.item
    batch = decide_all(extracted, [item], "approved", "alice")
    record_decision(extracted, item, "rejected", "bob", "after all, no")
    done = undo(extracted, PRM, [batch[0].review_id], "alice")
    assert done.reviews == [] and done.superseded == [item.key.ref]
    assert next(s.state for s in review_statuses(extracted, PRM) if s.key == item.key) == "rejected"


def test_progress_counts_decided_of_total_for_the_document_and_each_kind(extracted):
    terms = [e for e in queue_entries(extracted, PRM) if e.kind == "term"]
    decide_all(extracted, [e.status.item for e in terms[:2]], "approved", "alice")
    counts = {p.kind: (p.decided, p.total) for p in progress(queue_entries(extracted, PRM))}
    total = len(queue_entries(extracted, PRM))
    assert counts[None] == (2, total) and counts["term"] == (2, len(terms))
    assert counts["formula"][0] == 0


def test_an_entry_outside_the_contract_queue_has_the_queue_s_routine_reason_and_a_decided_one_its_decision(
    extracted,
):
    entries = queue_entries(extracted, PRM)
    formula = next(e for e in entries if e.kind == "formula")
    assert formula.reason == c.REVIEW_REASON_ROUTINE
    record_decision(extracted, formula.status.item, "approved", "alice")
    decided = next(e for e in queue_entries(extracted, PRM) if e.ref == formula.ref)
    assert decided.reason.startswith("approved by alice on ")
    assert _undefined_terms(extracted)  # the PRM sample has terms without a definition to batch-reject


def _decided_on_earlier_content(store, item, reviewer: str):
    """A decision `reviewer` took on this entry when its content differed (a later run changed
    it): the row an approval before a re-extraction leaves, written as record_decision writes."""
    recorded = record_decision(store, item, "approved", reviewer, "checked against §2")
    content = {**recorded.reviewed_content, "definition": "an earlier wording of the definition"}
    earlier = replace(recorded, review_id=recorded.review_id + "-earlier", reviewed_content=content,
                      fingerprint=fingerprint(content))
    store.append("knowledge_reviews", [earlier.row()])
    return earlier


def test_undo_of_a_reapproval_after_the_content_changed_brings_the_entry_back_to_stale(extracted):
    item = next(e.status.item for e in queue_entries(extracted, PRM) if e.kind == "term")
    earlier = _decided_on_earlier_content(extracted, item, "bob")
    [status] = [s for s in review_statuses(extracted, PRM) if s.key == item.key]
    assert status.state == "stale"
    stale_reason = status.stale_reason

    again = record_decision(extracted, item, "approved", "alice", "the new wording is right")
    undo(extracted, PRM, [again.review_id], "alice")

    [status] = [s for s in review_statuses(extracted, PRM) if s.key == item.key]
    # The same change is named; the decision it names is the restored row, under the undoer's name (D61).
    assert status.state == "stale" and status.stale_reason.startswith("definition changed since approved by alice")
    assert status.stale_reason.split(": ", 1)[1] == stale_reason.split(": ", 1)[1]
    restored = history(extracted, PRM)[-1]
    assert (restored.decision, restored.reviewer, restored.fingerprint) == ("approved", "alice", earlier.fingerprint)
    assert restored.note.startswith("undo of approved by alice") and "restores approved by bob" in restored.note


def _shown_now(entries) -> dict:
    return {e.status.key: Shown(e.status.fingerprint, e.status.content) for e in entries}


def _shown_before_a_change(entry) -> Shown:
    """What a page showed of `entry` before a run changed one of its fields."""
    content = dict(entry.status.content)
    name = next(n for n, v in content.items() if isinstance(v, str))
    content[name] += " (as the earlier run wrote it)"
    return Shown(fingerprint(content), content)


@pytest.mark.parametrize("decision, note", [("approved", None), ("rejected", "not a term of this standard")])
def test_a_batch_with_an_entry_changed_since_shown_records_nothing_and_names_that_entry(extracted, decision, note):
    chosen = queue_entries(extracted, PRM)[:3]
    shown = {**_shown_now(chosen), chosen[1].status.key: _shown_before_a_change(chosen[1])}
    before = snapshot(extracted)
    with pytest.raises(EntriesChanged) as refused:
        decide_all(extracted, [e.status.item for e in chosen], decision, "alice", note, shown)
    assert snapshot(extracted) == before  # all or nothing (D82): the two unchanged are not recorded either
    [refusal] = refused.value.refusals
    assert refusal.item.key == chosen[1].status.key and len(refusal.changed) == 1
    assert str(refused.value).startswith("not recorded: 1 of the entries changed since they were shown")
    recorded = decide_all(extracted, [e.status.item for e in chosen], decision, "alice", note, _shown_now(chosen))
    assert [r.key for r in recorded] == [e.status.key for e in chosen]


def test_a_batch_entry_nothing_says_was_shown_is_refused(extracted):
    chosen = queue_entries(extracted, PRM)[:2]
    with pytest.raises(ReviewError, match=f"nothing says what was shown of {chosen[1].ref}"):
        decide_all(extracted, [e.status.item for e in chosen], "approved", "alice", shown=_shown_now(chosen[:1]))
    assert history(extracted, PRM) == []


def test_an_undo_of_an_entry_changed_since_its_page_was_shown_records_nothing(extracted):
    entries = queue_entries(extracted, PRM)[:2]
    batch = decide_all(extracted, [e.status.item for e in entries], "rejected", "alice", "wrong", _shown_now(entries))
    before = snapshot(extracted)
    shown = {**_shown_now(entries), entries[0].status.key: _shown_before_a_change(entries[0])}
    with pytest.raises(EntriesChanged) as refused:
        undo(extracted, PRM, [r.review_id for r in batch], "alice", shown)
    assert [r.item.key for r in refused.value.refusals] == [entries[0].status.key]
    assert snapshot(extracted) == before
    done = undo(extracted, PRM, [r.review_id for r in batch], "alice", _shown_now(entries))
    assert [r.decision for r in done.reviews] == ["withdrawn", "withdrawn"]
