"""The forms a reviewer posts: a decision on an entry or its undo, a batch approval or rejection
and its undo, the export of approved knowledge. Each reads its form only after the CSRF check
(security.py) and writes through the same review functions the command line uses.

A decision is one INSERT, a batch one transaction of one INSERT per entry (an approval or a
rejection of many is confirmed first, on a page naming how many); when a running materialisation
holds the store past the wait, the page says so and nothing was written. A decision on content a
run changed since the page showed it is refused: the page answers 409 with the content now and
what changed, and nothing was written (D82).

A batch is recorded in the store with its decisions (review/batch_decisions.py), so the queue offers to
undo it after the page is left or the server restarts: the URL names the batch by its id, never
the entries'; an entry's page offers to undo its latest decision, and the batch it was one of.
"""

from __future__ import annotations

import io
import tempfile
import zipfile
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import parse_qs, quote

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from knowledge_assets.export import ExportError
from knowledge_assets.review.approved import export_approved
from knowledge_assets.review.batch_decisions import (
    EntriesChanged,
    batches,
    decide_all,
    record_batch,
    refuse_changed,
    undo,
)
from knowledge_assets.review.decisions import ContentChanged, Decision, record_decision, validate_edit
from knowledge_assets.review.document_queues import QueueEntry, document_summaries
from knowledge_assets.review.entities import Reviewable, ReviewError
from knowledge_assets.review.web import forms
from knowledge_assets.review.web.context import ReviewApp
from knowledge_assets.review.web.links import entry_url, queue_url
from knowledge_assets.review.web.security import checked_form
from knowledge_assets.review.web.session import remembering
from knowledge_assets.store.protocol import Store

_DECISIONS: dict[str, Decision] = {"approve": "approved", "reject": "rejected", "edit": "edited"}


