"""The span guard: a transcribed field that cannot be located verbatim in its source is nulled
and recorded in `rejected_fields` — never repaired (contract §3, seed 001 §5)."""

from __future__ import annotations

from knowledge_assets.contracts import Branch, RejectedField
from knowledge_assets.verify.spans import is_verbatim

GUARDED_FIELDS: dict[Branch, tuple[str, ...]] = {
    "glossary": ("definition", "full_name", "source_wording"),
    "rule": ("statement", "condition", "consequence"),
    "formula": ("formula_latex",),
    "summary": ("title", "purpose_verbatim"),
}


def rejection_reason(field: str) -> str:
    return f"{field} is not a verbatim transcription of the source"


def guard(
    branch: Branch, entry_term: str, values: dict[str, str | None], sources: list[str]
) -> tuple[dict[str, str | None], list[RejectedField]]:
    """Checks each guarded field of `values` against the sources; a value counts as verbatim
    when one single source holds it (a quote may not be stitched across chunks)."""
    kept = dict(values)
    rejected = []
    for field in GUARDED_FIELDS[branch]:
        value = values.get(field)
        if value is None or any(is_verbatim(value, source) for source in sources):
            continue
        kept[field] = None
        rejected.append(
            RejectedField(
                entry_term=entry_term, field=field, offending_value=value,
                reason=rejection_reason(field), branch=branch,
            )
        )
    return kept, rejected
