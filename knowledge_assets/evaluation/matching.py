"""When an extracted value counts as the gold value: the comparisons every score uses.

- Names (terms, full names, formula names, variable symbols) are equal after case folding and
  whitespace collapsing: a name is an identifier, so nothing partial counts.
- Texts (definitions, rule statements, conditions, consequences, title, purpose) are compared
  by token F1: both are normalised as the span check does (`verify.spans.normalise`), case
  folded and cut into word tokens, and F1 is computed over the two bags of tokens. Both sides
  are verbatim spans of the same document, so a low F1 means the extracted span has different
  boundaries (or is a different sentence), never a paraphrase.
  F1 >= 0.8 is correct: it forgives a leading "Backlog:" label, a trailing "(jam)" unit or a
  clause's comma, and nothing that changes what is said. 0.5 <= F1 < 0.8 is partial: reported,
  never credited. Below 0.5 is wrong.
- Formulas are equal in a notation-aware canonical form (`verify.latex.canonical_latex`, with
  a bare " x " between operands read as multiplication, a trailing unit annotation such as
  "(menit)" dropped, and parentheses around a single operand dropped), so the same equation as
  plain text or as LaTeX matches. A formula stated without a left-hand side matches on its
  right-hand side.
- A list of names (a formula's variables) is correct when its set F1 against the gold list is
  at least 0.8, the same bar as texts.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from typing import Literal

from knowledge_assets.verify.latex import canonical_latex
from knowledge_assets.verify.spans import normalise

CORRECT_F1 = 0.8
PARTIAL_F1 = 0.5

Grade = Literal["correct", "partial", "wrong"]

_TOKEN = re.compile(r"\w+")
# " x " between two operands is multiplication in running text (as verify/latex.py reads it).
_BARE_X = re.compile(r"(?<=[\w)%])\s+x\s+(?=[\w(])")
_UNIT_ANNOTATION = re.compile(r"(?<=[\w%])\s+\([A-Za-z%][\w%/]*\)$")
_SINGLE_OPERAND_GROUP = re.compile(r"\(([^()+\-*/=]+)\)")


def fold(name: str) -> str:
    return " ".join(name.split()).casefold()


def tokens(text: str) -> Counter[str]:
    return Counter(_TOKEN.findall(normalise(text).casefold()))


def _f1(found: Counter, gold: Counter) -> float:
    common = sum((found & gold).values())
    if not common:
        return 0.0
    precision, recall = common / sum(found.values()), common / sum(gold.values())
    return 2 * precision * recall / (precision + recall)


def token_f1(found: str, gold: str) -> float:
    return _f1(tokens(found), tokens(gold))


def set_f1(found: Iterable[str], gold: Iterable[str]) -> float:
    return _f1(Counter({fold(n) for n in found}), Counter({fold(n) for n in gold}))


def grade(score: float) -> Grade:
    if score >= CORRECT_F1:
        return "correct"
    return "partial" if score >= PARTIAL_F1 else "wrong"


def best_text_grade(found: str, golds: Iterable[str | None]) -> Grade:
    """How `found` compares with the closest of the gold texts."""
    return grade(max((token_f1(found, g) for g in golds if g), default=0.0))


def formula_key(formula: str) -> str:
    text = _UNIT_ANNOTATION.sub("", normalise(formula))
    key = canonical_latex(_BARE_X.sub(" * ", text))
    while (ungrouped := _SINGLE_OPERAND_GROUP.sub(r"\1", key)) != key:
        key = ungrouped
    return key


def _right_side(key: str) -> str:
    return key.rsplit("=", 1)[-1]


def formulas_match(found: str, gold: str) -> bool:
    found_key, gold_key = formula_key(found), formula_key(gold)
    if found_key == gold_key:
        return True
    # One side may state only the expression ("UA juga dapat dihitung sebagai <expr>").
    one_sided = "=" not in found_key or "=" not in gold_key
    return one_sided and bool(_right_side(gold_key)) and _right_side(found_key) == _right_side(gold_key)
