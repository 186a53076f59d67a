"""Revision consistency of a document's assets: the one guard every reader asks.

Every asset records, when it materialises, the registry revision of the parsed text it was
derived from (the parsed document's content hash, looked up in the `documents` registry). A
checked asset's blocking checks then record that they ended on those rows, and which failed;
materialising the asset again removes that record first. A document is current when every one
of its assets holds the registry's latest revision and every checked asset's blocking checks
ended and passed. What is not current, and why, `revision_state` says:
  - a run killed half-way leaves the later assets behind (`behind`);
  - a new revision whose parse failed leaves every asset behind, `parsed_chunks` first;
  - a run killed during (or before) an asset's blocking checks leaves no record, and a check
    that failed leaves its name (`unchecked`).
The blocking check, `export`, `export --approved`, the review's decisions (refused) and its
lists and pages (a one-line warning) all read it, so they agree on what is current.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone

from knowledge_assets.store.protocol import Store
from knowledge_assets.store.registry import latest_source
from knowledge_assets.store.rows import DOC_IDS_PER_STATEMENT, batched, in_list

# The per-document assets export and the review read, in the order a run materialises them.
DOCUMENT_ASSETS = ("parsed_chunks", "term_clusters", "formulas", "glossary", "rules", "domain_context", "review_queue")
# Those with blocking checks (defs/checks.py declares one set per asset named here).
CHECKED_ASSETS = ("formulas", "glossary", "rules", "domain_context", "review_queue")
_PARSED = DOCUMENT_ASSETS[0]


@dataclass(frozen=True)
class Behind:
    asset: str
    revision: int | None  # None: never materialised for this document


@dataclass(frozen=True)
class Unchecked:
    asset: str
    failed: tuple[str, ...]  # the blocking checks that failed; empty: they never ended


@dataclass(frozen=True)
class RevisionState:
    doc_id: str
    latest: int | None
    behind: list[Behind]
    unchecked: list[Unchecked]
    source_path: str | None = None  # the registered file, for the command that brings it up to date

    @property
    def current(self) -> bool:
        return not self.behind and not self.unchecked

    def holds_current(self, asset: str) -> bool:
        """Whether the asset's rows are of the latest revision and passed their blocking checks."""
        return all(b.asset != asset for b in self.behind) and all(u.asset != asset for u in self.unchecked)

    def describe(self) -> str:
        """What is not current and the command that brings it up to date, in one line."""
        parts = []
        if self.behind:
            held = ", ".join(f"{b.asset} ({'none' if b.revision is None else f'revision {b.revision}'})"
                             for b in self.behind)
            parts.append(f"the document is at revision {self.latest} but these assets are behind: {held}")
        if any(b.asset == _PARSED for b in self.behind):
            parts.append(f"revision {self.latest} was not parsed (`knowledge-assets documents` says why)")
        never = [u.asset for u in self.unchecked if not u.failed]
        if never:
            parts.append(f"the blocking checks of {', '.join(never)} did not finish")
        parts += [f"the blocking checks of {u.asset} failed ({', '.join(u.failed)})"
                  for u in self.unchecked if u.failed]
        target = f"`{run_command(self.source_path)}`" if self.source_path else "`knowledge-assets run` on it"
        return f"{self.doc_id}: {'; '.join(parts)}; run {target} again to bring it up to date"


def run_command(path: str) -> str:
    """The command that runs the document at `path` again, as a person types it."""
    return f"knowledge-assets run {shlex.quote(path)}"


def _parsed_revisions(store: Store, doc_ids: Sequence[str]) -> dict[str, dict]:
    """Each document's parsed text: its content hash and the latest registry revision that has
    that content (documents never parsed, or whose parsed content is not registered, absent).
    Two plain reads joined here: a join in SQL costs DuckDB several times a plain read."""
    parsed: dict[str, str] = {}
    revisions: dict[tuple[str, str], int] = {}
    for some in batched(doc_ids, DOC_IDS_PER_STATEMENT):
        parsed |= {r["doc_id"]: r["content_sha256"] for r in store.fetch(
            f"SELECT doc_id, content_sha256 FROM parsed_documents WHERE {in_list('doc_id', len(some))}", list(some))}
        for r in store.fetch(f"SELECT doc_id, content_sha256, revision FROM documents "
                             f"WHERE {in_list('doc_id', len(some))}", list(some)):
            key = (r["doc_id"], r["content_sha256"])
            revisions[key] = max(revisions.get(key, r["revision"]), r["revision"])
    return {doc_id: {"content_sha256": sha, "revision": revisions[doc_id, sha]}
            for doc_id, sha in parsed.items() if (doc_id, sha) in revisions}


