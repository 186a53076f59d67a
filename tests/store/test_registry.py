from knowledge_assets.ingest.documents import identify
from knowledge_assets.store.registry import latest_source, path_holder, register


def test_registration_is_idempotent_and_a_content_change_is_a_new_revision(store, tmp_path):
    path = tmp_path / "sop.md"
    path.write_text("# 1. Scope\n\nv1\n")
    first = register(store, identify(path, "SOP-1"))
    again = register(store, identify(path, "SOP-1"))
    assert (first.revision, first.changed) == (1, True)
    assert (again.revision, again.changed) == (1, False)
    path.write_text("# 1. Scope\n\nv2\n")
    second = register(store, identify(path, "SOP-1"))
    assert (second.revision, second.changed) == (2, True)
    assert len(store.fetch("SELECT * FROM documents WHERE doc_id = 'SOP-1'")) == 2


def test_a_renamed_file_keeps_its_doc_id_and_revision_and_moves_its_path(store, tmp_path):
    path = tmp_path / "sop.md"
    path.write_text("# 1. Scope\n\nv1\n")
    # Keyed: the registry's own rule (the CLI's registration finds an unkeyed file by its path
    # or content first, ingest/registration.py; the key a new file's name gives is D89's).
    register(store, identify(path, "SOP"))
    moved = path.rename(tmp_path / "sop-renamed.md")
    registration = register(store, identify(moved, "SOP"))
    assert registration.revision == 1 and not registration.changed
    source, revision = latest_source(store, registration.source.doc_id)
    assert source.path == moved.resolve() and revision == 1


def test_a_paths_holder_is_the_document_registered_there_last_whose_latest_registration_is_there(store, tmp_path):
    first, second = tmp_path / "a.md", tmp_path / "b.md"
    first.write_text("# 1. Scope\n\nfirst\n")
    second.write_text("# 1. Scope\n\nsecond\n")
    assert path_holder(store, first.resolve()) is None
    register(store, identify(first, "DOC-A"))
    holder, revision = path_holder(store, first.resolve())
    assert (holder.doc_id, revision) == ("DOC-A", 1)
    # DOC-A moves to b.md: a.md is held by nobody, though DOC-A's first row still names it.
    register(store, identify(second, "DOC-A"))
    assert path_holder(store, first.resolve()) is None
    assert path_holder(store, second.resolve())[0].doc_id == "DOC-A"
    # DOC-B registered at a.md later holds it; DOC-A keeps b.md.
    register(store, identify(first, "DOC-B"))
    assert path_holder(store, first.resolve())[0].doc_id == "DOC-B"
    assert path_holder(store, second.resolve())[0].doc_id == "DOC-A"
