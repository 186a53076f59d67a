"""The scoring rules of the knowledge assets on hand-made cases: what counts as a filled field,
when it is correct, and what each recall counts."""

import pytest

from knowledge_assets import contracts as c
from knowledge_assets.evaluation.gold import GoldDomain, GoldFormula, GoldRule, GoldTerm
from knowledge_assets.evaluation.knowledge_scores import (
    Judgement,
    judge_domain,
    judge_formulas,
    judge_glossary,
    judge_rules,
    schema_fill_precision,
)
from knowledge_assets.terms.clusters import TermCluster

DOC = "DOC-1"
PA_DEFINITION = (
    "Adalah persentase waktu unit berada dalam kondisi siap secara fisik untuk dioperasikan dibandingkan "
    "dengan seluruh waktu unit berada di site (MOHH)."
)
MA_DEFINITION = (
    "Adalah persentase waktu unit bekerja dibandingkan dengan jumlah waktu unit bekerja ditambah waktu perbaikan."
)
TERMS = (
    GoldTerm("Physical of Availability", "PA", PA_DEFINITION),
    GoldTerm("Mechanical Availability", "MA", MA_DEFINITION),
    GoldTerm("joint survey", None, None),
)


def provenance(span="x") -> c.Provenance:
    return c.Provenance(doc_id=DOC, span=span)


def cluster(term_id: str, *surfaces: str, abbreviation=None) -> TermCluster:
    return TermCluster(
        doc_id=DOC, term_id=term_id, canonical=surfaces[0], abbreviation=abbreviation, long_forms=(),
        surfaces=surfaces, mention_count=1, rank=1, provenance=provenance(surfaces[0]),
    )


def entry(term_id: str, term: str, definition=None, full_name=None, status=None) -> c.GlossaryEntry:
    status = status or ("ok" if definition else "no_definition_found")
    return c.GlossaryEntry(
        term_id=term_id, term=term, full_name=full_name, definition=definition,
        provenance=provenance(), extraction_status=status,
    )


def glossary(entries, clusters, terms=TERMS):
    judgement = Judgement()
    return judge_glossary(entries, clusters, terms, judgement), judgement


def test_a_gold_term_with_two_accepted_surfaces_is_named_by_both_entries_and_recalled_once():
    # The funnel split PA into its abbreviation and its long form: both entries name the gold
    # term (one by the abbreviation, one by the canonical), both definitions are judged
    # against it, and the gold definition counts once for recall.
    clusters = [cluster("t_pa", "PA", abbreviation="PA"), cluster("t_long", "Physical of Availability")]
    entries = [entry("t_pa", "PA", PA_DEFINITION), entry("t_long", "Physical of Availability", PA_DEFINITION)]
    metrics, judgement = glossary(entries, clusters)
    assert judgement.fields["glossary.definition"].filled == 2
    assert judgement.fields["glossary.definition"].correct == 2
    assert metrics == {"definition_precision": 1.0, "definition_recall": 0.5}  # MA not found


def test_one_of_two_entries_of_a_split_term_with_a_wrong_definition_costs_precision_not_recall():
    clusters = [cluster("t_pa", "PA", abbreviation="PA"), cluster("t_long", "Physical of Availability")]
    entries = [entry("t_pa", "PA", PA_DEFINITION), entry("t_long", "Physical of Availability", MA_DEFINITION)]
    metrics, _ = glossary(entries, clusters)
    assert metrics == {"definition_precision": 0.5, "definition_recall": 0.5}


def test_a_definition_matching_only_partially_is_counted_partial_and_not_credited():
    partial = "Adalah persentase waktu unit berada dalam kondisi siap secara fisik untuk dioperasikan"
    metrics, judgement = glossary([entry("t_pa", "PA", partial)], [cluster("t_pa", "PA", abbreviation="PA")])
    assert judgement.counts["definitions_partial"] == 1
    assert metrics == {"definition_precision": 0.0, "definition_recall": 0.0}


