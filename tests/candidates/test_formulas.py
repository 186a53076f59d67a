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


@pytest.mark.parametrize("fence", ["```", "~~~"])
def test_a_fence_displays_named_quantities_with_long_operands(fence):
    text = (f"The figures are computed as:\n\n{fence}\n"
            "Mean Repair Time = Sum of All Repair Durations Across the Fleet / Count of Repairs\n"
            "Spare Budget = 100% - Target\n"
            "Rework Rate = (Reworked Orders / Total Orders) × 100\n"
            "Note = see the table below\n"
            'title = "Fleet - Draft"\n'
            f"{fence}\n")
    candidates = found(text)
    assert [c.text for c in candidates] == [
        "Mean Repair Time = Sum of All Repair Durations Across the Fleet / Count of Repairs",
        "Spare Budget = 100% - Target",
        "Rework Rate = (Reworked Orders / Total Orders) × 100"]
    assert {c.cue for c in candidates} == {"code_fence"}
    assert [c.part("lhs").text for c in candidates] == ["Mean Repair Time", "Spare Budget", "Rework Rate"]


def test_a_named_operand_that_long_outside_a_fence_is_prose():
    assert texts("Mean Repair Time = Sum of All Repair Durations Across the Fleet / Count of Repairs\n") == []


def test_an_assignment_set_as_inline_code_is_a_formula():
    text = "Each week we track `Fill Rate = Filled Orders / Open Orders`, not `MAD - 1` or `retries = 3`."
    candidate = only(text)
    assert candidate.text == "Fill Rate = Filled Orders / Open Orders" and candidate.cue == "code_span"
    assert candidate.part("lhs").text == "Fill Rate"


def test_a_symbolic_expression_in_parentheses_in_running_text():
    candidate = only("The chance that every replica fails at once is ((1 − P) \\^ K), for independent replicas.")
    assert candidate.text == "((1 − P) \\^ K)" and candidate.cue == "prose_expression"


@pytest.mark.parametrize("sentence", [
    "With three replicas that is (1 − (1 − 0.999) \\^ 3) in all.",  # numbers only: a worked example
    "It runs over the stack (TCP/IP) of the host.",
    "The loss is f(a - b) for each sample.",
    "Plot the pair (x, y) first.",
    "Read the notes (see 4 - 5) first.",
    "Take (A x B)+(C x D) as the total.",  # one group of a longer expression
])
def test_what_is_not_a_symbolic_expression_in_prose(sentence):
    assert texts(sentence) == []


def test_worked_numeric_examples_with_units_are_not_formulas():
    text = ("The pair's availability is 99.9 percent × 99.5 percent = 99.4 percent.\n"
            "Pair = 1.0 − (0.002 × 0.01) = 99.998 percent\n"
            "Cost = 4OO x 2.350.10O\n"
            "Dose = 20 mSv + 5 mSv\n")
    assert texts(text) == []


def test_bitwise_and_logical_operators_of_a_specification():
    text = ("The following operations are used:\n\n"
            "ROTX k(y)=(y << k) ∨  (y >> b - k).\n\n"
            "  Sel(p, q, r)=(p∧ q) ⊕  (¬ p∧ r) 0 ≤  t ≤  9\n")
    assert texts(text) == ["ROTX k(y)=(y << k) ∨  (y >> b - k)", "Sel(p, q, r)=(p∧ q) ⊕  (¬ p∧ r) 0 ≤  t ≤  9"]


@pytest.mark.parametrize(("text", "formula", "cue"), [
    # a Σ set alone, its limits on the lines below, the equation on the line after them
    ("The functions are:\n\n ∑\n}64{\n0 )(y  = ROTX 3(y) ⊕  ROTX 9(y) (5.2) \n",
     "∑\n}64{\n0 )(y  = ROTX 3(y) ⊕  ROTX 9(y)", "sum_layout"),
    # numbered at the margin, whatever the text layer made of its left side
    ("Functions:\n )(}64{ 1 yτ  = ROTX 4(y) ⊕  SHX 2(y) (5.3) \nas described in Section (4.2) \nso x = 5 (4.1)\n",
     ")(}64{ 1 yτ  = ROTX 4(y) ⊕  SHX 2(y)", "numbered_equation"),
])
def test_a_displayed_equation_of_a_standard_without_its_equation_number(text, formula, cue):
    candidate = only(text)
    assert (candidate.text, candidate.cue, candidate.part("lhs")) == (formula, cue, None)
    assert candidate.part("number").text in {"(5.2)", "(5.3)"}


