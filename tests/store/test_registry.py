from knowledge_assets.ingest.documents import identify
from knowledge_assets.store.registry import latest_source, register


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
    register(store, identify(path))
    moved = path.rename(tmp_path / "sop-renamed.md")
    registration = register(store, identify(moved))
    assert registration.revision == 1 and not registration.changed
    source, revision = latest_source(store, registration.source.doc_id)
    assert source.path == moved.resolve() and revision == 1
