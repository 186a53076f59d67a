"""Identity that follows the file (D52), through `knowledge-assets` in real processes with a
private home, on a copy of the Markdown sample without its sidecar (the default a new user has):
an edit keeps the doc_id and the review, a copy is one alias line, a rename keeps the doc_id,
`--new-document` makes a new one."""

import json
import shutil

import dagster as dg
import duckdb
from dagster._core.instance.ref import InstanceRef

from knowledge_assets.ids import term_id
from knowledge_assets.ingest.documents import file_name_doc_id
from tests.conftest import SAMPLE_MARKDOWN
from tests.support.command_process import cli_process

OFFLINE = {"KNOWLEDGE_LLM_BACKEND": "offline"}
TITLE = "Maintenance KPI Procedure"
MTTR_DEFINITION = "MTTR means the average time needed to return a unit to service after a breakdown."
MTTR_REWORDED = "MTTR means the average time needed to bring a unit back into service after a breakdown."


def _doc_id_of(path) -> str:
    return file_name_doc_id(path)


def _run(tmp_path, *args):
    result = cli_process(["run", *map(str, args)], tmp_path, tmp_path, **OFFLINE)
    assert "Traceback" not in result.stdout + result.stderr
    return result


def _line(result, start: str) -> str:
    [line] = [line for line in result.stdout.splitlines() if line.startswith(start)]
    return line


def _registry(tmp_path) -> list[tuple]:
    with duckdb.connect(str(tmp_path / "home" / "knowledge.duckdb"), read_only=True) as con:
        return con.execute("SELECT doc_id, revision, file_name FROM documents ORDER BY registered_at").fetchall()


def _seen(tmp_path, ref: str, doc_id: str) -> str:
    """The content fingerprint `review show` prints for the entry, which a decision passes back as --seen."""
    shown = cli_process(["review", "show", ref, "--doc-id", doc_id], tmp_path, tmp_path)
    assert shown.returncode == 0, shown.stderr
    return json.loads(shown.stdout)["fingerprint"]


def _first_run(tmp_path):
    """docs/kpi.md run once: the file, its doc_id, the run."""
    kpi = tmp_path / "docs" / "kpi.md"
    kpi.parent.mkdir()
    shutil.copyfile(SAMPLE_MARKDOWN, kpi)
    first = _run(tmp_path, kpi.parent)
    assert first.returncode == 0, first.stdout + first.stderr
    return kpi, _doc_id_of(kpi), first


def test_an_edited_file_keeps_its_doc_id_and_the_decisions_of_its_unchanged_entries(tmp_path):
    kpi, doc_id, first = _first_run(tmp_path)
    docs = kpi.parent
    named = f'ok      {doc_id}  kpi.md  "{TITLE}"'
    assert _line(first, "ok ").startswith(f"{named}  new document  pages=1")
    mttr, mtbf = term_id(doc_id, "Mean Time To Repair"), term_id(doc_id, "Mean Time Between Failures")
    for ref in (mttr, mtbf):
        approved = cli_process(["review", "approve", ref, "--doc-id", doc_id, "--reviewer", "alice",
                                "--seen", _seen(tmp_path, ref, doc_id)], tmp_path, tmp_path)
        assert approved.returncode == 0, approved.stderr

    kpi.write_text(kpi.read_text(encoding="utf-8").replace(MTTR_DEFINITION, MTTR_REWORDED), encoding="utf-8")
    second = _run(tmp_path, docs)

    assert second.returncode == 0, second.stdout + second.stderr
    assert _line(second, "ok ").startswith(f"{named}  new revision 2  pages=1")
    assert _registry(tmp_path) == [(doc_id, 1, "kpi.md"), (doc_id, 2, "kpi.md")]
    listed = cli_process(["review", "list", "--doc-id", doc_id, "--json"], tmp_path, tmp_path)
    pending = {item["id"]: item for item in json.loads(listed.stdout)}
    assert mtbf not in pending  # unchanged: still approved
    assert pending[mttr]["state"] == "stale"
    assert pending[mttr]["reason"].startswith("definition changed since approved by alice on ")
    assert "bring a unit back into service" in pending[mttr]["reason"]


def test_a_copy_is_one_alias_line_a_rename_keeps_the_doc_id_and_new_document_makes_a_new_one(tmp_path):
    kpi, doc_id, _ = _first_run(tmp_path)
    docs = kpi.parent

    shutil.copyfile(kpi, docs / "kpi copy.md")
    shutil.copyfile(kpi, docs / "kpi.pdf")  # the same bytes under a name no parser could read as its kind
    copied = _run(tmp_path, docs)
    assert copied.returncode == 0, copied.stdout + copied.stderr
    assert [line for line in copied.stdout.splitlines() if "kpi copy.md" in line] == [
        f"alias   kpi copy.md: same content as {doc_id} (kpi.md); not registered again"]
    assert [line for line in copied.stdout.splitlines() if "kpi.pdf" in line] == [
        f"alias   kpi.pdf: same content as {doc_id} (kpi.md); not registered again"]
    assert _line(copied, "ok ").startswith(f'ok      {doc_id}  kpi.md  "{TITLE}"  revision 1 (unchanged)  ')
    assert _registry(tmp_path) == [(doc_id, 1, "kpi.md")]

    (docs / "kpi copy.md").unlink()
    (docs / "kpi.pdf").unlink()
    kpi.rename(docs / "maintenance-kpi.md")
    renamed = _run(tmp_path, docs)
    assert _line(renamed, "ok ").startswith(
        f'ok      {doc_id}  maintenance-kpi.md  "{TITLE}"  revision 1, renamed from kpi.md  ')
    assert _registry(tmp_path) == [(doc_id, 1, "kpi.md"), (doc_id, 1, "maintenance-kpi.md")]

    edited = docs / "maintenance-kpi.md"
    edited.write_text(edited.read_text(encoding="utf-8").replace(MTTR_DEFINITION, MTTR_REWORDED), encoding="utf-8")
    new = _run(tmp_path, "--new-document", edited)
    new_id = _doc_id_of(edited)
    assert new.returncode == 0, new.stdout + new.stderr
    assert _line(new, "ok ").startswith(
        f'ok      {new_id}  maintenance-kpi.md  "{TITLE}"  new document (until now this file was {doc_id})  ')
    assert _registry(tmp_path)[-1] == (new_id, 1, "maintenance-kpi.md")
    with dg.DagsterInstance.from_ref(InstanceRef.from_dir(str(tmp_path / "home"))) as instance:
        assert set(instance.get_dynamic_partitions("documents")) == {doc_id, new_id}
