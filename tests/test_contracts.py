"""The pydantic models against the output contract's own examples and field tables."""

import pytest
from pydantic import TypeAdapter, ValidationError

from knowledge_assets import contracts as c

PROVENANCE = {
    "doc_id": "STD_2026_006_MNO",
    "span": "Adalah jumlah equipment/unit yang digunakan untuk menghasilkan produksi dalam suatu periode.",
    "page": 3,
    "section_no": "2.1.2",
    "chunk_id": "STD_2026_006_MNO::0007",
}


def _fields(model) -> set[str]:
    return set(model.model_fields)


def test_field_sets_are_exactly_the_contracts():
    assert _fields(c.GlossaryEntry) == {
        "term_id", "term", "full_name", "source_wording", "definition", "defining_formula_id",
        "subdomain_tags", "mention_count", "provenance", "extraction_status", "diff_status",
        "definition_conflict", "conflict_variants",
    }
    assert _fields(c.RuleEntry) == {
        "rule_id", "rule_type", "statement", "condition", "consequence", "formula_ids",
        "term_ids", "provenance",
    }
    assert _fields(c.FormulaEntry) == {
        "formula_id", "name", "formula_latex", "variables", "unit", "latex_verification", "provenance",
    }
    assert _fields(c.DomainContext) == {
        "domain_id", "title", "purpose_verbatim", "outline", "key_parameters", "subdomains",
        "n_terms", "n_formulas", "n_rules", "provenance",
    }
    # `pieces` only for a span crossing chunks (D56); JSON leaves it out when absent.
    assert _fields(c.Provenance) == {"doc_id", "span", "page", "page_no", "section_no", "chunk_id", "pieces"}
    assert _fields(c.SpanPiece) == {"page", "page_no", "chunk_id", "span"}
    assert _fields(c.RejectedField) == {"entry_term", "field", "offending_value", "reason", "branch"}
    assert _fields(c.CallUsage) == {
        "branch", "deployment", "tier", "prompt_tokens", "cached_tokens", "completion_tokens",
        "latency_s", "retries", "structured_output_mode", "simulated",
    }


def test_glossary_entry_defaults_follow_the_contract():
    entry = c.GlossaryEntry(term_id="t_0", term="Gain/Loss", provenance={"doc_id": "D", "span": "Gain/Loss"})
    assert entry.subdomain_tags == [] and entry.mention_count == 0
    assert entry.extraction_status == "ok" and entry.diff_status is None
    assert entry.definition_conflict is False and entry.conflict_variants == []
    assert entry.definition is None and entry.full_name is None


def test_contract_example_glossary_entry_validates_and_gains_page_no():
    entry = c.GlossaryEntry(
        term_id="t_9f2a41c0b7", term="Qty", full_name="Quantity", source_wording="2.1.2. Quantity (Qty)",
        definition=PROVENANCE["span"], defining_formula_id="f_31de08aa95",
        subdomain_tags=["production", "equipment"], mention_count=20, provenance=PROVENANCE,
        extraction_status="ok", diff_status="new", definition_conflict=False, conflict_variants=[],
    )
    assert entry.provenance.page == 3 and entry.provenance.page_no == 4


def test_page_no_must_agree_with_page():
    with pytest.raises(ValidationError):
        c.Provenance(doc_id="D", span="x", page=3, page_no=3)
    with pytest.raises(ValidationError):
        c.Provenance(doc_id="D", span="x", page_no=2)


@pytest.mark.parametrize(
    "field, value",
    [("subdomain_tags", ["mining"]), ("extraction_status", "failed"), ("diff_status", "changed")],
)
def test_closed_enums_reject_values_outside_the_contract(field, value):
    with pytest.raises(ValidationError):
        c.GlossaryEntry(term_id="t", term="PA", provenance={"doc_id": "D", "span": "PA"}, **{field: value})


def test_unknown_fields_are_rejected_not_kept():
    with pytest.raises(ValidationError):
        c.RuleEntry(rule_id="r", rule_type="calculation", provenance={"doc_id": "D", "span": "s"}, applies_to="x")


def test_review_queue_rows_switch_on_row_kind():
    adapter = TypeAdapter(list[c.ReviewQueueRow])
    rows = adapter.validate_python([
        {"rank": 1, "row_kind": "term", "term_id": "t_a", "term": "PA", "mention_count": 43, "page": 3,
         "section_no": "2.1.3", "span": "Adalah", "review_reason": c.REVIEW_REASON_WORDING},
        {"rank": 2, "row_kind": "key_parameter", "term_id": None, "domain_id": "d_2", "term": "Grouping",
         "page": 0, "span": "Standard", "review_reason": c.REVIEW_REASON_UNRESOLVED_KEY_PARAMETER},
    ])
    assert isinstance(rows[0], c.TermQueueRow) and isinstance(rows[1], c.KeyParameterQueueRow)
    assert "domain_id" not in c.TermQueueRow.model_fields
    with pytest.raises(ValidationError):  # a key_parameter row carries no term_id
        adapter.validate_python([{"rank": 1, "row_kind": "key_parameter", "term_id": "t_a", "domain_id": "d",
                                  "term": "X", "span": "s", "review_reason": c.REVIEW_REASON_UNRESOLVED_KEY_PARAMETER}])


def test_review_reasons_are_the_contracts_six_strings():
    assert len(c.REVIEW_REASONS) == 6
    assert c.REVIEW_REASON_ROUTINE in c.REVIEW_REASONS
    with pytest.raises(ValidationError):
        c.TermQueueRow(rank=1, term_id="t", term="PA", span="s", review_reason="looks fine")
