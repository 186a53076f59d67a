"""The command line as other tools call it: a real process, a real instance, a real store."""

import os
import shutil
import subprocess
import sys

import duckdb
import pypdf

from tests.conftest import PROJECT_ROOT, SAMPLE_DOCUMENTS
from tests.documents import write_pdf


def _cli(args, cwd, tmp_path):
    env = {**os.environ, "KNOWLEDGE_DB": str(tmp_path / "k.duckdb"), "DAGSTER_HOME": str(tmp_path / "home")}
    (tmp_path / "home").mkdir(exist_ok=True)
    return subprocess.run(
        [sys.executable, "-m", "knowledge_assets.cli", *args], cwd=cwd, env=env,
        capture_output=True, text=True, timeout=300,
    )


def test_run_materialises_every_document_and_names_each_failure(tmp_path):
    docs = tmp_path / "docs"
    shutil.copytree(SAMPLE_DOCUMENTS, docs)
    writer = pypdf.PdfWriter(clone_from=write_pdf(tmp_path / "plain.pdf", [["1. Scope", "Text."]]))
    writer.encrypt(user_password="pw", algorithm="RC4-128")
    with (docs / "locked.pdf").open("wb") as fh:
        writer.write(fh)
    (docs / "notes.docx").write_bytes(b"PK")

    result = _cli(["run", str(docs)], PROJECT_ROOT, tmp_path)

    assert result.returncode == 1
    out = result.stdout
    assert "ok      SKT-STD-PRM-001  std_parameter_produksi.pdf  pages=9" in out
    assert "ok      SKT-MNT-KPI-002  maintenance_kpi.md  pages=1" in out
    assert "locked.pdf: encrypted PDF: a password is required" in out
    assert "notes.docx: unsupported file type '.docx'" in out
    assert "Traceback" not in out + result.stderr
    assert "2 of 4 documents failed" in result.stderr
    con = duckdb.connect(str(tmp_path / "k.duckdb"), read_only=True)
    counts = dict(con.execute("SELECT doc_id, count(*) FROM parsed_chunks GROUP BY doc_id").fetchall())
    assert set(counts) == {"SKT-STD-PRM-001", "SKT-MNT-KPI-002"}


def test_ingest_registers_with_an_explicit_key_and_rerun_is_unchanged(tmp_path):
    doc = tmp_path / "kpi.md"
    shutil.copy(SAMPLE_DOCUMENTS / "maintenance_kpi.md", doc)
    first = _cli(["ingest", str(doc), "--doc-id", "KPI-KEY"], tmp_path, tmp_path)
    again = _cli(["ingest", str(doc), "--doc-id", "KPI-KEY"], tmp_path, tmp_path)
    assert first.returncode == 0, first.stderr
    assert "KPI-KEY  kpi.md  revision 1  key from explicit" in first.stdout
    assert "revision 1 (unchanged)" in again.stdout
    bad = _cli(["ingest", str(doc), "--doc-id", "has space"], tmp_path, tmp_path)
    assert bad.returncode == 1 and "is not a valid document key" in bad.stderr
