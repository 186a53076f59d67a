"""Which registered document a file is, decided against the registry, then registered
(docs/decisions.md D52): identity follows the file.

- A key the file declares (`--doc-id`, a sidecar) decides, as before.
- Else the path: a file at the path a document was registered at is that document — unchanged,
  or its next revision when its content changed (an edit in place). With `--new-document` a
  changed file becomes a document of its own instead.
- Else the content: a file at a new path with a document's latest content is that document
  moved (renamed or moved to another folder) when the document's own file is gone, and a copy
  of it otherwise: reported as an alias, registered nothing. The content of an older revision
  is an alias of that revision. With `--new-document` both become documents of their own.
- Else a new document, keyed by its file name (`documents.file_name_doc_id`, D89; the content
  hash when the name gives no key), suffixed `-2`, `-3`… when another document holds that key
  (another folder's file of the same name, or a document that has moved on to other content).

Several files are decided together: those whose path or key already names a document first, so
an edited file takes its revision before a copy of its old content is compared with it; then the
others, each in the order given. A doc_id given to one file in a batch is not given to another.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from knowledge_assets.ingest.document_error import DocumentError
from knowledge_assets.ingest.documents import identify
from knowledge_assets.store.protocol import Store
from knowledge_assets.store.registry import (
    ContentMatch,
    DocumentSource,
    content_matches,
    holds_its_path,
    latest_source,
    path_holder,
    register,
    shown_title,
    unused_doc_id,
)

Outcome = Literal["new", "unchanged", "revision", "moved", "alias"]
_KEYED = ("explicit", "sidecar")
_TITLE_CHARS = 80


@dataclass(frozen=True)
class Identified:
    """What a file turned out to be. For an alias, `source` is the document it repeats, not
    the file, and nothing was registered."""

    file: Path  # the file as found, resolved
    source: DocumentSource
    outcome: Outcome
    revision: int  # the document's revision now (an alias: the revision whose content the file has)
    moved_from: Path | None = None  # moved: where the document's file was
    took_path_from: str | None = None  # new: the document this path was registered to until now
    repeats: ContentMatch | None = None  # alias: the document revision the file repeats

    @property
    def registered(self) -> bool:
        return self.outcome != "alias"

    def names(self, title: str | None) -> str:
        """The document as a run's line names it: doc_id, file, and its title once known, on one
        line (a title located verbatim may run over several) and cut to a length a line can hold."""
        if not title:
            return f"{self.source.doc_id}  {self.file.name}"
        shown = shown_title(title) or ""
        if len(shown) > _TITLE_CHARS:
            shown = shown[:_TITLE_CHARS - 1].rstrip() + "…"
        return f'{self.source.doc_id}  {self.file.name}  "{shown}"'

    def describe(self) -> str:
        """What the registry made of the file, as a run's line says it."""
        if self.outcome == "new":
            return "new document" + (f" (until now this file was {self.took_path_from})" if self.took_path_from else "")
        if self.outcome == "unchanged":
            return f"revision {self.revision} (unchanged)"
        if self.outcome == "revision":
            return f"new revision {self.revision}"
        if self.outcome == "moved":
            assert self.moved_from is not None
            if self.moved_from.parent == self.file.parent:
                return f"revision {self.revision}, renamed from {self.moved_from.name}"
            return f"revision {self.revision}, moved from {self.moved_from}"
        assert self.repeats is not None
        revision = "" if self.repeats.is_latest else f"revision {self.revision} of "
        return f"same content as {revision}{self.source.doc_id} ({self.source.path.name}); not registered again"


@dataclass(frozen=True)
class _Plan:
    source: DocumentSource  # what to register, doc_id decided
    outcome: Outcome
    moved_from: Path | None = None
    took_path_from: str | None = None


