"""The store's share of a document run, and what one run costs it (issue 13's rows).

    python -m bench.bench_store [--pages 300] [--rows 19025] [--repeats 5]

1. Batched insert against one statement per row, side by side on the same rows: `term_mentions`
   rows written as `DuckDBStore` writes them now (one INSERT ... SELECT from a DataFrame) and the way
   it used to (`executemany`, one INSERT per row). Prints both medians and their ratio.
2. The DuckDB write share of a whole offline run of a PDF built by repeating the sample's pages
   to --pages: the run is the CLI's (`run_control.launch.materialize_document`, one Dagster run in
   this process), the writes are the time spent inside `DuckDBStore.replace_partition` and `DuckDBStore.append`.
   Judged by: write share <= 10 %.
3. Connections opened per document run (calls of `duckdb.connect` during that run) and how
   often the schema was checked. Judged by: one per run.

Medians of --repeats; the machine is shared, so quote medians. Run from the project root by
hand, not in CI; it writes only under a temporary folder.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

import dagster as dg
import duckdb

from bench.bench_parse import build_long_pdf
from knowledge_assets.store import database
from knowledge_assets.store.database import DuckDBStore
from knowledge_assets.store.schema import TABLES


def _mention_rows(n: int) -> list[dict]:
    return [{"doc_id": "BENCH", "chunk_id": f"BENCH::{i // 40:04d}", "char_start": i % 40 * 10,
             "char_end": i % 40 * 10 + 7, "surface": f"surface {i % 997}", "kind": "phrase",
             "noise": None if i % 3 else "stopword", "term_id": f"term_{i % 501:08x}" if i % 3 else None}
            for i in range(n)]


def _per_row_insert(con: duckdb.DuckDBPyConnection, table: str, rows: list[dict]) -> None:
    """The store's former write: one INSERT statement per row."""
    columns = list(TABLES[table])
    names = ", ".join(f'"{c}"' for c in columns)
    marks = ", ".join("?" for _ in columns)
    con.executemany(f'INSERT INTO "{table}" ({names}) VALUES ({marks})', [[row[c] for c in columns] for row in rows])


def insert_side_by_side(directory: Path, n_rows: int, repeats: int) -> None:
    rows = _mention_rows(n_rows)
    store = DuckDBStore(directory / "insert.duckdb")
    timings: dict[str, list[float]] = {"batched": [], "per_row": []}
    for _ in range(repeats):
        for name, write in (("batched", database._insert), ("per_row", _per_row_insert)):
            with store.connect() as con:
                con.execute("DELETE FROM term_mentions")
                started = time.perf_counter()
                write(con, "term_mentions", rows)
                timings[name].append(time.perf_counter() - started)
    batched, per_row = (statistics.median(timings[k]) for k in ("batched", "per_row"))
    print(f"insert {n_rows} term_mentions rows: batched {batched:.3f} s, one statement per row {per_row:.3f} s, "
          f"ratio {per_row / batched:.0f}x (medians of {repeats})")


class _Meter:
    """Wall time inside the store's writes, and the file opens, during one run."""

    def __init__(self) -> None:
        self.write_s = 0.0
        self.opens = 0
        self.schema_checks = 0

    def __enter__(self) -> _Meter:
        self._saved = {name: getattr(DuckDBStore, name) for name in ("replace_partition", "append", "_ensure_schema")}
        self._connect = duckdb.connect
        meter = self

        def timed(method):
            def run(*args, **kwargs):
                started = time.perf_counter()
                try:
                    return method(*args, **kwargs)
                finally:
                    meter.write_s += time.perf_counter() - started
            return run

        def counted_schema(store, con):
            meter.schema_checks += 1
            return self._saved["_ensure_schema"](store, con)

        def counted_connect(*args, **kwargs):
            meter.opens += 1
            return self._connect(*args, **kwargs)

        DuckDBStore.replace_partition = timed(self._saved["replace_partition"])
        DuckDBStore.append = timed(self._saved["append"])
        DuckDBStore._ensure_schema = counted_schema
        duckdb.connect = counted_connect
        return self

    def __exit__(self, *exc) -> None:
        for name, method in self._saved.items():
            setattr(DuckDBStore, name, method)
        duckdb.connect = self._connect


def run_share(directory: Path, pages: int, repeats: int) -> None:
    from knowledge_assets.ingest.documents import identify
    from knowledge_assets.run_control.launch import materialize_document
    from knowledge_assets.store.registry import register

    pdf = build_long_pdf(pages, directory / f"long-{pages}.pdf")
    shares, totals, opens, checks = [], [], [], []
    for attempt in range(repeats):
        db = directory / f"run-{attempt}.duckdb"
        os.environ["KNOWLEDGE_DB"] = str(db)
        doc_id = register(DuckDBStore(db), identify(pdf, f"BENCH-{pages}")).source.doc_id
        (directory / f"dagster-{attempt}").mkdir()
        with dg.instance_for_test(temp_dir=str(directory / f"dagster-{attempt}")) as instance, _Meter() as meter:
            started = time.perf_counter()
            outcome = materialize_document(instance, doc_id)
            total = time.perf_counter() - started
        assert outcome.success, outcome.error
        shares.append(meter.write_s / total)
        totals.append(total)
        opens.append(meter.opens)
        checks.append(meter.schema_checks)
    print(f"{pages}-page offline run: {statistics.median(totals):.2f} s, DuckDB writes "
          f"{statistics.median(shares):.0%} of it (goal <= 10%; medians of {repeats})")
    print(f"connections opened per document run: {statistics.median(opens):.0f}, schema checked "
          f"{statistics.median(checks):.0f} times (goal: one per run, checked once)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=300)
    parser.add_argument("--rows", type=int, default=19025)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    os.environ["KNOWLEDGE_LLM_BACKEND"] = "offline"
    with tempfile.TemporaryDirectory(prefix="bench-store-") as tmp:
        insert_side_by_side(Path(tmp), args.rows, args.repeats)
        run_share(Path(tmp), args.pages, args.repeats)


if __name__ == "__main__":
    main()
