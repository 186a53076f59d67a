"""Which engine a shared store should stand on, measured (issue 21, decision D63).

    python bench/bench_shared_store.py [--venv /tmp/shared-store-venv] [--writers 4] [--docs 25]
                                       [--rows 300] [--engines duckdb_postgres,ducklake,psycopg]

Three candidates, each against the same real PostgreSQL server (tests/support/postgres.py, one
database per candidate), on the store's own `glossary` columns (store/tables/knowledge.py: LIST
and STRUCT columns) and the per-document replace the store does (delete the document's rows,
insert its new ones, one transaction):

- duckdb_postgres: PostgreSQL tables written through DuckDB's postgres extension (STRUCTs as
  named composite types, which that extension requires; a primary key on (doc_id, term_id));
- ducklake: DuckLake with its catalog in PostgreSQL and its Parquet files in a directory
  standing in for shared storage (no keys: DuckLake enforces none);
- psycopg: PostgreSQL through psycopg 3, STRUCTs as jsonb, lists as text[], rows by COPY.

For each: --writers processes replace --docs documents of --rows rows each, twice (an insert,
then a replace of every row), while a fifth process appends review decisions one by one, as
`review serve` does. Then: rows lost, duplicate ids, decisions kept, conflicts retried, median
write time per document, connect cost, a review page's read (one document's rows) and eval's
(all rows), and a writer killed with SIGKILL between its delete and its commit (the document's
previous rows must survive, and the next write must go through).

The candidates need packages the project does not have (DuckDB's extension packages exist only
for duckdb 1.4.4, the project's venv has 2.0), so the engine work runs in a separate venv that
this script makes with the pins below (--venv; never the project's). The parent process, run with
the project's Python from the project root, starts the server and drives the workers. Run by hand,
not in CI; it writes only under a temporary folder.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

PROJECT_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT_ROOT))

from knowledge_assets.store.tables.knowledge import TABLES  # noqa: E402 (the worker venv has no project install)

ENGINES = ("duckdb_postgres", "ducklake", "psycopg")
# What a user must install for each candidate, exactly as this bench installs it.
PINS = {
    "duckdb_postgres": ["duckdb==1.4.4", "duckdb-ext-postgres==1.4.4.20260205"],
    "ducklake": ["duckdb==1.4.4", "duckdb-ext-postgres==1.4.4.20260205", "duckdb-ext-ducklake==1.4.4.20260205"],
    "psycopg": ["psycopg[binary]==3.3.9"],
}
TABLE = "glossary"
COLUMNS = TABLES[TABLE]
REVIEW_COLUMNS = {"review_id": "VARCHAR", "doc_id": "VARCHAR", "entity_id": "VARCHAR", "decision": "VARCHAR",
                  "reviewed_at": "TIMESTAMP"}
DECISIONS = 100
MAX_ATTEMPTS = 60
KILL_DOC = "killed-doc"


# ---------------------------------------------------------------- rows shaped like the store's


def glossary_rows(doc_id: str, version: int, n: int) -> list[dict[str, Any]]:
    """Deterministic glossary rows; `source_wording` carries the version a check reads back."""
    return [{
        "doc_id": doc_id,
        "term_id": f"{doc_id}:t{i:04d}",
        "term": f"term {i} of {doc_id}",
        "full_name": f"full name of term {i}" if i % 3 else None,
        "source_wording": f"version {version}",
        "definition": f"v{version} definition of term {i}: " + "a measured quantity of the process " * 5,
        "defining_formula_id": f"{doc_id}:f{i % 7}" if i % 5 == 0 else None,
        "subdomain_tags": ["tag a", f"tag {i % 4}"],
        "mention_count": i,
        "provenance": {"doc_id": doc_id, "span": f"term {i} is a measured quantity " * 4, "page": i % 40,
                       "page_no": i % 40 + 1, "section_no": f"{i % 9}.{i % 4}", "chunk_id": f"{doc_id}::{i:04d}"},
        "extraction_status": "extracted",
        "diff_status": None if i % 2 else "new",
        "definition_conflict": i % 11 == 0,
        "conflict_variants": ["variant one", "variant two"] if i % 11 == 0 else [],
    } for i in range(n)]


def _plain_type(sql_type: str) -> str:
    return sql_type.removesuffix(" NOT NULL")


def _row_struct() -> str:
    return "STRUCT(" + ", ".join(f'"{c}" {_plain_type(t)}' for c, t in COLUMNS.items()) + ")"


def _postgres_ddl(json_structs: bool) -> list[str]:
    """CREATE statements for the glossary table in PostgreSQL: STRUCTs become named composite
    types (the DuckDB extension refuses unnamed ones) or jsonb; VARCHAR[] becomes text[]."""
    scalar = {"VARCHAR": "text", "INTEGER": "integer", "BOOLEAN": "boolean", "TIMESTAMP": "timestamp"}
    statements, columns = [], []
    for column, sql_type in COLUMNS.items():
        plain, not_null = _plain_type(sql_type), sql_type.endswith("NOT NULL")
        is_list = plain.endswith("[]")
        base = plain.removesuffix("[]")
        if base.startswith("STRUCT(") and json_structs:
            pg_type = "jsonb"
        elif base.startswith("STRUCT("):
            pg_type = f"{TABLE}_{column}_t"
            fields = base[len("STRUCT("):-1].split(", ")
            statements.append(f"CREATE TYPE {pg_type} AS ("
                              + ", ".join(f"{f.split()[0]} {scalar[f.split()[1]]}" for f in fields) + ")")
            pg_type += "[]" if is_list else ""
        else:
            pg_type = scalar[base] + ("[]" if is_list else "")
        columns.append(f'"{column}" {pg_type}' + (" NOT NULL" if not_null else ""))
    statements.append(f"CREATE TABLE {TABLE} ({', '.join(columns)}, PRIMARY KEY (doc_id, term_id))")
    statements.append("CREATE TABLE reviews (review_id text PRIMARY KEY, doc_id text NOT NULL, entity_id text "
                      "NOT NULL, decision text NOT NULL, reviewed_at timestamp NOT NULL)")
    return statements


# ---------------------------------------------------------------- the candidates (worker side)


class DuckDBEngine:
    """DuckDB 1.4.4 with the extension packages' binaries; the store is an attached catalog."""

    def __init__(self, name: str, url: str, lake_data: str):
        self.name, self.url, self.lake_data = name, url, lake_data
        self.alias = "lake" if name == "ducklake" else "pg"

    def connect(self):
        import duckdb

        extensions = Path(duckdb.__file__).parent.parent / "duckdb_ext" / "extensions"
        con = duckdb.connect(config={"extension_directory": str(extensions), "autoinstall_known_extensions": False,
                                     "autoload_known_extensions": False})
        con.execute("LOAD postgres")
        dsn = _libpq_dsn(self.url)
        if self.name == "ducklake":
            con.execute("LOAD ducklake")
            con.execute(f"ATTACH 'ducklake:postgres:{dsn}' AS lake (DATA_PATH '{self.lake_data}')")
        else:
            con.execute(f"ATTACH '{dsn}' AS pg (TYPE postgres)")
        return con

    def setup(self, con) -> None:
        if self.name == "ducklake":
            columns = ", ".join(f'"{c}" {_plain_type(t)}' for c, t in COLUMNS.items())
            con.execute(f"CREATE TABLE lake.{TABLE} ({columns})")
            review = ", ".join(f"{c} {t}" for c, t in REVIEW_COLUMNS.items())
            con.execute(f"CREATE TABLE lake.reviews ({review})")
        else:
            for statement in _postgres_ddl(json_structs=False):
                con.execute("CALL postgres_execute('pg', ?)", [statement])

    def conflict(self, exc: BaseException) -> bool:
        import duckdb

        return isinstance(exc, duckdb.TransactionException) or (
            isinstance(exc, duckdb.Error) and "onflict" in str(exc))

    def begin(self, con) -> None:
        con.execute("BEGIN TRANSACTION")

    def commit(self, con) -> None:
        con.execute("COMMIT")

    def rollback(self, con) -> None:
        with contextlib.suppress(Exception):
            con.execute("ROLLBACK")

    def delete_doc(self, con, doc_id: str) -> None:
        con.execute(f"DELETE FROM {self.alias}.{TABLE} WHERE doc_id = ?", [doc_id])

    def insert(self, con, rows: list[dict]) -> None:
        names = ", ".join(f'"{c}"' for c in COLUMNS)
        con.execute(f"INSERT INTO {self.alias}.{TABLE} ({names}) SELECT unnest(r) FROM "
                    f"(SELECT unnest(CAST(CAST(? AS JSON) AS {_row_struct()}[])) AS r)", [json.dumps(rows)])

    def append_review(self, con, row: dict) -> None:
        con.execute(f"INSERT INTO {self.alias}.reviews VALUES (?, ?, ?, ?, ?)", list(row.values()))

    def fetch(self, con, sql: str, params: list) -> list[tuple]:
        return con.execute(sql.format(t=f"{self.alias}.{TABLE}", r=f"{self.alias}.reviews"), params).fetchall()


