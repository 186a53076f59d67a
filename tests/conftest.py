"""Fixtures shared by every test: a real DuckDB file, a real temporary Dagster instance,
real sample documents."""

from __future__ import annotations

from pathlib import Path

import dagster as dg
import pytest

from knowledge_assets.store.database import DuckDBStore
from knowledge_assets.store.protocol import Store

PROJECT_ROOT = Path(__file__).resolve().parents[1]
SAMPLE_DOCUMENTS = PROJECT_ROOT / "eval_assets" / "documents"
SAMPLE_PDF = SAMPLE_DOCUMENTS / "std_parameter_produksi.pdf"
SAMPLE_MARKDOWN = SAMPLE_DOCUMENTS / "maintenance_kpi.md"


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return DuckDBStore(tmp_path / "knowledge.duckdb")


@pytest.fixture
def instance(tmp_path):
    (tmp_path / "dagster").mkdir()
    with dg.instance_for_test(temp_dir=str(tmp_path / "dagster")) as instance:
        yield instance
