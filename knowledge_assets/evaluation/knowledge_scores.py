"""Scores of the knowledge assets against gold: which filled fields are correct (E3), and how
much of the gold each branch found. The comparisons themselves are in `matching`.

A field counts for E3 when the model filled it and gold can judge it:

| field | correct when |
|---|---|
| glossary.definition | text-correct against the definition of a gold term the entry names |
| glossary.full_name | equal (as a name) to the canonical of a gold term the entry names |
| formulas.formula_latex | it matches a gold formula |
| formulas.name | equal to that gold formula's name, or to a name of the gold term so named |
| formulas.variables | set F1 >= 0.8 with that gold formula's variables |
| rules.statement | text-correct against a gold rule's statement (or its condition and consequence) |
| rules.condition / rules.consequence | text-correct against a gold rule's condition / consequence |
| rules.rule_type | the rule states a gold rule of that type |
| domain.title / domain.purpose_verbatim | text-correct against the gold title / purpose |

An entry *names* a gold term when the gold canonical or abbreviation equals (as a name) the
entry's term or any surface, long form, canonical or abbreviation of its term cluster, so a
gold term the funnel split into two clusters is named by both entries. A filled field with
nothing in gold to match is wrong: gold lists every term the document defines, and every
formula and rule it states. Not judged, because gold holds nothing for them: subdomain_tags,
unit, variables' meaning, key_parameters; source_wording and ids are set by code.

Abstention (definition null) is never a filled field: an abstention where gold has no
definition costs nothing, one where gold has a definition costs definition recall only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from knowledge_assets import contracts as c
from knowledge_assets.evaluation.gold import GoldDomain, GoldFormula, GoldRule, GoldTerm
from knowledge_assets.evaluation.matching import (
    CORRECT_F1,
    best_text_grade,
    fold,
    formulas_match,
    set_f1,
    token_f1,
)
from knowledge_assets.evaluation.term_scores import gold_term_names
from knowledge_assets.terms.clusters import TermCluster


@dataclass
class FieldTally:
    filled: int = 0
    correct: int = 0

    def add(self, correct: bool) -> None:
        self.filled += 1
        self.correct += correct


@dataclass
class Judgement:
    """Filled and correct fields per `<table>.<field>`, and the counts each branch reports."""

    fields: dict[str, FieldTally] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)

    def tally(self, name: str) -> FieldTally:
        return self.fields.setdefault(name, FieldTally())


def _ratio(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def _cluster_names(cluster: TermCluster) -> set[str]:
    names = (cluster.canonical, cluster.abbreviation, *cluster.surfaces, *cluster.long_forms)
    return {fold(name) for name in names if name}


def judge_glossary(
    entries: Sequence[c.GlossaryEntry], clusters: Sequence[TermCluster], terms: Sequence[GoldTerm], into: Judgement
) -> dict[str, float | None]:
    clusters_by_id = {cluster.term_id: _cluster_names(cluster) for cluster in clusters}
    definitions, full_names = into.tally("glossary.definition"), into.tally("glossary.full_name")
    defined = [term for term in terms if term.definition]
    found: set[GoldTerm] = set()
    counts = dict.fromkeys(
        ("definitions_partial", "definitions_where_gold_has_none", "abstentions", "abstentions_where_gold_defines",
         "escalated"),
        0,
    )
    for entry in entries:
        names = clusters_by_id.get(entry.term_id, set()) | {fold(entry.term)}
        named = [term for term in terms if gold_term_names(term) & names]
        if entry.full_name is not None:
            full_names.add(fold(entry.full_name) in {fold(term.canonical) for term in named})
        if entry.definition is None:
            if entry.extraction_status == "escalated":  # the call failed: not an answer
                counts["escalated"] += 1
            else:
                counts["abstentions"] += 1
                counts["abstentions_where_gold_defines"] += any(t.definition for t in named)
            continue
        golds = [term for term in named if term.definition]
        counts["definitions_where_gold_has_none"] += not golds
        verdict = best_text_grade(entry.definition, [term.definition for term in golds])
        definitions.add(verdict == "correct")
        counts["definitions_partial"] += verdict == "partial"
        found.update(t for t in golds if token_f1(entry.definition, t.definition) >= CORRECT_F1)
    into.counts |= {
        "glossary_entries": len(entries),
        "definitions_found": definitions.filled,
        "definitions_correct": definitions.correct,
        "definitions_gold": len(defined),
        **counts,
    }
    return {
        "definition_precision": _ratio(definitions.correct, definitions.filled),
        "definition_recall": _ratio(len(found), len(defined)),
    }


def _formula_names(formula: GoldFormula, terms: Sequence[GoldTerm]) -> set[str]:
    names = {fold(formula.name)}
    for term in terms:
        if names & gold_term_names(term):
            names |= gold_term_names(term)
    return names


def judge_formulas(
    entries: Sequence[c.FormulaEntry], gold: Sequence[GoldFormula], terms: Sequence[GoldTerm], into: Judgement
) -> dict[str, float | None]:
    latex, name, variables = (into.tally(f"formulas.{f}") for f in ("formula_latex", "name", "variables"))
    found: set[int] = set()
    stating = 0
    for entry in entries:
        stated = [
            i for i, g in enumerate(gold) if entry.formula_latex and formulas_match(entry.formula_latex, g.formula)
        ]
        found.update(stated)
        stating += bool(stated)
        if entry.formula_latex:
            latex.add(bool(stated))
        if entry.name:
            name.add(any(fold(entry.name) in _formula_names(gold[i], terms) for i in stated))
        if entry.variables:
            symbols = [v.symbol for v in entry.variables]
            variables.add(any(set_f1(symbols, gold[i].variables) >= CORRECT_F1 for i in stated))
    into.counts |= {"formulas_found": len(entries), "formulas_gold": len(gold), "formulas_gold_found": len(found)}
    return {"formula_recall": _ratio(len(found), len(gold)), "formula_precision": _ratio(stating, len(entries))}


def _rule_texts(rule: c.RuleEntry | GoldRule) -> list[str]:
    """A rule as prose: its statement, and its condition and consequence together."""
    texts = [rule.statement] if rule.statement else []
    if rule.condition and rule.consequence:
        texts.append(f"{rule.condition} {rule.consequence}")
    return texts


def _states(rule: c.RuleEntry, gold: GoldRule) -> bool:
    return any(token_f1(found, text) >= CORRECT_F1 for found in _rule_texts(rule) for text in _rule_texts(gold))


def judge_rules(entries: Sequence[c.RuleEntry], gold: Sequence[GoldRule], into: Judgement) -> dict[str, float | None]:
    gold_texts = [text for rule in gold for text in _rule_texts(rule)]
    found: set[int] = set()
    stating = 0
    for entry in entries:
        stated = [i for i, g in enumerate(gold) if _states(entry, g)]
        found.update(stated)
        stating += bool(stated)
        into.tally("rules.rule_type").add(any(gold[i].rule_type == entry.rule_type for i in stated))
        for name, golds in (
            ("statement", gold_texts),
            ("condition", [g.condition for g in gold]),
            ("consequence", [g.consequence for g in gold]),
        ):
            value = getattr(entry, name)
            if value:
                into.tally(f"rules.{name}").add(best_text_grade(value, golds) == "correct")
    into.counts |= {"rules_found": len(entries), "rules_gold": len(gold), "rules_gold_found": len(found)}
    return {"rule_recall": _ratio(len(found), len(gold)), "rule_precision": _ratio(stating, len(entries))}


def judge_domain(domain: c.DomainContext | None, gold: GoldDomain, into: Judgement) -> None:
    if domain is None:
        return
    for name, value, expected in (
        ("title", domain.title, gold.title),
        ("purpose_verbatim", domain.purpose_verbatim, gold.purpose),
    ):
        if value:
            into.tally(f"domain.{name}").add(best_text_grade(value, [expected]) == "correct")


def schema_fill_precision(judgement: Judgement) -> float | None:
    """E3: the share of judged filled fields that are correct; None when none was filled."""
    filled = sum(t.filled for t in judgement.fields.values())
    return _ratio(sum(t.correct for t in judgement.fields.values()), filled)
