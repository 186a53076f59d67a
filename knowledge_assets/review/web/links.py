"""Where the review pages of a running `review serve` are, for links from elsewhere (the
Dagster UI's materialisations). The base URL is the reviewer's deployment, so it comes from
the environment when a link is made; unset, no link is made."""

from __future__ import annotations

import os
from urllib.parse import quote

REVIEW_URL_VARIABLE = "KNOWLEDGE_REVIEW_URL"


def review_base_url() -> str | None:
    """`KNOWLEDGE_REVIEW_URL` without a trailing slash, e.g. `http://127.0.0.1:8765`; None when unset."""
    base = (os.environ.get(REVIEW_URL_VARIABLE) or "").strip().rstrip("/")
    return base or None


def document_review_url(doc_id: str) -> str | None:
    """The document's review queue page, or None when no review URL is configured."""
    base = review_base_url()
    return None if base is None else f"{base}/documents/{quote(doc_id, safe='')}"
