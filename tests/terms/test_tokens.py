"""Term keys and sentence boundaries."""

import pytest

from knowledge_assets.terms.tokens import is_acronym, plain_name, starts_sentence, term_key


@pytest.mark.parametrize(
    "variants",
    [
        ("Cut-off", "cut off", "cutoffs"),
        ("Standby Hours", "standby  hour", "STANDBY HOURS"),
        ("KPIs", "KPI"),
        ("Gain/Loss", "Gain / Loss"),
        ("unit-unit", "unit"),
    ],
)
def test_case_spacing_joiner_and_plural_variants_share_a_key(variants):
    assert len({term_key(v) for v in variants}) == 1


@pytest.mark.parametrize(
    ("a", "b"),
    [("CMMS", "CMM"), ("Scheduled Breakdown", "Unscheduled Breakdown"), ("CT Loading", "CT Hauling")],
)
def test_different_terms_keep_different_keys(a, b):
    assert term_key(a) != term_key(b)


@pytest.mark.parametrize(
    ("word", "expected"),
    [("PA", True), ("KPIs", True), ("P2H", True), ("Qty", False), ("SKT-STD-PRM-001", False), ("Gain/Loss", False)],
)
def test_acronym_shape(word, expected):
    assert is_acronym(word) is expected


def test_sentence_starts_after_a_full_stop_a_short_line_or_a_bullet_but_not_inside_wrapped_prose():
    wrapped = "Production Parameter dihitung per kelompok unit loading (excavator atau wheel loader) dengan\nkelas"
    text = "2.1.1. Production\nProduction adalah volume. Bila PA rendah\n- Standby cuaca: hujan"
    assert starts_sentence(text, text.index("Production adalah"))
    assert starts_sentence(text, text.index("Bila"))
    assert starts_sentence(text, text.index("Standby"))
    assert not starts_sentence(text, text.index("PA rendah"))
    assert not starts_sentence(wrapped, wrapped.index("kelas"))


def test_a_dash_is_a_minus_in_a_formula_and_a_separator_elsewhere():
    formula = "PA = (MOHH - Breakdown Hours) / MOHH x 100%"
    history = "Revisi 01 - 1 Maret 2023 - Penambahan Match Factor"
    assert not starts_sentence(formula, formula.index("Breakdown"))
    assert starts_sentence(history, history.index("Penambahan"))


@pytest.mark.parametrize(("written", "plain"), [
    ("*R<sub>min</sub>*", "R_min"),
    ("Q<sub>out</sub>(*t*)", "Q_out(t)"),
    ("{{{γ}{}}}*<sub>max</sub>*", "γ_max"),
    ("Laju\nMuat", "Laju Muat"),
])
def test_a_name_written_with_markup_reads_as_plain_text_and_keys_alike(written, plain):
    assert plain_name(written) == plain
    assert term_key(written) == term_key(plain)


def test_a_symbol_keeps_its_percent_sign():
    assert term_key("T%") != term_key("T")
