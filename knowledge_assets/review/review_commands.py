"""The `knowledge-assets review` commands:

    review list --doc-id X [--json] [--full]                the pending entries, in queue order
    review show ID [--doc-id X]                             the entry now, its state and history (JSON)
    review approve ID --reviewer NAME --seen FINGERPRINT [--note TEXT]
    review reject ID --reviewer NAME --note TEXT --seen FINGERPRINT
    review edit ID --payload FILE --reviewer NAME --seen FINGERPRINT [--note TEXT]
    review serve [--host 127.0.0.1] [--port 8765] [--lock-timeout S]   the same review in the browser

ID is a term_id, formula_id, rule_id or domain_id, or `<domain_id>:<surface>` for a key
parameter. Every decision is appended to `knowledge_reviews`; a bad id, an unknown document or
an invalid payload writes nothing and exits 1 (a ReviewError, reported by `knowledge-assets`),
and so does a decision on an entry that is not of the document's current revision. `list` and
`show` still show such a document's entries, after one line on stderr saying what is behind and
the command that brings it up to date.

`list` and `show` print each entry's content fingerprint; every decision passes it back with
`--seen` (required: a decision always names the content it was taken on; the whole `sha256:…`,
or at least its first 12 hex digits), and is refused if a run changed the entry since: exit 1,
one line naming the fields that changed, then each field's value shown and now, nothing written
(review/decisions.py, D82). The line a recorded decision prints names that content's fingerprint.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path

from knowledge_assets.errors import read_json
from knowledge_assets.review.decisions import Decision, Review, Shown, history, record_decision, validate_edit
from knowledge_assets.review.document_queues import pending_work, progress, queue_entries
from knowledge_assets.review.entities import ReviewError, find
from knowledge_assets.review.fingerprint import short_fingerprint
from knowledge_assets.review.status import statuses_of
from knowledge_assets.settings import store_setting
from knowledge_assets.store.backends import open_store
from knowledge_assets.store.protocol import Store
from knowledge_assets.store.revisions import revision_state


def _store() -> Store:
    return open_store()


def _warn_if_not_current(store: Store, doc_id: str) -> None:
    state = revision_state(store, doc_id)
    if not state.current:
        print(f"warning: not current: {state.describe()}", file=sys.stderr)


def cmd_list(args: argparse.Namespace) -> int:
    store = _store()
    entries = queue_entries(store, args.doc_id)  # the review states, computed once for both figures
    items = pending_work(entries)
    _warn_if_not_current(store, args.doc_id)
    if args.json:
        print(json.dumps([asdict(item) for item in items], ensure_ascii=False, indent=2))
        return 0
    for item in items:
        where = f"p.{item.page_no}" if item.page_no else "p.?"
        if item.section_no:
            where += f" §{item.section_no}"
        print(f"{item.rank:>4}  {item.kind:<13} {item.id}  {item.state}  {where}  {item.label}")
        print(f"      reason: {item.reason}")
        print(f"      seen:   {short_fingerprint(item.fingerprint)}")
        if item.kept:
            print(f"      kept:   {item.kept}")
        print(f"      span:   {' '.join(item.span.split())}")
        if args.full:
            for name, value in (item.content or {}).items():
                print(f"      {name}: {_one_line(value)}")
    decided = progress(entries)
    print(f"{len(items)} pending in {args.doc_id}; decided " + ", ".join(
        f"{p.decided}/{p.total}" + (f" {p.kind}" if p.kind else "") for p in decided))
    return 0


def _one_line(value: object) -> str:
    """A content field on one line, as the reviewer must read it: text with its breaks and
    pipes shown (`\\n`), lists and mappings as JSON, nothing as `-`."""
    if value is None or value == [] or value == "":
        return "-"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _history_row(review: Review) -> dict:
    return {
        "review_id": review.review_id,
        "decision": review.decision,
        "reviewer": review.reviewer,
        "reviewed_at": review.reviewed_at.isoformat(),
        "note": review.note,
        "fingerprint": review.fingerprint,
        "edited_payload": review.edited_payload,
    }


def cmd_show(args: argparse.Namespace) -> int:
    store = _store()
    item = find(store, args.id, args.doc_id)
    _warn_if_not_current(store, item.doc_id)
    reviews = [r for r in history(store, item.doc_id) if r.key == item.key]
    status = statuses_of([item], {item.key: reviews[-1]} if reviews else {})[0]
    shown = {
        "id": item.key.ref,
        "doc_id": item.doc_id,
        "kind": item.key.kind,
        "state": status.state,
        "stale_reason": status.stale_reason,
        "fingerprint": status.fingerprint,
        "entry": item.entity.model_dump(mode="json"),
        "history": [_history_row(r) for r in reviews],
    }
    if item.key.kind == "key_parameter":
        shown["provenance"] = item.provenance.model_dump(mode="json")
    print(json.dumps(shown, ensure_ascii=False, indent=2))
    return 0


def _decide(args: argparse.Namespace, decision: Decision, edited_from: Path | None = None) -> int:
    store = _store()
    item = find(store, args.id, args.doc_id)
    edited = None
    if edited_from is not None:
        payload = read_json(edited_from, ReviewError, "payload")
        edited = validate_edit(item, payload, str(edited_from))
    review = record_decision(store, item, decision, args.reviewer, args.note, edited, shown=Shown(args.seen))
    print(f"{decision} {item.key.kind} {item.key.ref} ({item.label}) in {item.doc_id}: {review.review_id} "
          f"(content {short_fingerprint(review.fingerprint)})")
    return 0


def cmd_approve(args: argparse.Namespace) -> int:
    return _decide(args, "approved")


def cmd_reject(args: argparse.Namespace) -> int:
    return _decide(args, "rejected")


def cmd_edit(args: argparse.Namespace) -> int:
    return _decide(args, "edited", Path(args.payload))


def cmd_serve(args: argparse.Namespace) -> int:
    # Imported here: the web stack is only loaded by the command that needs it.
    from knowledge_assets.review.web.serve import serve

    serve(store_setting(), args.host, args.port, args.lock_timeout, args.document_states)
    return 0


def _entry(commands: argparse._SubParsersAction, name: str, help: str, handler) -> argparse.ArgumentParser:
    parser = commands.add_parser(name, help=help)
    parser.set_defaults(handler=handler)
    return parser


def _decision(commands: argparse._SubParsersAction, name: str, help: str, handler, note_required=False):
    parser = _entry(commands, name, help, handler)
    parser.add_argument("id", help="term_id, formula_id, rule_id, domain_id, or <domain_id>:<surface>")
    parser.add_argument("--doc-id", help="the document, when the id alone does not say")
    parser.add_argument("--reviewer", required=True, help="who decides")
    parser.add_argument("--note", required=note_required, help="why" + (" (required)" if note_required else ""))
    parser.add_argument("--seen", metavar="FINGERPRINT", required=True,
                        help="the content fingerprint `review list` or `review show` printed (sha256:…, or its "
                        "first 12+ hex digits); required: a decision always names the content it was taken on, "
                        "and is refused, nothing written, if a run changed the entry since")
    return parser


def add_commands(subparsers: argparse._SubParsersAction, document_states=None) -> None:
    """Adds `review` and its subcommands to the `knowledge-assets` parser; `document_states`
    reads each document's run state for the pages (review/web/context.py `DocumentStates`)."""
    review = subparsers.add_parser("review", help="expert review: list, show, approve, reject, edit, serve")
    commands = review.add_subparsers(dest="review_command", required=True)
    listing = _entry(commands, "list", "the document's pending entries, in queue order", cmd_list)
    listing.add_argument("--doc-id", required=True)
    listing.add_argument("--json", action="store_true", help="one JSON array instead of text (content included)")
    listing.add_argument("--full", action="store_true",
                         help="each entry's content too (full name, definition, formula, rule text…), "
                         "a field a line, quoted with its line breaks shown: what --seen approves")
    show = _entry(commands, "show", "an entry as stored now, its review state and history (JSON)", cmd_show)
    show.add_argument("id", help="term_id, formula_id, rule_id, domain_id, or <domain_id>:<surface>")
    show.add_argument("--doc-id", help="the document, when the id alone does not say")
    _decision(commands, "approve", "approve the entry, as `review list` or `review show` showed it", cmd_approve)
    _decision(commands, "reject", "reject the entry; it never reaches approved knowledge", cmd_reject,
              note_required=True)
    edit = _decision(commands, "edit", "replace the entry by a corrected one (a contract JSON object)", cmd_edit)
    edit.add_argument("--payload", required=True, help="JSON file holding the corrected entry")
    serve = _entry(commands, "serve", "review in the browser: documents, queue, entries beside their source", cmd_serve)
    serve.set_defaults(document_states=document_states)
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to listen on (default 127.0.0.1, this machine only)")
    serve.add_argument("--port", type=int, default=8765)
    serve.add_argument("--lock-timeout", type=float, default=10.0, metavar="SECONDS",
                       help="how long a request waits for a running materialisation to release the store")
