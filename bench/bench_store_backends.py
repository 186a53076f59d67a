"""Write time per document on both stores: the DuckDB file and the shared store (D70).

    python bench/bench_store_backends.py [--repeats 10] [--runs 2] [--documents eval_assets/documents]

Against a real PostgreSQL server (tests/support/postgres.py) and a DuckDB file in a temporary
folder, with the project's own Python from the project root:

- **partition write**: the documents are run once offline into a DuckDB file; each document's
  rows of every table (some 20 tables, its chunks, mentions and knowledge) are read back and
  written again with `replace_partition` into each store, `--repeats` times; the median per
  document and backend. This is the store's share of a run, without the extraction.
- **whole run**: `knowledge-assets run DOCUMENTS` offline into each store, `--runs` times (a
  new store each time); the seconds each document's line reports, median per backend.

Run by hand, not in CI; it writes only under a temporary folder.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT_ROOT))

from knowledge_assets.store.database import DuckDBStore  # noqa: E402 (run as a script from the project root)
from knowledge_assets.store.postgres import PostgresStore  # noqa: E402
from knowledge_assets.store.protocol import Store  # noqa: E402 (run as a script from the project root)
from knowledge_assets.store.schema import TABLES  # noqa: E402
from tests.support.postgres import running_postgres  # noqa: E402

_CLI = [sys.executable, "-c", "from knowledge_assets.command import main; raise SystemExit(main())"]
_DOC_LINE = re.compile(r"^(?:ok|PARTIAL)\s+(\S+)\s.*\s(\d+\.\d+)s$", re.MULTILINE)


def _run(documents: Path, home: Path, store: str | None) -> dict[str, float]:
    """One offline `run`; the seconds each document's line reports."""
    env = {k: v for k, v in os.environ.items() if k not in ("KNOWLEDGE_STORE", "KNOWLEDGE_DB")}
    env |= {"PYTHONPATH": str(PROJECT_ROOT), "KNOWLEDGE_LLM_BACKEND": "offline", "KNOWLEDGE_HOME": str(home),
            "DAGSTER_HOME": str(home)}
    if store:
        env["KNOWLEDGE_STORE"] = store
    home.mkdir(parents=True)
    done = subprocess.run([*_CLI, "run", str(documents)], cwd=PROJECT_ROOT, env=env, capture_output=True,
                          text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"run failed:\n{done.stdout}\n{done.stderr}")
    return {doc_id: float(seconds) for doc_id, seconds in _DOC_LINE.findall(done.stdout)}


def _document_rows(store: Store, doc_id: str) -> dict[str, list[dict]]:
    return {table: store.fetch(f'SELECT * FROM "{table}" WHERE doc_id = ?', [doc_id])
            for table, columns in TABLES.items() if "doc_id" in columns}


def _fresh_database(server, name: str) -> str:
    server.psql(f'CREATE DATABASE "{name}"')
    return server.url.rsplit("/", 1)[0] + f"/{name}"


def _partition_writes(source: Store, doc_ids: list[str], stores: dict, repeats: int) -> dict[str, dict[str, float]]:
    medians: dict[str, dict[str, float]] = {name: {} for name in stores}
    for doc_id in doc_ids:
        rows = _document_rows(source, doc_id)
        for name, store in stores.items():
            times = []
            with store.session():
                for _ in range(repeats):
                    started = time.perf_counter()
                    store.replace_partition(doc_id, rows)
                    times.append(time.perf_counter() - started)
            medians[name][doc_id] = statistics.median(times)
    return medians


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--documents", type=Path, default=PROJECT_ROOT / "eval_assets" / "documents")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-store-backends-") as tmp, running_postgres() as server:
        root = Path(tmp)
        source_home = root / "source"
        _run(args.documents, source_home, None)
        source = DuckDBStore(source_home / "knowledge.duckdb")
        doc_ids = [r["doc_id"] for r in source.fetch("SELECT DISTINCT doc_id FROM documents ORDER BY doc_id")]
        rows = {d: sum(len(v) for v in _document_rows(source, d).values()) for d in doc_ids}
        stores = {"duckdb": DuckDBStore(root / "target.duckdb"),
                  "postgresql": PostgresStore(_fresh_database(server, "w"))}
        writes = _partition_writes(source, doc_ids, stores, args.repeats)
        print(f"partition write, median of {args.repeats} (all of a document's tables, one transaction):")
        for doc_id in doc_ids:
            print(f"  {doc_id} ({rows[doc_id]} rows): " + "  ".join(
                f"{name} {writes[name][doc_id] * 1000:.0f} ms" for name in stores))
        whole: dict[str, list[float]] = {"duckdb": [], "postgresql": []}
        for i in range(args.runs):
            for name in whole:
                store = None if name == "duckdb" else _fresh_database(server, f"run{i}")
                whole[name].extend(_run(args.documents, root / f"{name}-{i}", store).values())
        print(f"whole offline run, seconds per document (median of {args.runs} runs x {len(doc_ids)} documents):")
        for name, seconds in whole.items():
            print(f"  {name}: {statistics.median(seconds):.2f} s  (all: {', '.join(f'{s:.2f}' for s in seconds)})")


if __name__ == "__main__":
    main()
