"""A formula and a formula's "where" sentence that a page break cuts, a page number between
their halves (D66), through the whole graph offline: the formula is found whole, its
provenance names both pages, the where sentence's meanings are read whole, and the stored
checks (which block the run) pass on the pieces. A formula that ends on its page is not joined
to the text the next page opens with."""

import pytest

from knowledge_assets.branches import FORMULA
from knowledge_assets.store.knowledge import load_branch
from tests.support.crossing import piece_pages, run_pdf

PAGES = [
    ["LINE PERFORMANCE GUIDE", "Section 3. Effectiveness",
     "The effectiveness of a packing line is computed as follows:",
     "OEE = Availability × Performance ×",
     "- 2 -"],
    ["Quality",
     "The yield of a shift is computed as follows:",
     "Yield = Good / Made",
     "where Good is the number of cartons that pass the final check, and Made is the",
     "- 3 -"],
    ["number of cartons the line packed in the shift.",
     "The scrap of a shift is computed as follows:",
     "Scrap = Made - Good",
     "- 4 -"],
    ["Operators record both counts at the end of every shift.",
     "- 5 -"],
]


def test_offline_a_formula_and_its_where_sentence_cut_by_a_page_break_are_found_whole(tmp_path):
    with pytest.MonkeyPatch.context() as env:
        env.setenv("KNOWLEDGE_LLM_BACKEND", "offline")
        store, doc_id, outcome = run_pdf(tmp_path, env, "line.pdf", PAGES)
    assert outcome.success  # the stored checks block the run: they pass on the pieces
    formulas = {f.name: f for f in load_branch(store, FORMULA, doc_id)}

    oee = formulas["OEE"]
    assert oee.formula_latex == "OEE = Availability × Performance × Quality"
    assert oee.latex_verification == "unverified_no_markup"
    assert piece_pages(oee.provenance) == [1, 2] and oee.provenance.page_no == 1
    first, second = oee.provenance.pieces
    assert first.span == "OEE = Availability × Performance ×" and second.span == "Quality"
    assert oee.provenance.span == f"{first.span} {second.span}"
    assert [v.symbol for v in oee.variables] == ["Availability", "Performance", "Quality"]

    yield_ = formulas["Yield"]
    assert yield_.provenance.span == "Yield = Good / Made" and not yield_.provenance.pieces
    meanings = {v.symbol: " ".join((v.meaning or "").split()) for v in yield_.variables}
    assert meanings == {"Good": "the number of cartons that pass the final check",
                        "Made": "the number of cartons the line packed in the shift"}

    # A formula that ends on its page is not joined to the next page's first sentence.
    scrap = formulas["Scrap"]
    assert scrap.formula_latex == "Scrap = Made - Good" and not scrap.provenance.pieces
    assert "Operators" not in scrap.provenance.span
