"""Runs the review application with uvicorn: on 127.0.0.1 unless told otherwise, and loudly so."""

from __future__ import annotations

import sys

import uvicorn

from knowledge_assets.review.web.app import create_app
from knowledge_assets.review.web.context import DocumentStates
from knowledge_assets.store.redaction import redact

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def exposure_warning(host: str) -> str | None:
    if host in LOOPBACK:
        return None
    rule = "!" * 78
    return (
        f"{rule}\n"
        f"WARNING: the review server listens on {host}, not only on this machine.\n"
        "Anyone who can reach this address can read the documents and approve, reject or edit\n"
        "the knowledge that goes into prompts. There is no login. Use --host 127.0.0.1 unless\n"
        "the network is trusted.\n"
        f"{rule}"
    )


def serve(store: str, host: str = "127.0.0.1", port: int = 8765, lock_timeout_s: float = 10.0,
          document_states: DocumentStates | None = None) -> None:
    warning = exposure_warning(host)
    if warning:
        print(warning, file=sys.stderr, flush=True)
    shown = f"[{host}]" if ":" in host else host
    print(f"review: http://{shown}:{port}/  (store {redact(store)}; Ctrl+C stops)", flush=True)
    app = create_app(store, host=host, port=port, lock_timeout_s=lock_timeout_s, document_states=document_states)
    uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False)
