"""The comparisons behind every score: names, texts by token F1, formulas, lists of names."""

import pytest

from knowledge_assets.evaluation.matching import (
    best_text_grade,
    fold,
    formula_key,
    formulas_match,
    grade,
    set_f1,
    token_f1,
)

GOLD_BACKLOG = "maintenance work that has been identified and approved but not yet completed."


def test_names_fold_case_and_whitespace_only():
    assert fold("  Physical\nof  Availability ") == fold("physical of availability")
    assert fold("Physical Availability") != fold("Physical of Availability")


def test_token_f1_reads_text_as_the_span_check_normalises_it():
    assert token_f1("ﬁll factor", "Fill  Factor") == 1.0
    assert token_f1("equip\u00adment", "equipment") == 1.0
    assert token_f1("abc", "xyz") == 0.0


@pytest.mark.parametrize(
    ("found", "expected"),
    [
        (GOLD_BACKLOG, "correct"),
        # A leading label is forgiven: same words, different span boundary.
        ("Backlog: " + GOLD_BACKLOG, "correct"),
        # Half of the definition only: partial, never credited.
        ("maintenance work that has been identified", "partial"),
        # The definition plus the next sentence: too much to be this definition.
        (
            "Backlog: maintenance work that has been identified and approved but not yet completed. A backlog item is "
            "raised from inspections, operator reports or condition monitoring, and remains open until its work order "
            "is closed in the CMMS.",
            "wrong",
        ),
        ("Backlog age refers to the number of days between the date the backlog item is raised", "wrong"),
    ],
)
def test_a_text_is_correct_from_f1_0_8_and_partial_from_0_5(found, expected):
    assert best_text_grade(found, [GOLD_BACKLOG]) == expected


def test_grade_thresholds_are_inclusive():
    assert grade(0.8) == "correct" and grade(0.7999) == "partial"
    assert grade(0.5) == "partial" and grade(0.4999) == "wrong"


def test_a_text_with_no_gold_to_match_is_wrong():
    assert best_text_grade("anything", [None]) == "wrong"
    assert best_text_grade("anything", []) == "wrong"


@pytest.mark.parametrize(
    ("found", "gold"),
    [
        ("PA = (MOHH - Breakdown Hours) / MOHH x 100%", "PA = (MOHH - Breakdown Hours) / MOHH x 100%"),
        (r"PA = \frac{MOHH - \text{Breakdown Hours}}{MOHH} \times 100\%",
         "PA = (MOHH - Breakdown Hours) / MOHH x 100%"),
        (r"MA = \frac{Operating Hours}{Operating Hours + Repair Hours} \times 100\%",
         "MA = (Operating Hours) / (Operating Hours + Repair Hours) x 100%"),
        ("Loading Time = jumlah pass x CT Loading", "Loading Time = jumlah pass x CT Loading (menit)"),
        ("CT Hauling = Queuing Time +\nSpotting Time", "CT Hauling = Queuing Time + Spotting Time"),
        ("UA = Working Hours / (MOHH x PA)", "Working Hours / (MOHH x PA)"),
    ],
)
def test_the_same_equation_matches_as_plain_text_or_latex(found, gold):
    assert formulas_match(found, gold)


@pytest.mark.parametrize(
    ("found", "gold"),
    [
        ("MTTR = Total Repair Hours / Number of Repairs", "MTTR = breakdown duration / breakdown frequency"),
        ("UA = Working Hours / (Working Hours + Standby Hours) x 100%", "Working Hours / (MOHH x PA)"),
        ("MA = Working Hours / (Working Hours + Repair Hours) x 100%",
         "UA = Working Hours / (Working Hours + Repair Hours) x 100%"),
        ("Pty standar = (3600 / CT) x FF", "Pty standar = 3600 / CT x FF x SF"),
    ],
)
def test_different_equations_do_not_match(found, gold):
    assert not formulas_match(found, gold)


def test_grouping_that_changes_meaning_is_kept():
    assert formula_key("a / (b + c)") != formula_key("a / b + c")
    assert formula_key("Jumlah (MOHH unit x PA unit)") == "Jumlah(MOHHunit*PAunit)"


def test_variable_lists_compare_as_sets_of_names():
    assert set_f1(["mohh", "Breakdown  Hours"], ["MOHH", "Breakdown Hours"]) == 1.0
    assert set_f1(["Jumlah", "MOHH unit", "PA unit", "Jumlah MOHH unit"],
                  ["MOHH unit", "PA unit"]) == pytest.approx(2 / 3)
    assert set_f1([], ["MOHH"]) == 0.0
