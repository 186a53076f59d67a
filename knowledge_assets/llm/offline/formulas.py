"""Offline formulas: the request's formula candidates (knowledge_assets/candidates/formulas.py
finds them), each selected once and transcribed exactly as written.

- `name` is the candidate's left side as the document writes it (`Tarif PKH`,
  `\\mathrm{W_{cubic}}(t)`, `limit(maxFS)`); a formula without one (`\\frac{target -
  cwnd}{cwnd}`, a displayed expression) has none.
- `formula_latex` and `span` are the candidate's own text: a LaTeX block's markup, a
  plain-text line's operators, a fraction's 2-D layout — never rewritten.
- `variables` are the operands of the right side (a LaTeX block's symbols, a 2-D layout's
  row tokens); a legend part of the candidate gives a
  variable its meaning, and the left side's legend entry (`FF = Fill Factor (%)`), or a
  trailing `x 100%` / `(unit)`, gives the formula its unit.

A text two candidates share (the same equation restated) is returned once.
"""

from __future__ import annotations

import re

from knowledge_assets.candidates.model import Candidate
from knowledge_assets.candidates.packs import cues
from knowledge_assets.llm.requests import FormulaRequest
from knowledge_assets.llm.responses import FormulaFound, FormulaResponse, FormulaVariableFound

_SPLIT = re.compile(r"\s[x×*+\-−–/÷·⋅]\s|[()]")
_CODE_SPLIT = re.compile(r"[\s()\[\],+\-*/×÷^<>=≤≥&|]+")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*%?")
_UNIT = re.compile(r"\(([^()\n]{1,24})\)\s*$")
_PERCENT = re.compile(r"x\s*100\s*(%)\s*$")
_TRAILING_UNIT = re.compile(r"\s\(([a-z%][^()]*)\)\s*$")
# Skipped: `\text{…}` prose, environment names, commands; kept: symbols (`W_{max}`, `segments\_acked`).
_LATEX_TOKEN = re.compile(r"\\text\s*\{[^{}]*\}|\\(?:begin|end)\s*\{[^{}]*\}(?:\{[^{}]*\})?|\\[A-Za-z]+"
                          r"|(?P<symbol>[^\W\d_](?:\\_|[^\W_]|_(?!\{))*(?:_\{[^{}]*\})?)")
_GLUED_TIMES = re.compile(r"(?:(?<=[A-Z0-9)\]])|^)x(?=[A-Z0-9(])")
_WORDED_OPERAND = re.compile(r"[^\W\d_][\w/%.'-]*(?:\s+[^\W\d_][\w/%.'-]*)+")


def answer_formulas(request: FormulaRequest) -> FormulaResponse:
    found: list[FormulaFound] = []
    seen: set[str] = set()
    for candidate in request.candidates:
        if candidate.kind != "formula" or candidate.text in seen:
            continue
        seen.add(candidate.text)
        found.append(_formula(candidate))
    return FormulaResponse(formulas=found)


def _formula(candidate: Candidate) -> FormulaFound:
    lhs, rhs = candidate.part("lhs"), candidate.part("rhs")
    name = lhs.text.strip() if lhs else None
    value = rhs.text if rhs else candidate.text
    legend: dict[str, str] = {}
    for symbol in candidate.parts_of("symbol"):
        meaning = next((p.text for p in candidate.parts_of("meaning") if p.label == symbol.label), None)
        if meaning:
            legend.setdefault(symbol.text, meaning)
    symbols = _SYMBOLS_BY_CUE.get(candidate.cue, _symbols)(value)
    return FormulaFound(
        name=name,
        formula_latex=candidate.text,
        variables=[FormulaVariableFound(symbol=s, meaning=legend.get(s)) for s in symbols],
        unit=_unit(name, value, legend),
        span=candidate.text,
        chunk_id=candidate.chunk_id,
    )


def _symbols(rhs: str) -> list[str]:
    """The operands of a plain-text right side: named quantities (`Breakdown Hours`) split at
    spaced operators, identifiers (`cwnd_new`) at any operator; numbers and the names of
    the functions applied (`max(`) are not variables."""
    if unit := _TRAILING_UNIT.search(rhs):
        rhs = rhs[:unit.start()]
    flat = rhs.replace("\n", " ")
    parts = [part.strip() for part in _SPLIT.split(flat)]
    if not all(" " not in p or _WORDED_OPERAND.fullmatch(p) for p in parts if p):
        parts = _CODE_SPLIT.split(flat)
    operands = (piece for part in parts for piece in _pieces(part.strip()))
    return list(dict.fromkeys(p for p in operands
                              if p and not _NUMBER.fullmatch(p) and p in rhs and not _is_function(p, flat)))


def _pieces(part: str) -> list[str]:
    """A named quantity stays whole; a tight expression (`SMSS*SMSS/cwnd`, `LxBl`) splits
    into its operands."""
    if " " in part:
        return [part]
    return [piece for chunk in _GLUED_TIMES.split(part) for piece in _CODE_SPLIT.split(chunk)]


def _is_function(name: str, rhs: str) -> bool:
    return re.search(rf"(?<![\w]){re.escape(name)}\s?\(", rhs) is not None and not re.search(
        rf"(?<![\w]){re.escape(name)}(?![\w(]|\s\()", rhs)


def _layout_symbols(layout: str) -> list[str]:
    """The symbols of a 2-D layout: its rows' tokens that are not numbers, bars or operators
    (`HI,d`, `Ij`, `BMTj`)."""
    tokens = (t.strip("()") for t in layout.split())
    operator_words = cues("formulas").get("multiply_words", ())
    return list(dict.fromkeys(t for t in tokens if re.match(r"[^\W\d_]", t) and t not in operator_words))


def _latex_symbols(latex: str) -> list[str]:
    """The symbols of a LaTeX right side: commands and `\\text{…}` prose are not symbols."""
    return list(dict.fromkeys(m["symbol"] for m in _LATEX_TOKEN.finditer(latex) if m["symbol"]))


def _unit(name: str | None, rhs: str, legend: dict[str, str]) -> str | None:
    meaning = legend.get(name) if name else None
    if meaning and (match := _UNIT.search(meaning)):
        return match.group(1)
    if match := _PERCENT.search(rhs) or _TRAILING_UNIT.search(rhs):
        return match.group(1)
    return None


_SYMBOLS_BY_CUE = {"latex_block": _latex_symbols, "fraction_layout": _layout_symbols, "sum_layout": _layout_symbols}
