from knowledge_assets import contracts as c
from knowledge_assets.link import TermIndex, dangle_counts, link_domain, link_formulas, link_glossary, link_rules

D = "DOC"
PROV = {"doc_id": D, "span": "s", "page": 0}
INDEX = TermIndex(
    [
        ("t_pa", ["PA", "Physical Availability", "Physical of Availability"]),
        ("t_prod", ["Production"]),
        ("t_mohh", ["MOHH", "Machine on Hand Hours"]),
        ("t_js", ["joint survey"]),
        ("t_x1", ["Delay"]),
        ("t_x2", ["delay"]),  # two terms claim one surface: ambiguous
    ]
)


def test_resolve_is_case_insensitive_and_splits_long_form_with_abbreviation():
    assert INDEX.resolve("physical availability") == "t_pa"
    assert INDEX.resolve("Physical Availability (PA)") == "t_pa"
    assert INDEX.resolve("Equipment Capacity Analysis (ECA)") is None
    assert INDEX.resolve(None) is None and INDEX.resolve("  ") is None


def test_an_ambiguous_surface_resolves_to_nothing():
    assert INDEX.resolve("Delay") is None
    assert INDEX.mentioned_in("a Delay occurs") == []


def test_mentions_respect_word_boundaries_and_abbreviation_case():
    assert INDEX.mentioned_in("Production yang digunakan adalah hasil joint survey, PA dan MOHH") == [
        "t_prod", "t_js", "t_pa", "t_mohh"]
    assert INDEX.mentioned_in("pada data dan papan") == []  # "pa" inside or lower-case is not PA


def test_formula_variables_link_by_symbol_then_meaning_and_dangle_as_null():
    formula = c.FormulaEntry(
        formula_id="f_1", name="Production", formula_latex="Production = MOHH x Qty x PA",
        variables=[c.FormulaVariable(symbol="MOHH"), c.FormulaVariable(symbol="P", meaning="Physical Availability"),
                   c.FormulaVariable(symbol="Qty", meaning="Quantity")],
        provenance=PROV,
    )
    linked = link_formulas([formula], INDEX)[0]
    assert [v.term_id for v in linked.variables] == ["t_mohh", "t_pa", None]


def test_glossary_gets_its_defining_formula_and_rules_their_terms_and_formulas():
    formulas = [
        c.FormulaEntry(formula_id="f_prod", name="Production", provenance=PROV),
        c.FormulaEntry(formula_id="f_pa", formula_latex="PA = (MOHH - BD) / MOHH", provenance=PROV),
    ]
    glossary = link_glossary(
        [c.GlossaryEntry(term_id=t, term=t, provenance=PROV) for t in ("t_pa", "t_prod", "t_js")], formulas, INDEX
    )
    assert [g.defining_formula_id for g in glossary] == ["f_pa", "f_prod", None]
    rule = c.RuleEntry(
        rule_id="r_1", rule_type="calculation",
        statement="Production yang digunakan dalam perhitungan adalah produksi hasil joint survey.",
        provenance=PROV,
    )
    linked, = link_rules([rule], formulas, INDEX)
    assert linked.term_ids == ["t_prod", "t_js"] and linked.formula_ids == ["f_prod"]


def test_key_parameters_resolve_or_stay_null_and_dangles_are_counted():
    domain = c.DomainContext(
        domain_id="d_1", provenance=PROV,
        key_parameters=[c.KeyParameter(surface="Physical Availability (PA)"),
                        c.KeyParameter(surface="Grouping (Composite)")],
    )
    linked = link_domain(domain, INDEX)
    assert [k.term_id for k in linked.key_parameters] == ["t_pa", None]
    counts = dangle_counts([], [], [c.RuleEntry(rule_id="r", rule_type="calculation", provenance=PROV)], linked)
    assert counts.key_parameters_unresolved == 1 and counts.rules_without_terms == 1


def test_a_rule_links_a_formula_restated_word_for_word_once_and_each_distinct_one():
    restated = [
        c.FormulaEntry(formula_id=f"f_pa{n}", name="PA", formula_latex="PA = (MOHH - BD) / MOHH", provenance=PROV)
        for n in range(3)
    ]
    other_way = c.FormulaEntry(formula_id="f_pa_other", name="PA", formula_latex="PA = 1 - BD / MOHH", provenance=PROV)
    rule = c.RuleEntry(rule_id="r_1", rule_type="calculation", statement="PA dihitung per unit.", provenance=PROV)
    linked, = link_rules([rule], [*restated, other_way], INDEX)
    assert linked.formula_ids == ["f_pa0", "f_pa_other"]


def test_formulas_of_one_name_without_latex_are_each_linked():
    # A damaged text layer nulls the latex: two formulas named PA are then not known to be one.
    unread = [c.FormulaEntry(formula_id=f"f_pa{n}", name="PA", provenance=PROV) for n in range(2)]
    rule = c.RuleEntry(rule_id="r_1", rule_type="calculation", statement="PA dihitung per unit.", provenance=PROV)
    assert next(link_rules([rule], unread, INDEX)).formula_ids == ["f_pa0", "f_pa1"]