class Actions:
    """The POST routes: each checks its form in the event loop, then decides in a worker thread,
    because the store's calls block."""

    def __init__(self, review: ReviewApp):
        self.review = review

    async def decide(self, request: Request) -> Response:
        fields = await checked_form(request, self.review.secret)
        return await run_in_threadpool(self._decide, request, fields)

    def _decide(self, request: Request, fields: dict[str, list[str]]) -> Response:
        def value(name: str) -> str:
            return forms.value(fields, name)

        if value("decision") == "undo":
            return self._undo_entry(request, fields)
        decision = _DECISIONS.get(value("decision"))
        if decision is None:
            raise HTTPException(400, "unknown decision; use approve, reject, edit or undo")
        shown = forms.shown(fields)
        with self.review.held_store() as store:
            item, entries, index = self.review.locate(store, request.path_params["entry_id"], value("doc_id"))
            try:
                edited = (validate_edit(item, forms.edited_payload(item, fields), "the edit form")
                          if decision == "edited" else None)
                record_decision(store, item, decision, value("reviewer"), value("note") or None, edited, shown=shown)
            except ContentChanged as exc:
                return self._refused(request, store, item.doc_id, [exc], entry_url(item.key.ref, item.doc_id),
                                     unsaved=forms.unsaved_edit(fields) if decision == "edited" else [])
            except ReviewError as exc:
                return self._entry_error(request, item, str(exc))
        target = _next_pending(entries, index, item.doc_id) + f"&done={decision}&decided={quote(item.key.ref, safe='')}"
        return remembering(RedirectResponse(target, status_code=303), value("reviewer"))

    def _undo_entry(self, request: Request, fields: dict[str, list[str]]) -> Response:
        """Undoes the entry's latest decision, the one its page showed (`review_id`)."""
        shown = forms.shown(fields)
        with self.review.held_store() as store:
            item, _, _ = self.review.locate(store, request.path_params["entry_id"], forms.value(fields, "doc_id"))
            try:
                done = undo(store, item.doc_id, [forms.value(fields, "review_id")], forms.value(fields, "reviewer"),
                            {item.key: shown})
            except EntriesChanged as exc:
                return self._refused(request, store, item.doc_id, exc.refusals, entry_url(item.key.ref, item.doc_id))
            except ReviewError as exc:
                return self._entry_error(request, item, str(exc))
            if not done.reviews:
                return self._entry_error(request, item, "Nothing was undone: the decision this page showed is no "
                                         "longer the entry's latest (it was decided again since). Reload the page.")
        target = entry_url(item.key.ref, item.doc_id) + "&done=undone"
        return remembering(RedirectResponse(target, status_code=303), forms.value(fields, "reviewer"))

    async def decide_many(self, request: Request) -> Response:
        fields = await checked_form(request, self.review.secret)
        return await run_in_threadpool(self._decide_many, request, fields)

    def _decide_many(self, request: Request, fields: dict[str, list[str]]) -> Response:
        """Approves or rejects the selected entries, once the reviewer confirmed their count."""
        doc_id = request.path_params["doc_id"]
        decision = {"approve": "approved", "reject": "rejected"}.get(forms.value(fields, "decision"))
        if decision is None:
            raise HTTPException(400, "a batch approves or rejects")
        picked = forms.picked(fields)
        back = queue_url(doc_id) + forms.filters_query(parse_qs(forms.value(fields, "filters")))
        with self.review.held_store() as store:
            by_ref = {e.ref: e for e in self.review.entries(store, doc_id)}
            unknown = [ref for ref in picked if ref not in by_ref]
            if unknown:
                raise HTTPException(404, f"not entries of document {doc_id}: {', '.join(unknown[:5])}")
            if not picked:
                return self._batch_error(request, doc_id, "No entry was selected: tick the rows first.", back)
            chosen = [by_ref[ref] for ref in picked]
            shown = forms.shown_entries(chosen, picked)
            items = [e.status.item for e in chosen]
            try:
                if forms.value(fields, "confirm") != str(len(chosen)):
                    refuse_changed(store, items, shown)  # the count confirmed is of entries as they were shown
                    return self.review.render(request, "confirm.html", doc_id=doc_id, chosen=chosen, fields=fields,
                                              picked=picked, back=back, approving=decision == "approved",
                                              summary=document_summaries(store, [doc_id], with_states=False)[0])
                with store.transaction():
                    recorded = decide_all(store, items, decision, forms.value(fields, "reviewer"),
                                          forms.value(fields, "note") or None, shown)
                    batch_id = record_batch(store, doc_id, recorded)
            except EntriesChanged as exc:
                changed = {refusal.item.key for refusal in exc.refusals}
                others = [(picked[e.ref].fingerprint, e) for e in chosen if e.status.key not in changed]
                return self._refused(request, store, doc_id, exc.refusals, back, others=others, fields=fields)
            except ReviewError as exc:
                return self._batch_error(request, doc_id, str(exc), back)
        separator = "&" if "?" in back else "?"
        return remembering(RedirectResponse(f"{back}{separator}batch={batch_id}", status_code=303),
                           forms.value(fields, "reviewer"))

    async def undo_batch(self, request: Request) -> Response:
        fields = await checked_form(request, self.review.secret)
        return await run_in_threadpool(self._undo_batch, request, fields)

    def _undo_batch(self, request: Request, fields: dict[str, list[str]]) -> Response:
        """Undoes the batch the form names, as recorded in the store, bound to what its page showed."""
        doc_id = request.path_params["doc_id"]
        picked = forms.picked(fields)
        again = f"{queue_url(doc_id)}?batch={quote(forms.value(fields, 'batch'), safe='')}"
        with self.review.held_store() as store:
            entries = self.review.entries(store, doc_id)  # a document that cannot be reviewed is a 404 here too
            batch = next((b for b in batches(store, doc_id) if b.batch_id == forms.value(fields, "batch")), None)
            if batch is None:
                raise HTTPException(404, f"document {doc_id} has no such batch; undo its entries one by one "
                                    "from their pages")
            try:
                with store.transaction():
                    done = undo(store, doc_id, batch.review_ids, forms.value(fields, "reviewer"),
                                forms.shown_entries([e for e in entries if e.ref in picked], picked))
            except EntriesChanged as exc:
                return self._refused(request, store, doc_id, exc.refusals, again)
            except ReviewError as exc:
                return self._batch_error(request, doc_id, str(exc), again)
        target = f"{queue_url(doc_id)}?undone={len(done.reviews)}&superseded={len(done.superseded)}"
        return remembering(RedirectResponse(target, status_code=303), forms.value(fields, "reviewer"))

    async def export(self, request: Request) -> Response:
        await checked_form(request, self.review.secret)
        return await run_in_threadpool(self._export, request)

    def _export(self, request: Request) -> Response:
        doc_id = request.path_params.get("doc_id")
        with self.review.held_store() as store, tempfile.TemporaryDirectory() as tmp:
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

    def _batch_error(self, request: Request, doc_id: str, message: str, back: str) -> Response:
        return self.review.render(request, "error.html", status=400, title="Nothing was recorded", message=message,
                                  back=back)

    def _refused(self, request: Request, store: Store, doc_id: str, refusals: list[ContentChanged], back: str,
                 others: Sequence[tuple[str, QueueEntry]] = (), fields: dict[str, list[str]] | None = None,
                 unsaved: Sequence[tuple[str, str]] = ()) -> Response:
        """409: the decision named content a run has changed since; each refused entry with its
        content now and what changed, and — for a batch — a form deciding the `others` (each
        with the fingerprint it was shown with) as the reviewer asked, bound as before."""
        return self.review.render(request, "changed.html", status=409, doc_id=doc_id, refusals=refusals, back=back,
                                  others=others, fields=fields or {}, unsaved=unsaved,
                                  summary=document_summaries(store, [doc_id], with_states=False)[0])

    def _entry_error(self, request: Request, item: Reviewable, message: str) -> Response:
        return self.review.render(request, "error.html", status=400, title="The decision was not recorded",
                                  message=message, back=entry_url(item.key.ref, item.doc_id))


def _next_pending(entries: list[QueueEntry], index: int, doc_id: str) -> str:
    """After deciding entries[index]: the next entry still to review, else the first, else the queue."""
    pending = [e for e in entries[index + 1:] + entries[:index] if e.status.pending]
    if not pending:
        return queue_url(doc_id) + "?state="
    return entry_url(pending[0].ref, doc_id)
