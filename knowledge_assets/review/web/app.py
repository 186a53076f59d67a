"""The review web application: server-rendered pages over the store and the review functions
the CLI uses (`find`, `record_decision`, `validate_edit`, `history`, `export_approved`).

Safety, because these pages write the knowledge that goes into prompts:
  - every state-changing request is a POST carrying a CSRF token bound to the browser's
    session cookie (HMAC under a secret that lives only as long as the process);
  - the Host header must name the address the server was bound to or loopback (no DNS
    rebinding), except on a bind to every interface, which accepts any Host;
  - nothing from a request becomes a file path: page images are found through the registry,
    static files are held in memory, cached images are named by registry values and numbers;
  - templates escape everything (document text is untrusted), and the Content-Security-Policy
    allows this origin's own script and styles only;
  - a decision is one INSERT, a batch one transaction of one INSERT per entry (an approval or
    a rejection of many is confirmed first, on a page naming how many); when a running materialisation holds
    the store past the wait, the page says so and nothing was written;
  - every decision form carries the content fingerprint of each entry as the page showed it
    (`seen`; the entry page its content too, `seen_content`), and review/decisions.py refuses
    a decision on content a run changed since: the page answers 409 with the content now and
    what changed, and nothing was written (D82).

A batch is recorded in the store with its decisions (review/batch.py), so the queue offers to
undo it after the page is left or the server restarts: the URL names the batch by its id, never
the entries'; an entry's page offers to undo its latest decision, and the batch it was one of.
"""

from __future__ import annotations

import hashlib
import hmac
import io
import json
import secrets
import shlex
import tempfile
import zipfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args
from urllib.parse import parse_qs, quote, unquote, urlencode

import jinja2
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from knowledge_assets import contracts as c
from knowledge_assets.export import ExportError
from knowledge_assets.review.approved import export_approved
from knowledge_assets.review.batch import (
    Batch,
    EntriesChanged,
    batches,
    decide_all,
    record_batch,
    refuse_changed,
    undo,
    undoable_batches,
)
from knowledge_assets.review.decisions import (
    ContentChanged,
    Decision,
    Review,
    Shown,
    history,
    record_decision,
    validate_edit,
)
from knowledge_assets.review.documents import (
    DocumentSummary,
    QueueEntry,
    ReviewedSource,
    RunState,
    document_summaries,
    progress,
    queue_entries,
    reviewed_source,
)
from knowledge_assets.review.entities import KINDS, EntityKey, Reviewable, ReviewError, extracted_documents, find
from knowledge_assets.review.fingerprint import CONTENT_FIELDS, short_fingerprint
from knowledge_assets.review.status import STATE_MEANINGS, STATES
from knowledge_assets.review.web import source
from knowledge_assets.store.database import Store, StoreError
from knowledge_assets.store.held import held_on_one_connection
from knowledge_assets.store.open import open_store
from knowledge_assets.store.parsed import page_count, page_text
from knowledge_assets.store.registry import latest_source
from knowledge_assets.store.removal import review_page_cache
from knowledge_assets.store.revisions import not_current, run_command

HERE = Path(__file__).parent
SESSION_COOKIE = "ka_review_session"
REVIEWER_COOKIE = "ka_reviewer"
_MAX_FORM_BYTES = 256 * 1024
# Written by code, not by the model: shown, never offered for editing.
_SET_BY_CODE = {"source_wording"}
EDITABLE: dict[str, tuple[str, ...]] = {
    kind: tuple(name for name in fields if name not in _SET_BY_CODE) for kind, fields in CONTENT_FIELDS.items()
}
_DECISIONS: dict[str, Decision] = {"approve": "approved", "reject": "rejected", "edit": "edited"}
# What the entry page says of fields a reader otherwise takes for review states.
EXTRACTION_WORDS = {"ok": "definition found", "no_definition_found": "no definition found in the document",
                    "escalated": "the model call failed"}
DIFF_WORDS = {"new": "no earlier definition to compare with", "duplicate": "the same definition as the previous run",
              "conflicting": "a different definition from the previous run"}
# How many of a document's latest batches its pages offer to undo.
_BATCHES_OFFERED = 5
_FILTERS = ("kind", "reason", "state")
# What a queue URL keeps besides its filters: the search text and the page.
_KEPT = (*_FILTERS, "q", "page")
# A queue of 2,393 entries is 24 pages, not one page of 2.3 MB.
QUEUE_PAGE_SIZE = 100
# Each document's run state as the Dagster instance knows it, e.g. RunState("failed", "…", datetime(…)).
DocumentStates = Callable[[Sequence[str]], dict[str, RunState]]
_CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; "
        "frame-ancestors 'none'; base-uri 'none'; connect-src 'self'")