def register_file(store: Store, path: Path, explicit_doc_id: str | None = None,
                  new_document: bool = False) -> Identified:
    """One file decided and registered (`knowledge-assets ingest`)."""
    [found] = register_files(store, [path], explicit_doc_id, new_document)
    if isinstance(found, DocumentError):
        raise found
    return found


def register_files(store: Store, paths: Sequence[Path], explicit_doc_id: str | None = None,
                   new_document: bool = False) -> list[Identified | DocumentError]:
    """Each file decided and, unless it is an alias, registered; one result per distinct file, in
    the order given, a file that cannot be registered as its error."""
    sources: dict[Path, DocumentSource | DocumentError] = {}
    for path in paths:
        try:
            source = identify(path, explicit_doc_id)
        except DocumentError as exc:
            # Keyed by the path as given: a symlink loop cannot be resolved.
            sources.setdefault(Path(path).absolute(), exc)
            continue
        sources.setdefault(source.path, source)
    known_first = sorted(
        (s for s in sources.values() if isinstance(s, DocumentSource)),
        key=lambda s: not (s.key_source in _KEYED or path_holder(store, s.path) is not None),
    )
    claimed: dict[str, Path] = {}
    results: dict[Path, Identified | DocumentError] = {}
    for source in known_first:  # a stable sort: the order given within each group
        try:
            results[source.path] = _register(store, source, new_document, claimed)
        except DocumentError as exc:
            results[source.path] = exc
    return [results.get(file, found) for file, found in sources.items()]


def _register(store: Store, source: DocumentSource, new_document: bool, claimed: dict[str, Path]) -> Identified:
    plan = _decide(store, source, new_document)
    if isinstance(plan, Identified):
        return plan
    doc_id = plan.source.doc_id
    if claimed.setdefault(doc_id, source.path) != source.path:
        raise DocumentError(source.path, f"doc_id {doc_id} is {claimed[doc_id].name}'s in this run already; "
                            "give each file its own key")
    registration = register(store, plan.source)
    return Identified(source.path, registration.source, plan.outcome, registration.revision,
                      plan.moved_from, plan.took_path_from)


def _decide(store: Store, source: DocumentSource, new_document: bool) -> _Plan | Identified:
    holder = path_holder(store, source.path)
    took_path_from = holder[0].doc_id if holder is not None else None
    if source.key_source in _KEYED:
        return _keyed(store, source, took_path_from)
    if holder is not None:
        known, _ = holder
        if known.content_sha256 == source.content_sha256:
            return _Plan(replace(source, doc_id=known.doc_id, key_source=known.key_source), "unchanged")
        if not new_document:
            return _Plan(replace(source, doc_id=known.doc_id, key_source="registered_path"), "revision")
    if not new_document and (matches := content_matches(store, source.content_sha256)):
        moved = next((m for m in matches if m.is_latest and not _has_its_file(store, m.source)), None)
        if moved is not None:
            return _Plan(replace(source, doc_id=moved.source.doc_id, key_source="registered_content"), "moved",
                         moved_from=moved.source.path)
        return Identified(source.path, matches[0].source, "alias", matches[0].revision, repeats=matches[0])
    doc_id = unused_doc_id(store, source.doc_id)
    return _Plan(replace(source, doc_id=doc_id), "new", took_path_from=took_path_from)


def _keyed(store: Store, source: DocumentSource, took_path_from: str | None) -> _Plan:
    latest = latest_source(store, source.doc_id)
    if latest is None:
        return _Plan(source, "new", took_path_from=took_path_from)
    known, _ = latest
    if known.content_sha256 != source.content_sha256:
        return _Plan(source, "revision")
    if known.path != source.path:
        return _Plan(source, "moved", moved_from=known.path)
    return _Plan(source, "unchanged")


def _has_its_file(store: Store, source: DocumentSource) -> bool:
    """The document's registered file is still there and still its own (its content may have been
    edited since: a copy of the old content is then a copy, not the document moved)."""
    return source.path.is_file() and holds_its_path(store, source)