def test_a_definition_with_a_different_boundary_but_the_same_words_is_correct():
    labelled = "Mechanical Availability (MA): " + MA_DEFINITION.removesuffix(".")
    metrics, judgement = glossary([entry("t_ma", "MA", labelled)], [cluster("t_ma", "MA")])
    assert judgement.counts["definitions_partial"] == 0
    assert metrics["definition_precision"] == 1.0


def test_an_abstention_where_gold_has_no_definition_costs_nothing():
    metrics, judgement = glossary([entry("t_js", "joint survey")], [cluster("t_js", "joint survey")])
    assert judgement.fields["glossary.definition"].filled == 0
    assert judgement.counts["abstentions"] == 1
    assert judgement.counts["abstentions_where_gold_defines"] == 0
    assert metrics["definition_precision"] is None  # nothing filled: no precision to speak of
    assert schema_fill_precision(judgement) is None


def test_an_abstention_where_gold_has_a_definition_costs_recall_only():
    metrics, judgement = glossary([entry("t_ma", "MA")], [cluster("t_ma", "MA")])
    assert judgement.counts["abstentions_where_gold_defines"] == 1
    assert metrics == {"definition_precision": None, "definition_recall": 0.0}


def test_a_definition_where_gold_has_none_or_no_gold_term_is_wrong():
    entries = [entry("t_js", "joint survey", "Survey bersama."), entry("t_x", "Mine Plan", "Rencana tambang.")]
    metrics, judgement = glossary(entries, [cluster("t_js", "joint survey"), cluster("t_x", "Mine Plan")])
    assert judgement.counts["definitions_where_gold_has_none"] == 2
    assert metrics["definition_precision"] == 0.0


def test_an_escalated_entry_is_not_an_abstention():
    _, judgement = glossary([entry("t_ma", "MA", status="escalated")], [cluster("t_ma", "MA")])
    assert judgement.counts["escalated"] == 1 and judgement.counts["abstentions"] == 0


def test_a_full_name_is_correct_only_as_the_gold_canonical():
    entries = [
        entry("t_pa", "PA", full_name="physical of  availability"),
        entry("t_ma", "MA", full_name="Mechanical Availability (MA)"),
    ]
    _, judgement = glossary(entries, [cluster("t_pa", "PA"), cluster("t_ma", "MA")])
    assert (judgement.fields["glossary.full_name"].filled, judgement.fields["glossary.full_name"].correct) == (2, 1)


GOLD_FORMULAS = (
    GoldFormula("PA", "PA = (MOHH - Breakdown Hours) / MOHH x 100%", ("MOHH", "Breakdown Hours")),
    GoldFormula("MA", "MA = Working Hours / (Working Hours + Repair Hours) x 100%", ("Working Hours", "Repair Hours")),
)


def formula(latex, name=None, symbols=()) -> c.FormulaEntry:
    variables = [c.FormulaVariable(symbol=s) for s in symbols]
    return c.FormulaEntry(formula_id="f_1", name=name, formula_latex=latex, variables=variables,
                          provenance=provenance())


def test_formula_fields_are_judged_against_the_gold_formula_the_entry_states():
    entries = [
        # The gold formula in LaTeX, named by the gold term's long form, variables complete.
        formula(r"PA = \frac{MOHH - Breakdown Hours}{MOHH} \times 100\%", "Physical of Availability",
                ["MOHH", "Breakdown Hours"]),
        # Not a gold formula: every filled field of it is wrong.
        formula("MOHH = 30 x 24", "MOHH", ["MOHH"]),
    ]
    judgement = Judgement()
    metrics = judge_formulas(entries, GOLD_FORMULAS, TERMS, judgement)
    assert metrics == {"formula_recall": 0.5, "formula_precision": 0.5}
    assert {k: (t.filled, t.correct) for k, t in judgement.fields.items()} == {
        "formulas.formula_latex": (2, 1), "formulas.name": (2, 1), "formulas.variables": (2, 1),
    }
    assert judgement.counts == {"formulas_found": 2, "formulas_gold": 2, "formulas_gold_found": 1}


