"""The rule branch (the interpretation pack): statement, condition and consequence as the
document words them, each guarded; `rule_id` from the chunk and the span's offset in it (a
span that runs on into the next chunk, D56, by its first piece's).
`term_ids` and `formula_ids` are linked by the rules stage (`link.link_rules`).

The rules are built as they are drawn, by the write that stores them: RFC 9002 repeated to 50 MB
states ~74,000 rules, 170 MiB as models, and a list of them, and of their linked copies, was
the rules stage's peak (D104)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from knowledge_assets import ids
from knowledge_assets.branches import RULE
from knowledge_assets.contracts import Chunk, Provenance, RejectedField, RuleEntry
from knowledge_assets.extract.guard import guard, rejection_reason
from knowledge_assets.extract.provenance import boundary_texts, chunk_provenance, crossing_provenance, following_chunks
from knowledge_assets.llm.responses import RuleFound
from knowledge_assets.verify.spans import locate


@dataclass(frozen=True)
class RuleBuild:
    """The rules, drawn once, and the fields the guard refused: complete once `rules` is exhausted."""

    rules: Iterator[RuleEntry]
    rejected: list[RejectedField]


def build_rules(doc_id: str, answers: Iterable[RuleFound], chunks: dict[str, Chunk]) -> RuleBuild:
    rejected: list[RejectedField] = []
    return RuleBuild(_rules(doc_id, answers, chunks, rejected), rejected)


def _rules(doc_id: str, answers: Iterable[RuleFound], chunks: dict[str, Chunk],
           rejected: list[RejectedField]) -> Iterator[RuleEntry]:
    """Each answer's rule, the first of each id only, in the order answered."""
    seen: set[str] = set()
    following = following_chunks(chunks.values())
    for found in answers:
        label = found.statement or found.condition or found.span
        chunk = chunks.get(found.chunk_id)
        provenance = _provenance(doc_id, chunk, following, found.span) if chunk is not None else None
        if chunk is None or provenance is None:
            rejected.append(RejectedField(entry_term=label, field="provenance.span", offending_value=found.span,
                                          reason=rejection_reason("provenance.span"), branch=RULE.contract_branch))
            continue
        crossed = [following[chunk.chunk_id]] if provenance.pieces else []
        kept, caught = guard(
            RULE, label,
            {"statement": found.statement, "condition": found.condition, "consequence": found.consequence},
            [chunk.text], boundary_texts([chunk, *crossed]),
        )
        rejected.extend(caught)
        if not any(kept.values()):
            continue  # nothing of the rule survived: its rejected fields say why
        first_piece = provenance.pieces[0].span if provenance.pieces else provenance.span
        rule_id = ids.rule_id(doc_id, chunk.chunk_id, locate(first_piece, chunk.text))
        if rule_id not in seen:
            seen.add(rule_id)
            yield RuleEntry(rule_id=rule_id, rule_type=found.rule_type, provenance=provenance, **kept)


def _provenance(doc_id: str, chunk: Chunk, following: dict[str, Chunk], span: str) -> Provenance | None:
    """The span in its chunk, else running on into the next chunk (D56)."""
    if locate(span, chunk.text) is not None:
        return chunk_provenance(doc_id, chunk, span)
    second = following.get(chunk.chunk_id)
    return crossing_provenance(doc_id, chunk, second, span) if second is not None else None
