"""Language packs: the cue words of each language, per branch, as data (`packs/<lang>/<branch>.json`).

A document may mix languages (a bilingual standard, an Indonesian regulation quoting English
terms), so finders use the cues of every pack at once; `pack(language, branch)` is there for
the rare cue that must not cross languages.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

PACKS_DIR = Path(__file__).resolve().parent / "packs"
LANGUAGES = ("en", "id")


@cache
def pack(language: str, branch: str) -> dict[str, list[str]]:
    path = PACKS_DIR / language / f"{branch}.json"
    if not path.is_file():
        return {}
    return json.loads(path.read_text(encoding="utf-8"))


@cache
def cues(branch: str) -> dict[str, tuple[str, ...]]:
    """Every language's cues for `branch`, merged key by key (first-seen order, no repeats)."""
    merged: dict[str, list[str]] = {}
    for language in LANGUAGES:
        for key, words in pack(language, branch).items():
            merged.setdefault(key, [])
            merged[key].extend(w for w in words if w not in merged[key])
    return {key: tuple(words) for key, words in merged.items()}
