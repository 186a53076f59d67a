"""Offline formulas: the request's formula candidates (knowledge_assets/candidates/formulas.py
finds them), each selected once and transcribed exactly as written.

- `name` is the candidate's left side as the document writes it (`Tarif PKH`,
  `\\mathrm{W_{cubic}}(t)`, `limit(maxFS)`), else the number a standard gives a displayed
  equation (`(4.6)`, how its text refers to it); a formula with neither (`\\frac{target -
  cwnd}{cwnd}`, a displayed expression) has none.
- `span` is the candidate's own text. `formula_latex` is that text too — a LaTeX block's
  markup, a plain-text line's operators, never rewritten — except for a 2-D fraction layout,
  which is transcribed to its linear form beside its verbatim span: each bar's numerator and
  denominator are the row groups (runs of tokens set apart by two spaces or more) above and
  below it in order, `\\frac{HI,d}{50 \\mathrm{mSv}} + Sj \\frac{Ij}{BMTj} < 1`, a unit
  (pack data) set upright, what stands between the bars copied as written (a lost Σ stays the
  `Sj` the text shows). Where the groups do not pair with the bars one to one the layout is
  kept as it stands. `verify.latex.transcribes_layout` is the check the span guard applies.
- `variables` are the operands of the right side (a LaTeX block's symbols, a 2-D layout's
  row tokens; a unit is no variable), none when the text layer damaged the formula (`verify.latex.text_layer_damage`:
  its tokens are glyphs out of order, not symbols); a legend part of the candidate gives a
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
from knowledge_assets.verify.latex import text_layer_damage

_SPLIT = re.compile(r"\s\\?[x×*+\-−–/÷·⋅^⊕∧∨]\s|[()]")
_CODE_SPLIT = re.compile(r"[\s()\[\],+\-−–*/×÷^<>=≤≥&|⊕∧∨¬\\]+")
# A number, OCR's letters for digits included (`2OO`, `9oolo` for 90%).
_NUMBER = re.compile(r"\d[\d.,Oo]*(?:%|o/o|olo)?")
_CELL_PRODUCT = re.compile(r"\s(?:x|×|\*)\s")
_UNIT = re.compile(r"\(([^()\n]{1,24})\)\s*$")
_PERCENT = re.compile(r"x\s*100\s*(%)\s*$")
_TRAILING_UNIT = re.compile(r"\s\(([a-z%][^()]*)\)\s*$")
# Skipped: `\text{…}` prose, environment names, commands; kept: symbols (`W_{max}`, `segments\_acked`).
_LATEX_TOKEN = re.compile(r"\\text\s*\{[^{}]*\}|\\(?:begin|end)\s*\{[^{}]*\}(?:\{[^{}]*\})?|\\[A-Za-z]+"
                          r"|(?P<symbol>[^\W\d_](?:\\_|[^\W_]|_(?!\{))*(?:_\{[^{}]*\})?)")
_GLUED_TIMES = re.compile(r"(?:(?<=[A-Z0-9)\]])|^)x(?=[A-Z0-9(])")
_BAR = re.compile(r"([-_—]{4,})")
_SYMBOL = r"(?:[A-Z][A-Za-z0-9]{0,3}|[^\W\d_])"
_SYMBOL_PRODUCT = re.compile(rf"{_SYMBOL}(?:[ \t]+{_SYMBOL})+")
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
    lhs, rhs, number = candidate.part("lhs"), candidate.part("rhs"), candidate.part("number")
    name = lhs.text.strip() if lhs else number.text if number else None
    value = rhs.text if rhs else candidate.text
    legend: dict[str, str] = {}
    for symbol in candidate.parts_of("symbol"):
        meaning = next((p.text for p in candidate.parts_of("meaning") if p.label == symbol.label), None)
        if meaning:
            legend.setdefault(symbol.text, meaning)
    symbols = [] if text_layer_damage(candidate.text) else _SYMBOLS_BY_CUE.get(candidate.cue, _symbols)(value)
    if rhs is None:
        symbols = [s for s in symbols if s != name]  # a layout's rows hold its left side too
    linear = _linear_fraction(candidate.text) if candidate.cue == "fraction_layout" else None
    return FormulaFound(
        name=name,
        formula_latex=linear or candidate.text,
        variables=[FormulaVariableFound(symbol=s, meaning=legend.get(s)) for s in symbols],
        unit=_unit(name, value, legend),
        span=candidate.text,
        chunk_id=candidate.chunk_id,
    )


def _symbols(rhs: str) -> list[str]:
    """The operands of a plain-text right side: named quantities (`Breakdown Hours`) split at
    spaced operators, identifiers (`cwnd_new`) at any operator, symbols written side by side
    (`D Q N`, a product) each one; numbers, units and the names of the functions applied
    (`max(`) are not variables."""
    if unit := _TRAILING_UNIT.search(rhs):
        rhs = rhs[:unit.start()]
    flat = rhs.replace("\n", " ")
    not_symbols = _not_symbols()
    side_by_side = _SYMBOL_PRODUCT.fullmatch(flat.strip()) and not not_symbols & set(flat.split())
    parts = flat.split() if side_by_side else [part.strip() for part in _SPLIT.split(flat)]
    if not all(" " not in p or _WORDED_OPERAND.fullmatch(p) for p in parts if p):
        parts = _CODE_SPLIT.split(flat)
    operands = (piece for part in parts for piece in _pieces(part.strip()))
    return list(dict.fromkeys(p for p in operands if p and not _NUMBER.fullmatch(p) and p not in not_symbols
                              and p in rhs and not _is_function(p, flat)))


def _pieces(part: str) -> list[str]:
    """A named quantity stays whole; a tight expression (`SMSS*SMSS/cwnd`, `LxBl`) splits
    into its operands."""
    if " " in part:
        return [part]
    return [piece for chunk in _GLUED_TIMES.split(part) for piece in _CODE_SPLIT.split(chunk)]


def _is_function(name: str, rhs: str) -> bool:
    return re.search(rf"(?<![\w]){re.escape(name)}\s?\(", rhs) is not None and not re.search(
        rf"(?<![\w]){re.escape(name)}(?![\w(]|\s\()", rhs)


def _cell_symbols(cell: str) -> list[str]:
    """The quantities a tariff cell multiplies, as the table words them (`Harga Indeks Pasar
    (HIP) Minyak Solar pada bulan penyaluran`): the phrases between its multiplications that
    open on a word, brackets around them left off."""
    phrases = (" ".join(p.split()).strip("[]|() ") for p in _CELL_PRODUCT.split(cell))
    return list(dict.fromkeys(p for p in phrases if re.match(r"[^\W\d_]", p) and p in " ".join(cell.split())))


def _layout_symbols(layout: str) -> list[str]:
    """The symbols of a 2-D layout: its rows' tokens that are not numbers, bars, operators or
    units (`HI,d`, `Ij`, `BMTj`; not `mSv`)."""
    tokens = (t.strip("()") for t in layout.split())
    not_symbols = _not_symbols()
    return list(dict.fromkeys(t for t in tokens if re.match(r"[^\W\d_]", t) and t not in not_symbols))


def _fraction_symbols(layout: str) -> list[str]:
    """The symbols of a fraction layout: each numerator's and denominator's group as a named
    quantity (`Jam Efektif`), its numbers and units left out, and the symbols between the bars
    (`Sj`); a layout of any other shape reads token by token."""
    rows = layout.split("\n")
    if len(rows) != 3:
        return _layout_symbols(layout)
    not_symbols = _not_symbols()
    groups = [*_row_groups(rows[0]), *_row_groups(rows[2]), *_BAR.sub("  ", rows[1].split("=")[-1]).split()]
    named = (" ".join(t for t in group.split() if re.match(r"[^\W\d_]", t) and t not in not_symbols)
             for group in groups)
    return list(dict.fromkeys(n for n in named if n))


def _not_symbols() -> set[str]:
    pack = cues("formulas")
    return {*pack.get("multiply_words", ()), *pack.get("units", ())}


def _linear_fraction(layout: str) -> str | None:
    """`dE` / `D = -----` / `dm` as `D = \\frac{dE}{dm}`; None when the rows' groups do not pair
    with the bars one to one."""
    rows = layout.split("\n")
    if len(rows) != 3:
        return None
    numerators, denominators = _row_groups(rows[0]), _row_groups(rows[2])
    pieces = _BAR.split(rows[1])
    between, bars = pieces[0::2], len(pieces) // 2
    if not bars or len(numerators) != bars or len(denominators) != bars:
        return None
    out = [_latex_words(between[0])]
    for numerator, denominator, after in zip(numerators, denominators, between[1:], strict=True):
        out += [f"\\frac{{{_latex_words(numerator)}}}{{{_latex_words(denominator)}}}", _latex_words(after)]
    return " ".join(part for part in out if part)


def _row_groups(row: str) -> list[str]:
    return [group for group in re.split(r"\s{2,}", row.strip()) if group]


def _latex_words(text: str) -> str:
    """A layout's tokens in LaTeX: the multiplication word as `\\times`, `%` escaped, a unit upright."""
    pack = cues("formulas")
    words = []
    for token in text.split():
        if token in pack.get("multiply_words", ()):
            words.append("\\times")
        elif token in pack.get("units", ()):
            words.append(f"\\mathrm{{{token}}}")
        else:
            words.append(token.replace("%", "\\%"))
    return " ".join(words)


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


_SYMBOLS_BY_CUE = {"latex_block": _latex_symbols, "fraction_layout": _fraction_symbols, "sum_layout": _layout_symbols,
                   "tariff_cell": _cell_symbols}
