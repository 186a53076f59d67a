"""Links from the Dagster UI to the review pages: made from KNOWLEDGE_REVIEW_URL, absent without it."""

from __future__ import annotations

import dagster as dg

from knowledge_assets.defs.assets.review import approved_knowledge
from knowledge_assets.defs.resources import KnowledgeStore
from knowledge_assets.review.web.links import REVIEW_URL_VARIABLE, document_review_url
from knowledge_assets.run_control.launch import materialize_document
from tests.review.conftest import KPI, PRM


def test_a_documents_review_url_is_built_from_the_base_url_only_when_one_is_set(monkeypatch):
    monkeypatch.delenv(REVIEW_URL_VARIABLE, raising=False)
    assert document_review_url(KPI) is None
    monkeypatch.setenv(REVIEW_URL_VARIABLE, "http://review.example:8765/")
    assert document_review_url(KPI) == f"http://review.example:8765/documents/{KPI}"


def test_each_review_queue_materialisation_links_to_its_documents_review_page(pipeline, monkeypatch):
    monkeypatch.setenv(REVIEW_URL_VARIABLE, "http://127.0.0.1:8765")
    doc_id = pipeline.extract()
    outcome = materialize_document(pipeline.instance, doc_id)
    assert outcome.metadata["review_queue"]["review_page"] == f"http://127.0.0.1:8765/documents/{doc_id}"
    monkeypatch.delenv(REVIEW_URL_VARIABLE)
    assert "review_page" not in materialize_document(pipeline.instance, doc_id).metadata["review_queue"]


def test_approved_knowledge_links_each_document_to_its_review_page(extracted, instance, monkeypatch):
    monkeypatch.setenv(REVIEW_URL_VARIABLE, "http://127.0.0.1:8765")
    result = dg.materialize([approved_knowledge], instance=instance, resources={"knowledge_store": KnowledgeStore()})
    [event] = result.get_asset_materialization_events()
    metadata = {k: v.value for k, v in event.event_specific_data.materialization.metadata.items()}
    assert metadata["review"] == "http://127.0.0.1:8765/"
    for doc_id in (KPI, PRM):
        assert f"| [{doc_id}](http://127.0.0.1:8765/documents/{doc_id}) |" in metadata["by_document"]
