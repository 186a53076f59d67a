from datetime import datetime

from knowledge_assets.store.audit import (
    GlossaryRun,
    latest_glossary_run,
    model_call_count,
    rejected_counts_by_branch,
)

AT = datetime(2026, 1, 5, 9, 30)


def _rejected(doc_id: str, branch: str, term: str) -> dict:
    return {"doc_id": doc_id, "branch": branch, "entry_term": term, "field": "definition",
            "offending_value": "x", "reason": "not verbatim"}


def _call(deployment: str, cache_hit: bool) -> dict:
    return {"doc_id": "SOP-1", "run_id": "r1", "branch": "glossary", "deployment": deployment, "tier": "small",
            "prompt_tokens": 10, "cached_tokens": 0, "completion_tokens": 5, "latency_s": 0.1, "retries": 0,
            "structured_output_mode": "json_schema", "simulated": False, "cache_hit": cache_hit,
            "outcome": "ok", "created_at": AT}


def _version(run_id: str, at: datetime, model: str) -> dict:
    return {"doc_id": "SOP-1", "run_id": run_id, "created_at": at, "backend": "openai", "model": model,
            "prompt_hash": f"sha-{run_id}", "term_id": "t1", "term": "Fill factor", "definition": None}


def test_rejected_fields_are_counted_per_branch_of_one_document(store):
    store.append("rejected_fields", [_rejected("SOP-1", "glossary", "a"), _rejected("SOP-1", "glossary", "b"),
                                     _rejected("SOP-1", "rule", "c"), _rejected("SOP-2", "rule", "d")])
    assert rejected_counts_by_branch(store, "SOP-1") == {"glossary": 2, "rule": 1}
    assert rejected_counts_by_branch(store, "SOP-3") == {}


def test_the_latest_glossary_run_is_the_newest_version_written(store):
    assert latest_glossary_run(store, "SOP-1") is None
    store.append("glossary_versions", [_version("r1", AT, "old-model"),
                                       _version("r2", AT.replace(hour=10), "new-model")])
    assert latest_glossary_run(store, "SOP-1") == GlossaryRun("openai", "new-model", "sha-r2")


def test_model_calls_leave_out_one_deployment_and_cache_replays(store):
    store.append("llm_usage", [_call("gpt-x", False), _call("gpt-x", True), _call("offline", False)])
    assert model_call_count(store, except_deployment="offline") == 1
