"""Formula candidates: where a chunk states a formula, found by the notations technical
documents write formulas in, each with its offsets, the cue that found it and its parts
(`lhs`, `rhs`, and the `symbol`/`meaning` pairs of the legend that explains it, labelled by
symbol).

The conventions, in the order they claim lines (a line claimed once is not read again):

- `latex_block` — a Markdown/kramdown fence whose info string names a math language
  (```` ```math ````, `~~~ math`) or a `$$ … $$` / `\\[ … \\]` display: the whole block is one formula,
  as written (`\\frac`, `\\sqrt[3]`, piecewise `\\begin{array}` included).
- `code_fence` — a plain ``` / ~~~ fence (IETF drafts put equations in one): each
  assignment line in it (`cwnd = min(cwnd_new, 2*maxFS)`).
- `fraction_layout` — a 2-D fraction as a PDF text layer lays it out: a numerator line, a bar
  line of dashes (`------`, several bars joined by operators, an `X =` left side, a factor
  `x 100%` or a relation `< 1` on it) and a denominator line. A rule with labels before or
  after it (`0 km ------ 5 km`, a scale in a figure) or alone (a table border) is
  no fraction bar.
- `sum_layout` — a Σ laid out the same way: the line holding `∑` and a relation, with the
  short lines of its limits and indices just above and below.
- `lead_in` — the statutory "… dihitung dengan menggunakan formula sebagai berikut:" / "… is
  computed as follows:": the lines after the lead-in (or the rest of its own line) are the formula, however long its
  name (`Tarif Sewa … Lahan dan\\nBangunan Tahun Pertama = …`) and however
  tight its operators (`Biaya=Px(Q+R)`); when a legend opener follows within a few lines,
  everything between the two is the formula display (a typeset formula the text layer
  scrambled).
- `assignment` — a line `Name = expression` (after a list or clause marker `a.`, `(1)`,
  `-`, if any), the operator `=`, `<-`, `:=` or `←` (or, for an identifier, a compound
  `+=`), the name a short phrase (`PM Compliance`) or an identifier (`avg_delay`,
  `kMaxBurst`, `cap(maxSz)`, `sent[i].time`), the right side combining operands with an
  operator (`x` for times is an operator word of the language packs), a math function
  (`max(a, b)`, `min (N, SMSS)`: the names are a pack cue), symbols written side by side
  (`P = F V`: a product written as a physicist types it; when a PDF font drops the Σ glyph,
  PDF text layers commonly show it as a Latin letter, `S Ti` or `E(PxQ)`) or — for an
  identifier — one other identifier (`AVG <- X`).
- `display` — an expression standing alone after a line that ends in `:` (RFC figures:
  `max(kFactor * max(avg_delay, last_delay), kTick)`).
- `inline` — a formula written tight inside prose, no space around its operators
  (`limit(maxFS)=2*maxFS`).

A formula continues over a line break when its line ends on an operator, or when the next
line is indented deeper and starts with one (`… max_ack_delay) *` / `    kPersistent…`).

Not formulas: worked examples (the operands are all numbers, or `=` is chained:
`600 / 4 = 150 hours`), unit equalities (`1 Gy = 1 J Kg-1`: the left side is a number),
legend entries (`FF = Fill Factor (desimal)`: the right side is prose), constant settings
(`kPersistentCongestionThreshold = 3`) and, in pseudo-code figures, control lines
(`if (x):`, `return t`, and the one-line `if (x): y = z` too: a conditional assignment is a
rule, which the rule branch reads), statement lists (`a = 1; b = 2`: a trace, not an
equation), procedure calls (`lost = DetectAndRemoveLost(space)`: a long CamelCase name is
a procedure, a short or lower-case one a math function) and flags (`pto_timeout =
infinite`). The assignments nested under a control line are kept: an RFC's algorithm
states its equations that way.

Legends (`Keterangan:`, `where:`, `dengan:`, or any `Symbol = prose` line) give the symbols
their meanings: `Symbol = meaning`, `Symbol : meaning`, `- Symbol adalah meaning`, and
"where X is …" sentences. A legend line is a formula only when its right side is one
(`Loading Time = jumlah pass x CT Loading (menit)`), so a document whose formula images
were lost, leaving only legends, yields no formula.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from knowledge_assets.candidates.model import Candidate, span
from knowledge_assets.candidates.model import trim as _strip
from knowledge_assets.candidates.packs import cues
from knowledge_assets.candidates.source import SourceChunk

Bounds = tuple[int, int]

_MATH_INFO = frozenset({"math", "latex", "tex", "katex", "mathjax", "asciimath"})
_FENCE = re.compile(r"[ \t]*(?P<mark>`{3,}|~{3,})[ \t]*(?P<info>[^\s`]*)[^`]*")
_DISPLAY_MATH = re.compile(r"\$\$(?P<body>.+?)\$\$|\\\[(?P<bracketed>.+?)\\\]", re.DOTALL)

_WORD = r"[^\W\d_]"
# An identifier left side: `avg_delay`, `cap(maxSz)`, `sent[pn][n].time`, `R'`.
_CODE_LHS = rf"{_WORD}[\w']*(?:\[[^\]\n]*\]|\([^()\n]*\))*(?:\.{_WORD}[\w']*)*"
_ASSIGN = r"(?:<-|:=|←|(?<![=!<>+\-*/%&|^~])=(?!=))"
_COMPOUND = r"[+\-*/]="
# `SRTT <- R`, `cwnd += N`: an arrow or a compound operator makes one operand a formula.
_SETTING_OPERATORS = frozenset({"<-", ":=", "←", "+=", "-=", "*=", "/="})
_CODE_LINE = re.compile(rf"[ \t]*(?P<lhs>{_CODE_LHS})[ \t]*(?P<op>{_ASSIGN}|{_COMPOUND})[ \t]*(?P<rhs>.*?)[ \t]*")
# A named left side: a short phrase (`PM Compliance`, `Gain/Loss MOHH`), spaces around the operator.
_LIST_MARKER = r"(?:[-•*]|\(?\d{1,3}[.)]|\(?[a-z][.)])[ \t]+"
_NAME_LINE = re.compile(rf"[ \t]*(?:{_LIST_MARKER})?(?P<lhs>[∆Δ]?{_WORD}[^\s=]*(?:[ \t]+[^\s=]+)*?)"
                        rf"[ \t]+(?P<op>=|<-|:=|←)[ \t]+(?P<rhs>\S.*?)[ \t]*")
_NAME_WORD = re.compile(rf"[(∆Δ]?{_WORD}[\w/&.'()\-%]*|\([^()\s]{{1,12}}\)")
_MAX_NAME_WORDS = 6
_MAX_LEAD_IN_NAME_WORDS = 20
_CODE_IDENTIFIER = re.compile(rf"{_WORD}\w*(?:_\w+|[a-z][A-Z]\w*|\d\w*)")
_CONTROL = re.compile(r"[ \t]*(?:if|else|elif|for|foreach|while|return|do|switch|case)\b")

_SPACED_OPERATOR = r"[+\-−–*/×÷^%·⋅∙]"
_GLUED_OPERATOR = re.compile(r"(?<=[\w)\]'])[+\-−*/×÷^·⋅∙](?=[\w(\\])")
_GLUED_TIMES = re.compile(r"(?<=[A-Z0-9)\]])x(?=[A-Z0-9(])")
_MATH_CALL = re.compile(r"(?<![\w.])(?:[a-z][a-z0-9_]*|[A-Z]{1,3})\([^()]*\w[^()]*\)")
_SYMBOL = r"(?:[A-Z][A-Z0-9]{0,3}|[^\W\d_])"
_SYMBOL_PRODUCT = re.compile(rf"{_SYMBOL}(?:[ \t]+{_SYMBOL})+")
_PROSE = re.compile(rf"{_WORD}{{2,}}[ \t]+{_WORD}{{2,}}")
_OPERAND = re.compile(r"[^\s()+\-*/×÷^=,<>≤≥]+")
# A formula written tight in prose: `limit(maxFS)=2*maxFS`, no space anywhere.
_INLINE = re.compile(rf"(?<![\w.@/?&=-])(?P<lhs>{_CODE_LHS})=(?P<rhs>[\w(][\w()\[\]*/+\-^.'×]*)")
_TRAILING_NOTE = re.compile(r"\s\([^()]*\)$")
_NUMERIC = re.compile(r"\d[\d.,OolI]*%?")

_BAR = re.compile(r"[-_—]{4,}")
_BAR_LHS = re.compile(rf"[ \t]*(?P<lhs>{_WORD}[^=\n]*?)[ \t]*=(?=[ \t]*[-_—]{{4,}})")
_MAX_BAR = 40
_CLAUSE_START = re.compile(r"[ \t]*(?:\(?\d{1,3}[.)]|\(\w{1,3}\)|[a-z][.)][ \t]|[-•*][ \t])")
_SENTENCE_INSIDE = re.compile(r"\w[.:;][ \t]+\S")
_MAX_CONTINUATION_LINES = 4
_MAX_DISPLAY_LINES = 6

# A legend entry, `{verbs}` standing for the packs' legend verbs (`adalah`, `is`).
_LEGEND_ENTRY = (rf"[ \t]*(?:[-•*][ \t]+)?(?P<symbol>[∆Δ(]?{_WORD}[^\s=:]*(?:[ \t]{{1,2}}[^\s=:]+){{0,4}}?)"
                 rf"[ \t]*(?P<sep>=|:|\b(?:{{verbs}})\b)[ \t]*(?P<meaning>\S.*?)[ \t]*")


@dataclass(frozen=True)
class _Found:
    start: int
    end: int
    cue: str
    lhs: Bounds | None = None
    rhs: Bounds | None = None


def find_formulas(chunks: Sequence[SourceChunk]) -> list[Candidate]:
    found: list[Candidate] = []
    for chunk in chunks:
        found.extend(_chunk_formulas(chunk))
    return found


def _chunk_formulas(chunk: SourceChunk) -> list[Candidate]:
    text = chunk.text
    reader = _Reader(text)
    formulas = [*reader.blocks(), *reader.fractions(), *reader.lead_ins(), *reader.sums(), *reader.assignments(),
                *reader.displays(), *reader.inline()]
    legend = _legend(text, reader)
    candidates = []
    for formula in sorted(formulas, key=lambda f: f.start):
        parts: list[tuple[str, int, int, str | None]] = []
        if formula.lhs:
            parts.append(("lhs", *formula.lhs, None))
        if formula.rhs:
            parts.append(("rhs", *formula.rhs, None))
        body = text[formula.start:formula.end]
        for symbol, meaning in legend:
            name = text[symbol[0]:symbol[1]]
            if _mentions(body, name):
                parts += [("symbol", *symbol, name), ("meaning", *meaning, name)]
        candidates.append(span("formula", chunk.chunk_id, text, formula.start, formula.end, formula.cue, parts))
    return candidates


def _mentions(body: str, symbol: str) -> bool:
    return re.search(rf"(?<![\w]){re.escape(symbol)}(?![\w])", body) is not None


class _Reader:
    """One chunk's lines, which convention has claimed each, and the finders over them."""

    def __init__(self, text: str):
        self.text = text
        self.lines: list[Bounds] = [(m.start(), m.end()) for m in re.finditer(r"[^\n]*", text)
                                    if m.start() == 0 or text[m.start() - 1] == "\n"]
        self.claimed: set[int] = set()
        self.in_fence: set[int] = set()
        pack = cues("formulas")
        self.lead_in = _word_pattern(pack.get("lead_in", ()))
        self.openers = tuple(w.casefold() for w in pack.get("legend_openers", ()))
        self.verbs = pack.get("legend_verbs", ())
        self.conjunctions = pack.get("legend_conjunctions", ())
        self.multiply_words = pack.get("multiply_words", ())
        times = "|".join(re.escape(w) for w in self.multiply_words) or "(?!)"
        self.spaced_operator = re.compile(rf"(?:^|\s)(?:{_SPACED_OPERATOR}|{times})(?=\s|$)")
        functions = "|".join(re.escape(w) for w in pack.get("math_functions", ())) or "(?!)"
        self.spaced_call = re.compile(rf"(?<![\w.])(?:{functions})[ \t]\([^()]*\w[^()]*\)")
        self.trailing_operator = re.compile(rf"(?:(?:^|\s)(?:{times})|{_SPACED_OPERATOR}|=|\()\s*$")

    def line(self, index: int) -> str:
        start, end = self.lines[index]
        return self.text[start:end]

    def blank(self, index: int) -> bool:
        return not self.line(index).strip()

    def free(self, index: int) -> bool:
        return index not in self.claimed and not self.blank(index)

    def claim(self, first: int, last: int) -> None:
        self.claimed.update(range(first, last + 1))

    def index_of(self, offset: int) -> int:
        return next(i for i, (s, e) in enumerate(self.lines) if s <= offset <= e)

    # -- Markdown blocks -------------------------------------------------------------------
    def blocks(self) -> Iterator[_Found]:
        yield from self._display_math()
        index = 0
        while index < len(self.lines):
            opener = _FENCE.fullmatch(self.line(index))
            if not opener or index in self.claimed:
                index += 1
                continue
            close = next((j for j in range(index + 1, len(self.lines))
                          if (m := _FENCE.fullmatch(self.line(j))) and m["mark"][0] == opener["mark"][0]
                          and len(m["mark"]) >= len(opener["mark"]) and not m["info"]), len(self.lines))
            self.claim(index, min(close, len(self.lines) - 1))
            body = range(index + 1, close)
            if opener["info"].casefold() in _MATH_INFO:
                if (found := self._latex(body)) is not None:
                    yield found
            else:
                self.in_fence.update(body)
                yield from self._fenced_code(body)
            index = close + 1

    def _display_math(self) -> Iterator[_Found]:
        for match in _DISPLAY_MATH.finditer(self.text):
            start, end = _strip(self.text, *match.span(match.lastgroup))
            if start < end:
                self.claim(self.index_of(match.start()), self.index_of(match.end()))
                yield _latex_found(self.text, start, end)

    def _latex(self, body: range) -> _Found | None:
        if not body:
            return None
        start, end = _strip(self.text, self.lines[body[0]][0], self.lines[body[-1]][1])
        return _latex_found(self.text, start, end) if start < end else None

    def _fenced_code(self, body: range) -> Iterator[_Found]:
        index = body.start if body else 0
        while index < body.stop:
            found = self._code_assignment(index, last=body.stop - 1)
            if found is None:
                index += 1
                continue
            found, index = found
            yield _Found(found.start, found.end, "code_fence", found.lhs, found.rhs)

    # -- 2-D fractions ---------------------------------------------------------------------
    def fractions(self) -> Iterator[_Found]:
        for index in range(1, len(self.lines) - 1):
            if index in self.claimed or not self._is_bar_line(index):
                continue
            above, below = index - 1, index + 1
            if not all(self.free(row) and self._is_layout_row(row) for row in (above, below)):
                continue
            start, _ = _strip(self.text, *self.lines[above])
            _, end = _strip(self.text, *self.lines[below])
            lhs = _BAR_LHS.match(self.line(index))
            offset = self.lines[index][0]
            lhs_bounds = (offset + lhs.start("lhs"), offset + lhs.end("lhs")) if lhs else None
            self.claim(above, below)
            yield _Found(start, end, "fraction_layout", lhs_bounds)

    def sums(self) -> Iterator[_Found]:
        """A Σ laid out over lines: the line holding Σ and a relation, its limits and indices on
        the short lines just above and below (`n` / `Ci` / `∑ (…) ≤ 1` / `i =1   i`)."""
        for index in range(len(self.lines)):
            line = self.line(index)
            if not self.free(index) or not re.search(r"[∑Σ]", line) or not re.search(r"[=<>≤≥]", line) \
                    or _SENTENCE_INSIDE.search(line):
                continue
            first, last = index, index
            while first > 0 and index - first < 2 and self.free(first - 1) and _is_index_row(self.line(first - 1)):
                first -= 1
            while (last + 1 < len(self.lines) and last - index < 2 and self.free(last + 1)
                   and _is_index_row(self.line(last + 1))):
                last += 1
            start, _ = _strip(self.text, *self.lines[first])
            _, end = _strip(self.text, *self.lines[last])
            self.claim(first, last)
            yield _Found(start, end, "sum_layout")

    def _is_bar_line(self, index: int) -> bool:
        line = self.line(index)
        bars = _BAR.findall(line)
        if not bars or "|" in line or any(len(bar) > _MAX_BAR for bar in bars):
            return False
        if lhs := _BAR_LHS.match(line):
            if not self._is_name(lhs["lhs"]):
                return False
            line = line[lhs.end():]
        rest = _BAR.sub(" ", line).split()
        if not rest and len(bars) == 1 and not lhs:
            return False  # a lone rule is a table border, not a fraction
        before, after = line[:line.index(bars[0])].split(), line[line.rindex(bars[-1]) + len(bars[-1]):].split()
        if before or (after and not self._joins(after[0])):
            return False  # `0 km ------ 5 km`: a scale drawn with a rule, not a fraction
        return all(len(token) <= 6 for token in rest)

    def _joins(self, token: str) -> bool:
        """Whether a token after a fraction bar carries the formula on: an operator or a relation."""
        return token in self.multiply_words or re.fullmatch(r"[+\-*/×÷^·<>≤≥=]+\d*", token) is not None

    def _is_layout_row(self, index: int) -> bool:
        """A numerator or denominator row: a few short symbols or numbers, no sentence."""
        tokens = self.line(index).split()
        return 0 < len(tokens) <= 8 and all(len(t) <= 16 for t in tokens) \
            and not self.line(index).rstrip().endswith(":")

    # -- lead-ins ----------------------------------------------------------------------------
    def lead_ins(self) -> Iterator[_Found]:
        for index in range(len(self.lines)):
            line = self.line(index).rstrip()
            if not (cue := self.lead_in.search(line)) or self.is_legend_opener(index):
                continue
            if not line.endswith(":"):
                # `… formula sebagai berikut: Tarif = A x B`: the formula follows on the lead-in's line
                colon = line.find(": ", cue.end())
                if colon >= 0 and index not in self.claimed and (found := self._lead_in_assignment(index, colon + 2)):
                    yield found
                continue
            first = next((j for j in range(index + 1, min(index + 4, len(self.lines))) if not self.blank(j)), None)
            if first is None or first in self.claimed or self.is_legend_opener(first):
                continue
            found = self._lead_in_assignment(first) or self._display_before_legend(first)
            if found is not None:
                yield found

    def _display_before_legend(self, first: int) -> _Found | None:
        last = first
        while last + 1 < len(self.lines) and self.free(last + 1) and not self.is_legend_opener(last + 1):
            last += 1
        following = next((j for j in range(last + 1, min(last + 4, len(self.lines))) if not self.blank(j)), None)
        if following is None or not self.is_legend_opener(following) or last - first >= _MAX_DISPLAY_LINES:
            return None
        body = [self.line(i) for i in range(first, last + 1)]
        if not any(re.search(r"[=<>≤≥∑Σ+]", line) for line in body) \
                or any(_PROSE.search(line) and _SENTENCE_INSIDE.search(line) for line in body):
            return None  # no relation or operator, or a sentence: not a formula display
        start, _ = _strip(self.text, *self.lines[first])
        _, end = _strip(self.text, *self.lines[last])
        self.claim(first, last)
        return _Found(start, end, "lead_in")

    def _lead_in_assignment(self, first: int, column: int = 0) -> _Found | None:
        """The formula from line `first` (from `column` on it) after a lead-in: a name of up to
        three lines, an assignment operator, a right side that computes."""
        for index in range(first, min(first + 3, len(self.lines))):
            if not self.free(index) or self.line(index).rstrip().endswith(":") \
                    or (index > first and _CLAUSE_START.match(self.line(index))):
                return None  # a clause, or a lead-in of its own
            line_start, line_end = self.lines[index]
            line_start += column if index == first else 0
            operator = re.search(_ASSIGN, self.text[line_start:line_end])
            if operator is None:
                continue
            lhs = _strip(self.text, self.lines[first][0] + column, line_start + operator.start())
            name = self.text[lhs[0]:lhs[1]]
            if not name or not re.match(rf"[(∆Δ]?{_WORD}", name) or len(name.split()) > _MAX_LEAD_IN_NAME_WORDS \
                    or _SENTENCE_INSIDE.search(name):
                return None
            rhs_start = line_start + operator.end()
            last = self._continued(index, first)
            rhs = _strip(self.text, rhs_start, self.lines[last][1])
            if rhs[0] >= rhs[1] or not self.is_expression(self.text[rhs[0]:rhs[1]], tight=True):
                return None
            self.claim(first, last)
            return _Found(lhs[0], rhs[1], "lead_in", lhs, rhs)
        return None

    # -- line assignments --------------------------------------------------------------------
    def assignments(self) -> Iterator[_Found]:
        index = 0
        while index < len(self.lines):
            if not self.free(index):
                index += 1
                continue
            found = self._named_assignment(index) or self._code_assignment(index, last=len(self.lines) - 1)
            if found is None:
                index += 1
                continue
            found, index = found
            yield found

    def _named_assignment(self, index: int) -> tuple[_Found, int] | None:
        start, end = self.lines[index]
        match = _NAME_LINE.fullmatch(self.text, start, end)
        if not match or not self._is_name(match["lhs"]):
            return None
        last = self._continued(index, index)
        rhs = (match.start("rhs"), _strip(self.text, match.start("rhs"), self.lines[last][1])[1])
        if not self.is_expression(self.text[rhs[0]:rhs[1]]):
            return None
        self.claim(index, last)
        return _Found(match.start("lhs"), rhs[1], "assignment", match.span("lhs"), rhs), last + 1

    def _is_name(self, lhs: str) -> bool:
        words = lhs.split()
        return 0 < len(words) <= _MAX_NAME_WORDS and words[0] not in self.multiply_words \
            and all(_NAME_WORD.fullmatch(w) for w in words)

    def _code_assignment(self, index: int, last: int) -> tuple[_Found, int] | None:
        if index in self.claimed and index not in self.in_fence:
            return None
        start, end = self.lines[index]
        line = self.text[start:end]
        if ";" in line or _CONTROL.match(line):
            return None
        match = _CODE_LINE.fullmatch(self.text, start, end)
        if not match:
            return None
        stop = self._continued(index, index, limit=last)
        rhs = _strip(self.text, match.start("rhs"), self.lines[stop][1])
        value = self.text[rhs[0]:rhs[1]]
        if not (self.is_expression(value, tight=True) or self._is_copied_quantity(match["lhs"], value)
                or (match["op"] in _SETTING_OPERATORS and re.fullmatch(rf"{_WORD}[\w']*", value))
                or (self._stands_alone(index, stop) and re.fullmatch(r"[A-Z][A-Z0-9]{1,5}", value))):
            return None
        self.claim(index, stop)
        return _Found(match.start("lhs"), rhs[1], "assignment", match.span("lhs"), rhs), stop + 1

    def _stands_alone(self, first: int, last: int) -> bool:
        """A displayed line: blank lines (or the chunk's edge) above and below. Displayed,
        `H=DQN` is a product of symbols set tight, not a constant's name."""
        return (first == 0 or self.blank(first - 1)) and (last + 1 >= len(self.lines) or self.blank(last + 1))

    @staticmethod
    def _is_copied_quantity(lhs: str, value: str) -> bool:
        """`avg_delay = kStartDelay`: one quantity set from another, named as code names
        quantities; not a field copied under its own name (`p.in_flight = in_flight`)."""
        return bool(_CODE_IDENTIFIER.fullmatch(value)) and not re.search(rf"\b{re.escape(value)}$", lhs)

    # -- displayed expressions and inline formulas --------------------------------------------
    def displays(self) -> Iterator[_Found]:
        for index in range(1, len(self.lines)):
            if not self.free(index):
                continue
            previous = next((j for j in range(index - 1, -1, -1) if not self.blank(j)), None)
            if previous is None or previous == index - 1 or not self.line(previous).rstrip().endswith(":"):
                continue
            last = self._continued(index, index)
            start, end = _strip(self.text, self.lines[index][0], self.lines[last][1])
            body = self.text[start:end]
            if not re.match(r"[\w(]", body) or _CLAUSE_START.match(body) or body[-1] in ".:;\"" \
                    or not self.is_expression(body, tight=True) or _PROSE.search(body):
                continue
            self.claim(index, last)
            yield _Found(start, end, "display")

    def inline(self) -> Iterator[_Found]:
        for index in range(len(self.lines)):
            if not self.free(index):
                continue
            start, end = self.lines[index]
            for match in _INLINE.finditer(self.text, start, end):
                rhs_end = match.end("rhs")
                while rhs_end > match.start("rhs") and self.text[rhs_end - 1] in ".,'":
                    rhs_end -= 1
                value = self.text[match.start("rhs"):rhs_end]
                if self.text[rhs_end:rhs_end + 1] == "=" or not self.is_expression(value, tight=True):
                    continue
                yield _Found(match.start(), rhs_end, "inline", match.span("lhs"), (match.start("rhs"), rhs_end))

    # -- shared tests --------------------------------------------------------------------------
    def _continued(self, index: int, first: int, limit: int | None = None) -> int:
        """The last line of a formula starting on line `index`: a line ending on an operator
        continues, and so does one followed by a deeper-indented line starting with one."""
        limit = len(self.lines) - 1 if limit is None else limit
        indent = _indent(self.line(first))
        last = index
        while last < limit and last - index < _MAX_CONTINUATION_LINES:
            following = last + 1
            if not self.free(following) and following not in self.in_fence:
                break
            next_line = self.line(following)
            if not next_line.strip() or _SENTENCE_INSIDE.search(next_line) or next_line.rstrip().endswith(":"):
                break
            ends_on_operator = self.trailing_operator.search(self.line(last)) is not None
            leads_with_operator = _indent(next_line) > indent and re.match(rf"[ \t]*{_SPACED_OPERATOR}", next_line)
            if not (ends_on_operator or leads_with_operator):
                break
            last = following
        return last

    def is_expression(self, value: str, tight: bool = False) -> bool:
        """Whether a right side computes: operands joined by operators (not a legend's prose,
        not a worked example's numbers)."""
        flat = " ".join(value.split())
        note = _TRAILING_NOTE.search(flat)
        if note and not self.spaced_operator.search(note[0]):
            flat = flat[:note.start()]  # `(BCM/jam)`, `(initcwnd)`: a unit or a remark, not a term
        if not flat or " = " in flat or "==" in flat:
            return False  # a chained `=` is a worked example
        terms = [o for o in _OPERAND.findall(flat) if o not in self.multiply_words]
        if not any(re.match(rf"[(∆Δ\\]?{_WORD}", o) for o in terms if not _NUMERIC.fullmatch(o)):
            return False  # numbers only: a worked example or a constant
        if ", " in _without_parentheses_content(flat):
            return False  # an apposition: a legend's prose
        if self.spaced_operator.search(flat):
            # an operand is a name, not a sentence: `2 * SMSS is used when the …` is prose
            operands = re.split(r"[()]", self.spaced_operator.sub("(", flat))
            return all(len(operand.split()) <= _MAX_NAME_WORDS for operand in operands)
        if _SYMBOL_PRODUCT.fullmatch(flat):
            return True
        if _PROSE.search(_without_parentheses_content(flat) if tight else flat):
            return False  # words side by side: prose (an identifier's call may hold a phrase)
        return bool(_GLUED_OPERATOR.search(flat) or _GLUED_TIMES.search(flat) or _MATH_CALL.search(flat)
                    or self.spaced_call.search(flat))

    def opens_where_sentence(self, index: int) -> bool:
        line = self.line(index).strip().casefold()
        return any(line.startswith(opener + " ") and not line.endswith(":") for opener in self.openers)

    def is_legend_opener(self, index: int) -> bool:
        line = self.line(index).strip().casefold()
        head = line.rstrip(":, ").strip()
        return any(head == opener or (line.startswith(opener + " ") and line.endswith(":") and len(head.split()) <= 3)
                   for opener in self.openers)


