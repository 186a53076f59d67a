"""The review queue (contract §9): denormalised rows a review UI renders without joins.

Each term row gets exactly one reason, the first that applies:
  conflict → definition rejected by the span check → source wording differs from the expanded
  name → no definition recorded (absent from the document, or the model call failed:
  extraction_status `escalated`; docs/decisions.md) → routine confirmation.
Sort: conflicts, then unresolved key parameters, then the terms the document defines by a
sentence, then those only a formula defines, then the rest; within each,
mention_count descending; ties by term, then id, so two runs of one document give the same ranks.
"""

from __future__ import annotations

import re

from knowledge_assets import contracts as c
from knowledge_assets.verify.spans import normalise

_SECTION_LABEL = re.compile(r"^\s*(?:BAB\s+[IVXLC]+\.?|[A-Z]\.|\d+(?:\.\d+)*\.?)\s+", re.IGNORECASE)
_TRAILING_ABBREVIATION = re.compile(r"\s*\([^()]*\)\s*$")


def heading_title(source_wording: str) -> str:
    """`2.1.3. Physical of Availability (PA)` → `Physical of Availability`."""
    return _TRAILING_ABBREVIATION.sub("", _SECTION_LABEL.sub("", source_wording)).strip()


def _wording_differs(entry: c.GlossaryEntry) -> bool:
    if not entry.source_wording or not entry.full_name:
        return False
    return normalise(heading_title(entry.source_wording)).casefold() != normalise(entry.full_name).casefold()


def term_review_reason(entry: c.GlossaryEntry, definition_rejected: bool) -> str:
    if entry.definition_conflict:
        return c.REVIEW_REASON_CONFLICT
    if definition_rejected:
        return c.REVIEW_REASON_REJECTED
    if _wording_differs(entry):
        return c.REVIEW_REASON_WORDING
    if entry.definition is None:
        return c.REVIEW_REASON_NO_DEFINITION
    return c.REVIEW_REASON_ROUTINE


def _definition_group(entry: c.GlossaryEntry) -> int:
    """Terms the document defines in words first (a definition the expert can check against its
    sentence), then those only a formula defines (its left side: a symbol of a calculation),
    then the rest. Reference texts define many more symbols by formula than terms in prose, so
    the words must not sink under the symbols."""
    if entry.definition is not None:
        return 2
    return 3 if entry.defining_formula_id is not None else 4


def _location(provenance: c.Provenance) -> dict:
    return {
        "page": provenance.page,
        "page_no": provenance.page_no,
        "section_no": provenance.section_no,
        "span": provenance.span,
    }


def build_queue(
    glossary: list[c.GlossaryEntry],
    domain: c.DomainContext | None,
    rejected_definition_terms: set[str] = frozenset(),
) -> list[c.TermQueueRow | c.KeyParameterQueueRow]:
    """`rejected_definition_terms`: term_ids whose definition the span check nulled."""
    keyed: list[tuple[tuple, dict]] = []
    for entry in glossary:
        reason = term_review_reason(entry, entry.term_id in rejected_definition_terms)
        row = {
            "row_kind": "term",
            "term_id": entry.term_id,
            "term": entry.term,
            "definition": entry.definition,
            "source_wording": entry.source_wording,
            "mention_count": entry.mention_count,
            "review_reason": reason,
            **_location(entry.provenance),
        }
        group = 0 if reason == c.REVIEW_REASON_CONFLICT else _definition_group(entry)
        keyed.append(((group, -entry.mention_count, entry.term, entry.term_id), row))
    if domain is not None:
        for parameter in domain.key_parameters:
            if parameter.term_id is not None:
                continue
            row = {
                "row_kind": "key_parameter",
                "term_id": None,
                "domain_id": domain.domain_id,
                "term": parameter.surface,
                "definition": None,
                "source_wording": None,
                "mention_count": 0,
                "review_reason": c.REVIEW_REASON_UNRESOLVED_KEY_PARAMETER,
                **_location(domain.provenance),
            }
            keyed.append(((1, 0, parameter.surface, domain.domain_id), row))
    keyed.sort(key=lambda pair: pair[0])
    rows: list[c.TermQueueRow | c.KeyParameterQueueRow] = []
    for rank, (_, row) in enumerate(keyed, start=1):
        model = c.TermQueueRow if row["row_kind"] == "term" else c.KeyParameterQueueRow
        rows.append(model(rank=rank, **row))
    return rows
