import hashlib

import pytest

from knowledge_assets import ids

DOC = "SKT-STD-PRM-001"


def test_ids_match_the_contract_formulas_pinned_values():
    # Pinned once from the formulas of contract §1; a change here voids every approval.
    assert ids.term_id(DOC, "Physical Availability") == "t_09e5915262"
    assert ids.formula_id(DOC, "Production", "PA = x", "c") == "f_00517e8acc"
    assert ids.rule_id(DOC, f"{DOC}::0009", 120) == "r_c17c19e0aa"
    assert ids.domain_id(DOC) == "d_5f130d2a0a"


def test_term_id_is_sha256_of_doc_id_pipe_canonical():
    expected = "t_" + hashlib.sha256(f"{DOC}|Quantity".encode()).hexdigest()[:10]
    assert ids.term_id(DOC, "Quantity") == expected


def test_formula_id_falls_back_name_then_latex_then_chunk_id():
    assert ids.formula_id(DOC, None, "PA = x", "c") == "f_b9116429a2"
    assert ids.formula_id(DOC, None, None, f"{DOC}::0007") == "f_266ca7eeec"
    assert ids.formula_id(DOC, "", "PA = x", "c") == ids.formula_id(DOC, None, "PA = x", "c")
    with pytest.raises(ValueError):
        ids.formula_id(DOC, None, None, None)


def test_ids_are_scoped_per_document():
    assert ids.term_id("A", "PA") != ids.term_id("B", "PA")
    assert ids.domain_id("A") != ids.domain_id("B")


def test_chunk_id_is_doc_id_double_colon_four_digit_seq():
    assert ids.chunk_id(DOC, 7) == f"{DOC}::0007"
    assert ids.chunk_id(DOC, 12345) == f"{DOC}::12345"
