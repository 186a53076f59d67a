from knowledge_assets import contracts as c
from knowledge_assets.queue import build_queue, heading_title


def _entry(term_id, mentions, **fields):
    prov = {"doc_id": "D", "span": "span " + term_id, "page": 2, "section_no": "2.1"}
    return c.GlossaryEntry(term_id=term_id, term=term_id.upper(), mention_count=mentions, provenance=prov, **fields)


def test_heading_title_strips_the_number_and_abbreviation():
    assert heading_title("2.1.3. Physical of Availability (PA)") == "Physical of Availability"
    assert heading_title("BAB II Penjelasan") == "Penjelasan"


def test_reasons_and_sort_order_follow_the_contract():
    glossary = [
        _entry("t_routine", 50, definition="Adalah x."),
        _entry("t_none", 40),
        _entry("t_wording", 43, definition="Adalah y.", full_name="Physical Availability",
               source_wording="2.1.3. Physical of Availability (PA)"),
        _entry("t_conflict", 1, definition="Adalah z.", definition_conflict=True, conflict_variants=["a", "b"]),
        _entry("t_rejected", 30),
        _entry("t_escalated", 20, extraction_status="escalated"),
    ]
    domain = c.DomainContext(
        domain_id="d_1", provenance={"doc_id": "D", "span": "Standard Parameter ini", "page": 0, "section_no": "1"},
        key_parameters=[c.KeyParameter(surface="PA", term_id="t_wording"),
                        c.KeyParameter(surface="Grouping (Composite)")],
    )
    rows = build_queue(glossary, domain, rejected_definition_terms={"t_rejected"})
    assert [(r.rank, r.row_kind, r.term_id) for r in rows] == [
        (1, "term", "t_conflict"),
        (2, "key_parameter", None),
        (3, "term", "t_routine"),
        (4, "term", "t_wording"),
        (5, "term", "t_none"),
        (6, "term", "t_rejected"),
        (7, "term", "t_escalated"),
    ]
    reasons = {r.term_id: r.review_reason for r in rows}
    assert reasons == {
        "t_conflict": c.REVIEW_REASON_CONFLICT,
        None: c.REVIEW_REASON_UNRESOLVED_KEY_PARAMETER,
        "t_routine": c.REVIEW_REASON_ROUTINE,
        "t_wording": c.REVIEW_REASON_WORDING,
        "t_none": c.REVIEW_REASON_NO_DEFINITION,
        "t_rejected": c.REVIEW_REASON_REJECTED,
        "t_escalated": c.REVIEW_REASON_NO_DEFINITION,  # its call failed: not a span-check rejection
    }
    key_row = rows[1]
    assert key_row.domain_id == "d_1" and key_row.term == "Grouping (Composite)" and key_row.mention_count == 0
    assert (key_row.page, key_row.page_no, key_row.section_no) == (0, 1, "1")
    assert rows[2].span == "span t_routine" and rows[2].page_no == 3


def test_a_term_row_serialises_without_domain_id():
    rows = build_queue([_entry("t_a", 1)], None)
    assert "domain_id" not in rows[0].model_dump()


def test_defined_terms_come_before_undefined_ones_whatever_their_mentions():
    rows = build_queue([_entry("t_frequent", 90), _entry("t_defined", 2, definition="X adalah y."),
                        _entry("t_middle", 40), _entry("t_defined_more", 5, definition="Z adalah w.")], None)
    assert [r.term_id for r in rows] == ["t_defined_more", "t_defined", "t_frequent", "t_middle"]


def test_a_term_its_formula_defines_ranks_with_the_defined_terms():
    rows = build_queue([_entry("t_frequent", 90), _entry("t_formula", 3, defining_formula_id="f_1")], None)
    assert [r.term_id for r in rows] == ["t_formula", "t_frequent"]


def test_terms_defined_in_words_come_before_symbols_only_a_formula_defines():
    rows = build_queue([_entry("t_symbol", 60, defining_formula_id="f_1"), _entry("t_plain", 90),
                        _entry("t_worded", 2, definition="W adalah v.")], None)
    assert [r.term_id for r in rows] == ["t_worded", "t_symbol", "t_plain"]
