"""The `knowledge-assets documents` commands:

    documents [--json]                              every document: doc_id, file, title, revision,
                                                    entries decided/total, last run, state
    documents remove DOC_ID [--with-decisions] [--yes]
                                                    its rows in every table of the store, its
                                                    Dagster partition; asks first

A state is the partition's (run_control/document_state.py): `ok`, `partial` (model calls failed; the
first cause named), `failed` (with the cause of its last run), `running`, `incomplete` (assets
missing, or behind the registry's revision), `not run`. A removed document's review decisions
stay unless `--with-decisions`: they apply again if the same content comes back. The file
itself is never touched.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import datetime

from knowledge_assets.errors import KnowledgeError
from knowledge_assets.review.document_queues import document_summaries
from knowledge_assets.review.status import DECIDED
from knowledge_assets.store.backends import open_store
from knowledge_assets.store.protocol import Store
from knowledge_assets.store.removal import DECISION_TABLES, DECISIONS_TABLE, document_row_counts, remove_document_rows
from knowledge_assets.store.revisions import revision_state

_TITLE_CHARS = 40
_COLUMNS = ("doc_id", "file", "title", "revision", "decided", "last run (UTC)", "state")


class DocumentsError(KnowledgeError):
    """A document to remove that does not exist, or a removal nobody confirmed."""


@dataclass(frozen=True)
class DocumentLine:
    doc_id: str
    file: str | None
    title: str | None
    revision: int | None
    state: str
    cause: str | None
    decided: int
    entries: int
    last_run: datetime | None

    def cells(self) -> tuple[str, ...]:
        title = self.title or "-"
        if len(title) > _TITLE_CHARS:
            title = title[:_TITLE_CHARS - 1] + "…"
        return (self.doc_id, self.file or "-", title, "-" if self.revision is None else str(self.revision),
                f"{self.decided}/{self.entries}", f"{self.last_run:%Y-%m-%d %H:%M}" if self.last_run else "-",
                self.state + (f": {self.cause}" if self.cause else ""))


def document_lines(store: Store, instance, only: str | None = None) -> list[DocumentLine]:
    """Every document the store or the partitions know (or only the one), sorted by doc_id."""
    from knowledge_assets.run_control.document_state import document_partitions, partition_states

    summaries = {s.doc_id: s for s in document_summaries(store, None if only is None else [only])}
    doc_ids = [only] if only is not None else sorted(set(summaries) | set(document_partitions(instance)))
    states = partition_states(instance, doc_ids)
    lines = []
    for doc_id in doc_ids:
        summary, state = summaries.get(doc_id), states[doc_id]
        outcome, cause = state.outcome, state.cause
        revisions = revision_state(store, doc_id) if outcome in ("ok", "partial") else None
        if revisions is not None and not revisions.current:
            # The one guard's line (D57): assets behind, or blocking checks that never finished.
            outcome, cause = "incomplete", revisions.describe()
        moments = [m for m in (summary and summary.last_run, state.failed_at) if m]
        lines.append(DocumentLine(
            doc_id=doc_id,
            file=summary.file_name if summary else None,
            title=summary.title if summary else None,
            revision=summary.revision if summary else None,
            state=outcome,
            cause=cause,
            decided=sum(summary.states[s] for s in DECIDED) if summary else 0,
            entries=sum(summary.states.values()) if summary else 0,
            last_run=max(moments) if moments else None,
        ))
    return lines


def _table(rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(row[n]) for row in rows) for n in range(len(rows[0]) - 1)]
    return ["  ".join([*(cell.ljust(width) for cell, width in zip(row, widths)), row[-1]]) for row in rows]


def cmd_list(args: argparse.Namespace, instance_factory: Callable) -> int:
    with open_store().session() as store:
        lines = document_lines(store, instance_factory())
    if args.json:
        print(json.dumps([asdict(line) for line in lines], ensure_ascii=False, indent=2, default=str))
        return 0
    if not lines:
        print(f"no documents in {store.location}; `knowledge-assets run PATH` adds some")
        return 0
    for text in _table([tuple(c.upper() for c in _COLUMNS), *(line.cells() for line in lines)]):
        print(text.rstrip())
    tally = Counter(line.state for line in lines)
    print(f"{len(lines)} document{'s' if len(lines) != 1 else ''}: "
          + ", ".join(f"{n} {state}" for state, n in sorted(tally.items())))
    return 0


def _removal(line: DocumentLine, counts: dict[str, int], partition: bool, with_decisions: bool) -> str:
    """`doc-… (kpi.md, "Title"): 1,234 rows in 14 tables and its Dagster partition; its 3 review
    decisions are kept (…)`: what a removal deletes, for the question and the report."""
    names = [name for name in (line.file, line.title and f'"{line.title}"') if name]
    deleted = {table: n for table, n in counts.items() if with_decisions or table not in DECISION_TABLES}
    parts = [f"{sum(deleted.values()):,} rows in {len(deleted)} tables"] if deleted else []
    parts += ["its Dagster partition"] if partition else []
    said = line.doc_id + (f" ({', '.join(names)})" if names else "") + ": " + " and ".join(parts)
    if counts.get(DECISIONS_TABLE) and not with_decisions:
        said += f"; its {counts[DECISIONS_TABLE]} review decisions are kept (--with-decisions removes them)"
    return said


def _confirmed(question: str) -> bool:
    try:
        return input(f"remove {question}? [y/N] ").strip().lower() in ("y", "yes")
    except EOFError:
        return False


def cmd_remove(args: argparse.Namespace, instance_factory: Callable) -> int:
    from knowledge_assets.run_control.document_state import has_partition, remove_partition

    # No session held: the store stays free for others while the question waits for an answer.
    store = open_store()
    instance = instance_factory()
    doc_id = args.doc_id
    counts = document_row_counts(store, doc_id)
    partition = has_partition(instance, doc_id)
    if not counts and not partition:
        raise DocumentsError(f"{doc_id}: no such document in {store.location} or the Dagster partitions; "
                             "`knowledge-assets documents` lists them")
    [line] = document_lines(store, instance, only=doc_id)
    if line.state == "running":
        raise DocumentsError(f"{doc_id}: a run is materialising it now; remove it once the run has ended")
    what = _removal(line, counts, partition, args.with_decisions)
    if not args.yes:
        if not sys.stdin.isatty():
            raise DocumentsError(f"documents remove asks before deleting {doc_id}, and there is no terminal to "
                                 "answer on; pass --yes")
        if not _confirmed(what):
            print("nothing removed")
            return 0
    remove_document_rows(store, doc_id, args.with_decisions)
    if partition:
        remove_partition(instance, doc_id)
    print(f"removed {what}")
    return 0


def add_commands(subparsers: argparse._SubParsersAction, instance_factory: Callable) -> None:
    """Adds `documents` and `documents remove` to the `knowledge-assets` parser; the Dagster
    instance comes from `instance_factory`, called only by a command that runs."""
    documents = subparsers.add_parser(
        "documents", help="list the documents: file, title, revision, decided entries, last run, state")
    documents.add_argument("--json", action="store_true", help="one JSON array instead of the table")
    documents.set_defaults(handler=lambda args: cmd_list(args, instance_factory))
    commands = documents.add_subparsers(dest="documents_command")
    remove = commands.add_parser(
        "remove", help="delete a document's rows in every table and its Dagster partition (asks first)")
    remove.add_argument("doc_id")
    remove.add_argument("--with-decisions", action="store_true",
                        help="delete its review decisions too (kept by default: they apply again if it comes back)")
    remove.add_argument("--yes", action="store_true", help="do not ask; required without a terminal")
    remove.set_defaults(handler=lambda args: cmd_remove(args, instance_factory))
