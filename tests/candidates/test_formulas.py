"""Formula candidates on text written for these tests: one test per convention, and the
lines that look like formulas but are not."""

from __future__ import annotations

import pytest

from knowledge_assets.candidates.formulas import find_formulas
from knowledge_assets.candidates.source import SourceChunk


def found(text: str):
    return find_formulas([SourceChunk(chunk_id="doc::0001", text=text)])


def texts(text: str) -> list[str]:
    return [c.text for c in found(text)]


def only(text: str):
    candidates = found(text)
    assert len(candidates) == 1, [c.text for c in candidates]
    return candidates[0]


def test_every_candidate_and_part_is_a_verbatim_slice_of_its_chunk():
    text = "Intro.\n\nRate = Volume / Time\n\nKeterangan:\nVolume = isi tangki (m3)\n"
    for candidate in found(text):
        assert text[candidate.start:candidate.end] == candidate.text
        assert all(text[p.start:p.end] == p.text for p in candidate.parts)


@pytest.mark.parametrize(("line", "lhs"), [
    ("Rate = Volume / Time", "Rate"),
    ("EWMA <- (1 - g) * EWMA + g * S'", "EWMA"),
    ("count := count + step", "count"),
    ("level ← level * 2 + 1", "level"),
    ("queue_depth = arrivals - departures", "queue_depth"),
    ("retryBudget = maxRetries * burstFactor", "retryBudget"),
    ("cap(winSz)=4*winSz", "cap(winSz)"),
    ("Fuel Ratio = Fuel Used x Engine Hours", "Fuel Ratio"),
    ("Availability (%) = (Total − Down) / Total × 100", "Availability (%)"),
    ("Δp = ρ g h", "Δp"),
])
def test_an_assignment_line_is_a_formula_with_its_left_side(line, lhs):
    candidate = only(f"Some prose first.\n\n{line}\n\nMore prose.")
    assert candidate.text == line
    assert candidate.part("lhs").text == lhs
    assert candidate.cue in {"assignment", "inline"}


@pytest.mark.parametrize("line", ["EWMA <- S", "level ← peak", "window += min (N, MSS)      (2)", "window += N"])
def test_an_arrow_or_compound_operator_makes_one_operand_a_formula(line):
    assert texts(f"      {line}\n") == [line]


def test_an_indented_named_formula_line():
    assert texts("   Fuel Rate = Fuel Used / Engine Hours\n") == ["Fuel Rate = Fuel Used / Engine Hours"]


def test_a_formula_ending_on_an_operator_continues_on_the_next_line():
    assert texts("Total Cost = Labour Cost + Parts Cost +\nFreight Cost\nNext line.") == [
        "Total Cost = Labour Cost + Parts Cost +\nFreight Cost"]


def test_a_deeper_indented_line_starting_with_an_operator_continues_the_formula():
    text = "   span = (start_gap + max(2*jitter, floor))\n        * (2 ^ attempts)\n   other text"
    assert texts(text) == ["span = (start_gap + max(2*jitter, floor))\n        * (2 ^ attempts)"]


@pytest.mark.parametrize("fence", ["```", "~~~"])
def test_assignments_inside_a_code_fence_are_formulas_and_other_lines_are_not(fence):
    text = f"Text:\n\n{fence}\nwindow = min(window_new, 3*peak)\n{{\n  \"version\": 1\n}}\n{fence}\n"
    candidate = only(text)
    assert candidate.text == "window = min(window_new, 3*peak)" and candidate.cue == "code_fence"


def test_a_math_fence_is_one_latex_formula_as_written():
    body = "G = \\left\\{\n\\begin{array}{ll}\nq & \\text{if } q < r \\\\\nr & \\text{otherwise}\n\\end{array} \\right."
    candidate = only(f"The gain is\n\n~~~ math\n{body}\n~~~\n{{: artwork-align=\"center\" }}\n")
    assert candidate.text == body and candidate.cue == "latex_block"
    assert candidate.part("lhs").text == "G"


def test_a_math_block_without_a_left_side_has_none():
    candidate = only("```math\n\\frac{q - r}{r}\n```\n")
    assert candidate.text == "\\frac{q - r}{r}" and candidate.part("lhs") is None


def test_a_bracket_display_is_a_latex_formula():
    assert only("Then \\[ r = \\frac{a}{b} \\] holds.").text == "r = \\frac{a}{b}"


