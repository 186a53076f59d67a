"""How a span that crosses from one chunk into the next is written (decisions D56): the format
of a provenance in pieces, shared by the finders that make such spans and by the checks that
verify them — so the check never takes its definition from the code it checks.

Two consecutive chunks' texts are read as `joined(first, second)`: the first without its
trailing blanks, one space, the second without its leading ones. A span crosses only where the
text goes on (`continues`): a sentence runs on (`runs_on`: the first part ends no sentence or
item, `.;:!?`, and the second opens in lowercase), or a formula's line ends on an operator. Its
pieces are its slices of each chunk (`pieces`), and its text is the pieces joined by `JOIN`:
derived, never repaired.
"""

from __future__ import annotations

import re

JOIN = " "
_ENDS = (".", ";", ":", "!", "?")
# A line that ends on an operator waits for its operand on the next page (`OEE = A × P ×` |
# `Q`, D66); a percent sign is a postfix and ends what it follows.
_OPERATOR_END = re.compile(r"(?:<<|>>|[+\-−–*/×÷^·⋅∙⊕∧∨=(])\s*$")

Bounds = tuple[int, int]


def runs_on(first: str, second: str) -> bool:
    """Whether text `first` does not end a sentence or item and `second` goes on with it."""
    tail, head = first.rstrip(), second.lstrip()
    return bool(tail) and not tail.endswith(_ENDS) and head[:1].islower()


def continues(first: str, second: str) -> bool:
    """Whether a span may cross from `first` into `second`: the sentence runs on (`runs_on`), or
    the last line of `first` ends on an operator and `second` holds its operand. Every finder's
    own test of where it reads across is one of these; the checks accept exactly these."""
    last = first.rstrip().rsplit("\n", 1)[-1]
    return runs_on(first, second) or (bool(second.strip()) and _OPERATOR_END.search(last) is not None)


def joined(first: str, second: str) -> str:
    """The text a crossing span indexes: `first` and `second` joined by one space."""
    return first.rstrip() + JOIN + second.lstrip()


def trim(text: str, start: int, end: int) -> Bounds:
    """`start, end` moved inwards past whitespace: the bounds of what `text[start:end]` says."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def pieces(first: str, second: str, start: int, end: int) -> tuple[Bounds, Bounds] | None:
    """The bounds in `first` and in `second` of `joined(first, second)[start:end]`, each
    trimmed; None unless the slice crosses the join (it holds a character of each)."""
    join = len(first.rstrip())
    lead = len(second) - len(second.lstrip())
    if not (start < join and end > join + len(JOIN)):
        return None
    return trim(first, start, join), trim(second, lead, lead + end - join - len(JOIN))
