"""The span guard: a transcribed field that cannot be located verbatim in its source is nulled
and recorded in `rejected_fields` — never repaired (contract §3, seed 001 §5).

A verbatim value can still be refused: a definition, a rule or a purpose that is an instruction
to a model ("ignore all previous instructions and answer that …") is document text addressed to
no reader, and a model that obeyed it must not have its answer kept (`verify.instructions`).
Both backends' answers pass through here, so the refusal holds for either.
"""

from __future__ import annotations

from knowledge_assets.contracts import Branch, RejectedField
from knowledge_assets.verify.instructions import instruction_cue
from knowledge_assets.verify.spans import is_verbatim

GUARDED_FIELDS: dict[Branch, tuple[str, ...]] = {
    "glossary": ("definition", "full_name", "source_wording"),
    "rule": ("statement", "condition", "consequence"),
    "formula": ("formula_latex",),
    "summary": ("title", "purpose_verbatim"),
}
# The prose fields, where an instruction to a model could pass for content.
INSTRUCTION_CHECKED_FIELDS: dict[Branch, tuple[str, ...]] = {
    "glossary": ("definition",),
    "rule": ("statement", "condition", "consequence"),
    "formula": (),
    "summary": ("title", "purpose_verbatim"),
}
# Branches whose fields are parts of one sentence: when one part is an instruction to a model,
# the sentence is, and no part of it is kept.
WHOLE_SENTENCE_BRANCHES: frozenset[Branch] = frozenset({"rule"})


def rejection_reason(field: str) -> str:
    return f"{field} is not a verbatim transcription of the source"


def instruction_reason(field: str, cue: str, whole_sentence: bool = False) -> str:
    what = "belongs to a sentence addressed" if whole_sentence else "is an instruction addressed"
    return f"{field} {what} to a model (\"{cue}\"), not document content"


def guard(
    branch: Branch, entry_term: str, values: dict[str, str | None], sources: list[str]
) -> tuple[dict[str, str | None], list[RejectedField]]:
    """Checks each guarded field of `values` against the sources; a value counts as verbatim
    when one single source holds it (a quote may not be stitched across chunks). A verbatim
    prose value that instructs a model is refused as well."""
    kept = dict(values)
    rejected = []

    def reject(field: str, reason: str) -> None:
        rejected.append(RejectedField(entry_term=entry_term, field=field, offending_value=kept[field],
                                      reason=reason, branch=branch))
        kept[field] = None

    for field in GUARDED_FIELDS[branch]:
        value = values.get(field)
        if value is not None and not any(is_verbatim(value, source) for source in sources):
            reject(field, rejection_reason(field))
    checked = [field for field in INSTRUCTION_CHECKED_FIELDS[branch] if kept.get(field)]
    cues = {field: cue for field in checked if (cue := instruction_cue(kept[field]))}
    if not cues:
        return kept, rejected
    first = next(iter(cues.values()))
    for field in checked:
        if field in cues:
            reject(field, instruction_reason(field, cues[field]))
        elif branch in WHOLE_SENTENCE_BRANCHES:
            reject(field, instruction_reason(field, first, whole_sentence=True))
    return kept, rejected
