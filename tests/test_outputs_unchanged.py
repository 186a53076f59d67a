"""The offline pipeline's outputs on the two samples, pinned by digest: a change meant to be
invisible (how rows are written, how connections are held, what is imported when) must leave
every table's content byte for byte as it was. The corpus's tables are pinned the same way in
tests/evaluation/test_corpus_eval.py.

What varies from run to run is left out of the digest: timestamps, run ids, latencies, and the
absolute paths of the copied documents. A deliberate change of outputs updates DIGESTS (the
failure message prints the new ones)."""

import hashlib
import os
import shutil
import subprocess
import sys

import duckdb

from knowledge_assets.store.schema import TABLES
from tests.conftest import PROJECT_ROOT, SAMPLE_DOCUMENTS

_VARYING = {"run_id", "latency_s", "source_path", "source_file"}

# Written from main @ 6ac6c31 (the merged extraction), before the store's batched writes landed.
DIGESTS = {
    "documents": "2:45825aba112da584",
    "parsed_documents": "2:21d04d201bb78631",
    "parsed_pages": "10:1a4280967b603ceb",
    "parsed_chunks": "57:90e38f5b81587b90",
    "definition_candidates": "56:349ad8d8c22e613a",
    "term_mentions": "809:37e96205d852d42d",
    "term_clusters": "120:436bf83eaf9eab14",  # `KPI` heads its entry, not `KPIs` (D80)
    "llm_usage": "12:459fe7576232b68c",  # rule and formula batches sized by candidate window (D49)
    "llm_cache": "0:e3b0c44298fc1c14",
    "formulas": "30:7338de27907d57c9",
    "glossary": "120:32233dd4328b01d3",  # `Standby eksternal` defined by the general recogniser (D79)
    "rules": "69:f161efca6dedd3aa",  # rule_type by the contract's meaning (D51)
    "domain_context": "2:471cdc2125cc856e",
    "review_queue": "120:3fcd830ca64ce782",
    "rejected_fields": "0:e3b0c44298fc1c14",
    "glossary_versions": "120:abfbf7c11a6b9514",
    "knowledge_reviews": "0:e3b0c44298fc1c14",
    "review_batches": "0:e3b0c44298fc1c14",  # batches of review decisions, undoable from the store (D88)
    "approved_knowledge": "0:e3b0c44298fc1c14",
    "eval_scores": "2:a114e6f4b9e4d4ac",  # SKT-STD-PRM-001 definition precision 0.95 (D79)
    "kept_rows": "0:e3b0c44298fc1c14",
    "asset_checks": "10:dfd81aded602f0cc",
    "asset_revisions": "14:c44d011ff19d7d85",
}


def _stable_columns(table: str) -> list[str]:
    return [c for c, sql_type in TABLES[table].items()
            if c not in _VARYING and not sql_type.startswith("TIMESTAMP")]


def table_digests(db_path) -> dict[str, str]:
    """sha256 of each table's rows (stable columns only, sorted), and its row count."""
    con = duckdb.connect(str(db_path), read_only=True)
    try:
        digests = {}
        for table in TABLES:
            columns = _stable_columns(table)
            names = ", ".join(f'"{c}"' for c in columns)
            rows = sorted(repr(row) for row in con.execute(f'SELECT {names} FROM "{table}"').fetchall())
            digest = hashlib.sha256("\n".join(rows).encode("utf-8")).hexdigest()[:16]
            digests[table] = f"{len(rows)}:{digest}"
        return digests
    finally:
        con.close()


def test_offline_outputs_on_the_samples_are_unchanged(tmp_path):
    docs = tmp_path / "docs"
    shutil.copytree(SAMPLE_DOCUMENTS, docs)
    home = tmp_path / "home"
    home.mkdir()
    (home / "dagster.yaml").write_text("telemetry:\n  enabled: false\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "KNOWLEDGE_LLM"))}
    env |= {"KNOWLEDGE_DB": str(home / "knowledge.duckdb"), "DAGSTER_HOME": str(home)}
    result = subprocess.run([sys.executable, "-m", "knowledge_assets.command", "run", str(docs)],
                            cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    assert table_digests(home / "knowledge.duckdb") == DIGESTS
