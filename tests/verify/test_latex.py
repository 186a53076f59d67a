import pytest

from knowledge_assets.verify.latex import canonical_latex, latex_verification


def test_no_formula_latex_means_no_verification_status():
    assert latex_verification(None, r"PA = \frac{a}{b}") is None


def test_no_markup_in_the_chunk():
    assert latex_verification("PA = x", None) == "unverified_no_markup"


@pytest.mark.parametrize(
    "transcribed, markup",
    [
        (r"Production = MOHH \times Qty \times PA", r"\text{Production} = \mathrm{MOHH} \times Qty \times PA"),
        (r"PA = \frac{MOHH - BD}{MOHH} \times 100\%", r"PA=\dfrac{MOHH-BD}{MOHH}\cdot 100 \%"),
        (r"UA = \frac{WH}{WH + STB}", r"$$ UA = \frac{ WH }{ WH+STB } $$"),
        (r"MA = \left( \frac{OH}{OH + RH} \right)", r"MA = ( \frac{OH}{OH+RH} )"),
    ],
)
def test_notation_variants_of_the_same_formula_verify(transcribed, markup):
    assert latex_verification(transcribed, markup) == "verified"


def test_bare_x_multiplication_in_the_markup_is_unverified_operator():
    markup = "Production = MOHH x Qty x PA x UA x Pty"
    assert latex_verification(r"Production = MOHH \times Qty \times PA \times UA \times Pty", markup) == (
        "unverified_operator"
    )


def test_a_transcription_the_markup_does_not_hold_is_not_verified():
    assert latex_verification(r"PA = \frac{WH}{MOHH}", r"PA = \frac{MOHH - BD}{MOHH}") == "unverified_no_markup"


def test_canonical_form_keeps_operands():
    assert canonical_latex(r"a \times b") == canonical_latex("a*b") != canonical_latex("a*c")


def test_a_latex_transcription_of_a_plain_text_formula_line_is_recognised():
    from knowledge_assets.verify.latex import transcribes_plain_text

    line = "Production = MOHH x Qty x PA x UA x Pty"
    assert transcribes_plain_text(r"Production = MOHH \times Qty \times PA \times UA \times Pty", line)
    assert transcribes_plain_text(line, line)
    assert not transcribes_plain_text(r"Production = MOHH \times Qty \times UA", line)


def test_a_markdown_math_fence_and_dollar_display_are_markup():
    from knowledge_assets.verify.latex import math_markup

    text = ("Prose x y.\n\n~~~ math\nK = \\sqrt[3]{\\frac{W - c}{C}}\n~~~\n{: #eq2 }\n\n"
            "and $$r = \\frac{a}{b}$$ inline.\n")
    assert math_markup(text) == "K = \\sqrt[3]{\\frac{W - c}{C}}\nr = \\frac{a}{b}"
    assert latex_verification(r"K = \sqrt[3]{\frac{W-c}{C}}", math_markup(text)) == "verified"
    assert latex_verification(r"K = \sqrt{\frac{W-c}{C}}", math_markup(text)) == "unverified_no_markup"


def test_a_plain_code_fence_is_not_markup():
    from knowledge_assets.verify.latex import math_markup

    assert math_markup("~~~\nwindow = min(a, 2*b)\n~~~\n") is None


@pytest.mark.parametrize(("text", "shown"), [
    ("p = \uf06c + 1 + k", "U+F06C"),
    (")(}64{ 0 yτ  = ROTX 3(y) ⊕  ROTX 9(y)", "')('"),
    ("∑\n}64{\n0 )(y  = ROTX 3(y)", "'}64{'"),
    ("448mod3842 ≡++ m", "'≡++'"),
    ("T1\n+=\n++++=", "'++++='"),
])
def test_a_damaged_text_layer_rendering_is_named(text, shown):
    from knowledge_assets.verify.latex import text_layer_damage

    assert shown in text_layer_damage(text)


@pytest.mark.parametrize("text", [
    "Sel(p, q, r)=(p∧ q) ⊕  (¬ p∧ r)",
    "(A + B)(C + D)",  # a product of two groups opens before it closes
    "TOTAL=PxQxR) Rp5.OOO",  # an OCR-lost bracket is not glyphs in drawing order
    "Ka\n------ + ------ < 1\n20",  # a fraction bar is no run of operators
    "count += 1",
])
def test_a_clean_or_merely_noisy_formula_shows_no_damage(text):
    from knowledge_assets.verify.latex import text_layer_damage

    assert text_layer_damage(text) is None


def test_a_linear_transcription_of_a_fraction_layout_carries_every_token_and_one_frac_per_bar():
    from knowledge_assets.verify.latex import transcribes_layout

    layout = "  Ka,d        Kb\n------ + ------  < 1\n  20 mg       35"
    assert transcribes_layout(r"\frac{Ka,d}{20 \mathrm{mg}} + \frac{Kb}{35} < 1", layout)
    assert transcribes_layout(r"\frac{Kb}{20 \mathrm{mg}} + \frac{Ka,d}{35} < 1", layout)  # structure unchecked
    assert not transcribes_layout(r"\frac{Ka,d}{20 \mathrm{mg}} + \frac{Kb}{36} < 1", layout)
    assert not transcribes_layout(r"\frac{Ka,d + Kb}{20 \mathrm{mg} 35} < 1", layout)
    assert not transcribes_layout("Ka,d Kb + < 1 20 mg 35", layout)
    assert transcribes_layout(r"Q = \frac{dV}{dt} \times 100\%", "     dV\nQ = ------ x 100%\n     dt")


def test_a_transcription_is_verbatim_a_notation_of_its_verbatim_span_or_in_the_markup():
    from knowledge_assets.verify.latex import is_transcription

    text = "Rumus:\n     dV\nQ = ------ x 100%\n     dt\nRate = A x B\n"
    layout = "dV\nQ = ------ x 100%\n     dt"
    assert is_transcription("Rate = A x B", "Rate = A x B", text, None)
    assert is_transcription(r"Rate = A \times B", "Rate = A x B", text, None)
    assert is_transcription(r"Q = \frac{dV}{dt} \times 100\%", layout, text, None)
    assert not is_transcription(r"Q = \frac{dV}{dt} \times 100\%", "not in the text", text, None)
    assert is_transcription(r"K = \frac{a}{b}", "K", "~~~ math\nK = \\frac{ a }{ b }\n~~~\n", None)
    assert not is_transcription(r"Rate = A \times C", "Rate = A x B", text, None)
