"""A run's output does not depend on how many model calls are in flight: the samples through
every asset against a real OpenAI-compatible server on 127.0.0.1 (the answering model of
test_openai_pipeline) with KNOWLEDGE_LLM_CONCURRENCY 1 and 8, each in a store and an instance
of its own, give the same contract files, ids included, byte for byte."""

import json
from contextlib import contextmanager

import dagster as dg

from knowledge_assets import branches
from knowledge_assets.export import payloads
from knowledge_assets.ingest.documents import identify
from knowledge_assets.run_control.launch import materialize_documents
from knowledge_assets.store.database import DuckDBStore
from knowledge_assets.store.registry import register
from tests.conftest import SAMPLE_MARKDOWN, SAMPLE_PDF
from tests.extract.test_openai_pipeline import model
from tests.support.openai_server import OpenAIServer

CONTRACT_FILES = [spec.export_file for spec in branches.registered()] + ["review_queue.json"]


@contextmanager
def samples_against_the_model(root, concurrency: int, monkeypatch):
    """(store, instance, server, doc_ids): the two samples registered in a store and a Dagster
    instance of their own under `root`, the run's settings aimed at a loopback server answering
    as `model`, with `concurrency` calls in flight at most."""
    store = DuckDBStore(root / "knowledge.duckdb")
    # A little latency, so calls that may overlap do.
    with OpenAIServer(model, latency_s=0.05) as server:
        monkeypatch.setenv("KNOWLEDGE_DB", str(store.path))
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-CONCURRENCY")
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("KNOWLEDGE_LLM_MODEL", "loopback-nano")
        monkeypatch.setenv("KNOWLEDGE_LLM_CONCURRENCY", str(concurrency))
        monkeypatch.delenv("KNOWLEDGE_LLM_BACKEND", raising=False)
        (root / "dagster").mkdir(parents=True)
        with dg.instance_for_test(temp_dir=str(root / "dagster")) as instance:
            doc_ids = [register(store, identify(path)).source.doc_id for path in (SAMPLE_PDF, SAMPLE_MARKDOWN)]
            yield store, instance, server, doc_ids


def _contract_files(root, concurrency: int, monkeypatch) -> tuple[dict[str, dict[str, str]], int, int]:
    """Each document's contract files as JSON text, the requests the server received and the
    most it had in flight at once."""
    with samples_against_the_model(root, concurrency, monkeypatch) as (store, instance, server, doc_ids):
        outcomes = materialize_documents(instance, doc_ids)
        assert all(o.success for o in outcomes.values()), {d: o.error for d, o in outcomes.items()}
        files = {}
        for doc_id in doc_ids:
            found = payloads(store, doc_id)
            files[doc_id] = {name: json.dumps(_dumped(found[name]), sort_keys=True) for name in CONTRACT_FILES}
        return files, len(server.requests), server.max_in_flight


def _dumped(value):
    if isinstance(value, list):
        return [_dumped(item) for item in value]
    return value.model_dump(mode="json") if hasattr(value, "model_dump") else value


def test_the_contract_files_are_the_same_with_one_call_in_flight_and_with_eight(tmp_path, monkeypatch):
    one, asked_one, peak_one = _contract_files(tmp_path / "one", 1, monkeypatch)
    eight, asked_eight, peak_eight = _contract_files(tmp_path / "eight", 8, monkeypatch)

    assert peak_one == 1 and peak_eight > 1, (peak_one, peak_eight)
    assert asked_one == asked_eight
    for doc_id, files in one.items():
        for name, text in files.items():
            assert eight[doc_id][name] == text, f"{doc_id} {name} differs between concurrency 1 and 8"
    # Not vacuous: the model's answers made entries, ids and all.
    glossary = json.loads(one["SKT-MNT-KPI-002"]["glossary.json"])
    assert glossary and all(entry["term_id"].startswith("t_") for entry in glossary)
