"""Formulas candidates. (Placeholder: the finder is built in its own change.)"""

from __future__ import annotations

from collections.abc import Sequence

from knowledge_assets.candidates.model import Candidate
from knowledge_assets.candidates.source import SourceChunk


def find_formulas(chunks: Sequence[SourceChunk]) -> list[Candidate]:
    return []
