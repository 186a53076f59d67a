"""Which parsed documents hold other content now: what the scheduled re-extraction re-parses."""

from knowledge_assets.ingest.changed_documents import changed_documents
from knowledge_assets.ingest.documents import identify
from knowledge_assets.ingest.stage import parse_registered
from knowledge_assets.store.registry import register


def _registered(store, folder, name, text, parse=True):
    path = folder / name
    path.write_text(text, encoding="utf-8")
    doc_id = register(store, identify(path)).source.doc_id
    if parse:
        parse_registered(store, doc_id)
    return path, doc_id


def test_only_a_document_whose_file_was_edited_since_parsing_is_changed(store, tmp_path):
    edited, edited_id = _registered(store, tmp_path, "a.md", "# 1. Scope\n\nfirst\n")
    _, same_id = _registered(store, tmp_path, "b.md", "# 1. Scope\n\nsecond\n")
    assert changed_documents(store, [edited_id, same_id]) == set()
    edited.write_text("# 1. Scope\n\nfirst, revised\n", encoding="utf-8")
    assert changed_documents(store, [edited_id, same_id]) == {edited_id}
    parse_registered(store, edited_id)
    assert changed_documents(store, [edited_id, same_id]) == set()


def test_a_removed_file_and_a_document_never_parsed_are_not_changed(store, tmp_path):
    removed, removed_id = _registered(store, tmp_path, "a.md", "# 1. Scope\n\nfirst\n")
    _, unparsed_id = _registered(store, tmp_path, "b.md", "# 1. Scope\n\nsecond\n", parse=False)
    removed.unlink()
    assert changed_documents(store, [removed_id, unparsed_id]) == set()
