"""Review ids: an entity's own id, or `<domain_id>:<surface>` for a key parameter."""

import pytest

from knowledge_assets import contracts as c
from knowledge_assets.review.entities import EntityKey, ReviewError, entity_preview, parse_ref


@pytest.mark.parametrize(("ref", "key"), [
    ("t_9f2a41c0b7", EntityKey("term", "t_9f2a41c0b7")),
    ("f_31de08aa95", EntityKey("formula", "f_31de08aa95")),
    ("r_c07be41f22", EntityKey("rule", "r_c07be41f22")),
    ("d_2ef60a8c19", EntityKey("domain", "d_2ef60a8c19")),
    ("d_2ef60a8c19:Grouping (Composite)", EntityKey("key_parameter", "d_2ef60a8c19", "Grouping (Composite)")),
    # Only the first ':' separates: a surface may hold one.
    ("d_2ef60a8c19:Ratio: A/B", EntityKey("key_parameter", "d_2ef60a8c19", "Ratio: A/B")),
])
def test_an_id_names_its_kind_and_round_trips(ref, key):
    assert parse_ref(ref) == key
    assert key.ref == ref


@pytest.mark.parametrize("ref", ["PA", "t_", "x_123", "t_9f2a41c0b7:PA", "d_2ef60a8c19:", "d_2ef60a8c19:  "])
def test_anything_else_is_refused_with_the_expected_shapes(ref):
    with pytest.raises(ReviewError, match="review id|key parameter id"):
        parse_ref(ref)


def test_a_preview_is_what_the_reviewer_judges_of_each_kind():
    where = c.Provenance.model_construct(doc_id="d", span="x")
    term = c.GlossaryEntry.model_construct(term_id="t_1", term="CFR", definition="feed rate per hour",
                                           provenance=where)
    assert entity_preview(term) == "feed rate per hour"
    assert entity_preview(term.model_copy(update={"definition": None})) is None
    formula = c.FormulaEntry.model_construct(formula_id="f_1", formula_latex="CFR = T / H", provenance=where)
    assert entity_preview(formula) == "CFR = T / H"
    rule = c.RuleEntry.model_construct(rule_id="r_1", statement="If CFR > 500, slow the feed.",
                                       condition="CFR > 500", consequence=None, provenance=where)
    assert entity_preview(rule) == "CFR > 500 → …"
    assert entity_preview(rule.model_copy(update={"condition": None})) == "If CFR > 500, slow the feed."
    domain = c.DomainContext.model_construct(domain_id="d_1", purpose_verbatim="This procedure sets the rates.",
                                             provenance=where)
    assert entity_preview(domain) == "This procedure sets the rates."