@pytest.mark.parametrize(("line", "formula"), [
    ("where m is the least solution of the equation \uf06c + 2 + m ≡ 384 mod 448. Then",
     "\uf06c + 2 + m ≡ 384 mod 448"),
    ("448mod3842 ≡++ m\uf06c . Then append the block", "448mod3842 ≡++ m\uf06c"),
])
def test_a_congruence_in_running_text_is_the_run_of_math_around_it(line, formula):
    candidate = only(line)
    assert candidate.text == formula and candidate.cue == "congruence"


def test_a_congruence_sign_named_in_prose_is_no_formula():
    assert texts("The symbol ≡ denotes congruence here.") == []


def test_a_tight_formula_in_prose_goes_on_over_spaced_operators():
    assert texts("If W is a number, 0 ≤ W < 232, then W=216U + V, where 0 ≤ U < 216.") == ["W=216U + V"]
    assert texts("First set n=2 + the offset of the frame.") == []


def test_formulas_set_after_the_next_clause_belong_to_an_empty_lead_in():
    text = ("(2) Besaran denda dihitung dengan menggunakan formula:\n\n\n"
            "(3) Besaran ganti rugi dihitung dengan menggunakan formula :\n\n\n"
            "(4) Nilai lahan sebagaimana dimaksud pada ayat (3)\nmerupakan nilai hasil penilaian.\n"
            " luas lahan x harga satuan \n (A1 x 2 x harga) + (A2 x 5 x harga) \n\n(5) Ketentuan lain.\n")
    candidates = found(text)
    assert [c.text for c in candidates] == ["luas lahan x harga satuan", "(A1 x 2 x harga) + (A2 x 5 x harga)"]
    assert {c.cue for c in candidates} == {"lead_in_detached"}


def test_prose_after_an_empty_lead_in_is_no_formula():
    text = ("a. nilai dihitung sebagai berikut:\n\n1. Berdasarkan hasil verifikasi, pembayaran\n"
            "sudah tepat waktu / tidak tepat waktu (terlambat) dalam melakukan\npembayaran.\n")
    assert texts(text) == []


def test_a_line_opening_on_a_multiplication_continues_a_flattened_table_formula():
    text = "berupa dana ganti per ton USDDana\nGanti Rugi = B\nx (Q-S)\nKeterangan :\nB = Tarif\nGanti\n"
    candidate = only(text)
    assert candidate.text == "Ganti Rugi = B\nx (Q-S)" and candidate.part("lhs").text == "Ganti Rugi"


def test_an_ocr_quote_inside_a_name_word_keeps_the_formula():
    assert only('periodeUSDp"kok = (8Oolo -\nA -B) x\n2Oo/o x C\nKeterangan\n').text == (
        'periodeUSDp"kok = (8Oolo -\nA -B) x\n2Oo/o x C')


def test_a_tariff_cell_that_states_a_formula_after_its_currency():
    text = ("A. Denda atas kekurangan pasokan bahan\nbakar per liter Rp25% x Harga\nDasar\nBahan Bakar x\nvolume\n"
            "kekurangan\nB. Denda terhadap badan usaha\nper kegiatan\nusahaRp[Tarif Dasar x\nnilai jual| x\n"
            "1OOo/o (seratus\npersen)C. Denda dalam hal badan usaha lalai\n"
            "per ton Rp25.000,00\nper hari Rp10% x 2OO\n")
    candidates = found(text)
    assert [c.text for c in candidates] == ["25% x Harga\nDasar\nBahan Bakar x\nvolume\nkekurangan",
                                            "[Tarif Dasar x\nnilai jual| x\n1OOo/o (seratus\npersen)"]
    assert {c.cue for c in candidates} == {"tariff_cell"}


# ------------------------------------------------ the "where" sentence through the reading (D65)