def test_formula_variables_need_a_set_f1_of_0_8():
    entries = [formula(GOLD_FORMULAS[1].formula, "MA", ["Working Hours", "Repair Hours", "Breakdown", "Standby"])]
    judgement = Judgement()
    judge_formulas(entries, GOLD_FORMULAS, TERMS, judgement)
    assert judgement.fields["formulas.variables"].correct == 0  # F1 = 2/3


GOLD_RULES = (
    GoldRule(
        "calculation",
        "Apabila data joint survey belum tersedia maka digunakan data produksi berdasarkan truck count sebagai "
        "dasar perhitungan.",
        "Apabila data joint survey belum tersedia",
        "maka digunakan data produksi berdasarkan truck count sebagai dasar perhitungan",
    ),
    GoldRule("calculation", "Production yang digunakan dalam perhitungan adalah produksi hasil joint survey.",
             None, None),
    GoldRule("interpretation", "Jika MF kurang dari 0,9 maka jumlah unit hauling dalam fleet harus ditambah.",
             None, None),
)


def rule(rule_type, statement=None, condition=None, consequence=None) -> c.RuleEntry:
    return c.RuleEntry(
        rule_id="r_1", rule_type=rule_type, statement=statement, condition=condition,
        consequence=consequence, provenance=provenance(),
    )


def test_a_rule_split_into_condition_and_consequence_states_its_gold_rule():
    entries = [rule("calculation", None, GOLD_RULES[0].condition, GOLD_RULES[0].consequence)]
    judgement = Judgement()
    metrics = judge_rules(entries, GOLD_RULES, judgement)
    assert metrics == {"rule_recall": pytest.approx(1 / 3), "rule_precision": 1.0}
    assert {k: (t.filled, t.correct) for k, t in judgement.fields.items()} == {
        "rules.rule_type": (1, 1), "rules.condition": (1, 1), "rules.consequence": (1, 1),
    }


def test_rule_fields_are_judged_each_against_its_kind_and_rule_type_against_the_stated_rule():
    # The contract's own example: the statement of one gold rule with the condition and
    # consequence of the next. Each field is right; the rule states both gold rules.
    merged = rule("interpretation", GOLD_RULES[1].statement, GOLD_RULES[0].condition, GOLD_RULES[0].consequence)
    unknown = rule("calculation", "Data dicatat setiap hari.")
    judgement = Judgement()
    metrics = judge_rules([merged, unknown], GOLD_RULES, judgement)
    assert metrics == {"rule_recall": pytest.approx(2 / 3), "rule_precision": 0.5}
    assert {k: (t.filled, t.correct) for k, t in judgement.fields.items()} == {
        "rules.rule_type": (2, 0),  # interpretation for two calculation rules; the unknown rule states nothing
        "rules.statement": (2, 1), "rules.condition": (1, 1), "rules.consequence": (1, 1),
    }


def test_a_statement_may_be_the_whole_conditional_sentence_of_a_gold_rule_given_only_split():
    gold = (GoldRule("interpretation", None, "Jika MF kurang dari 0,9", "maka unit hauling harus ditambah"),)
    judgement = Judgement()
    judge_rules([rule("interpretation", "Jika MF kurang dari 0,9 maka unit hauling harus ditambah.")], gold, judgement)
    assert judgement.fields["rules.statement"].correct == 1 and judgement.fields["rules.rule_type"].correct == 1


def test_domain_title_and_purpose_are_texts_against_gold_and_unfilled_ones_do_not_count():
    gold = GoldDomain("Maintenance KPI Procedure", "This procedure defines the key performance indicators (KPIs).")
    domain = c.DomainContext(domain_id="d_1", title="Maintenance KPI Procedure", purpose_verbatim=None,
                             provenance=provenance())
    judgement = Judgement()
    judge_domain(domain, gold, judgement)
    assert {k: (t.filled, t.correct) for k, t in judgement.fields.items()} == {"domain.title": (1, 1)}


def test_e3_is_correct_over_filled_across_every_judged_field():
    judgement = Judgement()
    judgement.tally("glossary.definition").add(True)
    judgement.tally("glossary.definition").add(False)
    judgement.tally("rules.statement").add(True)
    judgement.tally("domain.title").add(True)
    assert schema_fill_precision(judgement) == 0.75
