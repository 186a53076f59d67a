"""The link stage (contract §10): deterministic, no model, never throws.

Every link is computed after the branches ran, from the term clusters' surfaces. A surface that
two different terms claim is ambiguous and resolves to nothing: a dangling link is null or an
empty list, never a guess. Dangle counts are reported, not hidden.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from knowledge_assets.contracts import DomainContext, FormulaEntry, GlossaryEntry, RuleEntry
from knowledge_assets.verify.spans import normalise

_LONG_WITH_SHORT = re.compile(r"(?P<long>.+?)\s*\((?P<short>[^()]+)\)\s*$")
_CASE_SENSITIVE_MAX = 5  # "PA" must not match "pa"; long forms match in any case


def _key(surface: str) -> str:
    return normalise(surface).casefold()


class TermIndex:
    """Surfaces → term_id for one document."""

    def __init__(self, terms: Iterable[tuple[str, Iterable[str]]]):
        owners: dict[str, set[str]] = {}
        self._surfaces: dict[str, str] = {}
        for term_id, surfaces in terms:
            for surface in surfaces:
                if normalise(surface):
                    owners.setdefault(_key(surface), set()).add(term_id)
                    self._surfaces.setdefault(normalise(surface), term_id)
        self._by_key = {key: next(iter(ids)) for key, ids in owners.items() if len(ids) == 1}
        ambiguous = {key for key, ids in owners.items() if len(ids) > 1}
        self._surfaces = {s: t for s, t in self._surfaces.items() if _key(s) not in ambiguous}
        self._pattern = self._mention_pattern()

    def _mention_pattern(self) -> re.Pattern[str] | None:
        alternatives = []
        for surface in sorted(self._surfaces, key=lambda s: (-len(s), s)):
            escaped = r"\s+".join(re.escape(word) for word in surface.split(" "))
            alternatives.append(escaped if len(surface) <= _CASE_SENSITIVE_MAX else f"(?i:{escaped})")
        if not alternatives:
            return None
        return re.compile(r"(?<!\w)(?:" + "|".join(alternatives) + r")(?!\w)")

    def resolve(self, surface: str | None) -> str | None:
        """The term a name refers to: as given, else its parts of "Long form (SHORT)"."""
        if not surface or not normalise(surface):
            return None
        if (found := self._by_key.get(_key(surface))) is not None:
            return found
        if match := _LONG_WITH_SHORT.fullmatch(normalise(surface)):
            return self._by_key.get(_key(match["long"])) or self._by_key.get(_key(match["short"]))
        return None

    def mentioned_in(self, text: str) -> list[str]:
        """Terms named in a text, in order of first mention, each once."""
        if self._pattern is None or not text:
            return []
        found: list[str] = []
        for match in self._pattern.finditer(normalise(text)):
            term_id = self.resolve(match.group(0))
            if term_id is not None and term_id not in found:
                found.append(term_id)
        return found


@dataclass(frozen=True)
class DangleCounts:
    variables_without_term: int
    variables_total: int
    rules_without_terms: int
    key_parameters_unresolved: int
    terms_without_defining_formula: int


def _defined_term(formula: FormulaEntry, index: TermIndex) -> str | None:
    if term_id := index.resolve(formula.name):
        return term_id
    if formula.formula_latex and "=" in formula.formula_latex:
        return index.resolve(formula.formula_latex.split("=", 1)[0])
    return None


def link_formulas(formulas: Iterable[FormulaEntry], index: TermIndex) -> list[FormulaEntry]:
    linked = []
    for formula in formulas:
        variables = [
            v.model_copy(update={"term_id": index.resolve(v.symbol) or index.resolve(v.meaning)})
            for v in formula.variables
        ]
        linked.append(formula.model_copy(update={"variables": variables}))
    return linked


def defining_formulas(formulas: list[FormulaEntry], index: TermIndex) -> dict[str, str]:
    """term_id → the first formula (in document order) whose left-hand side names that term."""
    defining: dict[str, str] = {}
    for formula in formulas:
        term_id = _defined_term(formula, index)
        if term_id is not None:
            defining.setdefault(term_id, formula.formula_id)
    return defining


def link_glossary(entries: Iterable[GlossaryEntry], formulas: list[FormulaEntry],
                  index: TermIndex) -> Iterator[GlossaryEntry]:
    """Each entry with the formula that defines its term, linked as it is drawn: a list of linked
    copies was held beside the entries and their diffed copies (24,000 terms at 50 MB, D106)."""
    defining = defining_formulas(formulas, index)
    for entry in entries:
        yield entry.model_copy(update={"defining_formula_id": defining.get(entry.term_id)})


def link_rules(rules: Iterable[RuleEntry], formulas: list[FormulaEntry], index: TermIndex) -> Iterator[RuleEntry]:
    """A rule governs the terms it names, and constrains the formulas that define them: of a
    formula the document restates word for word (one name, one latex), the first in the order
    given only, so a rule's links grow with the distinct formulas of its terms, not with the
    document (D95). A formula without latex is its own: two of one name may differ.
    Each rule is linked as it is drawn, by the write that stores it (D104)."""
    defined_by: dict[str, dict[object, str]] = {}
    for formula in formulas:
        if (term_id := _defined_term(formula, index)) is not None:
            same = formula.formula_id if formula.formula_latex is None else (formula.name, formula.formula_latex)
            defined_by.setdefault(term_id, {}).setdefault(same, formula.formula_id)
    for rule in rules:
        text = " ".join(t for t in (rule.statement, rule.condition, rule.consequence, rule.provenance.span) if t)
        term_ids = index.mentioned_in(text)
        formula_ids = list(dict.fromkeys(f for t in term_ids for f in defined_by.get(t, {}).values()))
        yield rule.model_copy(update={"term_ids": term_ids, "formula_ids": formula_ids})


def link_domain(domain: DomainContext, index: TermIndex) -> DomainContext:
    key_parameters = [k.model_copy(update={"term_id": index.resolve(k.surface)}) for k in domain.key_parameters]
    return domain.model_copy(update={"key_parameters": key_parameters})


def dangle_counts(
    glossary: list[GlossaryEntry], formulas: list[FormulaEntry], rules: list[RuleEntry], domain: DomainContext | None
) -> DangleCounts:
    variables = [v for f in formulas for v in f.variables]
    return DangleCounts(
        variables_without_term=sum(v.term_id is None for v in variables),
        variables_total=len(variables),
        rules_without_terms=sum(not r.term_ids for r in rules),
        key_parameters_unresolved=sum(k.term_id is None for k in domain.key_parameters) if domain else 0,
        terms_without_defining_formula=sum(e.defining_formula_id is None for e in glossary),
    )
