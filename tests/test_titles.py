"""A title is located verbatim, line breaks and runs of spaces of the page included; it is shown
on one line (store/registry.py:document_titles) by the `documents` listing and in an export's
index.json, while the store and the export's domain context keep it verbatim."""

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import PROJECT_ROOT

DECREE = ("KEPUTUSAN  KEPALA\n  BADAN   PENGAWAS TAMBANG\n\n1. Tujuan\n\n"
          "MTTR (Mean Time To Repair) adalah waktu rata-rata perbaikan.\n\n"
          "MTTR = total waktu perbaikan / jumlah perbaikan\n")
VERBATIM = "KEPUTUSAN  KEPALA\n  BADAN   PENGAWAS TAMBANG"
SHOWN = "KEPUTUSAN KEPALA BADAN PENGAWAS TAMBANG"


def _cli(env: dict[str, str], *args) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "knowledge_assets.command", *map(str, args)], cwd=PROJECT_ROOT,
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


@pytest.fixture(scope="module")
def decree(tmp_path_factory) -> dict[str, str]:
    """A decree whose title runs over two lines with runs of spaces, run offline: the environment."""
    root = tmp_path_factory.mktemp("titles")
    home, docs = root / "home", root / "docs"
    home.mkdir()
    (home / "dagster.yaml").write_text("telemetry:\n  enabled: false\n", encoding="utf-8")
    docs.mkdir()
    (docs / "kepka.txt").write_text(DECREE, encoding="utf-8")
    env = {**os.environ, "KNOWLEDGE_DB": str(home / "knowledge.duckdb"), "DAGSTER_HOME": str(home),
           "KNOWLEDGE_LLM_BACKEND": "offline"}
    _cli(env, "run", docs)
    return env


def test_the_documents_listing_shows_a_title_on_one_line(decree):
    [listed] = json.loads(_cli(decree, "documents", "--json").stdout)
    assert listed["title"] == SHOWN
    [row] = [line for line in _cli(decree, "documents").stdout.splitlines() if line.startswith("kepka ")]
    assert f"  {SHOWN}  " in row


def test_the_export_index_shows_the_title_on_one_line_and_the_domain_context_keeps_it_verbatim(decree, tmp_path):
    _cli(decree, "export", "--doc-id", "kepka", "--out", tmp_path)
    index = json.loads((tmp_path / "index.json").read_text(encoding="utf-8"))["documents"]
    assert index["kepka"]["title"] == SHOWN
    domain = json.loads((tmp_path / "kepka" / "domain_context.json").read_text(encoding="utf-8"))
    assert domain["title"] == VERBATIM
