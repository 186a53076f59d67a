import json
import os
from pathlib import Path

import pytest

from knowledge_assets.ingest.document_error import DocumentError
from knowledge_assets.ingest.documents import content_hash_doc_id, discover, discover_documents, identify


def _doc(tmp_path: Path, name: str = "a.md", text: str = "# 1. Purpose\n\nText.\n") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_without_a_key_the_doc_id_is_the_file_name_people_read(tmp_path):
    source = identify(_doc(tmp_path))
    assert (source.doc_id, source.key_source) == ("a", "file_name")
    names = {"Kepka 12-1999 Penambangan.md": "Kepka-12-1999-Penambangan", "SKT Standard (rev 2).md":
             "SKT-Standard-rev-2", "Pengukuran Kinerja Alat Berat – Revisi.md": "Pengukuran-Kinerja-Alat-Berat-Revisi",
             "Análisis_de_Fallas.v2.md": "Analisis_de_Fallas.v2", "  --odd--  .md": "odd"}
    assert {name: identify(_doc(tmp_path, name)).doc_id for name in names} == names
    long = identify(_doc(tmp_path, "x" * 200 + ".md")).doc_id
    assert long == "x" * 100  # room left for the -2 that makes a name unique


def test_a_name_with_nothing_a_key_can_keep_falls_back_to_the_content_hash(tmp_path):
    source = identify(_doc(tmp_path, "报告.md"))
    assert (source.doc_id, source.key_source) == (content_hash_doc_id(source.content_sha256), "content_hash")


def test_a_mineru_content_list_is_named_by_its_document_not_content_list(tmp_path):
    folder = tmp_path / "Laporan Tahunan"
    folder.mkdir()
    (folder / "content_list.json").write_text("[]", encoding="utf-8")
    (tmp_path / "Perka_7_content_list.json").write_text("[]", encoding="utf-8")
    assert identify(folder / "content_list.json").doc_id == "Laporan-Tahunan"
    assert identify(tmp_path / "Perka_7_content_list.json").doc_id == "Perka_7"


def test_sidecar_key_wins_over_content_hash_and_explicit_key_wins_over_sidecar(tmp_path):
    path = _doc(tmp_path)
    (tmp_path / "a.md.meta.json").write_text(json.dumps({"doc_id": "SOP-7"}))
    assert identify(path).doc_id == "SOP-7" and identify(path).key_source == "sidecar"
    assert identify(path, "SOP-8").doc_id == "SOP-8"


def test_yaml_sidecar_is_read(tmp_path):
    path = _doc(tmp_path)
    (tmp_path / "a.md.meta.yaml").write_text("doc_id: SOP-9\n")
    assert identify(path).doc_id == "SOP-9"


@pytest.mark.parametrize("bad", ["", "   ", "a/b", "x::y", "bad key", "a,b", "-lead", "x" * 129])
def test_invalid_doc_ids_are_refused_with_a_clear_error(tmp_path, bad):
    with pytest.raises(DocumentError, match="doc_id"):
        identify(_doc(tmp_path), bad)


def test_sidecar_without_doc_id_names_the_sidecar(tmp_path):
    path = _doc(tmp_path)
    (tmp_path / "a.md.meta.json").write_text(json.dumps({"title": "x"}))
    with pytest.raises(DocumentError, match=r"a\.md\.meta\.json: sidecar has no 'doc_id'"):
        identify(path)


def test_unsupported_extension_and_empty_file_are_named(tmp_path):
    odt = tmp_path / "x.odt"
    odt.write_bytes(b"PK\x03\x04")
    with pytest.raises(DocumentError, match=r"x\.odt: unsupported file type '\.odt'"):
        identify(odt)
    empty = tmp_path / "e.md"
    empty.write_bytes(b"")
    with pytest.raises(DocumentError, match=r"e\.md: empty file"):
        identify(empty)


def test_discover_skips_sidecars_and_hidden_files(tmp_path):
    _doc(tmp_path, "a.md")
    (tmp_path / "a.md.meta.json").write_text("{}")
    (tmp_path / ".hidden.md").write_text("x")
    (tmp_path / "sub").mkdir()
    _doc(tmp_path / "sub", "b.txt")
    assert [p.name for p in discover([tmp_path])] == ["a.md", "b.txt"]


def test_a_named_folder_with_no_document_is_a_problem_and_a_folder_below_one_is_not(tmp_path):
    (tmp_path / "docs" / "empty-below").mkdir(parents=True)
    _doc(tmp_path / "docs")
    (tmp_path / "empty").mkdir()
    _doc(tmp_path / "empty", ".hidden.md")
    (tmp_path / "empty" / "a.md.meta.json").write_text("{}")
    (tmp_path / "named.md").mkdir()  # a folder named like a document is a folder

    found = discover_documents([tmp_path / "docs", tmp_path / "empty", tmp_path / "named.md", tmp_path / "gone.md"])

    assert found.files == [tmp_path / "docs" / "a.md", tmp_path / "gone.md"]
    assert [str(problem) for problem in found.problems] == [f"{tmp_path / 'empty'}: no documents in this folder",
                                                          f"{tmp_path / 'named.md'}: no documents in this folder"]
    assert discover([tmp_path / "empty"]) == []  # the inbox's view: an empty folder is no problem


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads past chmod 000; "
                    "tests/test_bad_inputs.py runs the same as root without the capabilities that allow it")
def test_a_file_and_a_folder_that_cannot_be_read_are_each_named_with_the_cause(tmp_path):
    locked, closed = _doc(tmp_path, "locked.md"), tmp_path / "closed"
    _doc(closed)
    for path in (locked, closed):
        path.chmod(0)
    try:
        found = discover_documents([tmp_path])
        with pytest.raises(DocumentError, match=r"locked\.md: cannot read the file \(Permission denied\)$"):
            identify(locked)
    finally:
        for path in (locked, closed):
            path.chmod(0o755)
    assert found.files == [locked]
    assert [str(problem) for problem in found.problems] == [f"{closed}: cannot read the folder (Permission denied)"]
