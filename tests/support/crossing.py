"""A PDF of our own whose text crosses page breaks, run through the whole graph (D56, D66)."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import pytest

from knowledge_assets import contracts as c
from knowledge_assets.ingest.documents import identify
from knowledge_assets.run_control.launch import materialize_document
from knowledge_assets.store.database import DuckDBStore
from knowledge_assets.store.registry import register
from tests.documents import write_pdf


def run_pdf(root: Path, env: pytest.MonkeyPatch, name: str, pages: list[list[str]]):
    """Writes `pages` as the PDF `name` under `root`, registers it and materialises it on a
    temporary instance; returns the store, the doc_id and the partition's outcome."""
    store = DuckDBStore(root / "knowledge.duckdb")
    env.setenv("KNOWLEDGE_DB", str(store.path))
    (root / "dagster").mkdir()
    with dg.instance_for_test(temp_dir=str(root / "dagster")) as instance:
        doc_id = register(store, identify(write_pdf(root / name, pages))).source.doc_id
        outcome = materialize_document(instance, doc_id)
    return store, doc_id, outcome


def piece_pages(provenance: c.Provenance) -> list[int]:
    """The 1-based pages of a provenance's pieces ([] for a span within one chunk)."""
    return [piece.page_no for piece in provenance.pieces or []]