@pytest.mark.parametrize("sentence", [
    # a converter's blank line in the middle of the sentence, after a function word
    "where Mass is the loaded mass in kg, and\n\ng is the gravity constant.",
    # CRLF line ends
    "where Mass is the loaded mass\r\nin kg, and g is the gravity constant.",
    # one word a line after the opener's line (`where` alone on its line opens a legend block)
    "where Mass\n" + "\n".join("is the loaded mass in kg, and g is the gravity constant.".split()),
    # a page number line between the pages the sentence runs over
    "where Mass is the loaded mass in kg, and g is the\n\n- 7 -\n\ngravity constant.",
    # a word split by a line-break hyphen
    "where Mass is the loaded mass in kg, and g is the gravi-\nty constant.",
])
def test_a_where_sentence_is_read_whole_whatever_the_layout(sentence):
    text = f"Load = Mass * g\n\n{sentence}\n"
    candidate = only(text)
    meanings = {p.label: p for p in candidate.parts_of("meaning")}
    assert set(meanings) == {"Mass", "g"}
    assert all(text[p.start:p.end] == p.text for p in candidate.parts)
    assert " ".join(meanings["Mass"].text.split()) == "the loaded mass in kg"
    assert meanings["g"].text.startswith("the") and meanings["g"].text.endswith("constant")


def test_a_where_sentence_stops_at_a_blank_line_between_sentences():
    text = "Load = Mass * g\n\nwhere Mass is the loaded mass in kg.\n\nThe crane g is the hook.\n"
    meanings = {p.label: p.text for p in only(text).parts_of("meaning")}
    assert meanings == {"Mass": "the loaded mass in kg"}


# -- a formula continued on the next page or chunk (D66) -------------------------------------------
def across(first: str, second: str):
    chunks = [SourceChunk(chunk_id="doc::0001", text=first), SourceChunk(chunk_id="doc::0002", text=second)]
    return find_formulas(chunks)


def test_a_formula_whose_line_ends_on_an_operator_goes_on_in_the_next_chunk():
    first, second = "Net load is computed as follows:\nLoad = Mass × Gravity ×", "Factor\nThe crane reads it."
    [candidate] = across(first, second)
    assert candidate.text == "Load = Mass × Gravity × Factor"
    assert (candidate.chunk_id, candidate.next_chunk_id) == ("doc::0001", "doc::0002")
    whole = first + " " + second  # the offsets index the two chunks' joined text
    assert whole[candidate.start:candidate.end] == candidate.text
    assert candidate.part("rhs").text == "Mass × Gravity × Factor"


def test_a_where_sentence_cut_mid_clause_is_read_whole_across_the_chunks():
    first = "Speed is given by:\nSpeed = Path / Lap\nwhere Path is the distance run, and Lap is the"
    [candidate] = across(first, "time of one circuit in seconds.\nNext section.")
    assert candidate.text == "Speed = Path / Lap" and candidate.next_chunk_id == "doc::0002"
    meanings = {p.label: p.text for p in candidate.parts_of("meaning")}
    assert meanings == {"Path": "the distance run", "Lap": "the time of one circuit in seconds"}


def test_a_formula_that_ends_on_its_chunk_is_not_joined_to_the_next():
    [candidate] = across("Net load is computed as follows:\nLoad = Mass × Gravity", "Factor tables follow.")
    assert candidate.text == "Load = Mass × Gravity" and candidate.next_chunk_id is None
    [candidate] = across("Net load is given by\nLoad = Mass × Gravity", "for every lift of the day.")
    assert candidate.text == "Load = Mass × Gravity" and candidate.next_chunk_id is None
    # A percent sign at the line end is a postfix: the formula ends there, the next heading is not its operand.
    [candidate] = across("Uptime is computed as:\nUptime = Run / Plan x 100%", "4.2. Downtime")
    assert candidate.text == "Uptime = Run / Plan x 100%" and candidate.next_chunk_id is None


def test_concatenation_and_a_left_side_with_arguments_or_an_index_make_an_assignment():
    text = ("define the string Lane (i, j) by\n\nLane (i, j) = A[i, j, 0] || A[i, j, 1] || A[i, j, w-1].\n\n"
            "KECCAK-f [b] = KECCAK-p[b, 12 + 2l].\n")
    assert texts(text) == [
        "Lane (i, j) = A[i, j, 0] || A[i, j, 1] || A[i, j, w-1]", "KECCAK-f [b] = KECCAK-p[b, 12 + 2l]"]


def test_an_equation_a_math_role_marks_is_a_formula_whatever_its_right_side():
    text = "3. calculate :math:`DFI_C = \\frac{1}{DMTBF_C}` and :math:`\\alpha = m`; let the last time be :math:`T`.\n"
    assert texts(text) == ["DFI_C = \\frac{1}{DMTBF_C}", "\\alpha = m"]
    assert texts("the test :math:`x == y` holds\n") == []
