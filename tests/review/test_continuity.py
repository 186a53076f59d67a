"""Approvals survive re-extraction: a re-run with a changed prompt and unchanged content keeps
them; changed content sends the entry back to the queue with what changed, the approval kept in
the history. Re-extraction never touches a review row."""

import shutil

import dagster as dg

from knowledge_assets.defs.assets.review import approved_knowledge
from knowledge_assets.defs.resources import KnowledgeStore
from knowledge_assets.ids import domain_id, term_id
from knowledge_assets.llm.prompts import PROMPTS_DIR, USER_MARKER
from knowledge_assets.review.approved import export_approved
from knowledge_assets.review.decisions import record_decision
from knowledge_assets.review.document_queues import worklist
from knowledge_assets.review.entities import find
from knowledge_assets.review.status import review_statuses
from tests.review.conftest import KPI

MTTR = term_id(KPI, "Mean Time To Repair")
MTBF = term_id(KPI, "Mean Time Between Failures")
MA = term_id(KPI, "Mechanical Availability")
SKT = f"{domain_id(KPI)}:Samudra Karya Tambang (SKT)"
MTTR_DEFINITION = "MTTR means the average time needed to return a unit to service after a breakdown."
MTTR_REWORDED = "MTTR means the average time needed to bring a unit back into service after a breakdown."


def _reviews(store):
    return store.fetch("SELECT * FROM knowledge_reviews ORDER BY reviewed_at")


def _approved_table(pipeline) -> set[tuple[str, str]]:
    result = dg.materialize([approved_knowledge], instance=pipeline.instance,
                            resources={"knowledge_store": KnowledgeStore()})
    assert result.success
    return {(r["entity_kind"], r["entity_id"]) for r in pipeline.store.fetch("SELECT * FROM approved_knowledge")}


def _states(store):
    return {s.key.ref: s.state for s in review_statuses(store, KPI)}


def _tuned_prompts(tmp_path):
    """A copy of prompts/ with the glossary prompt's instructions changed."""
    prompts = tmp_path / "tuned_prompts"
    shutil.copytree(PROMPTS_DIR, prompts)
    glossary = prompts / "glossary.txt"
    static, user = glossary.read_text(encoding="utf-8").split(USER_MARKER, 1)
    glossary.write_text(static + "\nPrefer the sentence under the term's own heading.\n" + USER_MARKER + user,
                        encoding="utf-8")
    return prompts


def test_an_approval_survives_a_re_run_with_a_changed_prompt_when_the_content_is_unchanged(
    pipeline, tmp_path, monkeypatch
):
    doc_id = pipeline.extract()
    store = pipeline.store
    assert find(store, MTTR).entity.diff_status == "new"
    record_decision(store, find(store, MTTR), "approved", "alice")
    record_decision(store, find(store, SKT), "approved", "alice")
    record_decision(store, find(store, MTBF), "rejected", "bob", note="incomplete")
    before = _reviews(store)
    assert _approved_table(pipeline) == {("term", MTTR), ("key_parameter", domain_id(KPI))}

    monkeypatch.setenv("KNOWLEDGE_PROMPTS_DIR", str(_tuned_prompts(tmp_path)))
    assert pipeline.extract() == doc_id
    hashes = store.fetch("SELECT DISTINCT prompt_hash FROM glossary_versions WHERE doc_id = ?", [doc_id])
    assert len(hashes) == 2  # the second run really used the changed prompt
    # …and moved what is not content: the diff status now compares with the first run.
    assert find(store, MTTR).entity.diff_status == "duplicate"

    assert _reviews(store) == before
    states = _states(store)
    assert (states[MTTR], states[SKT], states[MTBF], states[MA]) == ("approved", "approved", "rejected", "unreviewed")
    assert _approved_table(pipeline) == {("term", MTTR), ("key_parameter", domain_id(KPI))}
    pending = [item.id for item in worklist(store, KPI)]
    assert MA in pending and not {MTTR, SKT, MTBF} & set(pending)


def test_changed_content_sends_an_approved_entry_back_to_the_queue_saying_what_changed(pipeline, tmp_path):
    pipeline.extract()
    store = pipeline.store
    for ref in (MTTR, MTBF):
        record_decision(store, find(store, ref), "approved", "alice", note="matches the procedure")
    before = _reviews(store)

    text = pipeline.document.read_text(encoding="utf-8")
    assert MTTR_DEFINITION in text
    pipeline.document.write_text(text.replace(MTTR_DEFINITION, MTTR_REWORDED), encoding="utf-8")
    pipeline.extract()
    assert find(store, MTTR).entity.definition == MTTR_REWORDED

    assert _reviews(store) == before  # the approval is kept in the history, untouched
    states = _states(store)
    assert (states[MTTR], states[MTBF]) == ("stale", "approved")
    [item] = [i for i in worklist(store, KPI) if i.id == MTTR]
    assert item.state == "stale" and item.reason.startswith("definition changed since approved by alice on ")
    assert "return a unit to service" in item.reason and "bring a unit back into service" in item.reason
    assert _approved_table(pipeline) == {("term", MTBF)}
    export_approved(store, tmp_path / "out")
    exported = (tmp_path / "out" / KPI / "glossary.json").read_text(encoding="utf-8")
    assert MTBF in exported and MTTR not in exported

    record_decision(store, find(store, MTTR), "approved", "alice", note="the new wording is right")
    assert _states(store)[MTTR] == "approved"
    assert _approved_table(pipeline) == {("term", MTBF), ("term", MTTR)}
