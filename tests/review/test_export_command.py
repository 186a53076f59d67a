"""`knowledge-assets export --approved`: approved knowledge only, one folder per document, as
JSON, CSV or a workbook, and the root's index naming the documents."""

import csv
import json

import openpyxl
import pytest

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
    assert not (tmp_path / KPI / "domain_context.json").exists()


def test_a_document_with_nothing_approved_gets_no_folder_and_no_index_entry_only_its_line(
    extracted, capsys, tmp_path
):
    record_decision(extracted, find(extracted, MTBF), "rejected", "bob", note="incomplete")
    record_decision(extracted, find(extracted, MTTR), "approved", "alice")
    code, out, err = run_cli(capsys, "export", "--approved", "--out", str(tmp_path / "out"))
    assert code == 0, err
    assert f"{PRM}: nothing approved yet, not exported\n" in out and KPI not in out.split("approved knowledge:")[0]
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [KPI, "index.json"]
    index = json.loads((tmp_path / "out" / "index.json").read_text(encoding="utf-8"))["documents"]
    assert sorted(index) == [KPI]


@pytest.mark.parametrize("selected", [(), ("--doc-id", PRM)], ids=["every document", "one document"])
def test_an_approved_export_with_nothing_approved_fails_in_one_line_writing_nothing(
    extracted, capsys, tmp_path, selected
):
    record_decision(extracted, find(extracted, MTBF), "rejected", "bob", note="incomplete")
    code, out, err = run_cli(capsys, "export", "--approved", *selected, "--out", str(tmp_path / "out"))
    assert code == 1 and out == ""
    assert len(err.splitlines()) == 1 and "nothing approved yet in " in err and "nothing exported" in err
    assert (PRM in err) == bool(selected)
    assert not (tmp_path / "out").exists()


def test_export_without_a_document_or_approved_and_of_an_unknown_document_fail_writing_nothing(
    extracted, capsys, tmp_path
):
    before = snapshot(extracted)
    assert run_cli(capsys, "export", "--out", str(tmp_path / "a"))[0] == 1
    code, _, err = run_cli(capsys, "export", "--approved", "--doc-id", "NO-SUCH-DOC", "--out", str(tmp_path / "b"))
    assert code == 1 and "NO-SUCH-DOC: no extracted knowledge" in err
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists() and snapshot(extracted) == before


def _ids(rows: list[list], column: str) -> list:
    header, *entities = rows
    return [entity[header.index(column)] for entity in entities]


def _sheets(folder, fmt: str) -> dict[str, list[list]]:
    """Each payload's rows, header first, as the csv module or openpyxl reads them."""
    if fmt == "xlsx":
        workbook = openpyxl.load_workbook(folder / f"{folder.name}.xlsx")
        return {sheet.title: [list(row) for row in sheet.iter_rows(values_only=True)] for sheet in workbook}
    sheets = {}
    for path in sorted(folder.iterdir()):
        with path.open(encoding="utf-8-sig", newline="") as file:
            sheets[path.stem] = list(csv.reader(file))
    return sheets


@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
def test_export_approved_as_csv_or_a_workbook_holds_only_approved_entries_and_an_index(
    extracted, capsys, tmp_path, fmt
):
    record_decision(extracted, find(extracted, MTTR), "approved", "alice")
    record_decision(extracted, find(extracted, MTBF), "rejected", "bob", note="incomplete")
    code, _, err = run_cli(capsys, "export", "--approved", "--format", fmt, "--out", str(tmp_path))
    assert code == 0, err
    kpi = _sheets(tmp_path / KPI, fmt)
    # No domain context: none is approved. Nothing of PRM is: it has no folder.
    assert sorted(kpi) == ["formulas", "glossary", "interpretation_pack"]
    assert _ids(kpi["glossary"], "term_id") == [MTTR]
    assert _ids(kpi["formulas"], "formula_id") == [] and kpi["formulas"][0][0] == "formula_id"
    assert not (tmp_path / PRM).exists()
    index = json.loads((tmp_path / "index.json").read_text(encoding="utf-8"))["documents"]
    assert sorted(index) == [KPI]
    assert all(entry["approved_only"] and entry["format"] == fmt and entry["title"] for entry in index.values())
