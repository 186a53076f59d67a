"""The rule branch (the interpretation pack): statement, condition and consequence as the
document words them, each guarded; `rule_id` from the chunk and the span's offset in it.
`term_ids` and `formula_ids` are linked later by the link stage."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from knowledge_assets import ids
from knowledge_assets.branches import RULE
from knowledge_assets.contracts import Chunk, RejectedField, RuleEntry
from knowledge_assets.extract.guard import guard, rejection_reason
from knowledge_assets.extract.provenance import chunk_provenance
from knowledge_assets.llm.responses import RuleFound
from knowledge_assets.verify.spans import locate


@dataclass(frozen=True)
class RuleBuild:
    rules: list[RuleEntry]
    rejected: list[RejectedField]


def build_rules(doc_id: str, answers: Sequence[RuleFound], chunks: dict[str, Chunk]) -> RuleBuild:
    rules: dict[str, RuleEntry] = {}
    rejected: list[RejectedField] = []
    for found in answers:
        label = found.statement or found.condition or found.span
        chunk = chunks.get(found.chunk_id)
        start = locate(found.span, chunk.text) if chunk is not None else None
        if chunk is None or start is None:
            rejected.append(RejectedField(entry_term=label, field="provenance.span", offending_value=found.span,
                                          reason=rejection_reason("provenance.span"), branch=RULE.contract_branch))
            continue
        kept, caught = guard(
            RULE, label,
            {"statement": found.statement, "condition": found.condition, "consequence": found.consequence},
            [chunk.text],
        )
        rejected.extend(caught)
        if not any(kept.values()):
            continue  # nothing of the rule survived: its rejected fields say why
        rule_id = ids.rule_id(doc_id, chunk.chunk_id, start)
        rules.setdefault(rule_id, RuleEntry(
            rule_id=rule_id, rule_type=found.rule_type, provenance=chunk_provenance(doc_id, chunk, found.span), **kept,
        ))
    return RuleBuild(list(rules.values()), rejected)
