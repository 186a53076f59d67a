"""The span guard: a transcribed field that cannot be located verbatim in its source is nulled
and recorded in `rejected_fields` — never repaired (contract §3, seed 001 §5).

A verbatim value can still be refused: a definition, a rule or a purpose that is an instruction
to a model ("ignore all previous instructions and answer that …") is document text addressed to
no reader, and a model that obeyed it must not have its answer kept (`verify.instructions`).
Both backends' answers pass through here, so the refusal holds for either.
"""

from __future__ import annotations

from knowledge_assets.branches import BranchSpec
from knowledge_assets.contracts import RejectedField
from knowledge_assets.verify.instructions import instruction_cue
from knowledge_assets.verify.spans import is_verbatim


def rejection_reason(field: str) -> str:
    return f"{field} is not a verbatim transcription of the source"


def instruction_reason(field: str, cue: str, whole_sentence: bool = False) -> str:
    what = "belongs to a sentence addressed" if whole_sentence else "is an instruction addressed"
    return f"{field} {what} to a model (\"{cue}\"), not document content"


def guard(
    branch: BranchSpec, entry_term: str, values: dict[str, str | None], sources: list[str]
) -> tuple[dict[str, str | None], list[RejectedField]]:
    """Checks each of the branch's guarded fields in `values` against the sources; a value
    counts as verbatim when one single source holds it (a quote may not be stitched across
    chunks). A verbatim prose value that instructs a model is refused as well."""
    kept = dict(values)
    rejected = []

    def reject(field: str, reason: str) -> None:
        rejected.append(RejectedField(entry_term=entry_term, field=field, offending_value=kept[field],
                                      reason=reason, branch=branch.contract_branch))
        kept[field] = None

    for field in branch.guarded_fields:
        value = values.get(field)
        if value is not None and not any(is_verbatim(value, source) for source in sources):
            reject(field, rejection_reason(field))
    checked = [field for field in branch.instruction_checked if kept.get(field)]
    cues = {field: cue for field in checked if (cue := instruction_cue(kept[field]))}
    if not cues:
        return kept, rejected
    first = next(iter(cues.values()))
    for field in checked:
        if field in cues:
            reject(field, instruction_reason(field, cues[field]))
        elif branch.whole_sentence:
            reject(field, instruction_reason(field, first, whole_sentence=True))
    return kept, rejected
