"""Schwartz–Hearst pairs, in both languages and in formula legends."""

import pytest

from knowledge_assets.terms.abbreviations import best_long_form_start, find_abbreviation_pairs


def pairs(text: str) -> list[tuple[str, str]]:
    return [(p.short, p.long) for p in find_abbreviation_pairs(text)]


def test_long_form_before_the_parenthesis_pairs_with_its_abbreviation():
    assert pairs("parameter produksi yang meliputi Physical Availability (PA), serta") == [
        ("PA", "Physical Availability")
    ]


def test_physical_of_availability_pairs_with_pa_skipping_the_connecting_word():
    assert pairs("2.1.3. Physical of Availability (PA)\nAdalah persentase waktu") == [
        ("PA", "Physical of Availability")
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Setiap site menyusun Rencana Kerja dan Anggaran Biaya (RKAB) tahunan.",
         ("RKAB", "Rencana Kerja dan Anggaran Biaya")),
        ("Pekerja wajib memakai Alat Pelindung Diri (APD) di area tambang.", ("APD", "Alat Pelindung Diri")),
        ("dihitung dalam Machine on Hand Hours (MOHH) per unit", ("MOHH", "Machine on Hand Hours")),
        ("Standby Hours (STB) adalah jumlah jam", ("STB", "Standby Hours")),
        ("reported monthly and year-to-date (YTD), together", ("YTD", "year-to-date")),
    ],
)
def test_indonesian_and_english_long_forms_pair(text, expected):
    assert pairs(text) == [expected]


def test_long_form_does_not_reach_back_across_a_line_break():
    assert pairs("parameter produksi yang meliputi\nQuantity (Qty), serta") == [("Qty", "Quantity")]


def test_abbreviation_before_a_parenthesised_long_form_pairs():
    assert pairs("dinyatakan dalam satuan BCM (Bank Cubic Meter) untuk overburden") == [
        ("BCM", "Bank Cubic Meter")
    ]


@pytest.mark.parametrize(
    "text",
    [
        "menyusun rencana produksi (plan), melaporkan realisasi",
        "2.2.5. Efisiensi Kerja (Job Efficiency)",
        "priority as P1 (safety related), P2 (may cause breakdown within one week)",
        "berada di site (MOHH). PA menggambarkan",
        "produksi per jam kerja unit (BCM/jam)",
    ],
)
def test_parentheses_that_do_not_abbreviate_give_no_pair(text):
    assert pairs(text) == []


def test_legend_line_pairs_only_the_words_that_spell_the_abbreviation():
    legend = "CT = Cycle Time unit loading (detik)\nPA = Physical Availability, kesiapan fisik unit (%)"
    assert pairs(legend) == [("CT", "Cycle Time"), ("PA", "Physical Availability")]


def test_formula_line_is_not_a_legend_pair():
    assert pairs("Production = MOHH x Qty x PA x UA x Pty\nSF = Volume Bank / Volume Loose") == []


def test_offsets_point_at_the_exact_surfaces():
    text = "yang meliputi\nQuantity (Qty), Physical of Availability (PA) dan\nMOHH = Machine on Hand Hours (jam)"
    found = find_abbreviation_pairs(text)
    assert len(found) == 3
    for pair in found:
        assert text[pair.short_start : pair.short_end] == pair.short
        assert text[pair.long_start : pair.long_end] == pair.long


def test_best_long_form_starts_at_the_word_of_the_first_letter_or_nowhere():
    assert best_long_form_start("PA", "data Physical Availability") == len("data ")
    assert best_long_form_start("XYZ", "Physical Availability") is None


def test_a_parenthesis_holding_both_forms_or_a_remark_after_the_long_form():
    pairs = {(p.short, p.long) for p in find_abbreviation_pairs(
        "Kadar Udara Turunan (Derived Air Level / DAL) dipakai, dan nilai WS (Window Size - default to 8) juga."
    )}
    assert pairs == {("DAL", "Derived Air Level"), ("WS", "Window Size")}


def test_clause_starts_found_once_are_those_of_a_search_stopping_at_each_position():
    from knowledge_assets.terms.abbreviations import _clause_start, _clause_starts

    text = "Pertama. Kedua: Biaya Tetap (BT) dan\n\n\nBiaya Variabel (BV); lalu (x) selesai.)\n"
    clause_start = _clause_starts(text)
    assert [clause_start(p) for p in range(len(text) + 1)] == [_clause_start(text, p) for p in range(len(text) + 1)]


def test_a_long_form_in_a_table_cell_does_not_take_the_pipe_or_the_cell_before():
    text = ("|Service-level indicator (SLI) | Aggregated to quantify an SLO value.        |\n"
            "|Service-level agreement (SLA)     | A contractual agreement. |\n")
    assert {(p.short, p.long) for p in find_abbreviation_pairs(text)} == {
        ("SLI", "Service-level indicator"), ("SLA", "Service-level agreement")}
