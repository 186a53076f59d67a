"""Where the review pages are: the paths the pages link and redirect to each other by, and, for
links from elsewhere (the Dagster UI's materialisations), the same pages on a running `review
serve`. The base URL is the reviewer's deployment, so it comes from the environment when a link
is made; unset, no link is made."""

from __future__ import annotations

import os
from urllib.parse import quote

REVIEW_URL_VARIABLE = "KNOWLEDGE_REVIEW_URL"


def entry_url(ref: str, doc_id: str) -> str:
    return f"/entries/{quote(ref, safe='')}?doc_id={quote(doc_id, safe='')}"


def queue_url(doc_id: str) -> str:
    return f"/documents/{quote(doc_id, safe='')}"


def review_base_url() -> str | None:
    """`KNOWLEDGE_REVIEW_URL` without a trailing slash, e.g. `http://127.0.0.1:8765`; None when unset."""
    base = (os.environ.get(REVIEW_URL_VARIABLE) or "").strip().rstrip("/")
    return base or None


def document_review_url(doc_id: str) -> str | None:
    """The document's review queue page, or None when no review URL is configured."""
    base = review_base_url()
    return None if base is None else f"{base}{queue_url(doc_id)}"
