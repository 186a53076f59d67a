"""What a model (or the offline extractor) answers: only the content fields the contract's
writer split (§5) assigns to it, plus the verbatim evidence span and the chunk it sits in.

No id, link, count or status is in any schema here: those are set by deterministic code.
`GlossaryTerm.cluster` is the one reference a model copies, the number of the term block it
answers; `GlossaryResponse.problem` checks it exactly, so a skipped or repeated term is a
failed answer, never a definition attached to the wrong term.

Every field is required (nullable where abstaining is a correct answer), because strict
structured outputs require it and because an absent field and an abstention must not blur.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from knowledge_assets.contracts import RuleType, Subdomain
from knowledge_assets.llm.requests import (
    DomainContextRequest,
    ExtractionRequest,
    FormulaRequest,
    GlossaryRequest,
    RuleRequest,
)


class _Answer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    def problem(self, request: ExtractionRequest) -> str | None:
        """Why this answer cannot stand for `request`, beyond its schema; None when it can."""
        return None


class GlossaryTerm(_Answer):
    cluster: int = Field(description="The number N of the [term N] block this entry answers.")
    term: str
    full_name: str | None
    definition: str | None
    subdomain_tags: list[Subdomain]
    span: str | None
    chunk_id: str | None


class GlossaryResponse(_Answer):
    terms: list[GlossaryTerm]

    def problem(self, request: ExtractionRequest) -> str | None:
        expected = list(range(1, len(request.clusters) + 1))  # type: ignore[union-attr]
        answered = sorted(term.cluster for term in self.terms)
        if answered != expected:
            return f"term blocks answered {answered}, expected each of {expected} exactly once"
        return None

    def by_key(self, request: GlossaryRequest) -> dict[str, GlossaryTerm]:
        """Each answer under its cluster's key (term_id), for the caller to join on."""
        return {request.clusters[term.cluster - 1].key: term for term in self.terms}


class FormulaVariableFound(_Answer):
    symbol: str
    meaning: str | None


class FormulaFound(_Answer):
    name: str | None
    formula_latex: str | None
    variables: list[FormulaVariableFound]
    unit: str | None
    span: str
    chunk_id: str


class FormulaResponse(_Answer):
    formulas: list[FormulaFound]


class RuleFound(_Answer):
    rule_type: RuleType
    statement: str | None
    condition: str | None
    consequence: str | None
    span: str
    chunk_id: str


class RuleResponse(_Answer):
    rules: list[RuleFound]


class DomainContextResponse(_Answer):
    title: str | None
    purpose_verbatim: str | None
    key_parameters: list[str]
    span: str | None
    chunk_id: str | None


ExtractionResponse = GlossaryResponse | FormulaResponse | RuleResponse | DomainContextResponse

RESPONSE_FOR: dict[type, type[_Answer]] = {
    GlossaryRequest: GlossaryResponse,
    FormulaRequest: FormulaResponse,
    RuleRequest: RuleResponse,
    DomainContextRequest: DomainContextResponse,
}
