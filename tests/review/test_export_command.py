"""`knowledge-assets export --approved`: approved knowledge only, one folder per document."""

import json

from knowledge_assets.ids import term_id
from knowledge_assets.review.decisions import record_decision
from knowledge_assets.review.entities import find
from tests.review.conftest import KPI, PRM, run_cli, snapshot

MTTR = term_id(KPI, "Mean Time To Repair")
MTBF = term_id(KPI, "Mean Time Between Failures")


def test_export_approved_writes_only_approved_entries_for_every_document(extracted, capsys, tmp_path):
    record_decision(extracted, find(extracted, MTTR), "approved", "alice")
    record_decision(extracted, find(extracted, MTBF), "rejected", "bob", note="incomplete")
    code, out, err = run_cli(capsys, "export", "--approved", "--out", str(tmp_path))
    assert code == 0, err
    assert [e["term_id"] for e in json.loads((tmp_path / KPI / "glossary.json").read_text())] == [MTTR]
    assert json.loads((tmp_path / PRM / "glossary.json").read_text()) == []
    assert not (tmp_path / KPI / "domain_context.json").exists()


def test_export_without_a_document_or_approved_and_of_an_unknown_document_fail_writing_nothing(
    extracted, capsys, tmp_path
):
    before = snapshot(extracted)
    assert run_cli(capsys, "export", "--out", str(tmp_path / "a"))[0] == 1
    code, _, err = run_cli(capsys, "export", "--approved", "--doc-id", "NO-SUCH-DOC", "--out", str(tmp_path / "b"))
    assert code == 1 and "NO-SUCH-DOC: no extracted knowledge" in err
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists() and snapshot(extracted) == before