class PsycopgEngine:
    """psycopg 3 straight to PostgreSQL: jsonb for STRUCTs, text[] for lists, COPY for rows."""

    name = "psycopg"
    json_columns = [c for c, t in COLUMNS.items() if "STRUCT(" in t]

    def __init__(self, name: str, url: str, lake_data: str):
        self.url = url

    def connect(self):
        import psycopg

        return psycopg.connect(self.url)

    def setup(self, con) -> None:
        with con.transaction():
            for statement in _postgres_ddl(json_structs=True):
                con.execute(statement)

    def conflict(self, exc: BaseException) -> bool:
        import psycopg

        return isinstance(exc, (psycopg.errors.SerializationFailure, psycopg.errors.DeadlockDetected))

    def begin(self, con) -> None:
        pass  # psycopg opens a transaction with the first statement

    def commit(self, con) -> None:
        con.commit()

    def rollback(self, con) -> None:
        con.rollback()

    def delete_doc(self, con, doc_id: str) -> None:
        con.execute(f"DELETE FROM {TABLE} WHERE doc_id = %s", [doc_id])

    def insert(self, con, rows: list[dict]) -> None:
        from psycopg.types.json import Jsonb

        names = ", ".join(f'"{c}"' for c in COLUMNS)
        with con.cursor().copy(f"COPY {TABLE} ({names}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row([Jsonb(v) if c in self.json_columns else v for c, v in row.items()])

    def append_review(self, con, row: dict) -> None:
        con.execute("INSERT INTO reviews VALUES (%s, %s, %s, %s, %s)", list(row.values()))
        con.commit()

    def fetch(self, con, sql: str, params: list) -> list[tuple]:
        rows = con.execute(sql.format(t=TABLE, r="reviews").replace("?", "%s"), params).fetchall()
        con.commit()
        return rows


def _libpq_dsn(url: str) -> str:
    """postgresql://user@host:port/db as the key=value string DuckDB's ATTACH takes."""
    rest = url.removeprefix("postgresql://")
    user, rest = rest.split("@", 1)
    host_port, dbname = rest.split("/", 1)
    host, port = host_port.split(":")
    return f"host={host} port={port} user={user} dbname={dbname}"


def _engine(spec: dict):
    kind = PsycopgEngine if spec["engine"] == "psycopg" else DuckDBEngine
    return kind(spec["engine"], spec["url"], spec.get("lake_data", ""))


def _with_retries(engine, con, work) -> int:
    """Runs `work` in one transaction, again after each conflict (with jittered backoff);
    returns the retries it took. Gives up after MAX_ATTEMPTS, which the caller reports as lost."""
    for attempt in range(MAX_ATTEMPTS):
        engine.begin(con)
        try:
            work()
            engine.commit(con)
            return attempt
        except Exception as exc:
            engine.rollback(con)
            if not engine.conflict(exc):
                raise
            time.sleep(min(0.5, 0.005 * 2 ** attempt) * random.uniform(0.5, 1.5))
    raise RuntimeError(f"gave up after {MAX_ATTEMPTS} conflicting attempts")


def _replace(engine, con, doc_id: str, rows: list[dict]) -> int:
    def work():
        engine.delete_doc(con, doc_id)
        engine.insert(con, rows)
    return _with_retries(engine, con, work)


def worker_setup(spec: dict) -> dict:
    engine = _engine(spec)
    con = engine.connect()
    engine.setup(con)
    return {}


def worker_write(spec: dict) -> dict:
    """Writes every document of this writer, then replaces each; reports times and retries."""
    engine = _engine(spec)
    con = engine.connect()
    times, retries, failed = [], 0, []
    for version in (1, 2):
        for doc_id in spec["docs"]:
            rows = glossary_rows(doc_id, version, spec["rows"])
            start = time.perf_counter()
            try:
                retries += _replace(engine, con, doc_id, rows)
            except RuntimeError:
                failed.append(doc_id)
                continue
            if version == 2:
                times.append(time.perf_counter() - start)
    return {"replace_s": times, "retries": retries, "failed": failed}


def worker_approve(spec: dict) -> dict:
    """Appends review decisions one per transaction, as review serve records an expert's clicks."""
    engine = _engine(spec)
    con = engine.connect()
    retries, failed = 0, 0
    for i in range(spec["decisions"]):
        row = {"review_id": f"review-{i:04d}", "doc_id": "approved-doc", "entity_id": f"approved-doc:t{i:04d}",
               "decision": "approved", "reviewed_at": "2026-12-01 12:00:00"}
        try:
            retries += _with_retries(engine, con, lambda row=row: engine.append_review(con, row))
        except RuntimeError:
            failed += 1
        time.sleep(0.01)
    return {"retries": retries, "failed": failed}


def worker_verify(spec: dict) -> dict:
    engine = _engine(spec)
    con = engine.connect()
    per_doc = dict(engine.fetch(con, "SELECT doc_id, count(*) FROM {t} WHERE source_wording = 'version 2' "
                                     "GROUP BY doc_id", []))
    lost = sum(max(0, spec["rows"] - per_doc.get(d, 0)) for d in spec["docs"])
    (total,) = engine.fetch(con, "SELECT count(*) FROM {t}", [])[0]
    (duplicates,) = engine.fetch(con, "SELECT count(*) - count(DISTINCT doc_id || '|' || term_id) FROM {t}", [])[0]
    (decisions,) = engine.fetch(con, "SELECT count(DISTINCT review_id) FROM {r}", [])[0]
    sample = engine.fetch(con, "SELECT subdomain_tags, provenance FROM {t} WHERE term_id = ?",
                          [f"{spec['docs'][0]}:t0001"])
    expected = glossary_rows(spec["docs"][0], 2, 2)[1]
    tags, provenance = sample[0]
    provenance = json.loads(provenance) if isinstance(provenance, str) else provenance
    nested_kept = list(tags) == expected["subdomain_tags"] and dict(provenance) == expected["provenance"]
    return {"rows_lost": lost, "rows_total": total, "duplicate_ids": duplicates, "decisions_kept": decisions,
            "nested_kept": nested_kept}


def worker_read(spec: dict) -> dict:
    """Connect cost, a review page's read (one document's rows) and eval's read (all rows)."""
    engine = _engine(spec)
    connects = []
    for _ in range(5):
        start = time.perf_counter()
        con = engine.connect()
        engine.fetch(con, "SELECT 1", [])
        connects.append(time.perf_counter() - start)
    page = []
    for doc_id in random.Random(0).sample(spec["docs"], min(20, len(spec["docs"]))):
        start = time.perf_counter()
        rows = engine.fetch(con, "SELECT * FROM {t} WHERE doc_id = ? ORDER BY term_id", [doc_id])
        page.append(time.perf_counter() - start)
        assert len(rows) == spec["rows"]
    whole = []
    for _ in range(5):
        start = time.perf_counter()
        engine.fetch(con, "SELECT * FROM {t}", [])
        whole.append(time.perf_counter() - start)
    return {"connect_s": statistics.median(connects), "page_s": statistics.median(page),
            "eval_s": statistics.median(whole)}


def worker_victim(spec: dict) -> dict:
    """Commits version 1 of a document, then starts replacing it and stops between its delete and
    its commit, saying so on stdout, until it is killed."""
    engine = _engine(spec)
    con = engine.connect()
    _replace(engine, con, KILL_DOC, glossary_rows(KILL_DOC, 1, spec["rows"]))
    engine.begin(con)
    engine.delete_doc(con, KILL_DOC)
    engine.insert(con, glossary_rows(KILL_DOC, 2, spec["rows"]))
    print("MIDWAY", flush=True)
    time.sleep(600)
    return {}


def worker_after_kill(spec: dict) -> dict:
    """What the killed writer left: the document's committed rows, and whether it can be written again."""
    engine = _engine(spec)
    con = engine.connect()
    versions = dict(engine.fetch(con, "SELECT source_wording, count(*) FROM {t} WHERE doc_id = ? "
                                      "GROUP BY source_wording", [KILL_DOC]))
    start = time.perf_counter()
    retries = _replace(engine, con, KILL_DOC, glossary_rows(KILL_DOC, 3, spec["rows"]))
    return {"previous_rows_intact": versions == {"version 1": spec["rows"]}, "rows_seen": versions,
            "rewrite_s": time.perf_counter() - start, "rewrite_retries": retries}


WORKERS = {"setup": worker_setup, "write": worker_write, "approve": worker_approve, "verify": worker_verify,
           "read": worker_read, "victim": worker_victim, "after_kill": worker_after_kill}


# ---------------------------------------------------------------- the driver (project side)


def make_venv(venv: Path) -> Path:
    python = venv / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    packages = sorted({p for pins in PINS.values() for p in pins})
    subprocess.run([str(python), "-m", "pip", "install", "-q", *packages], check=True)
    return python


def _spawn(python: Path, role: str, spec: dict) -> subprocess.Popen:
    return subprocess.Popen([str(python), __file__, "worker", role, json.dumps(spec)], stdout=subprocess.PIPE,
                            text=True, cwd=PROJECT_ROOT)


def _result(process: subprocess.Popen) -> dict:
    out, _ = process.communicate()
    if process.returncode != 0:
        raise RuntimeError(f"worker failed with {process.returncode}")
    return json.loads(out.strip().splitlines()[-1])


def _kill_test(python: Path, spec: dict) -> dict:
    victim = _spawn(python, "victim", spec)
    assert victim.stdout.readline().strip() == "MIDWAY"
    os.kill(victim.pid, signal.SIGKILL)
    victim.wait()
    return _result(_spawn(python, "after_kill", spec))


def measure(python: Path, engine: str, server, scratch: Path, args) -> dict:
    database = f"bench_{engine}"
    server.psql(f"CREATE DATABASE {database}")
    base = {"engine": engine, "url": server.url.rsplit("/", 1)[0] + f"/{database}",
            "lake_data": str(scratch / f"{engine}-data") + "/", "rows": args.rows}
    _result(_spawn(python, "setup", base))
    docs = [[f"w{w}-doc{d:02d}" for d in range(args.docs)] for w in range(args.writers)]
    start = time.perf_counter()
    writers = [_spawn(python, "write", {**base, "docs": mine}) for mine in docs]
    approver = _spawn(python, "approve", {**base, "decisions": DECISIONS})
    written = [_result(w) for w in writers]
    wall = time.perf_counter() - start
    approved = _result(approver)
    every_doc = [d for mine in docs for d in mine]
    checked = _result(_spawn(python, "verify", {**base, "docs": every_doc}))
    read = _result(_spawn(python, "read", {**base, "docs": every_doc}))
    killed = _kill_test(python, base)
    data_files = sum(1 for _ in Path(base["lake_data"]).rglob("*.parquet")) if engine == "ducklake" else None
    return {
        "engine": engine, "wall_s": wall,
        "replace_median_s": statistics.median(t for w in written for t in w["replace_s"]),
        "write_retries": sum(w["retries"] for w in written), "write_failed": sum(len(w["failed"]) for w in written),
        "approve_retries": approved["retries"], "approve_failed": approved["failed"],
        **checked, **read, **killed, "data_files": data_files, "pins": PINS[engine],
    }


def _print_table(results: list[dict], args) -> None:
    print(f"\n{args.writers} writers x {args.docs} documents x {args.rows} rows, each written then replaced; "
          f"{DECISIONS} review decisions appended meanwhile\n")
    rows = [
        ("rows lost", "rows_lost"), ("duplicate ids", "duplicate_ids"), ("decisions kept", "decisions_kept"),
        ("LIST/STRUCT kept", "nested_kept"), ("write conflicts retried", "write_retries"),
        ("writes given up", "write_failed"), ("decision conflicts retried", "approve_retries"),
        ("replace / document, median s", "replace_median_s"), ("all writers done s", "wall_s"),
        ("connect (+attach) s", "connect_s"), ("review page read s", "page_s"), ("eval read (all rows) s", "eval_s"),
        ("kill -9: previous rows intact", "previous_rows_intact"), ("kill -9: next write s", "rewrite_s"),
        ("Parquet files left", "data_files"),
    ]
    width = 32
    print("".ljust(width) + "".join(r["engine"].ljust(18) for r in results))
    for label, key in rows:
        cells = [r[key] for r in results]
        print(label.ljust(width) + "".join(
            (f"{c:.4f}" if isinstance(c, float) else str(c)).ljust(18) for c in cells))
    for r in results:
        print(f"pins {r['engine']}: {' '.join(r['pins'])}")


def main() -> None:
    if len(sys.argv) > 3 and sys.argv[1] == "worker":
        print(json.dumps(WORKERS[sys.argv[2]](json.loads(sys.argv[3]))))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venv", type=Path, default=Path(tempfile.gettempdir()) / "shared-store-venv")
    parser.add_argument("--writers", type=int, default=4)
    parser.add_argument("--docs", type=int, default=25)
    parser.add_argument("--rows", type=int, default=300)
    parser.add_argument("--engines", default=",".join(ENGINES))
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args()
    from tests.support.postgres import running_postgres

    python = make_venv(args.venv)
    results = []
    with tempfile.TemporaryDirectory(prefix="shared-store-") as scratch, \
            running_postgres(settings={"max_connections": "100"}) as server:
        for engine in args.engines.split(","):
            results.append(measure(python, engine, server, Path(scratch), args))
            print(json.dumps(results[-1]), flush=True)
    _print_table(results, args)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