NOT_SHOWN = ("This form does not say which content of the entry it showed (a page opened before the server was "
             "updated?). Reload the page and decide again; nothing was written.")
LOCKED = ("The knowledge store is busy: a running materialisation holds {path}. Nothing was written"
          " — try again in a moment.")


@dataclass(frozen=True)
class FailedDocument:
    """A document whose latest run failed, as the pages name it: by its file, linked to its own page."""

    summary: DocumentSummary
    run: RunState


@dataclass(frozen=True)
class Settings:
    store: str  # KNOWLEDGE_STORE's syntax: a DuckDB file path or a PostgreSQL URL
    state_dir: Path
    allowed_hosts: tuple[str, ...]
    lock_timeout_s: float = 10.0
    # Given by the command that starts the server (review never imports the Dagster wiring).
    document_states: DocumentStates | None = None


def state_dir_for(store: str) -> Path:
    """The project's state folder: the one holding the DuckDB file (`.knowledge/` by default),
    the knowledge home for a shared store."""
    return open_store(store).state_dir


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(HERE / "templates"),
        autoescape=True,  # every template is HTML; document text is untrusted
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["q"] = lambda value: quote(str(value), safe="")
    env.filters["content_value"] = _content_value
    env.filters["short_fingerprint"] = short_fingerprint
    return env


def _content_value(value: object) -> str:
    """A reviewed-content value as text: a list item by item, a formula's variable `symbol: meaning`."""
    if value is None:
        return "—"
    if isinstance(value, list):
        return "; ".join(_content_value(v) for v in value) or "—"
    if isinstance(value, dict):
        return ": ".join(_content_value(v) for v in value.values())
    return str(value)


def _static_files() -> dict[str, tuple[bytes, str]]:
    types = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}
    return {p.name: (p.read_bytes(), types[p.suffix]) for p in (HERE / "static").iterdir() if p.suffix in types}


