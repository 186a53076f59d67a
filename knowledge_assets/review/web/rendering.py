"""What the pages are rendered with: the Jinja environment, its filters, and the script and
stylesheet served beside them.

Templates escape everything, because document text is untrusted. Static files are read into
memory once, so that nothing a request names ever becomes a file path.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import jinja2

from knowledge_assets.review.fingerprint import short_fingerprint

HERE = Path(__file__).parent


def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(HERE / "templates"),
        autoescape=True,  # every template is HTML; document text is untrusted
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["q"] = lambda value: quote(str(value), safe="")
    env.filters["content_value"] = content_value
    env.filters["short_fingerprint"] = short_fingerprint
    return env


def content_value(value: object) -> str:
    """A reviewed-content value as text: a list item by item, a formula's variable `symbol: meaning`."""
    if value is None:
        return "—"
    if isinstance(value, list):
        return "; ".join(content_value(v) for v in value) or "—"
    if isinstance(value, dict):
        return ": ".join(content_value(v) for v in value.values())
    return str(value)


def static_files() -> dict[str, tuple[bytes, str]]:
    """Each file of `static/` by its name: its bytes and its media type."""
    types = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}
    return {p.name: (p.read_bytes(), types[p.suffix]) for p in (HERE / "static").iterdir() if p.suffix in types}
