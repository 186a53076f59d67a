"""Which registered document a file is (D52), on real files and a real store: an edit in place is
a new revision, a rename or a move is the same document, a copy is an alias, `--new-document`
makes a document of its own."""

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from knowledge_assets.ingest.changed_documents import current_sha256
from knowledge_assets.ingest.document_error import DocumentError
from knowledge_assets.ingest.documents import content_hash_doc_id, identify
from knowledge_assets.ingest.registration import register_file, register_files
from knowledge_assets.ingest.stage import parse_registered
from knowledge_assets.store.registry import latest_source, register

V1 = "# 1. Scope\n\nThe pump is checked weekly.\n"
V2 = "# 1. Scope\n\nThe pump is checked daily.\n"
OTHER = "# 1. Purpose\n\nA different document about conveyor belts.\n"


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _revisions(store, doc_id):
    return [(r["revision"], Path(r["source_path"]).name, r["key_source"]) for r in store.fetch(
        "SELECT * FROM documents WHERE doc_id = ? ORDER BY registered_at", [doc_id])]


def test_a_file_edited_in_place_is_the_next_revision_of_its_document(store, tmp_path):
    path = _write(tmp_path / "kpi.md", V1)
    first = register_file(store, path)
    _write(path, V2)
    edited = register_file(store, path)
    assert (first.outcome, first.describe()) == ("new", "new document")
    assert first.source.doc_id == "kpi"
    assert edited.source.doc_id == first.source.doc_id
    assert (edited.outcome, edited.describe()) == ("revision", "new revision 2")
    assert _revisions(store, first.source.doc_id) == [(1, "kpi.md", "file_name"), (2, "kpi.md", "registered_path")]
    again = register_file(store, path)
    assert again.describe() == "revision 2 (unchanged)" and len(_revisions(store, first.source.doc_id)) == 2


def test_a_renamed_file_and_a_moved_file_are_the_same_document_at_a_new_path(store, tmp_path):
    path = _write(tmp_path / "kpi.md", V1)
    doc_id = register_file(store, path).source.doc_id
    renamed = register_file(store, path.rename(tmp_path / "kpi-final.md"))
    assert (renamed.source.doc_id, renamed.describe()) == (doc_id, "revision 1, renamed from kpi.md")
    (tmp_path / "archive").mkdir()
    moved = register_file(store, renamed.file.rename(tmp_path / "archive" / "kpi-final.md"))
    assert (moved.source.doc_id, moved.outcome) == (doc_id, "moved")
    assert moved.describe() == f"revision 1, moved from {tmp_path.resolve() / 'kpi-final.md'}"
    assert latest_source(store, doc_id)[0].path == tmp_path.resolve() / "archive" / "kpi-final.md"


def test_a_copy_is_one_alias_and_registers_nothing(store, tmp_path):
    original = _write(tmp_path / "a.md", V1)
    doc_id = register_file(store, original).source.doc_id
    copy = register_file(store, Path(shutil.copy(original, tmp_path / "b.md")))
    assert not copy.registered and copy.source.doc_id == doc_id
    assert copy.describe() == f"same content as {doc_id} (a.md); not registered again"
    assert _revisions(store, doc_id) == [(1, "a.md", "file_name")]


def test_two_new_files_with_the_same_bytes_are_one_document_and_one_alias(store, tmp_path):
    found = register_files(store, [_write(tmp_path / "a.md", V1), _write(tmp_path / "b.md", V1)])
    assert [(f.file.name, f.outcome) for f in found] == [("a.md", "new"), ("b.md", "alias")]
    assert found[1].source.doc_id == found[0].source.doc_id


def test_a_copy_kept_before_an_edit_is_an_alias_of_the_old_revision_whatever_the_order(store, tmp_path):
    path = _write(tmp_path / "kpi.md", V1)
    doc_id = register_file(store, path).source.doc_id
    shutil.copy(path, tmp_path / "backup.md")  # sorts first: the edited file is still decided first
    _write(path, V2)
    backup, edited = register_files(store, [tmp_path / "backup.md", path])
    assert (edited.source.doc_id, edited.describe()) == (doc_id, "new revision 2")
    assert backup.describe() == f"same content as revision 1 of {doc_id} (kpi.md); not registered again"


def test_a_copy_of_a_file_edited_but_not_yet_registered_is_still_a_copy(store, tmp_path):
    path = _write(tmp_path / "kpi.md", V1)
    register_file(store, path)
    shutil.copy(path, tmp_path / "backup.md")
    _write(path, V2)
    assert register_file(store, tmp_path / "backup.md").outcome == "alias"  # the original is not taken away


