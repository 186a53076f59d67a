"""Both sample documents materialised once, offline, through the whole graph."""

from __future__ import annotations

import dagster as dg
import pytest

from knowledge_assets.ingest.documents import identify
from knowledge_assets.run_control.launch import materialize_document
from knowledge_assets.store.database import DuckDBStore
from knowledge_assets.store.registry import register
from tests.conftest import SAMPLE_MARKDOWN, SAMPLE_PDF


@pytest.fixture(scope="module")
def offline_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("offline")
    store = DuckDBStore(root / "knowledge.duckdb")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("KNOWLEDGE_DB", str(store.path))
        env.setenv("KNOWLEDGE_LLM_BACKEND", "offline")
        (root / "dagster").mkdir()
        with dg.instance_for_test(temp_dir=str(root / "dagster")) as instance:
            outcomes = {}
            for path in (SAMPLE_PDF, SAMPLE_MARKDOWN):
                doc_id = register(store, identify(path)).source.doc_id
                outcomes[doc_id] = materialize_document(instance, doc_id)
            yield store, instance, outcomes