def _now() -> datetime:
    return datetime.now(timezone.utc).replace(tzinfo=None)


def record_revisions(store: Store, doc_ids: Sequence[str], asset: str, run_id: str) -> dict[str, int]:
    """Stamps `asset` of each document with the revision of the parsed text now in the store,
    and removes the record of its earlier checks, all in one transaction (what a run's step
    over many documents records once their rows are written); returns each document's
    revision. A document whose parsed text is not in the store is left as it was."""
    parsed = _parsed_revisions(store, doc_ids)
    if not parsed:
        return {}
    recorded_at = _now()
    rows = [{"doc_id": doc_id, "asset": asset, "revision": found["revision"],
             "content_sha256": found["content_sha256"], "run_id": run_id, "recorded_at": recorded_at}
            for doc_id, found in parsed.items()]
    scope = {"asset": asset}
    store.replace_partitions(list(parsed), {"asset_revisions": rows, "asset_checks": []},
                             scope={"asset_revisions": scope, "asset_checks": scope})
    return {doc_id: found["revision"] for doc_id, found in parsed.items()}


def record_checks(store: Store, doc_id: str, asset: str, failed: Sequence[str], run_id: str) -> None:
    """Records that the asset's blocking checks ended on its rows now stored; `failed` names those
    that failed. An asset never stamped with a revision has nothing checked to record."""
    record_checks_of(store, asset, {doc_id: failed}, run_id)


def record_checks_of(store: Store, asset: str, failed_by_doc: dict[str, Sequence[str]], run_id: str) -> None:
    """`record_checks` for each document of `failed_by_doc` (its failed blocking checks), in one
    transaction: what a check step over many documents records once all of them are checked,
    so a step killed part-way records none (they read as checks that did not finish)."""
    held: dict[str, int] = {}
    doc_ids = list(failed_by_doc)
    for some in batched(doc_ids, DOC_IDS_PER_STATEMENT):
        held |= {r["doc_id"]: r["revision"] for r in store.fetch(
            f"SELECT doc_id, revision FROM asset_revisions WHERE asset = ? AND {in_list('doc_id', len(some))}",
            [asset, *some])}
    if not held:
        return
    recorded_at = _now()
    rows = [{"doc_id": doc_id, "asset": asset, "revision": revision, "failed_checks": ", ".join(failed_by_doc[doc_id]),
             "run_id": run_id, "recorded_at": recorded_at} for doc_id, revision in held.items()]
    store.replace_partitions(list(held), {"asset_checks": rows}, scope={"asset_checks": {"asset": asset}})


def revision_state(store: Store, doc_id: str, assets: Sequence[str] = DOCUMENT_ASSETS,
                   with_checks: bool = True) -> RevisionState:
    """The document's assets against the registry's latest revision; `with_checks`: and whether
    their blocking checks ended and passed (the blocking check of revisions asks without, as it
    is one of them)."""
    latest = store.fetch("SELECT max(revision) AS revision FROM documents WHERE doc_id = ?", [doc_id])[0]["revision"]
    held = {r["asset"]: r["revision"] for r in store.fetch(
        "SELECT asset, revision FROM asset_revisions WHERE doc_id = ?", [doc_id])}
    behind = [Behind(asset, held.get(asset)) for asset in assets if held.get(asset) != latest]
    unchecked = []
    if with_checks:
        ended = {r["asset"]: r["failed_checks"] for r in store.fetch(
            "SELECT asset, failed_checks FROM asset_checks WHERE doc_id = ?", [doc_id])}
        lagging = {b.asset for b in behind}
        unchecked = [Unchecked(asset, tuple(n for n in ended.get(asset, "").split(", ") if n))
                     for asset in assets if asset in CHECKED_ASSETS and asset not in lagging
                     and (asset not in ended or ended[asset])]
    registered = latest_source(store, doc_id)
    return RevisionState(doc_id, latest, behind, unchecked, None if registered is None else str(registered[0].path))


def not_current(store: Store, doc_ids: Sequence[str]) -> list[RevisionState]:
    """The states of those documents that are not current, in the order given."""
    return [state for state in (revision_state(store, doc_id) for doc_id in doc_ids) if not state.current]
