"""The formula branch's guard on text written for these tests: damaged text-layer renderings and
2-D fraction layouts."""

from __future__ import annotations

from knowledge_assets.contracts import Chunk
from knowledge_assets.extract.formulas import build_formulas
from knowledge_assets.llm.responses import FormulaFound

DAMAGED = (")(}64{ 0 yτ  = ROTX 3(y) ⊕  ROTX 9(y)", ")(}64{ 1 yτ  = ROTX 4(y) ⊕  SHX 2(y)")
LAYOUT = "     dV\nQ = ------ x 100%\n     dt"


def chunk(text: str) -> Chunk:
    return Chunk(chunk_id="doc::0001", seq=1, page=0, page_no=1, text=text, char_start=0, char_end=len(text))


def found(span: str, latex: str | None, name: str | None = None) -> FormulaFound:
    return FormulaFound(name=name, formula_latex=latex, variables=[], unit=None, span=span, chunk_id="doc::0001")


def test_a_damaged_rendering_is_no_transcription_and_rejected_json_says_why():
    text = "Functions:\n" + "\n".join(f" {line} (5.{n})" for n, line in enumerate(DAMAGED))
    answers = [found(line, line, f"(5.{n})") for n, line in enumerate(DAMAGED)]  # named by their numbers
    built = build_formulas("doc", answers, {"doc::0001": chunk(text)})
    assert [(f.name, f.formula_latex, f.latex_verification, f.provenance.span) for f in built.formulas] == [
        ("(5.0)", None, None, DAMAGED[0]), ("(5.1)", None, None, DAMAGED[1])]
    assert [r.field for r in built.rejected] == ["formula_latex", "formula_latex"]
    assert all("drawing order" in r.reason for r in built.rejected)


def test_a_linear_form_of_a_fraction_layout_passes_the_guard_unverified():
    formula, = build_formulas("doc", [found(LAYOUT.strip(), r"Q = \frac{dV}{dt} \times 100\%", "Q")],
                              {"doc::0001": chunk(f"Rumus:\n{LAYOUT}\n")}).formulas
    assert formula.formula_latex == r"Q = \frac{dV}{dt} \times 100\%"
    assert formula.latex_verification == "unverified_no_markup"  # a text layer has no markup to check it by


def test_a_linear_form_that_changes_the_layout_is_rejected():
    built = build_formulas("doc", [found(LAYOUT.strip(), r"Q = \frac{dV}{dx} \times 100\%", "Q")],
                           {"doc::0001": chunk(f"Rumus:\n{LAYOUT}\n")})
    assert built.formulas[0].formula_latex is None and built.rejected[0].field == "formula_latex"


def test_a_formula_quoted_across_into_the_next_chunk_has_two_pieces_and_no_markup():
    first = Chunk(chunk_id="doc::0001", seq=1, page=0, page_no=1, text="Rule:\nLoad = Mass ×",
                  char_start=0, char_end=18)
    second = Chunk(chunk_id="doc::0002", seq=2, page=1, page_no=2, text="Gravity\nEnd.", char_start=19, char_end=31)
    chunks = {"doc::0001": first, "doc::0002": second}
    formula, = build_formulas("doc", [found("Load = Mass × Gravity", "Load = Mass \\times Gravity", "Load")],
                              chunks).formulas
    assert [p.span for p in formula.provenance.pieces] == ["Load = Mass ×", "Gravity"]
    assert [p.page_no for p in formula.provenance.pieces] == [1, 2]
    assert formula.formula_latex == "Load = Mass \\times Gravity"
    assert formula.latex_verification == "unverified_no_markup"
    built = build_formulas("doc", [found("Load = Mass × Gravity", "Load = Mass \\times Speed", "Load")], chunks)
    assert built.formulas[0].formula_latex is None and [r.field for r in built.rejected] == ["formula_latex"]
    # A span that is in neither chunk nor across their join is refused.
    assert build_formulas("doc", [found("Load = Mass × End", None, "Load")], chunks).formulas == []
