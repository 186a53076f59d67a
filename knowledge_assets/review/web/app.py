"""The review web application: server-rendered pages over the store and the review functions
the command line uses (`find`, `record_decision`, `validate_edit`, `history`, `export_approved`),
assembled here from its parts:
  - pages.py     the pages a reviewer reads (GET), none of which writes;
  - actions.py   the forms a reviewer posts: decisions, batches, undos, the export;
  - forms.py     what those forms carry, read into what review/ records;
  - context.py   the settings, store, templates and secret the routes share;
  - security.py  the CSRF check, the allowed Host headers, the security headers;
  - session.py   the browser's session and reviewer cookies;
  - rendering.py the templates' environment and the static files;
  - links.py     the pages' paths, and their URL on a running server.

These pages write the knowledge that goes into prompts, so every state-changing request is a
POST carrying a CSRF token, the Host header is checked, templates escape everything, nothing
from a request becomes a file path, and a decision on content a run changed since it was shown
is refused (each module's docstring says how).
"""

from __future__ import annotations

from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from knowledge_assets.review.web.actions import Actions
from knowledge_assets.review.web.context import DocumentStates, ReviewApp, Settings, state_dir_for
from knowledge_assets.review.web.pages import Pages
from knowledge_assets.review.web.security import SecurityHeaders, allowed_hosts
from knowledge_assets.store.protocol import StoreError

LOCKED = ("The knowledge store is busy: a running materialisation holds {path}. Nothing was written"
          " — try again in a moment.")


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


def create_app(store: Path | str, host: str = "127.0.0.1", port: int = 8765, lock_timeout_s: float = 10.0,
               state_dir: Path | None = None, document_states: DocumentStates | None = None) -> Starlette:
    hosts = allowed_hosts(host)
    review = ReviewApp(Settings(str(store), state_dir or state_dir_for(str(store)), hosts, lock_timeout_s,
                                document_states))
    pages, actions = Pages(review), Actions(review)
    routes = [
        Route("/", pages.documents),
        Route("/documents/{doc_id}", pages.queue),
        Route("/documents/{doc_id}/progress", pages.progress),
        Route("/documents/{doc_id}/export", actions.export, methods=["POST"]),
        Route("/documents/{doc_id}/decide", actions.decide_many, methods=["POST"]),
        Route("/documents/{doc_id}/undo", actions.undo_batch, methods=["POST"]),
        Route("/export", actions.export, methods=["POST"]),
        Route("/entries/{entry_id:path}", pages.entry, methods=["GET"]),
        Route("/entries/{entry_id:path}", actions.decide, methods=["POST"]),
        Route("/pages/{doc_id}/{page_no:int}.png", pages.page_image),
        Route("/static/{name}", pages.static_file),
    ]
    handler = _error_handler(review)
    return Starlette(
        routes=routes,
        middleware=[Middleware(SecurityHeaders), Middleware(TrustedHostMiddleware, allowed_hosts=list(hosts))],
        exception_handlers={HTTPException: handler, StoreError: handler},
    )
