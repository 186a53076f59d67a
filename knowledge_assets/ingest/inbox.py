"""What the new-document sensor sees in the inbox folder, as plain data.

Each file is registered as `run` registers it (ingest/registration.py): an inbox file dropped
again under its name with new content is a new revision of its document, a renamed one is the
same document, a copy is reported as an alias and runs nothing.

The cursor remembers, per doc_id, the content hash a run was last requested for, and, per
unreadable file or alias, the version already reported — so a second tick or a restart requests
nothing twice and reports nothing twice. Files removed from the inbox are simply no longer seen:
their data stays.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from knowledge_assets.ingest.document_error import DocumentError
from knowledge_assets.ingest.documents import discover
from knowledge_assets.ingest.registration import Identified, register_files
from knowledge_assets.store.protocol import Store
from knowledge_assets.store.registry import DocumentSource


@dataclass
class InboxCursor:
    requested: dict[str, str] = field(default_factory=dict)  # doc_id -> content sha256
    reported: dict[str, str] = field(default_factory=dict)  # path -> "size:mtime_ns" reported, errors and aliases

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
    aliases: list[Identified]  # newly seen copies of a registered document


def _version(path: Path) -> str:
    # A link that reaches no file (a loop, a missing target) has only its own entry to stat.
    stat = path.stat() if path.exists() else path.lstat()
    return f"{stat.st_size}:{stat.st_mtime_ns}"


def scan_inbox(store: Store, inbox: Path, cursor: InboxCursor, limit: int) -> InboxScan:
    """Registers the inbox's files; what should run now, what waits, what to report."""
    if not inbox.is_dir():
        return InboxScan([], 0, [], [])
    pending: list[DocumentSource] = []
    unreadable: list[DocumentError] = []
    aliases: list[Identified] = []
    for found in register_files(store, discover([inbox])):
        if isinstance(found, DocumentError):
            if cursor.reported.get(found.path) != _version(Path(found.path)):
                unreadable.append(found)
        elif not found.registered:
            if cursor.reported.get(str(found.file)) != _version(found.file):
                aliases.append(found)
        elif cursor.requested.get(found.source.doc_id) != found.source.content_sha256:
            pending.append(found.source)
    return InboxScan(pending[:limit], len(pending[limit:]), unreadable, aliases)


def advance(cursor: InboxCursor, scan: InboxScan) -> InboxCursor:
    requested = {**cursor.requested, **{s.doc_id: s.content_sha256 for s in scan.to_run}}
    reported = {**cursor.reported, **{e.path: _version(Path(e.path)) for e in scan.unreadable},
                **{str(a.file): _version(a.file) for a in scan.aliases}}
    return InboxCursor(requested, reported)
