"""The formula branch: formulas transcribed from the chunks, never derived.

`formula_latex` passes the guard when it is a transcription (`verify.latex.is_transcription`,
the stored check's test too): verbatim in its chunk, or a notation-aware transcription of its
own verbatim span (`MOHH x Qty` written `MOHH \\times Qty`; a 2-D fraction layout written
`D = \\frac{dE}{dm}`), or found in the chunk's LaTeX markup — its `latex` (MinerU's
equations) or the math blocks its Markdown writes (`~~~ math`, `$$ … $$`).

A text a PDF text layer damaged (`verify.latex.text_layer_damage`: a private-use glyph,
glyphs in drawing order) is no transcription even when verbatim: it is nulled, the damage is
the reason `rejected.json` gives, and the formula stands on its span (and on its name: a
standard's equation number, when the left side is no name).
`latex_verification` then says which guarantee it carries (contract §7), and is set here by
code.

A formula continued on the next page or chunk (D66) is quoted across the boundary: its span
runs from the end of its chunk into the start of the next, and its provenance is the two pieces
(`extract.provenance.crossing_provenance`, as glossary and rules do). Its `formula_latex` is a
transcription of the two chunks' joined text, and carries `unverified_no_markup`: no chunk's
markup holds a formula cut in two. Variables are linked to terms later by the link stage.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from knowledge_assets import ids
from knowledge_assets.branches import FORMULA
from knowledge_assets.candidates.boundaries import joined
from knowledge_assets.contracts import Chunk, FormulaEntry, FormulaVariable, Provenance, RejectedField
from knowledge_assets.extract.guard import rejection_reason
from knowledge_assets.extract.provenance import chunk_provenance, crossing_provenance, following_chunks
from knowledge_assets.llm.responses import FormulaFound
from knowledge_assets.verify.latex import is_transcription, latex_verification, math_markup, text_layer_damage
from knowledge_assets.verify.spans import is_verbatim


@dataclass(frozen=True)
class FormulaBuild:
    formulas: list[FormulaEntry]
    rejected: list[RejectedField]


def _rejected(entry_term: str, field: str, value: str, reason: str | None = None) -> RejectedField:
    return RejectedField(entry_term=entry_term, field=field, offending_value=value,
                         reason=reason or rejection_reason(field), branch=FORMULA.contract_branch)


def _markup(chunk: Chunk) -> str | None:
    return chunk.latex or math_markup(chunk.text)


def _unique_id(doc_id: str, found: FormulaFound, latex: str | None, taken: set[str]) -> str | None:
    """The contract's id; where two formulas of one document would share it (one name, two
    formulas), the later one falls through the contract's own chain: latex, then chunk_id."""
    for name, formula_latex in ((found.name, latex), (None, latex), (None, None)):
        candidate = ids.formula_id(doc_id, name, formula_latex, found.chunk_id)
        if candidate not in taken:
            return candidate
    return None


def _provenance(doc_id: str, found: FormulaFound, chunk: Chunk | None,
                following: dict[str, Chunk]) -> tuple[Provenance, str, str | None] | None:
    """The formula's provenance, the text its `formula_latex` is checked against and that
    text's markup: its chunk's, or, for a formula quoted across into the next chunk (D66), the
    two chunks' joined text (no markup). None when the span is verbatim in neither."""
    if chunk is None:
        return None
    if is_verbatim(found.span, chunk.text):
        return chunk_provenance(doc_id, chunk, found.span), chunk.text, _markup(chunk)
    second = following.get(chunk.chunk_id)
    if second is not None and (provenance := crossing_provenance(doc_id, chunk, second, found.span)):
        return provenance, joined(chunk.text, second.text), None
    return None


def build_formulas(doc_id: str, answers: Sequence[FormulaFound], chunks: dict[str, Chunk]) -> FormulaBuild:
    formulas: list[FormulaEntry] = []
    rejected: list[RejectedField] = []
    taken: set[str] = set()
    following = following_chunks(chunks.values())
    for found in answers:
        label = found.name or found.formula_latex or found.span
        located = _provenance(doc_id, found, chunks.get(found.chunk_id), following)
        if located is None:
            rejected.append(_rejected(label, "provenance.span", found.span))
            continue
        provenance, text, markup = located
        latex = found.formula_latex
        if latex is not None and not is_transcription(latex, found.span, text, markup):
            rejected.append(_rejected(label, "formula_latex", latex))
            latex = None
        elif latex is not None and (damage := text_layer_damage(latex)):
            rejected.append(_rejected(label, "formula_latex", latex, f"formula_latex is not a transcription: {damage}"))
            latex = None
        formula_id = _unique_id(doc_id, found, latex, taken)
        if formula_id is None:
            continue  # the same formula reported twice for one chunk
        taken.add(formula_id)
        formulas.append(FormulaEntry(
            formula_id=formula_id,
            name=found.name,
            formula_latex=latex,
            variables=[FormulaVariable(symbol=v.symbol, meaning=v.meaning)
                       for v in found.variables if v.symbol.strip()],
            unit=found.unit,
            latex_verification=latex_verification(latex, markup),
            provenance=provenance,
        ))
    return FormulaBuild(formulas, rejected)
