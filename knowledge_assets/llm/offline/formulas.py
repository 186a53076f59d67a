"""Offline formulas: equation lines `Name = A x B / C …` (with `×`, `*`, `+`, `-`, `/`, `%`),
continued over a line break that ends on an operator, transcribed exactly as written.

A legend line (`Keterangan:` / "where") of the same chunk, `Symbol = meaning (unit)`, gives
a variable its meaning and the formula its unit. Worked examples (`720 x 3 = …`) and legend
lines are not formulas: the left side must be a name, and the right side must combine terms
with an operator rather than read as prose.
"""

from __future__ import annotations

import re

from knowledge_assets.llm.offline.text import lines
from knowledge_assets.llm.requests import FormulaRequest
from knowledge_assets.llm.responses import FormulaFound, FormulaResponse, FormulaVariableFound

_EQUATION = re.compile(r"(?P<lhs>[A-Za-z][A-Za-z/&.'\- ]{0,40}?)\s+=\s+(?P<rhs>\S.*)")
_OPERATOR = re.compile(r"\s[x×*+\-/÷]\s")
_TRAILING_OPERATOR = re.compile(r"\s[x×*+\-/÷]\s*$")
_SPLIT = re.compile(r"\s[x×*+\-/÷]\s|[()]")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*%?")
_UNIT = re.compile(r"\(([^()\n]{1,24})\)\s*$")
_PERCENT = re.compile(r"x\s*100\s*(%)\s*$")
_TRAILING_UNIT = re.compile(r"\s\(([a-z%][^()]*)\)\s*$")


def answer_formulas(request: FormulaRequest) -> FormulaResponse:
    found: list[FormulaFound] = []
    seen: set[str] = set()
    for chunk in request.chunks:
        legend = _legend(chunk.text)
        for start, end, lhs, rhs in _equations(chunk.text):
            text = chunk.text[start:end]
            if text in seen:
                continue
            seen.add(text)
            found.append(FormulaFound(
                name=lhs,
                formula_latex=text,
                variables=[FormulaVariableFound(symbol=s, meaning=legend.get(s)) for s in _symbols(rhs)],
                unit=_unit(lhs, rhs, legend),
                span=text,
                chunk_id=chunk.chunk_id,
            ))
    return FormulaResponse(formulas=found)


def _equations(text: str):
    """(start, end, lhs, rhs) of each equation, a continued right side included."""
    bounds = lines(text)
    index = 0
    while index < len(bounds):
        start, end = bounds[index]
        match = _EQUATION.fullmatch(text, start, end)
        index += 1
        if not match or not _is_formula(match["lhs"], match["rhs"]):
            continue
        while _TRAILING_OPERATOR.search(text, start, end) and index < len(bounds):
            end = bounds[index][1]
            index += 1
        yield start, end, match["lhs"].strip(), text[match.start("rhs"):end]


def _is_formula(lhs: str, rhs: str) -> bool:
    return len(lhs.split()) <= 6 and bool(_OPERATOR.search(rhs)) and ", " not in rhs and " = " not in rhs


def _legend(text: str) -> dict[str, str]:
    """Symbol → meaning from `Symbol = meaning` lines that are not formulas themselves."""
    meanings: dict[str, str] = {}
    for start, end in lines(text):
        match = _EQUATION.fullmatch(text, start, end)
        if match and not _is_formula(match["lhs"], match["rhs"]):
            meanings.setdefault(match["lhs"].strip(), match["rhs"].strip())
    return meanings


def _symbols(rhs: str) -> list[str]:
    if unit := _TRAILING_UNIT.search(rhs):
        rhs = rhs[:unit.start()]
    parts = (part.strip() for part in _SPLIT.split(rhs.replace("\n", " ")))
    return list(dict.fromkeys(p for p in parts if p and not _NUMBER.fullmatch(p) and p in rhs))


def _unit(lhs: str, rhs: str, legend: dict[str, str]) -> str | None:
    meaning = legend.get(lhs)
    if meaning and (match := _UNIT.search(meaning)):
        return match.group(1)
    if match := _PERCENT.search(rhs) or _TRAILING_UNIT.search(rhs):
        return match.group(1)
    return None
