"""The four id formulas of output contract §1: deterministic content hashes, never positional
and never written by a model, so an expert's approval survives re-runs."""

from __future__ import annotations

import hashlib

_ID_LENGTH = 10


def _digest(prefix: str, *parts: str) -> str:
    return prefix + hashlib.sha256("|".join(parts).encode("utf-8")).hexdigest()[:_ID_LENGTH]


def term_id(doc_id: str, canonical: str) -> str:
    """Keyed on the cluster canonical, not on the term a model returned."""
    return _digest("t_", doc_id, canonical)


def formula_id(
    doc_id: str, name: str | None, formula_latex: str | None, chunk_id: str | None
) -> str:
    """Falls back name → formula_latex → chunk_id, so unnamed formulas do not all collide."""
    key = name or formula_latex or chunk_id
    if not key:
        raise ValueError("formula_id needs a name, a formula_latex or a chunk_id")
    return _digest("f_", doc_id, key)


def rule_id(doc_id: str, chunk_id: str, char_start: int) -> str:
    return _digest("r_", doc_id, chunk_id, str(char_start))


def domain_id(doc_id: str) -> str:
    return _digest("d_", doc_id)


def chunk_id(doc_id: str, seq: int) -> str:
    """`<doc_id>::<seq>` with a zero-padded 4-digit seq (contract §4). Opaque to consumers."""
    return f"{doc_id}::{seq:04d}"
