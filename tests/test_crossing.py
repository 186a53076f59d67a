"""Where a span may cross from one chunk into the next (knowledge_assets/crossing.py, D56/D66),
on text we wrote."""

from knowledge_assets.crossing import continues, joined, runs_on


def test_a_sentence_runs_on_only_into_a_lowercase_opening_after_no_sentence_end():
    assert runs_on("Downtime is counted from the breakdown", "until the unit is handed back.")
    assert not runs_on("Downtime is counted from the breakdown.", "until the unit is handed back.")
    assert not runs_on("Downtime is counted from the breakdown", "Availability is the share of time.")


def test_a_formula_goes_on_after_an_operator_but_not_after_a_percent_sign():
    assert continues("OEE = Availability × Performance ×", "Quality")
    assert continues("Downtime is counted from the", "breakdown.")
    assert not continues("PM Compliance = done / planned x 100%", "3.6. Backlog")
    assert not continues("OEE = Availability × Performance ×", "   ")
    assert joined("a ×\n", "\n  Quality") == "a × Quality"