def test_a_dollar_display_is_a_latex_formula():
    candidate = only("Growth follows $$\\mathrm{V_{new}} = \\sqrt[3]{\\frac{V_{old}}{\\alpha}}$$ in theory.")
    assert candidate.text == "\\mathrm{V_{new}} = \\sqrt[3]{\\frac{V_{old}}{\\alpha}}"
    assert candidate.part("lhs").text == "\\mathrm{V_{new}}"


def test_a_fraction_laid_out_over_three_lines_is_one_formula():
    text = "Laju alir dihitung:\n\n        dV\n   Q = -------\n        dt\n\nSelanjutnya teks."
    candidate = only(text)
    assert candidate.text == "dV\n   Q = -------\n        dt"
    assert candidate.cue == "fraction_layout" and candidate.part("lhs").text == "Q"


def test_a_fraction_with_a_named_left_side_and_a_factor_after_the_bar():
    text = ("Rumus:\n\n                Jam Kerja Efektif\n   Efisiensi = ----------------- x 100%\n"
            "                Jam Tersedia\n")
    candidate = only(text)
    assert candidate.part("lhs").text == "Efisiensi"
    assert candidate.text.startswith("Jam Kerja Efektif\n") and candidate.text.endswith("Jam Tersedia")


def test_a_sum_of_fractions_on_one_bar_line_is_one_formula():
    text = "  Ka        Kb\n------ + ------  < 1\n  20        35\n"
    assert only(text).text == "Ka        Kb\n------ + ------  < 1\n  20        35"


def test_a_sum_laid_out_with_its_limits_above_and_below():
    text = ("Jumlah rasio harus memenuhi:\n\n    m\n          Kj\n  ∑ (batas kadar) ≤ 1\n   j =1       j\n\n"
            "Teks berikutnya.\n")
    candidate = only(text)
    assert candidate.text == "m\n          Kj\n  ∑ (batas kadar) ≤ 1\n   j =1       j" and candidate.cue == "sum_layout"


def test_a_table_border_is_not_a_fraction_bar():
    assert texts("Jenis              Nilai\n----------------------------------------\nBatu               0,5\n") == []


def test_a_scale_drawn_with_a_rule_is_not_a_fraction():
    text = "              Slow\n     100 ms ------------------------ 5 pps\n              Fast\n"
    assert texts(text) == []


def test_a_statutory_lead_in_takes_a_long_name_and_tight_operators():
    text = ("(1) Besaran tarif dihitung dengan menggunakan formula sebagai berikut:\n"
            "Tarif Sewa Lahan Untuk Kegiatan\nPenunjang = Lx(P+Q)\n(2) Ketentuan lebih lanjut.")
    candidate = only(text)
    assert candidate.text == "Tarif Sewa Lahan Untuk Kegiatan\nPenunjang = Lx(P+Q)"
    assert candidate.part("lhs").text == "Tarif Sewa Lahan Untuk Kegiatan\nPenunjang"
    assert candidate.cue == "lead_in"


def test_a_formula_on_its_lead_in_line():
    text = "(2) Tarif dihitung dengan formula sebagai berikut: Tarif Jasa = L x T x 2\nPasal 3\n"
    assert only(text).text == "Tarif Jasa = L x T x 2"


def test_a_formula_after_a_clause_marker():
    candidate = only("a. Nilai Denda = A x B x TD\nb. ketentuan lain.\n")
    assert candidate.text == "Nilai Denda = A x B x TD" and candidate.part("lhs").text == "Nilai Denda"


def test_a_lead_in_formula_wrapped_after_its_operator():
    text = "dihitung berdasarkan formula sebagai berikut:\nDenda Keterlambatan Harian (DKH) =\nE(RxHxK)\nPasal 9"
    assert texts(text) == ["Denda Keterlambatan Harian (DKH) =\nE(RxHxK)"]


def test_a_scrambled_display_between_lead_in_and_legend_is_kept_whole():
    text = "ditetapkan berdasarkan persamaan:\n1)(1 ≤∑ = j j\nm\nj nilaiAbatas\nR\n\nKeterangan:\n- R adalah rasio;\n"
    candidate = only(text)
    assert candidate.text == "1)(1 ≤∑ = j j\nm\nj nilaiAbatas\nR" and candidate.part("lhs") is None


def test_symbols_written_side_by_side_are_a_product():
    """A product typeset by juxtaposition, its Σ lost by the font as `S`."""
    assert texts("didefinisikan sebagai :\n\n     DT = SK WK FK\n\n") == ["DT = SK WK FK"]