class ReviewApp:
    def __init__(self, settings: Settings):
        self.settings = settings
        self.secret = secrets.token_bytes(32)
        self.templates = _environment()
        self.static = _static_files()
        # One Store for the process: it checks the schema once, then only opens connections.
        self.store = open_store(settings.store, lock_timeout_s=settings.lock_timeout_s)

    # --- plumbing -------------------------------------------------------------------------

    @contextmanager
    def session(self) -> Iterator[Store]:
        """The store over one connection for the whole request: one consistent view, the file
        opened once (or, while a materialisation holds it, waited for once)."""
        with held_on_one_connection(self.store) as store:
            yield store

    def csrf_token(self, session: str) -> str:
        return hmac.new(self.secret, session.encode(), hashlib.sha256).hexdigest()

    def render(self, request: Request, template: str, status: int = 200, **values: Any) -> HTMLResponse:
        session = request.cookies.get(SESSION_COOKIE) or secrets.token_urlsafe(24)
        page = self.templates.get_template(template).render(
            csrf=self.csrf_token(session), reviewer=unquote(request.cookies.get(REVIEWER_COOKIE, "")),
            states=STATES, state_meanings=STATE_MEANINGS, kinds=KINDS,
            **{"not_current": [], "failed": [], **values},  # the banner's documents, if any
        )
        response = HTMLResponse(page, status_code=status)
        if request.cookies.get(SESSION_COOKIE) != session:
            response.set_cookie(SESSION_COOKIE, session, httponly=True, samesite="strict")
        return response

    async def form(self, request: Request) -> dict[str, list[str]]:
        """The urlencoded form, after the CSRF check; a missing or wrong token is a 403."""
        body = await request.body()
        if len(body) > _MAX_FORM_BYTES:
            raise HTTPException(413, "the form is too large")
        fields = parse_qs(body.decode("utf-8", errors="replace"), keep_blank_values=True)
        session = request.cookies.get(SESSION_COOKIE, "")
        token = (fields.get("csrf") or [""])[0]
        if not session or not hmac.compare_digest(token, self.csrf_token(session)):
            raise HTTPException(403, "This form did not come from this review page (its security token is "
                                "missing or out of date). Reload the page and try again; nothing was written.")
        return fields

    # --- pages ----------------------------------------------------------------------------

    def run_states(self, doc_ids: Sequence[str]) -> dict[str, RunState]:
        """Each document's run state, when the server was given a way to read it."""
        reader = self.settings.document_states
        return reader(list(doc_ids)) if reader is not None and doc_ids else {}

    def documents(self, request: Request) -> Response:
        with self.session() as store:
            summaries = document_summaries(store)
            behind = not_current(store, [s.doc_id for s in summaries])
        lagging = {state.doc_id for state in behind}
        runs = self.run_states([d.doc_id for d in summaries if not d.extracted or d.doc_id in lagging])
        # A failed document is one line naming it and why; its long not-current story is on its own page.
        failed = [FailedDocument(d, runs[d.doc_id]) for d in summaries
                  if d.doc_id in runs and runs[d.doc_id].outcome == "failed"]
        named = {f.summary.doc_id for f in failed}
        return self.render(request, "documents.html", documents=summaries, run_states=runs, failed=failed,
                           not_current=[state for state in behind if state.doc_id not in named])

    def queue(self, request: Request) -> Response:
        doc_id = request.path_params["doc_id"]
        chosen = {name: request.query_params.get(name, "") for name in _FILTERS}
        with self.session() as store:
            summary = next(iter(document_summaries(store, [doc_id], with_states=False)), None)
            if summary is not None and doc_id not in extracted_documents(store):
                return self._unextracted(request, store, summary)
            entries = self._entries(store, doc_id)
            behind = not_current(store, [doc_id])
            recorded = batches(store, doc_id)
        query = request.query_params.get("q", "").strip()
        matched = [e for e in entries if all(not v or _attribute(e, k) == v for k, v in chosen.items())
                   and _matches(e, query)]
        pages = max(1, -(-len(matched) // QUEUE_PAGE_SIZE))
        page = min(max(_int(request.query_params.get("page")), 1), pages)
        shown = matched[(page - 1) * QUEUE_PAGE_SIZE:page * QUEUE_PAGE_SIZE]
        kept = {name: value for name, value in chosen.items() if value} | ({"q": query} if query else {})
        batch = next((b for b in recorded if b.batch_id == request.query_params.get("batch")), None)
        recent = [b for b in recorded if b.still_latest and b is not batch][:_BATCHES_OFFERED]
        return self.render(
            request, "queue.html", doc_id=doc_id, entries=shown, total=len(entries), chosen=chosen,
            query=query, matched=len(matched), page=page, pages=pages, first=(page - 1) * QUEUE_PAGE_SIZE + 1,
            page_query=lambda n: urlencode(kept | ({"page": n} if n > 1 else {})),
            reasons=sorted({e.reason for e in entries if e.status.pending and e.state != "stale"}),
            progress=progress(entries), summary=summary, not_current=behind,
            # The undo of a batch is bound to each of its entries as this page shows it.
            batch=batch, recent=recent, all_entries=entries,
            filters=urlencode(kept | ({"page": page} if page > 1 else {})),
            undone=request.query_params.get("undone", ""), superseded=request.query_params.get("superseded", ""),
        )

    def _unextracted(self, request: Request, store: Store, summary: DocumentSummary) -> Response:
        """The page of a registered document with nothing to review: why (its run failed, with the
        cause and when; is running; never ran) and the commands that run it again or remove it."""
        registered = latest_source(store, summary.doc_id)
        path = str(registered[0].path) if registered else None
        return self.render(
            request, "unextracted.html", summary=summary, doc_id=summary.doc_id, path=path,
            run=self.run_states([summary.doc_id]).get(summary.doc_id),
            run_command=run_command(path or summary.file_name or "FILE"),
            remove_command=f"knowledge-assets documents remove {shlex.quote(summary.doc_id)}",
        )

    def progress(self, request: Request) -> Response:
        """The document's tallies and each entry's state now: what a page shown again from the
        browser's history (or a tab left open while another decided) refreshes itself with."""
        doc_id = request.path_params["doc_id"]
        with self.session() as store:
            entries = self._entries(store, doc_id)
        return JSONResponse(
            {"progress": [{"kind": p.kind or "all", "decided": p.decided, "total": p.total} for p in progress(entries)],
             "states": {e.ref: e.state for e in entries}},
            headers={"Cache-Control": "no-store"})

    def entry(self, request: Request) -> Response:
        with self.session() as store:
            item, entries, index = self._locate(
                store, request.path_params["entry_id"], request.query_params.get("doc_id")
            )
            reviews = [r for r in history(store, item.doc_id) if r.key == item.key]
            offered = undoable_batches(store, item.doc_id, _BATCHES_OFFERED)
            source_view = self._source(store, item, reviewed_source(store, item.doc_id))
            summary = document_summaries(store, [item.doc_id], with_states=False)[0]
            behind = not_current(store, [item.doc_id])
        current = entries[index]
        return self.render(
            request, "entry.html", entry=current, item=item, doc_id=item.doc_id, reviews=reviews,
            previous=entries[index - 1] if index > 0 else None,
            following=entries[index + 1] if index + 1 < len(entries) else None,
            total=len(entries), source=source_view, edit=_edit_fields(item),
            edited=_edited_view(current), subdomains=c.SUBDOMAINS, rule_types=get_args(c.RuleType),
            done=request.query_params.get("done", ""), summary=summary, progress=progress(entries),
            labels={e.ref: e.status.item.label for e in entries}, not_current=behind,
            extraction_words=EXTRACTION_WORDS, diff_words=DIFF_WORDS,
            # What every form of the page carries, so that a decision binds to what it shows.
            seen_content=json.dumps(current.status.content, ensure_ascii=False, sort_keys=True),
            # What was just decided, named by the store, never by text carried in the URL.
            decided=next((e for e in entries if e.ref == request.query_params.get("decided")), None),
            batch_of_last=_batch_of(offered, reviews[-1]) if reviews else None, entries=entries,
        )

    def page_image(self, request: Request) -> Response:
        doc_id, page_no = request.path_params["doc_id"], request.path_params["page_no"]
        with self.session() as store:
            document = reviewed_source(store, doc_id)
            pages = page_count(store, doc_id)
        if document is None or document.kind != "pdf":
            raise HTTPException(404, f"no PDF document {doc_id} in the registry")
        if not pages or not 1 <= page_no <= pages or not document.path.is_file():
            raise HTTPException(404, f"document {doc_id} has no page {page_no}")
        # Named by registry values and numbers only: nothing from the request but a checked int.
        cache = (review_page_cache(self.settings.state_dir, document.doc_id)
                 / f"{document.content_sha256[:16]}-{page_no}.png")
        path = source.cached_page_png(document.path, page_no - 1, cache)
        return FileResponse(path, media_type="image/png", headers={"Cache-Control": "private, max-age=3600"})

    def static_file(self, request: Request) -> Response:
        found = self.static.get(request.path_params["name"])
        if found is None:
            raise HTTPException(404, "no such file")
        return Response(found[0], media_type=found[1])

    # --- actions --------------------------------------------------------------------------

    async def decide(self, request: Request) -> Response:
        fields = await self.form(request)
        return await run_in_threadpool(self._decide, request, fields)

    def _decide(self, request: Request, fields: dict[str, list[str]]) -> Response:
        def value(name: str) -> str:
            return _value(fields, name)

        if value("decision") == "undo":
            return self._undo_entry(request, fields)
        decision = _DECISIONS.get(value("decision"))
        if decision is None:
            raise HTTPException(400, "unknown decision; use approve, reject, edit or undo")
        shown = _shown(fields)
        with self.session() as store:
            item, entries, index = self._locate(store, request.path_params["entry_id"], value("doc_id"))
            try:
                edited = (validate_edit(item, _edited_payload(item, fields), "the edit form")
                          if decision == "edited" else None)
                record_decision(store, item, decision, value("reviewer"), value("note") or None, edited, shown=shown)
            except ContentChanged as exc:
                return self._refused(request, store, item.doc_id, [exc], entry_url(item.key.ref, item.doc_id),
                                     unsaved=_unsaved_edit(fields) if decision == "edited" else [])
            except ReviewError as exc:
                return self._entry_error(request, item, str(exc))
        target = _next_pending(entries, index, item.doc_id) + f"&done={decision}&decided={quote(item.key.ref, safe='')}"
        return _remembering(RedirectResponse(target, status_code=303), value("reviewer"))

    def _undo_entry(self, request: Request, fields: dict[str, list[str]]) -> Response:
        """Undoes the entry's latest decision, the one its page showed (`review_id`)."""
        shown = _shown(fields)
        with self.session() as store:
            item, _, _ = self._locate(store, request.path_params["entry_id"], _value(fields, "doc_id"))
            try:
                done = undo(store, item.doc_id, [_value(fields, "review_id")], _value(fields, "reviewer"),
                            {item.key: shown})
            except EntriesChanged as exc:
                return self._refused(request, store, item.doc_id, exc.refusals, entry_url(item.key.ref, item.doc_id))
            except ReviewError as exc:
                return self._entry_error(request, item, str(exc))
            if not done.reviews:
                return self._entry_error(request, item, "Nothing was undone: the decision this page showed is no "
                                         "longer the entry's latest (it was decided again since). Reload the page.")
        target = entry_url(item.key.ref, item.doc_id) + "&done=undone"
        return _remembering(RedirectResponse(target, status_code=303), _value(fields, "reviewer"))

    async def decide_many(self, request: Request) -> Response:
        fields = await self.form(request)
        return await run_in_threadpool(self._decide_many, request, fields)

    def _decide_many(self, request: Request, fields: dict[str, list[str]]) -> Response:
        """Approves or rejects the selected entries, once the reviewer confirmed their count."""
        doc_id = request.path_params["doc_id"]
        decision = {"approve": "approved", "reject": "rejected"}.get(_value(fields, "decision"))
        if decision is None:
            raise HTTPException(400, "a batch approves or rejects")
        picked = _picked(fields)
        back = queue_url(doc_id) + _filters_query(parse_qs(_value(fields, "filters")))
        with self.session() as store:
            by_ref = {e.ref: e for e in self._entries(store, doc_id)}
            unknown = [ref for ref in picked if ref not in by_ref]
            if unknown:
                raise HTTPException(404, f"not entries of document {doc_id}: {', '.join(unknown[:5])}")
            if not picked:
                return self._batch_error(request, doc_id, "No entry was selected: tick the rows first.", back)
            chosen = [by_ref[ref] for ref in picked]
            shown = _shown_entries(chosen, picked)
            items = [e.status.item for e in chosen]
            try:
                if _value(fields, "confirm") != str(len(chosen)):
                    refuse_changed(store, items, shown)  # the count confirmed is of entries as they were shown
                    return self.render(request, "confirm.html", doc_id=doc_id, chosen=chosen, fields=fields,
                                       picked=picked, back=back, approving=decision == "approved",
                                       summary=document_summaries(store, [doc_id], with_states=False)[0])
                with store.transaction():
                    recorded = decide_all(store, items, decision, _value(fields, "reviewer"),
                                          _value(fields, "note") or None, shown)
                    batch_id = record_batch(store, doc_id, recorded)
            except EntriesChanged as exc:
                changed = {refusal.item.key for refusal in exc.refusals}
                others = [(picked[e.ref].fingerprint, e) for e in chosen if e.status.key not in changed]
                return self._refused(request, store, doc_id, exc.refusals, back, others=others, fields=fields)
            except ReviewError as exc:
                return self._batch_error(request, doc_id, str(exc), back)
        separator = "&" if "?" in back else "?"
        return _remembering(RedirectResponse(f"{back}{separator}batch={batch_id}", status_code=303),
                            _value(fields, "reviewer"))

    async def undo_batch(self, request: Request) -> Response:
        fields = await self.form(request)
        return await run_in_threadpool(self._undo_batch, request, fields)

    def _undo_batch(self, request: Request, fields: dict[str, list[str]]) -> Response:
        """Undoes the batch the form names, as recorded in the store, bound to what its page showed."""
        doc_id = request.path_params["doc_id"]
        picked = _picked(fields)
        again = f"{queue_url(doc_id)}?batch={quote(_value(fields, 'batch'), safe='')}"
        with self.session() as store:
            entries = self._entries(store, doc_id)  # a document that cannot be reviewed is a 404 here too
            batch = next((b for b in batches(store, doc_id) if b.batch_id == _value(fields, "batch")), None)
            if batch is None:
                raise HTTPException(404, f"document {doc_id} has no such batch; undo its entries one by one "
                                    "from their pages")
            try:
                with store.transaction():
                    done = undo(store, doc_id, batch.review_ids, _value(fields, "reviewer"),
                                _shown_entries([e for e in entries if e.ref in picked], picked))
            except EntriesChanged as exc:
                return self._refused(request, store, doc_id, exc.refusals, again)
            except ReviewError as exc:
                return self._batch_error(request, doc_id, str(exc), again)
        target = f"{queue_url(doc_id)}?undone={len(done.reviews)}&superseded={len(done.superseded)}"
        return _remembering(RedirectResponse(target, status_code=303), _value(fields, "reviewer"))

    async def export(self, request: Request) -> Response:
        await self.form(request)
        return await run_in_threadpool(self._export, request)

    def _export(self, request: Request) -> Response:
        doc_id = request.path_params.get("doc_id")
        with self.session() as store, tempfile.TemporaryDirectory() as tmp:
            try:
                # The folders and the index `export --approved` writes, by the same code.
                written = export_approved(store, Path(tmp), [doc_id] if doc_id else None).written
            except ExportError as exc:
                raise HTTPException(404, str(exc)) from None
            archive = io.BytesIO()
            with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zipped:
                for path in written:
                    zipped.write(path, path.relative_to(tmp).as_posix())
        name = f"approved-{doc_id or 'all'}.zip"
        return Response(archive.getvalue(), media_type="application/zip",
                        headers={"Content-Disposition": f'attachment; filename="{name}"'})

    # --- helpers --------------------------------------------------------------------------

    def _entries(self, store: Store, doc_id: str) -> list[QueueEntry]:
        try:
            return queue_entries(store, doc_id)
        except ReviewError as exc:
            run = self.run_states([doc_id]).get(doc_id)
            if run is None:
                raise HTTPException(404, str(exc)) from None
            said = f"{run.outcome}: {run.cause}" if run.cause else run.outcome
            raise HTTPException(404, f"{doc_id}: {said}. Nothing of it can be reviewed until a run of it "
                                "succeeds (knowledge-assets run FILE).") from None

    def _locate(self, store: Store, ref: str, doc_id: str | None) -> tuple[Reviewable, list[QueueEntry], int]:
        """The entry, its document's whole queue and its place in it; a 404 names what is wrong."""
        try:
            if not doc_id:
                doc_id = find(store, ref).doc_id
            entries = queue_entries(store, doc_id)
            for index, entry in enumerate(entries):
                if entry.ref == ref:
                    return entry.status.item, entries, index
            find(store, ref, doc_id)  # says why the reference names nothing here
        except ReviewError as exc:
            raise HTTPException(404, str(exc)) from None
        raise HTTPException(404, f"{ref}: not in document {doc_id}")

    def _batch_error(self, request: Request, doc_id: str, message: str, back: str) -> Response:
        return self.render(request, "error.html", status=400, title="Nothing was recorded", message=message,
                           back=back)

    def _refused(self, request: Request, store: Store, doc_id: str, refusals: list[ContentChanged], back: str,
                 others: Sequence[tuple[str, QueueEntry]] = (), fields: dict[str, list[str]] | None = None,
                 unsaved: Sequence[tuple[str, str]] = ()) -> Response:
        """409: the decision named content a run has changed since; each refused entry with its
        content now and what changed, and — for a batch — a form deciding the `others` (each
        with the fingerprint it was shown with) as the reviewer asked, bound as before."""
        return self.render(request, "changed.html", status=409, doc_id=doc_id, refusals=refusals, back=back,
                           others=others, fields=fields or {}, unsaved=unsaved,
                           summary=document_summaries(store, [doc_id], with_states=False)[0])

    def _entry_error(self, request: Request, item: Reviewable, message: str) -> Response:
        return self.render(request, "error.html", status=400, title="The decision was not recorded",
                           message=message, back=entry_url(item.key.ref, item.doc_id))

    def _source(self, store: Store, item: Reviewable, registered: ReviewedSource | None) -> dict[str, Any]:
        provenance = item.provenance
        text = source.text_source(store, item.doc_id, provenance.chunk_id, provenance.span)
        shown: dict[str, Any] = {"text": text, "highlights": [], "mentions": None, "mention_count": 0}
        if registered is not None and registered.kind == "pdf" and provenance.page is not None \
                and registered.path.is_file():
            pages = [piece.page for piece in provenance.pieces or []] or [provenance.page]
            page_texts = {page: page_text(store, item.doc_id, page) for page in pages}
            # A span in pieces (D56) is boxed piece by piece, each on its own page.
            shown["highlights"] = (
                source.piece_highlights(registered.path, provenance.pieces, page_texts) if provenance.pieces
                else [source.page_highlight(registered.path, provenance.page, provenance.span,
                                            page_texts[provenance.page], text.span_start_in_page)])
        entity = item.entity
        if isinstance(entity, c.GlossaryEntry) and entity.definition is None:
            shown["mention_count"], shown["mentions"] = source.mentions(store, item.doc_id, entity.term_id)
        return shown


def _batch_of(offered: Sequence[Batch], review: Review) -> Batch | None:
    """The batch among those `offered` that `review` was one of, if any."""
    return next((batch for batch in offered if review in batch.still_latest), None)


def _next_pending(entries: list[QueueEntry], index: int, doc_id: str) -> str:
    """After deciding entries[index]: the next entry still to review, else the first, else the queue."""
    pending = [e for e in entries[index + 1:] + entries[:index] if e.status.pending]
    if not pending:
        return queue_url(doc_id) + "?state="
    return entry_url(pending[0].ref, doc_id)


def entry_url(ref: str, doc_id: str) -> str:
    return f"/entries/{quote(ref, safe='')}?doc_id={quote(doc_id, safe='')}"


def queue_url(doc_id: str) -> str:
    return f"/documents/{quote(doc_id, safe='')}"


def _filters_query(filters: dict[str, list[str]]) -> str:
    """`?kind=…&q=…&page=…`: the queue's own filters, search and page only, whatever else the form carried."""
    kept = {name: filters[name][0] for name in _KEPT if filters.get(name, [""])[0]}
    return "?" + urlencode(kept) if kept else ""


def _value(fields: dict[str, list[str]], name: str) -> str:
    return (fields.get(name) or [""])[0]


def _shown(fields: dict[str, list[str]]) -> Shown:
    """What an entry page showed: the fingerprint, and the content it hashes (checked where the
    decision is recorded: content that does not hash to the fingerprint is not believed)."""
    seen = _value(fields, "seen")
    if not seen:
        raise HTTPException(400, NOT_SHOWN)
    try:
        content = json.loads(_value(fields, "seen_content") or "null")
    except json.JSONDecodeError:
        content = None
    return Shown(seen, content if isinstance(content, dict) else None)


def _picked(fields: dict[str, list[str]]) -> dict[str, Shown]:
    """The entries a bulk form names, each `entry` value `<fingerprint shown> <ref>`, in its order."""
    picked: dict[str, Shown] = {}
    for value in fields.get("entry", []):
        seen, _, ref = value.partition(" ")
        if not seen or not ref:
            raise HTTPException(400, NOT_SHOWN)
        picked.setdefault(ref, Shown(seen))
    return picked


def _shown_entries(entries: Sequence[QueueEntry], picked: dict[str, Shown]) -> dict[EntityKey, Shown]:
    return {e.status.key: picked[e.ref] for e in entries}


def _unsaved_edit(fields: dict[str, list[str]]) -> list[tuple[str, str]]:
    """The edit form's values, shown back on a refusal so that the reviewer's corrections are not lost."""
    return [(name.removeprefix("field.").replace("_", " "), "; ".join(v for v in values if v.strip()))
            for name, values in fields.items() if name.startswith("field.") and any(v.strip() for v in values)]


def _remembering(response: Response, reviewer: str) -> Response:
    """The response, setting the cookie that fills in the reviewer's name next time."""
    response.set_cookie(REVIEWER_COOKIE, quote(reviewer.strip(), safe=""), samesite="strict", max_age=365 * 86400)
    return response


def _matches(entry: QueueEntry, query: str) -> bool:
    """Whether the search text is in the entry's label or reviewed content (a term, its full name
    and definition; a formula's name and LaTeX; a rule's statement, condition and consequence),
    in any case."""
    if not query:
        return True
    text = " ".join([entry.status.item.label, *(_content_value(v) for v in entry.status.content.values())])
    return query.casefold() in text.casefold()


def _int(value: str | None) -> int:
    try:
        return int(value or 1)
    except ValueError:
        return 1


def _attribute(entry: QueueEntry, name: str) -> str:
    return {"kind": entry.kind, "reason": entry.reason, "state": entry.state}[name]


def _edited_view(entry: QueueEntry) -> dict[str, Any] | None:
    """The expert's edited values, when an edit is the decision that applies now."""
    latest: Review | None = entry.status.latest
    if entry.state != "edited" or latest is None or latest.edited_payload is None:
        return None
    return latest.edited_payload


def _edit_fields(item: Reviewable) -> dict[str, Any]:
    """What the edit form shows: the model-written content fields, from the stored entity."""
    data = item.entity.model_dump(mode="json")
    return {name: data[name] for name in EDITABLE[item.key.kind]}


def _text(fields: dict[str, list[str]], name: str) -> str | None:
    value = (fields.get(f"field.{name}") or [""])[0].strip()
    return value or None


def _lines(fields: dict[str, list[str]], name: str) -> list[str]:
    return [line.strip() for line in (fields.get(f"field.{name}") or [""])[0].splitlines() if line.strip()]


def _edited_payload(item: Reviewable, fields: dict[str, list[str]]) -> dict[str, Any]:
    """The stored entity with its editable fields replaced by the form's; ids, links and audit
    fields are carried over from the entity, never read from the form."""
    payload = item.entity.model_dump(mode="json")
    for name in EDITABLE[item.key.kind]:
        if name == "subdomain_tags":
            payload[name] = fields.get("field.subdomain_tags", [])
        elif name == "outline":
            payload[name] = _lines(fields, name)
        elif name == "key_parameters":
            known = {p["surface"]: p["term_id"] for p in payload[name]}
            payload[name] = [{"surface": s, "term_id": known.get(s)} for s in _lines(fields, name)]
        elif name == "variables":
            known = {v["symbol"]: v["term_id"] for v in payload[name]}
            symbols, meanings = fields.get("field.variables.symbol", []), fields.get("field.variables.meaning", [])
            payload[name] = [
                {"symbol": s.strip(), "meaning": m.strip() or None, "term_id": known.get(s.strip())}
                for s, m in zip(symbols, meanings) if s.strip()
            ]
        elif name == "rule_type":
            payload[name] = (fields.get("field.rule_type") or [payload[name]])[0]
        elif name in ("term", "surface"):
            payload[name] = _text(fields, name) or ""
        else:
            payload[name] = _text(fields, name)
    return payload


def _error_handler(app: ReviewApp):
    async def handle(request: Request, exc: Exception) -> Response:
        if isinstance(exc, StoreError):
            status, title, message = 503, "The store is busy", LOCKED.format(path=app.store.location)
        else:
            assert isinstance(exc, HTTPException)
            title = {404: "Not found", 403: "Refused"}.get(exc.status_code, "Error")
            status, message = exc.status_code, exc.detail
        return app.render(request, "error.html", status=status, title=title, message=message, back="/")

    return handle


_LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")


def _allowed_hosts(host: str) -> tuple[str, ...]:
    """The Host headers a request may carry: the address bound and loopback. A bind to every
    interface (`0.0.0.0`, `::`) cannot know the name clients use, so it accepts any Host; the
    serve command warns loudly for any bind beyond loopback."""
    if host in ("0.0.0.0", "::", ""):
        return ("*",)
    bound = f"[{host}]" if ":" in host else host
    return tuple(dict.fromkeys((*_LOOPBACK_HOSTS, bound)))


def create_app(store: Path | str, host: str = "127.0.0.1", port: int = 8765, lock_timeout_s: float = 10.0,
               state_dir: Path | None = None, document_states: DocumentStates | None = None) -> Starlette:
    hosts = _allowed_hosts(host)
    review = ReviewApp(Settings(str(store), state_dir or state_dir_for(str(store)), hosts, lock_timeout_s,
                                document_states))
    routes = [
        Route("/", review.documents),
        Route("/documents/{doc_id}", review.queue),
        Route("/documents/{doc_id}/progress", review.progress),
        Route("/documents/{doc_id}/export", review.export, methods=["POST"]),
        Route("/documents/{doc_id}/decide", review.decide_many, methods=["POST"]),
        Route("/documents/{doc_id}/undo", review.undo_batch, methods=["POST"]),
        Route("/export", review.export, methods=["POST"]),
        Route("/entries/{entry_id:path}", review.entry, methods=["GET"]),
        Route("/entries/{entry_id:path}", review.decide, methods=["POST"]),
        Route("/pages/{doc_id}/{page_no:int}.png", review.page_image),
        Route("/static/{name}", review.static_file),
    ]
    handler = _error_handler(review)
    return Starlette(
        routes=routes,
        middleware=[Middleware(SecurityHeaders), Middleware(TrustedHostMiddleware, allowed_hosts=list(hosts))],
        exception_handlers={HTTPException: handler, StoreError: handler},
    )


class SecurityHeaders:
    """Adds the Content-Security-Policy and its companions to every response."""

    HEADERS = [
        (b"content-security-policy", _CSP.encode()),
        (b"x-content-type-options", b"nosniff"),
        (b"referrer-policy", b"no-referrer"),
        (b"x-frame-options", b"DENY"),
    ]

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def with_headers(message):
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *self.HEADERS]
            await send(message)

        await self.app(scope, receive, with_headers)
