"""The pages a reviewer reads (GET): the documents, a document's queue and its progress, an
entry with its source, a page's image, the static files. None of them writes.

Nothing from a request becomes a file path: page images are found through the registry,
static files are held in memory, cached images are named by registry values and numbers.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, get_args
from urllib.parse import urlencode

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response

from knowledge_assets import contracts as c
from knowledge_assets.review.batch_decisions import Batch, batches, undoable_batches
from knowledge_assets.review.decisions import Review, history
from knowledge_assets.review.document_queues import (
    DocumentSummary,
    QueueEntry,
    ReviewedSource,
    RunState,
    document_summaries,
    progress,
    reviewed_source,
)
from knowledge_assets.review.entities import Reviewable, extracted_documents
from knowledge_assets.review.web import forms, source_view
from knowledge_assets.review.web.context import ReviewApp
from knowledge_assets.review.web.rendering import content_value
from knowledge_assets.store.parsed import page_count, page_text
from knowledge_assets.store.protocol import Store
from knowledge_assets.store.registry import latest_source
from knowledge_assets.store.removal import review_page_cache
from knowledge_assets.store.revisions import not_current, run_command

# What the entry page says of fields a reader otherwise takes for review states.
EXTRACTION_WORDS = {"ok": "definition found", "no_definition_found": "no definition found in the document",
                    "escalated": "the model call failed"}
DIFF_WORDS = {"new": "no earlier definition to compare with", "duplicate": "the same definition as the previous run",
              "conflicting": "a different definition from the previous run"}
# How many of a document's latest batches its pages offer to undo.
_BATCHES_OFFERED = 5
# A queue of 2,393 entries is 24 pages, not one page of 2.3 MB.
QUEUE_PAGE_SIZE = 100


@dataclass(frozen=True)
class FailedDocument:
    """A document whose latest run failed, as the pages name it: by its file, linked to its own page."""

    summary: DocumentSummary
    run: RunState


class Pages:
    """The GET routes, over the app's store and templates."""

    def __init__(self, review: ReviewApp):
        self.review = review

    def documents(self, request: Request) -> Response:
        with self.review.held_store() as store:
            summaries = document_summaries(store)
            behind = not_current(store, [s.doc_id for s in summaries])
        lagging = {state.doc_id for state in behind}
        runs = self.review.run_states([d.doc_id for d in summaries if not d.extracted or d.doc_id in lagging])
        # A failed document is one line naming it and why; its long not-current story is on its own page.
        failed = [FailedDocument(d, runs[d.doc_id]) for d in summaries
                  if d.doc_id in runs and runs[d.doc_id].outcome == "failed"]
        named = {f.summary.doc_id for f in failed}
        return self.review.render(request, "documents.html", documents=summaries, run_states=runs, failed=failed,
                                  not_current=[state for state in behind if state.doc_id not in named])

    def queue(self, request: Request) -> Response:
        doc_id = request.path_params["doc_id"]
        chosen = {name: request.query_params.get(name, "") for name in forms.FILTERS}
        with self.review.held_store() as store:
            summary = next(iter(document_summaries(store, [doc_id], with_states=False)), None)
            if summary is not None and doc_id not in extracted_documents(store):
                return self._unextracted(request, store, summary)
            entries = self.review.entries(store, doc_id)
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
        return self.review.render(
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
        return self.review.render(
            request, "unextracted.html", summary=summary, doc_id=summary.doc_id, path=path,
            run=self.review.run_states([summary.doc_id]).get(summary.doc_id),
            run_command=run_command(path or summary.file_name or "FILE"),
            remove_command=f"knowledge-assets documents remove {shlex.quote(summary.doc_id)}",
        )

    def progress(self, request: Request) -> Response:
        """The document's tallies and each entry's state now: what a page shown again from the
        browser's history (or a tab left open while another decided) refreshes itself with."""
        doc_id = request.path_params["doc_id"]
        with self.review.held_store() as store:
            entries = self.review.entries(store, doc_id)
        return JSONResponse(
            {"progress": [{"kind": p.kind or "all", "decided": p.decided, "total": p.total} for p in progress(entries)],
             "states": {e.ref: e.state for e in entries}},
            headers={"Cache-Control": "no-store"})

    def entry(self, request: Request) -> Response:
        with self.review.held_store() as store:
            item, entries, index = self.review.locate(
                store, request.path_params["entry_id"], request.query_params.get("doc_id")
            )
            reviews = [r for r in history(store, item.doc_id) if r.key == item.key]
            offered = undoable_batches(store, item.doc_id, _BATCHES_OFFERED)
            shown_source = self._source(store, item, reviewed_source(store, item.doc_id))
            summary = document_summaries(store, [item.doc_id], with_states=False)[0]
            behind = not_current(store, [item.doc_id])
        current = entries[index]
        return self.review.render(
            request, "entry.html", entry=current, item=item, doc_id=item.doc_id, reviews=reviews,
            previous=entries[index - 1] if index > 0 else None,
            following=entries[index + 1] if index + 1 < len(entries) else None,
            total=len(entries), source=shown_source, edit=forms.edit_fields(item),
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

    def _source(self, store: Store, item: Reviewable, registered: ReviewedSource | None) -> dict[str, Any]:
        provenance = item.provenance
        text = source_view.text_source(store, item.doc_id, provenance.chunk_id, provenance.span)
        shown: dict[str, Any] = {"text": text, "highlights": [], "mentions": None, "mention_count": 0}
        if registered is not None and registered.kind == "pdf" and provenance.page is not None \
                and registered.path.is_file():
            pages = [piece.page for piece in provenance.pieces or []] or [provenance.page]
            page_texts = {page: page_text(store, item.doc_id, page) for page in pages}
            # A span in pieces (D56) is boxed piece by piece, each on its own page.
            shown["highlights"] = (
                source_view.piece_highlights(registered.path, provenance.pieces, page_texts) if provenance.pieces
                else [source_view.page_highlight(registered.path, provenance.page, provenance.span,
                                            page_texts[provenance.page], text.span_start_in_page)])
        entity = item.entity
        if isinstance(entity, c.GlossaryEntry) and entity.definition is None:
            shown["mention_count"], shown["mentions"] = source_view.mentions(store, item.doc_id, entity.term_id)
        return shown

    def page_image(self, request: Request) -> Response:
        doc_id, page_no = request.path_params["doc_id"], request.path_params["page_no"]
        with self.review.held_store() as store:
            document = reviewed_source(store, doc_id)
            pages = page_count(store, doc_id)
        if document is None or document.kind != "pdf":
            raise HTTPException(404, f"no PDF document {doc_id} in the registry")
        if not pages or not 1 <= page_no <= pages or not document.path.is_file():
            raise HTTPException(404, f"document {doc_id} has no page {page_no}")
        # Named by registry values and numbers only: nothing from the request but a checked int.
        cache = (review_page_cache(self.review.settings.state_dir, document.doc_id)
                 / f"{document.content_sha256[:16]}-{page_no}.png")
        path = source_view.cached_page_png(document.path, page_no - 1, cache)
        return FileResponse(path, media_type="image/png", headers={"Cache-Control": "private, max-age=3600"})

    def static_file(self, request: Request) -> Response:
        found = self.review.static.get(request.path_params["name"])
        if found is None:
            raise HTTPException(404, "no such file")
        return Response(found[0], media_type=found[1])


def _batch_of(offered: Sequence[Batch], review: Review) -> Batch | None:
    """The batch among those `offered` that `review` was one of, if any."""
    return next((batch for batch in offered if review in batch.still_latest), None)


def _matches(entry: QueueEntry, query: str) -> bool:
    """Whether the search text is in the entry's label or reviewed content (a term, its full name
    and definition; a formula's name and LaTeX; a rule's statement, condition and consequence),
    in any case."""
    if not query:
        return True
    text = " ".join([entry.status.item.label, *(content_value(v) for v in entry.status.content.values())])
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