def _latex_found(text: str, start: int, end: int) -> _Found:
    """A LaTeX display; its left side is what precedes a top-level `=` on its first line."""
    body = text[start:end]
    depth = 0
    for offset, char in enumerate(body):
        if char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
        elif char == "\n":
            break
        elif char == "=" and depth == 0 and body[offset - 1:offset] not in ("<", ">", "\\", "!"):
            lhs = _strip(text, start, start + offset)
            rhs = _strip(text, start + offset + 1, end)
            name = text[lhs[0]:lhs[1]]
            if name and "\\begin" not in name and "&" not in name:
                return _Found(start, end, "latex_block", lhs, rhs if rhs[0] < rhs[1] else None)
            break
    return _Found(start, end, "latex_block")


def _legend(text: str, reader: _Reader) -> list[tuple[Bounds, Bounds]]:
    """(symbol, meaning) bounds of each legend entry: every `Symbol = prose` line, the
    `Symbol : meaning` / `- Symbol adalah meaning` lines of a block that a legend opener
    starts (a blank line right after the opener does not end it), and the clauses of a
    "where X is …, and Y is …" sentence. A meaning goes on over the next line only when
    that line is indented deeper."""
    verbs = "|".join(re.escape(v) for v in reader.verbs) or "(?!)"
    entry = re.compile(_LEGEND_ENTRY.replace("{verbs}", verbs))
    entries: list[tuple[Bounds, Bounds]] = []
    in_legend, read_entry = False, False
    for index, (start, end) in enumerate(reader.lines):
        if reader.is_legend_opener(index):
            in_legend, read_entry = True, False
            continue
        if reader.blank(index):
            in_legend = in_legend and not read_entry
            continue
        if reader.opens_where_sentence(index):
            entries.extend(_where_clauses(text, reader, index, verbs))
            continue
        match = entry.fullmatch(text, start, end)
        if not match or (match["sep"] != "=" and not in_legend) or index in reader.claimed:
            continue
        if match["sep"] == "=" and reader.is_expression(match["meaning"]):
            continue
        read_entry = True
        meaning_end = match.end("meaning")
        following = index + 1
        while following < len(reader.lines) and not reader.blank(following) \
                and _indent(reader.line(following)) > _indent(reader.line(index)) + 2 \
                and not entry.fullmatch(text, *reader.lines[following]):
            meaning_end = _strip(text, *reader.lines[following])[1]
            following += 1
        entries.append((match.span("symbol"), (match.start("meaning"), meaning_end)))
    return entries