def test_symbols_set_tight_on_a_displayed_line_are_a_product():
    assert texts("Dosis Terserap (D) : hasil kali E, F dan G.\n\n             D=EFG\n\nTeks.\n") == ["D=EFG"]
    assert texts("Prose line\n             D=EFG\nmore prose\n") == []


def test_a_displayed_expression_after_a_colon_line():
    text = "   The retry deadline is:\n\n   min(base_delay * 2 ^ attempts, max_delay)\n\n   Other prose."
    candidate = only(text)
    assert candidate.text == "min(base_delay * 2 ^ attempts, max_delay)" and candidate.cue == "display"


def test_an_inline_formula_in_prose():
    text = "For the first phase, cap(winSz)=4*winSz, so the window stops growing."
    assert only(text).text == "cap(winSz)=4*winSz"


def test_an_equation_running_on_into_a_sentence_is_prose():
    assert texts("   The initial cwnd = 2 * SMSS is used when the connection starts again later\n") == []


def test_worked_examples_unit_equalities_and_constants_are_not_formulas():
    text = ("A pump with 300 hours has Rate = 300 / 6 = 50 hours.\n"
            "4OO x 1.250.00O = 500.000.000\n"
            "                1 Pa = 1 N m-2\n"
            "   kRetryLimit = 5\n"
            "   count += 1\n"
            "   window = 20 packets (initial)\n"
            "So seqno=0; FS=1000; peak=9000 holds.\n")
    assert texts(text) == []


def test_pseudo_code_keeps_nested_equations_and_drops_control_lines_and_calls():
    text = ("   OnTimer():\n"
            "     if (probe_pending):\n"
            "       delay = base_delay * 2\n"
            "     lost = DetectAndRemoveLost(space)\n"
            "     packet.size = size\n"
            "     timeout = infinite\n"
            "     return delay\n"
            "     if (idle): delay = base_delay * 4\n")
    assert texts(text) == ["delay = base_delay * 2"]


def test_a_legend_gives_each_symbol_its_meaning_and_is_not_a_formula_itself():
    text = ("Rate = Volume / Time\n"
            "Keterangan:\n"
            "Rate = laju pengisian (m3/jam)\n"
            "Volume = isi tangki, diukur harian (m3)\n"
            "- Time adalah lama pengisian (jam);\n")
    candidate = only(text)
    meanings = {p.label: p.text for p in candidate.parts_of("meaning")}
    assert meanings == {"Rate": "laju pengisian (m3/jam)", "Volume": "isi tangki, diukur harian (m3)",
                        "Time": "lama pengisian (jam);"}
    assert {p.label for p in candidate.parts_of("symbol")} == set(meanings)


def test_an_english_where_block_may_start_after_a_blank_line():
    candidate = only("Load = Mass * g\n\nwhere:\n\n   Mass : the loaded mass in kg\n   g : gravity\n\n"
                     "Mass : not a legend\n")
    assert {p.label: p.text for p in candidate.parts_of("meaning")} == {"Mass": "the loaded mass in kg", "g": "gravity"}


@pytest.mark.parametrize(("sentence", "meanings"), [
    ("where Mass is the loaded mass in kg, and g is the gravity constant.",
     {"Mass": "the loaded mass in kg", "g": "the gravity constant"}),
    ("Dimana Mass merupakan massa muatan dalam\nkg, g adalah percepatan gravitasi.",
     {"Mass": "massa muatan dalam\nkg", "g": "percepatan gravitasi"}),
])
def test_a_where_sentence_gives_the_symbols_meanings(sentence, meanings):
    candidate = only(f"Load = Mass * g\n\n{sentence}\n")
    assert {p.label: p.text for p in candidate.parts_of("meaning")} == meanings


def test_a_legend_line_whose_right_side_computes_is_a_formula():
    text = "Keterangan:\nCycle = jumlah lintasan x Waktu Lintasan (menit)\nWaktu = lama kerja (menit)\n"
    assert texts(text) == ["Cycle = jumlah lintasan x Waktu Lintasan (menit)"]


def test_a_document_whose_formula_images_were_lost_yields_no_formula():
    text = ("1. Kenaikan tarif dihitung dengan menggunakan formulasi:\n\n\n\nKeterangan:\n"
            "∆TR = kenaikan tarif dari target dan/atau\nperubahan kurs\n"
            "RT = realisasi tarif tahun berjalan\nT% = persentase pembebanan\n")
    assert texts(text) == []
