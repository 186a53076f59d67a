"""What every page and action of the review app works with, one of each per server process: its
settings, the store, the templates and the secret the CSRF tokens are signed with; and what they
all do with them: hold the store for a request, render a page, find a document's queue or entry.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse

from knowledge_assets.review.document_queues import QueueEntry, RunState, queue_entries
from knowledge_assets.review.entities import KINDS, Reviewable, ReviewError, find
from knowledge_assets.review.status import STATE_MEANINGS, STATES
from knowledge_assets.review.web.rendering import environment, static_files
from knowledge_assets.review.web.security import csrf_token
from knowledge_assets.review.web.session import browser_session, keeping_session, remembered_reviewer
from knowledge_assets.store.backends import open_store
from knowledge_assets.store.held import held_on_one_connection
from knowledge_assets.store.protocol import Store

# Each document's run state as the Dagster instance knows it, e.g. RunState("failed", "…", datetime(…)).
DocumentStates = Callable[[Sequence[str]], dict[str, RunState]]


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


class ReviewApp:
    def __init__(self, settings: Settings):
        self.settings = settings
        self.secret = secrets.token_bytes(32)
        self.templates = environment()
        self.static = static_files()
        # One Store for the process: it checks the schema once, then only opens connections.
        self.store = open_store(settings.store, lock_timeout_s=settings.lock_timeout_s)

    @contextmanager
    def held_store(self) -> Iterator[Store]:
        """The store over one connection for the whole request: one consistent view, the file
        opened once (or, while a materialisation holds it, waited for once)."""
        with held_on_one_connection(self.store) as store:
            yield store

    def render(self, request: Request, template: str, status: int = 200, **values: Any) -> HTMLResponse:
        session = browser_session(request)
        page = self.templates.get_template(template).render(
            csrf=csrf_token(self.secret, session), reviewer=remembered_reviewer(request),
            states=STATES, state_meanings=STATE_MEANINGS, kinds=KINDS,
            **{"not_current": [], "failed": [], **values},  # the banner's documents, if any
        )
        return keeping_session(request, HTMLResponse(page, status_code=status), session)

    def run_states(self, doc_ids: Sequence[str]) -> dict[str, RunState]:
        """Each document's run state, when the server was given a way to read it."""
        reader = self.settings.document_states
        return reader(list(doc_ids)) if reader is not None and doc_ids else {}

    def entries(self, store: Store, doc_id: str) -> list[QueueEntry]:
        """The document's queue; a 404 when it has none, saying why when its run state is known."""
        try:
            return queue_entries(store, doc_id)
        except ReviewError as exc:
            run = self.run_states([doc_id]).get(doc_id)
            if run is None:
                raise HTTPException(404, str(exc)) from None
            said = f"{run.outcome}: {run.cause}" if run.cause else run.outcome
            raise HTTPException(404, f"{doc_id}: {said}. Nothing of it can be reviewed until a run of it "
                                "succeeds (knowledge-assets run FILE).") from None

    def locate(self, store: Store, ref: str, doc_id: str | None) -> tuple[Reviewable, list[QueueEntry], int]:
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
