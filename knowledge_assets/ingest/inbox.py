"""What the new-document sensor sees in the inbox folder, as plain data.

The cursor remembers, per doc_id, the content hash a run was last requested for, and, per
unreadable file, the version already reported — so a second tick or a restart requests nothing
twice and reports nothing twice. Files removed from the inbox are simply no longer seen: their
data stays.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from knowledge_assets.ingest.documents import discover, identify
from knowledge_assets.ingest.errors import DocumentError
from knowledge_assets.store.registry import DocumentSource


@dataclass
class InboxCursor:
    requested: dict[str, str] = field(default_factory=dict)  # doc_id -> content sha256
    reported: dict[str, str] = field(default_factory=dict)  # path -> "size:mtime_ns" reported

    @classmethod
    def parse(cls, raw: str | None) -> InboxCursor:
        if not raw:
            return cls()
        data = json.loads(raw)
        return cls(requested=dict(data.get("requested", {})), reported=dict(data.get("reported", {})))

    def dump(self) -> str:
        return json.dumps({"requested": self.requested, "reported": self.reported}, sort_keys=True)


@dataclass(frozen=True)
class InboxScan:
    to_run: list[DocumentSource]  # new documents and new revisions, at most `limit`
    deferred: int  # more waiting beyond the limit, for the next tick
    unreadable: list[DocumentError]  # newly seen files that cannot be registered


def _version(path: Path) -> str:
    # A link that reaches no file (a loop, a missing target) has only its own entry to stat.
    stat = path.stat() if path.exists() else path.lstat()
    return f"{stat.st_size}:{stat.st_mtime_ns}"


def scan_inbox(inbox: Path, cursor: InboxCursor, limit: int) -> InboxScan:
    if not inbox.is_dir():
        return InboxScan([], 0, [])
    pending: list[DocumentSource] = []
    unreadable: list[DocumentError] = []
    for path in discover([inbox]):
        try:
            source = identify(path)
        except DocumentError as exc:
            if cursor.reported.get(str(path)) != _version(path):
                unreadable.append(exc)
            continue
        if cursor.requested.get(source.doc_id) != source.content_sha256:
            pending.append(source)
    # Two files claiming one doc_id in one scan: the first (in path order) goes now, the
    # other on a later tick, so a partition never gets two runs for one tick.
    unique: dict[str, DocumentSource] = {}
    for source in pending:
        unique.setdefault(source.doc_id, source)
    chosen = list(unique.values())[:limit]
    return InboxScan(chosen, len(pending) - len(chosen), unreadable)


def advance(cursor: InboxCursor, scan: InboxScan) -> InboxCursor:
    requested = {**cursor.requested, **{s.doc_id: s.content_sha256 for s in scan.to_run}}
    reported = {**cursor.reported, **{e.path: _version(Path(e.path)) for e in scan.unreadable}}
    return InboxCursor(requested, reported)
