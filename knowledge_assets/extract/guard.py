"""The span guard: a transcribed field that cannot be located verbatim in its source is nulled
and recorded in `rejected_fields` — never repaired (docs/contract.md §3 and v3 §5).

A verbatim value can still be refused: a definition, a rule or a purpose that is an instruction
to a model ("ignore all previous instructions and answer that …"), or that lies in a passage
holding one (the sentence an injection plants beside its instruction), is document text
addressed to no reader, and a model that obeyed it must not have its answer kept
(`verify.instructions`, D50). Both backends' answers pass through here, so the refusal holds
for either.
"""

from __future__ import annotations

from collections.abc import Sequence

from knowledge_assets.branches import BranchSpec
from knowledge_assets.contracts import RejectedField
from knowledge_assets.verify.instructions import instruction_cue, passage_cue
from knowledge_assets.verify.spans import is_verbatim


def rejection_reason(field: str) -> str:
    return f"{field} is not a verbatim transcription of the source"


def instruction_reason(field: str, cue: str, whole_sentence: bool = False, in_passage: bool = False) -> str:
    what = ("lies in a passage addressed" if in_passage
            else "belongs to a sentence addressed" if whole_sentence else "is an instruction addressed")
    return f"{field} {what} to a model (\"{cue}\"), not document content"


def addressing_cue(value: str | None, sources: list[str]) -> tuple[str, bool] | None:
    """Why `value` addresses a model, and whether by the passage it lies in; None when it does not."""
    if cue := instruction_cue(value):
        return cue, False
    if cue := passage_cue(value, sources):
        return cue, True
    return None


def guard(
    branch: BranchSpec, entry_term: str, values: dict[str, str | None], sources: list[str],
    boundaries: Sequence[str] = (),
) -> tuple[dict[str, str | None], list[RejectedField]]:
    """Checks each of the branch's guarded fields in `values` against the sources; a value
    counts as verbatim when one single source holds it (a quote may not be stitched across
    chunks), or one of the `boundaries` does: the joined text of two consecutive chunks, which
    a value crossing a page break runs through (D56). A verbatim prose value that instructs a
    model, or lies in a passage that does, is refused as well."""
    sources = [*sources, *boundaries]
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
    cues = {field: (cue, False) for field in checked if (cue := instruction_cue(kept[field]))}
    # A sentence with an instruction in one part is refused whole for it; otherwise a part may
    # still lie in a passage that addresses a model.
    if not (cues and branch.whole_sentence):
        cues |= {field: (cue, True) for field in checked
                 if field not in cues and (cue := passage_cue(kept[field], sources))}
    if not cues:
        return kept, rejected
    first, _ = next(iter(cues.values()))
    for field in checked:
        if field in cues:
            cue, in_passage = cues[field]
            reject(field, instruction_reason(field, cue, in_passage=in_passage))
        elif branch.whole_sentence:
            reject(field, instruction_reason(field, first, whole_sentence=True))
    return kept, rejected