def _where_clauses(text: str, reader: _Reader, index: int, verbs: str) -> list[tuple[Bounds, Bounds]]:
    """`where N is the number of bytes, and M is …` / `Dimana H merupakan …, I adalah …`:
    each clause `Symbol verb meaning` of the paragraph the opener starts."""
    last = index
    while last + 1 < len(reader.lines) and reader.free(last + 1):
        last += 1
    start, end = reader.lines[index][0], reader.lines[last][1]
    conjunctions = "|".join(re.escape(w) for w in reader.conjunctions) or "(?!)"
    clause = re.compile(rf"(?:^\s*\w+\s+|(?<=[,;])\s*(?:(?:{conjunctions})\s+)?|\s(?:{conjunctions})\s+)"
                        rf"\*?(?P<symbol>[^\W\d][\w,]*?)\*?\s+(?:{verbs})\s+"
                        rf"(?P<meaning>[^,;]+?)(?=\s*[,;]|\.\s|\.\Z|\Z)", re.IGNORECASE | re.MULTILINE)
    found = []
    for match in clause.finditer(text, start, end):
        if len(match["symbol"]) <= 8:
            found.append((match.span("symbol"), _strip(text, *match.span("meaning"))))
    return found


def _is_index_row(line: str) -> bool:
    """A row of a sum's limits or indices: at most three short tokens (`n`, `i =1   i`)."""
    tokens = line.split()
    return 0 < len(tokens) <= 3 and all(len(t) <= 4 for t in tokens)


def _word_pattern(words: Sequence[str]) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)) or "(?!)"
    return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.IGNORECASE)


def _without_parentheses_content(value: str) -> str:
    while (reduced := re.sub(r"\([^()]*\)|\[[^\[\]]*\]|\{[^{}]*\}", "", value)) != value:
        value = reduced
    return value


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))
