"""Gold annotations: `eval_assets/gold/<doc_id>.json`, written by reading the document.

    {"doc_id": "...", "terms": [{"canonical": "...", "abbreviation": "..." | null,
                                 "definition": "verbatim text" | null}]}

Later stages add their own top-level keys ("formulas", "rules"); unknown keys are ignored here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

GOLD_DIR = Path(__file__).resolve().parents[2] / "eval_assets" / "gold"


@dataclass(frozen=True)
class GoldTerm:
    canonical: str
    abbreviation: str | None
    definition: str | None


@dataclass(frozen=True)
class Gold:
    doc_id: str
    terms: tuple[GoldTerm, ...]


def load_gold(doc_id: str, gold_dir: Path = GOLD_DIR) -> Gold | None:
    """The document's gold, or None when nobody has annotated it."""
    path = gold_dir / f"{doc_id}.json"
    if not path.is_file():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("doc_id") != doc_id:
        raise ValueError(f"{path}: holds doc_id {data.get('doc_id')!r}, expected {doc_id!r}")
    terms = tuple(
        GoldTerm(t["canonical"], t.get("abbreviation"), t.get("definition")) for t in data.get("terms", [])
    )
    return Gold(doc_id, terms)