def test_a_path_reused_for_unrelated_content_is_a_new_revision_unless_new_document(store, tmp_path):
    path = _write(tmp_path / "report.md", V1)
    doc_id = register_file(store, path).source.doc_id
    _write(path, OTHER)
    assert register_file(store, path).describe() == "new revision 2"
    _write(path, V2)
    new = register_file(store, path, new_document=True)
    assert (doc_id, new.source.doc_id) == ("report", "report-2")  # the name, made unique
    assert new.describe() == f"new document (until now this file was {doc_id})"
    # The old document keeps its revisions but no longer has a file: nothing reads report.md as it.
    assert current_sha256(store, doc_id) == latest_source(store, doc_id)[0].content_sha256
    with pytest.raises(DocumentError, match=f"registered as {new.source.doc_id} now"):
        parse_registered(store, doc_id)
    assert register_file(store, path).describe() == "revision 1 (unchanged)"


def test_new_document_on_a_copy_makes_a_second_document_with_its_own_key(store, tmp_path):
    original = _write(tmp_path / "a.md", V1)
    doc_id = register_file(store, original).source.doc_id
    copy = register_file(store, Path(shutil.copy(original, tmp_path / "b.md")), new_document=True)
    assert (doc_id, copy.outcome, copy.source.doc_id) == ("a", "new", "b")
    # A copy under the same name, elsewhere: the name made unique.
    (tmp_path / "old").mkdir()
    again = register_file(store, Path(shutil.copy(original, tmp_path / "old" / "a.md")), new_document=True)
    assert (again.outcome, again.source.doc_id) == ("new", "a-2")
    assert register_file(store, original, new_document=True).describe() == "revision 1 (unchanged)"


def test_the_moved_file_of_a_document_whose_path_went_to_another_is_that_document(store, tmp_path):
    path = _write(tmp_path / "report.md", V1)
    doc_id = register_file(store, path).source.doc_id
    shutil.move(path, tmp_path / "report-2023.md")
    _write(path, OTHER)
    register_file(store, path, new_document=True)
    moved = register_file(store, tmp_path / "report-2023.md")
    assert (moved.source.doc_id, moved.describe()) == (doc_id, "revision 1, renamed from report.md")


def test_a_key_the_file_declares_still_decides(store, tmp_path):
    path = _write(tmp_path / "sop.md", V1)
    hashed = register_file(store, path).source.doc_id
    _write(tmp_path / "sop.md.meta.json", json.dumps({"doc_id": "SOP-1"}))
    keyed = register_file(store, path)
    assert (keyed.source.doc_id, keyed.describe()) == ("SOP-1", f"new document (until now this file was {hashed})")
    (tmp_path / "sop.md.meta.json").unlink()
    _write(path, V2)  # the sidecar is gone: the path says which document it is
    assert register_file(store, path).source.doc_id == "SOP-1"
    assert register_file(store, path, explicit_doc_id="SOP-1").describe() == "revision 2 (unchanged)"


def test_a_key_two_files_declare_in_one_batch_goes_to_the_first_and_the_second_is_named(store, tmp_path):
    for name, text in (("a.md", V1), ("b.md", OTHER)):
        _write(tmp_path / name, text)
        _write(tmp_path / f"{name}.meta.json", json.dumps({"doc_id": "SOP-1"}))
    first, second = register_files(store, [tmp_path / "a.md", tmp_path / "b.md"])
    assert first.source.doc_id == "SOP-1" and first.file.name == "a.md"
    assert isinstance(second, DocumentError)
    assert str(second).endswith("b.md: doc_id SOP-1 is a.md's in this run already; give each file its own key")
    assert _revisions(store, "SOP-1") == [(1, "a.md", "sidecar")]


def test_each_result_names_its_own_file_and_a_file_named_twice_counts_once(store, tmp_path):
    good = _write(tmp_path / "a.md", V1)
    empty = tmp_path / "e.md"
    empty.write_bytes(b"")
    (tmp_path / "sub").mkdir()
    found = register_files(store, [good, empty, good, tmp_path / "sub" / ".." / "a.md"])
    assert len(found) == 2
    assert found[0].file == good.resolve() and str(found[1]).startswith(str(empty))


def test_files_of_one_name_in_two_folders_are_two_documents_the_second_made_unique(store, tmp_path):
    for folder in ("site-a", "site-b"):
        (tmp_path / folder).mkdir()
    found = register_files(store, [_write(tmp_path / "site-a" / "KPI Report.md", V1),
                                   _write(tmp_path / "site-b" / "KPI Report.md", OTHER)])
    assert [(f.source.doc_id, f.outcome) for f in found] == [("KPI-Report", "new"), ("KPI-Report-2", "new")]


def test_a_document_registered_under_its_content_hash_keeps_that_id_edited_renamed_or_re_run(store, tmp_path):
    # A store from before D89 holds documents keyed by content hash: they keep their ids, so
    # their decisions, exports and partitions stay theirs.
    path = _write(tmp_path / "kpi.md", V1)
    old = identify(path)
    legacy = register(store, replace(old, doc_id=content_hash_doc_id(old.content_sha256), key_source="content_hash"))
    doc_id = legacy.source.doc_id
    assert doc_id.startswith("doc-")
    assert register_file(store, path).source.doc_id == doc_id  # re-run
    _write(path, V2)
    assert register_file(store, path).source.doc_id == doc_id  # edited in place
    assert register_file(store, path.rename(tmp_path / "kpi-final.md")).source.doc_id == doc_id  # renamed

