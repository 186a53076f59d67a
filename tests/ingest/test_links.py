"""Links that reach no file — a loop, a missing target — are named for what they are, in a
folder as well as given directly, and the inbox reports them once like any unreadable file."""

import pytest

from knowledge_assets.ingest.document_error import DocumentError
from knowledge_assets.ingest.documents import discover, identify
from knowledge_assets.ingest.inbox import InboxCursor, advance, scan_inbox
from knowledge_assets.store.database import DuckDBStore


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "ok.md").write_text("# 1. Scope\n\nfine\n", encoding="utf-8")
    (tmp_path / "loop.md").symlink_to("loop.md")
    (tmp_path / "gone.md").symlink_to("nowhere.md")
    (tmp_path / "alias.md").symlink_to("ok.md")
    return tmp_path


def _cause(path) -> str:
    with pytest.raises(DocumentError) as failed:
        identify(path)
    return failed.value.cause


def test_a_folder_lists_the_links_that_reach_no_file_and_each_is_named_for_what_it_is(folder):
    assert [p.name for p in discover([folder])] == ["alias.md", "gone.md", "loop.md", "ok.md"]
    assert _cause(folder / "loop.md") == "symlink loop: the link leads back to itself, never to a file"
    assert _cause(folder / "gone.md") == "broken symlink: its target nowhere.md does not exist"
    assert _cause(folder / "missing.md") == "no such file"
    assert identify(folder / "alias.md").path == (folder / "ok.md").resolve()


def test_the_inbox_reports_a_link_loop_once_and_still_runs_the_rest(folder, tmp_path_factory):
    store = DuckDBStore(tmp_path_factory.mktemp("store") / "knowledge.duckdb")
    scan = scan_inbox(store, folder, InboxCursor(), limit=10)
    assert sorted(e.cause.split(":")[0] for e in scan.unreadable) == ["broken symlink", "symlink loop"]
    assert len(scan.to_run) == 1  # ok.md, which alias.md links to, runs once
    again = scan_inbox(store, folder, InboxCursor.parse(advance(InboxCursor(), scan).dump()), limit=10)
    assert again.unreadable == []
