"""Defined terms, labels and formula symbols."""

from knowledge_assets.terms.defined_terms import defined_terms, formula_symbols, labels
from knowledge_assets.terms.document_vocabulary import read_vocabulary
from tests.terms.conftest import chunk

# Capitalised by choice mid-sentence, as a real document would show somewhere else.
EVIDENCE = (
    "dihitung dalam Production Parameter, Working Hours dan Standby Hours, lalu Delay; "
    "the Backlog Ratio and the Planned Maintenance jobs."
)


def found(extract, text: str) -> list[str]:
    pieces = [chunk(text), chunk(EVIDENCE, seq=1)]
    known = read_vocabulary(pieces, set())
    return [m.surface for m in extract(pieces[0], known)]


def test_the_subject_opening_a_defining_sentence_is_a_defined_term():
    text = (
        "2.1. Production Parameter\nProduction Parameter adalah sekumpulan parameter.\n"
        "Working Hours (WH) adalah jumlah jam. Delay merupakan bagian dari Working Hours.\n"
        "MTBF is defined as the average operating time. Backlog age refers to the number of days."
    )
    assert found(defined_terms, text) == ["Production Parameter", "Working Hours", "Delay", "MTBF", "Backlog age"]


def test_a_subject_whose_capital_is_only_grammar_is_no_term():
    text = "Satuan Production adalah BCM.\nData adalah kumpulan angka.\nInterpretasi nilai MF adalah sebagai berikut:"
    assert found(defined_terms, text) == []


def test_a_subject_in_the_middle_of_a_sentence_is_no_defined_term():
    assert found(defined_terms, "Production yang digunakan dalam perhitungan adalah produksi hasil joint survey.") == []


def test_a_label_before_a_colon_and_its_explanation_is_a_defined_term():
    text = (
        "Backlog: maintenance work that has been identified.\n"
        "Planned Maintenance (PM): maintenance work scheduled in advance.\n"
        "- Standby cuaca: hujan, jalan licin\n"
        "Keterangan:\nTanggal berlaku: 3 Februari 2025\nDisetujui oleh: Operation Director"
    )
    assert found(labels, text) == ["Backlog", "Planned Maintenance", "Standby cuaca"]


def test_the_left_side_of_a_formula_or_legend_line_is_a_symbol():
    text = (
        "Pty standar = (3600 / CT) x Kapasitas Bucket x FF\n"
        "- MF = 1 berarti fleet serasi\n"
        "MOHH adalah 30 x 24 = 720 jam\n"
        "x 0,80 x 850 = 1.292.544 BCM.\n"
        "3600 = jumlah detik dalam satu jam"
    )
    assert [m.surface for m in formula_symbols(chunk(text))] == ["Pty standar", "MF"]


def test_defining_verbs_labels_and_formula_lines_are_found_as_the_whole_patterns_find_them():
    from knowledge_assets.candidates.text import line_matches, matches_near
    from knowledge_assets.terms.defined_terms import _DEFINING, _DEFINING_VERB, _FORMULA_LINE, _LABEL, _defining_lead

    text = (
        "Laju Muat (LM) adalah volume per jam.  Biaya\t  (sewa alat)\n merupakan beban.\n"
        "Waktu Siklus (terlalu panjang isinya) adalah x. Backlog means work.\n"
        "Tarif: per jam\n- Biaya Tetap (BT): beban bulanan\nLM = V / t\n  x == y\nJumlah = a + b\n"
    )
    assert [m.span() for m in matches_near(_DEFINING, _DEFINING_VERB, text, _defining_lead)] == [
        m.span() for m in _DEFINING.finditer(text)
    ]
    assert [m.span() for m in line_matches(_LABEL, ":", text)] == [m.span() for m in _LABEL.finditer(text)]
    formulas = [m.span() for m in _FORMULA_LINE.finditer(text)]
    assert [m.span() for m in line_matches(_FORMULA_LINE, "=", text)] == formulas
    assert [m.group("verb") for m in _DEFINING.finditer(text)] == ["adalah", "merupakan", "adalah", "means"]
