"""Formula candidates: where a chunk states a formula, found by the notations technical
documents write formulas in, each with its offsets, the cue that found it and its parts
(`lhs`, `rhs`, and the `symbol`/`meaning` pairs of the legend that explains it, labelled by
symbol).

The conventions, in the order they claim lines (a line claimed once is not read again):

- `latex_block` — a Markdown/kramdown fence whose info string names a math language
  (```` ```math ````, `~~~ math`) or a `$$ … $$` / `\\[ … \\]` display: the whole block is one formula,
  as written (`\\frac`, `\\sqrt[3]`, piecewise `\\begin{array}` included).
- `code_fence` — a plain ``` / ~~~ fence (IETF drafts and KPI guides put equations in one):
  each assignment line in it, an identifier's (`cwnd = min(cwnd_new, 2*maxFS)`) or a named
  quantity's, whose operands a fence may name at length (`MTTD = Total Time from Incident
  Start to Detection / Number of Incidents`); a quoted value is a setting.
- `fraction_layout` — a 2-D fraction as a PDF text layer lays it out: a numerator line, a bar
  line of dashes (`------`, several bars joined by operators, an `X =` left side, a factor
  `x 100%` or a relation `< 1` on it) and a denominator line. A rule with labels before or
  after it (`0 km ------ 5 km`, a scale in a figure) or alone (a table border) is
  no fraction bar.
- `sum_layout` — a Σ laid out the same way: the line holding `∑` and a relation, with the
  short lines of its limits and indices just above and below; or `∑` alone on its line, its
  limits below it, the rest of the equation on the line after them.
- `lead_in` — the statutory "… dihitung dengan menggunakan formula sebagai berikut:" / "… is
  computed as follows:": the lines after the lead-in (or the rest of its own line) are the formula, however long its
  name (`Tarif Sewa … Lahan dan\\nBangunan Tahun Pertama = …`) and however
  tight its operators (`Biaya=Px(Q+R)`); when a legend opener follows within a few lines,
  everything between the two is the formula display (a typeset formula the text layer
  scrambled). A lead-in left empty (a blank line, then the next ayat) has its formula objects
  placed after that clause (`lead_in_detached`: the bare products and sums standing there).
- `assignment` — a line `Name = expression` (after a list or clause marker `a.`, `(1)`,
  `-`, if any), the operator `=`, `<-`, `:=` or `←` (or, for an identifier, a compound
  `+=`), the name a short phrase (`PM Compliance`) or an identifier (`avg_delay`,
  `kMaxBurst`, `cap(maxSz)`, `sent[i].time`), the right side combining operands with an
  operator (`x` for times is an operator word of the language packs), a math function
  (`max(a, b)`, `min (N, SMSS)`: the names are a pack cue), symbols written side by side
  (`P = F V`: a product written as a physicist types it; when a PDF font drops the Σ glyph,
  PDF text layers commonly show it as a Latin letter, `S Ti` or `E(PxQ)`) or — for an
  identifier — one other identifier (`AVG <- X`). Standards' bitwise and logical operators
  (`⊕`, `∧`, `∨`, `<<`, `>>`) are operators, and a function's name may be set tight against
  `=` (`ROTL n(x)=(x << n) ∨ (x >> w - n)`).
- `tariff_cell` — a tariff table's cell stating a formula rather than an amount, right after
  its currency (`Rp3O% x Harga …`, `Rp[Tarif Iuran x …`), over the short lines of a table
  flattened one word per line.
- `numbered_equation` — a displayed equation numbered at the right margin (`… (4.6)`),
  whatever a PDF text layer made of its left side.
- `display` — an expression standing alone after a line that ends in `:` (RFC figures:
  `max(kFactor * max(avg_delay, last_delay), kTick)`).
- `congruence` — the run of math around `≡` in running text (`ℓ + 1 + k ≡ 448 mod 512`).
- `code_span` — an assignment set as Markdown inline code (`` `Fill Rate = Filled / Open` ``).
- `inline` — a formula written tight inside prose, no space around its operators
  (`limit(maxFS)=2*maxFS`), going on over spaced ones (`Z=2X + Y`).
- `prose_expression` — a symbolic expression in parentheses in running text
  (`((1 − N) \\^ R)`, a Markdown-escaped caret): symbols and numbers, at least one symbol.

A formula continues over a line break when its line ends on an operator, when the next
line is indented deeper and starts with one (`… max_ack_delay) *` / `    kPersistent…`), or
when the next line opens on a multiplication (`Kompensasi = A` / `x (P-R)`: a table flattened
one word per line indents nothing). A sentence's full stop after a formula is not part of it.

Not formulas: worked examples (the operands are all numbers or units — the packs' data, so
`mSv` or `percent` is never a symbol —, or `=` is chained: `600 / 4 = 150 hours`, `99.95
percent × 99.99 percent = 99.94 percent`, `2OO x 8.874.30O`), unit equalities (`1 Gy = 1 J
Kg-1`: the left side is a number), legend entries (`FF = Fill Factor (desimal)`: the right
side is prose), constant settings (`kPersistentCongestionThreshold = 3`) and, in pseudo-code figures, control lines
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
from functools import cache, cached_property
from types import SimpleNamespace

from knowledge_assets.candidates.boundaries import across, runs_on
from knowledge_assets.candidates.model import Candidate, span
from knowledge_assets.candidates.model import trim as _strip
from knowledge_assets.candidates.packs import cues
from knowledge_assets.candidates.reading import Reading, read
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
_NAME_WORD = re.compile(rf"[(∆Δ]?{_WORD}[\w/&.'\"()\[\],\-%]*|[(\[][^()\[\]\s]{{1,12}}[)\]]['′″]*")
# An argument list or an index, its spaces dropped: `Lane (i, j)` names one thing, `Lane (i,j)`.
_ARGUMENTS = re.compile(r"[(\[][^()\[\]\n]{1,24}[)\]]")
# A function's name set tight against `=`: `ROTL n(x)=(x << n) ∨ (x >> w - n)`.
_CALL_NAME_LINE = re.compile(rf"[ \t]*(?P<lhs>{_WORD}\w*(?:[ \t]{{1,2}}{_WORD}\w*)?\([^()\n]*\))(?P<op>=)(?=\S)"
                             rf"(?P<rhs>.*?)[ \t]*")
_MAX_NAME_WORDS = 6
_MAX_DISPLAYED_OPERAND_WORDS = 12
_MAX_LEAD_IN_NAME_WORDS = 20
_CODE_IDENTIFIER = re.compile(rf"{_WORD}\w*(?:_\w+|[a-z][A-Z]\w*|\d\w*)")
_CONTROL = re.compile(r"[ \t]*(?:if|else|elif|for|foreach|while|return|do|switch|case)\b")

# Arithmetic, and the bitwise/logical operators of standards' specifications (`⊕`, `∧`, `∨`, `<<`).
# `||` concatenates (bit strings in a cryptographic standard, `Lane (0, j) || Lane (1, j)`).
_SPACED_OPERATOR = r"(?:<<|>>|\|\||[+\-−–*/×÷^%·⋅∙⊕∧∨])"
_GLUED_OPERATOR = re.compile(r"(?<=[\w)\]'])[+\-−*/×÷^·⋅∙⊕∧∨](?=[\w(\\])")
_GLUED_TIMES = re.compile(r"(?<=[A-Z0-9)\]])x(?=[A-Z0-9(])")
_MATH_CALL = re.compile(r"(?<![\w.])(?:[a-z][a-z0-9_]*|[A-Z]{1,3})\([^()]*\w[^()]*\)")
_SYMBOL = r"(?:[A-Z][A-Z0-9]{0,3}|[^\W\d_])"
_SYMBOL_PRODUCT = re.compile(rf"{_SYMBOL}(?:[ \t]+{_SYMBOL})+")
_PROSE = re.compile(rf"{_WORD}{{2,}}[ \t]+{_WORD}{{2,}}")
_OPERAND = re.compile(r"[^\s()+\-−–*/×÷^=,<>≤≥⊕∧∨¬]+")
# A formula written tight in prose: `limit(maxFS)=2*maxFS`, no space anywhere.
_TIGHT_OPERAND = r"[\w(][\w()\[\]*/+\-^.'×]*"
# `Z=2X + Y`: a tight start may go on with spaced operators, over symbols and numbers (not
# over a word: `x=1 + the offset` is prose).
_SPACED_TAIL = r"(?:[A-Z0-9(]|[a-z](?![a-z]))[\w()\[\]*/+\-^.'×]*"
_INLINE = re.compile(rf"(?<![\w.@/?&=-])(?P<lhs>{_CODE_LHS})=(?P<rhs>{_TIGHT_OPERAND}"
                     rf"(?:[ ]{{1,2}}[+\-−*/×][ ]{{1,2}}{_SPACED_TAIL})*)")
_CODE_SPAN = re.compile(r"(?<!`)`(?P<body>[^`\n]+)`(?!`)")
# A reStructuredText math role before a code span's backquote, and the one equation it holds.
_MATH_ROLE = ":math:"
_ROLE_EQUATION = re.compile(r"([^=<>]*[^\s=<>])\s*=\s*([^=\s][^=]*)")
# An operand of an expression in prose: a symbol, `N`, `L1`, `Wt` — a word is prose.
_PROSE_SYMBOL = re.compile(rf"{_WORD}(?:\d{{1,2}}|[^\W\d_]?\d?)'?")
_TRAILING_NOTE = re.compile(r"\s\([^()]*\)$")
_NUMERIC = re.compile(r"\d[\d.,OolI]*%?")

_BAR = re.compile(r"[-_—]{4,}")
_BAR_LHS = re.compile(rf"[ \t]*(?P<lhs>{_WORD}[^=\n]*?)[ \t]*=(?=[ \t]*[-_—]{{4,}})")
_MAX_BAR = 40
_CLAUSE_START = re.compile(r"[ \t]*(?:\(?\d{1,3}[.)]|\(\w{1,3}\)|[a-z][.)][ \t]|[-•*][ \t])")
_SENTENCE_INSIDE = re.compile(r"\w[.:;][ \t]+\S")
_MAX_CONTINUATION_LINES = 4
_MAX_DETACHED_LINES = 16
_NUMBERED_CLAUSE = re.compile(r"[ \t]*(?:\(?\d{1,3}[.)]|\(\w{1,3}\)|[a-z][.)])[ \t]")
# A flattened tariff cell: a few words a line, up to the next row's label (`B.`, OCR's `C,`).
_MAX_CELL_LINES, _MAX_CELL_LINE_WORDS = 12, 4
_ROW_LABEL = re.compile(r"[ \t]*[A-Z][.,][ \t]")
_PAGE_NUMBER = re.compile(r"[ \t]*-[ \t]?\d{1,3}[ \t]?-[ \t]*")
_EQUATION_NUMBER = re.compile(r"[ \t]{1,}\(\d{1,2}(?:\.\d{1,3}){0,2}[a-z]?\)[ \t]*$", re.MULTILINE)
# A token of a formula run into prose: a number, a single-letter symbol (a damaged font's glyph
# after it), an operator or relation, `mod`.
_MATH_TOKEN = re.compile(r"mod|[^\W\d_][\uE000-\uF8FF'′]*|[\uE000-\uF8FF]+|\(?[\w\uE000-\uF8FF]*"
                         r"[\d+\-−*/=≡<>≤≥^⊕∧∨][\w\uE000-\uF8FF+\-−*/=≡<>≤≥^⊕∧∨]*\)?")
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
    number: Bounds | None = None  # a displayed equation's number, `(4.6)`: how a standard names it


def find_formulas(chunks: Sequence[SourceChunk]) -> list[Candidate]:
    """Every formula candidate of the chunks, in document order; a formula continued on the next
    page or chunk is found across the boundary in place of its cut halves (D66)."""
    found: list[Candidate] = []
    for chunk in chunks:
        found.extend(_chunk_formulas(chunk))
    return across(chunks, _line_formulas, found, _runs_on)


def _runs_on(first: str, second: str) -> bool:
    """Whether a formula goes on from `first` into `second` (D66), the convention of a formula
    continued on the next page: its line ends on an operator (`OEE = A × P ×` | `Q`), or its
    "where …" sentence is cut mid-clause (the next page going on in lowercase, `runs_on`)."""
    last = first.rstrip().rsplit("\n", 1)[-1]
    # `x 100%` ends a formula: a percent sign is a postfix, no operator waiting for an operand.
    operator = _trailing_operator().search(last) is not None and not last.endswith("%")
    return bool(second.strip()) and (operator or runs_on(first, second))


@cache
def _trailing_operator() -> re.Pattern[str]:
    """A line ending on an operator (`+`, `×`, `=`, `(`, the packs' multiplication words): the
    formula goes on on the next line."""
    times = "|".join(re.escape(w) for w in cues("formulas").get("multiply_words", ())) or "(?!)"
    return re.compile(rf"(?:(?:^|\s)(?:{times})|{_SPACED_OPERATOR}|=|\()\s*$")


def _line_formulas(views: Sequence[SourceChunk]) -> list[Candidate]:
    """The formulas of boundary views by the line-independent conventions only: an assignment
    (its line continued at an operator) and the legend of a "where" sentence. The layouts
    (fences, fractions, sums, tables) are never read across a page: a view holds a few lines of
    each side, not the block."""
    found = []
    for view in views:
        reader = _Reader(view.text)
        found.extend(_candidates(view, reader, list(reader.assignments())))
    return found


def _chunk_formulas(chunk: SourceChunk) -> list[Candidate]:
    text = chunk.text
    reader = _Reader(text)
    formulas = [*reader.blocks(), *reader.fractions(), *reader.lead_ins(), *reader.sums(), *reader.assignments(),
                *reader.tariff_cells(), *reader.numbered_equations(), *reader.displays(), *reader.congruences(),
                *reader.code_spans(), *reader.inline(), *reader.prose_expressions()]
    return _candidates(chunk, reader, formulas)


def _candidates(chunk: SourceChunk, reader: _Reader, formulas: list[_Found]) -> list[Candidate]:
    text = chunk.text
    legend = _legend(text, reader)
    candidates = []
    for formula in sorted(formulas, key=lambda f: f.start):
        parts: list[tuple[str, int, int, str | None]] = []
        if formula.lhs:
            parts.append(("lhs", *formula.lhs, None))
        if formula.rhs:
            parts.append(("rhs", *formula.rhs, None))
        if formula.number:
            parts.append(("number", *formula.number, None))
        body = text[formula.start:formula.end]
        for symbol, meaning in legend:
            name = text[symbol[0]:symbol[1]]
            if _mentions(body, name):
                parts += [("symbol", *symbol, name), ("meaning", *meaning, name)]
        candidates.append(span("formula", chunk.chunk_id, text, formula.start, formula.end, formula.cue, parts))
    return candidates


def _mentions(body: str, symbol: str) -> bool:
    return re.search(rf"(?<![\w]){re.escape(symbol)}(?![\w])", body) is not None


@cache
def _cue_patterns() -> SimpleNamespace:
    """The language packs' formula cues and the patterns made of them, once per process (the packs
    are read once, `candidates.packs`): every chunk's `_Reader` reads them, and making them again
    for each of a long document's thousands of chunks cost a fifth of the formula finder."""
    pack = cues("formulas")
    found = SimpleNamespace(
        lead_in=_word_pattern(pack.get("lead_in", ())),
        openers=tuple(w.casefold() for w in pack.get("legend_openers", ())),
        verbs=pack.get("legend_verbs", ()),
        conjunctions=pack.get("legend_conjunctions", ()),
        multiply_words=pack.get("multiply_words", ()),
        units=frozenset(pack.get("units", ())),
    )
    unit_names = "|".join(re.escape(u) for u in sorted(found.units, key=len, reverse=True)) or "(?!)"
    number = _NUMERIC.pattern
    found.quantity = re.compile(rf"(?:{unit_names})[ \t]?{number}|{number}[ \t]?(?:{unit_names})")
    times = "|".join(re.escape(w) for w in found.multiply_words) or "(?!)"
    found.spaced_operator = re.compile(rf"(?:^|\s)(?:{_SPACED_OPERATOR}|{times})(?=\s|$)")
    # `x (P-R)` under `Kompensasi = A`: no line opens on a product but a formula's next line
    # (a table flattened one word per line indents nothing).
    found.leading_product = re.compile(rf"[ \t]*(?:[×÷/]|{times})[ \t]+\S")
    currencies = "|".join(re.escape(c) for c in pack.get("currencies", ()))
    # A currency glued to what its cell charges: `Rp3O% x …`, `Rp[Tarif … x …`.
    found.currency = re.compile(rf"(?:{currencies})(?=\[|\(|\d[\dOo.,]*\s?(?:%|o/o|olo)\s)") if currencies else None
    found.product_or_sum = re.compile(rf"(?:^|\s)(?:[+*×·]|{times})(?=\s|$)")
    functions = "|".join(re.escape(w) for w in pack.get("math_functions", ())) or "(?!)"
    found.spaced_call = re.compile(rf"(?<![\w.])(?:{functions})[ \t]\([^()]*\w[^()]*\)")
    found.trailing_operator = _trailing_operator()
    return found


class _Reader:
    """One chunk's lines, which convention has claimed each, and the finders over them."""

    def __init__(self, text: str):
        self.text = text
        self.lines: list[Bounds] = [(m.start(), m.end()) for m in re.finditer(r"[^\n]*", text)
                                    if m.start() == 0 or text[m.start() - 1] == "\n"]
        self.claimed: set[int] = set()
        self.in_fence: set[int] = set()
        self.spans: list[Bounds] = []  # what the in-line finders found: one formula is found once
        vars(self).update(vars(_cue_patterns()))  # the cues and their patterns, as attributes

    @cached_property
    def reading(self) -> Reading:
        """The chunk's layout-proof reading, for the finders that read prose."""
        return read(self.text)

    def read_through(self, index: int) -> bool:
        """Whether the reading reads on across line `index`: a blank line inside a sentence, or
        page furniture (nothing of the line is in the reading, nor its line break)."""
        start, end = self.lines[index]
        return self.reading.origin[self.reading.position(start)] > end

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
        """Each assignment line of a plain fence: an identifier's (`cwnd = min(…)`) or, the fence
        displaying it, a named quantity's with long operands (`MTTD = Total Time from Incident
        Start to Detection / Number of Incidents`)."""
        index = body.start if body else 0
        while index < body.stop:
            found = self._code_assignment(index, last=body.stop - 1)
            if found is None and not re.search(r"[;\"]", self.line(index)) and not _CONTROL.match(self.line(index)):
                found = self._named_assignment(index, displayed=True)
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
        the short lines just above and below (`n` / `Ci` / `∑ (…) ≤ 1` / `i =1   i`); or a Σ
        set alone on its line, its limits on the short lines below it and the rest of the
        equation on the line after them (`∑` / `{256}` / `0` / `(x) = ROTR 2(x) ⊕ …`), an
        equation number at its end left out of the formula and kept as its `number` part."""
        for index in range(len(self.lines)):
            line = self.line(index)
            if not self.free(index) or not re.search(r"[∑Σ]", line) or _SENTENCE_INSIDE.search(line):
                continue
            if not re.search(r"[=<>≤≥]", line):
                if (found := self._sum_set_alone(index)) is not None:
                    yield found
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

    def _sum_set_alone(self, index: int) -> _Found | None:
        if not _is_index_row(self.line(index)):
            return None
        row = index + 1
        while row < len(self.lines) and row - index <= 2 and self.free(row) and _is_index_row(self.line(row)):
            row += 1
        if row >= len(self.lines) or not self.free(row) or _SENTENCE_INSIDE.search(self.line(row)):
            return None
        line_start, line_end = self.lines[row]
        equation = _EQUATION_NUMBER.search(self.text, line_start, line_end)
        body_end = equation.start() if equation else line_end
        relation = re.search(_ASSIGN, self.text[line_start:body_end])
        if relation is None or not self.is_expression(self.text[line_start + relation.end():body_end], tight=True):
            return None
        self.claim(index, row)
        start, end = _strip(self.text, *self.lines[index])[0], _strip(self.text, line_start, body_end)[1]
        return _Found(start, end, "sum_layout", number=_number_bounds(self.text, equation))

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
            elif first > index + 1 and _NUMBERED_CLAUSE.match(self.line(first)):
                yield from self._detached(first)

    def _detached(self, first: int) -> Iterator[_Found]:
        """The formulas of a lead-in left empty (`… dihitung dengan menggunakan formula:`, a
        blank line, the next ayat): a typeset formula object the text layer placed further on,
        after the next clause. They are the first block of lines, within a few lines, that are
        each a bare product or sum (`luas areal PPKH x tarif`: a `/` or `-` between words is
        prose's "or" or a dash) and stand apart, a blank line or the chunk's end after them; a
        legend opener first means the formula is lost (a document keeping only its legends
        yields none)."""
        block: list[tuple[int, int, int]] = []
        for index in range(first, min(first + _MAX_DETACHED_LINES, len(self.lines))):
            if self.is_legend_opener(index):
                return
            start, end = _strip(self.text, *self.lines[index])
            line = self.text[start:end]
            if self.free(index) and "=" not in line and not _CLAUSE_START.match(line) and line[-1] not in ".:;," \
                    and self.product_or_sum.search(line) and self.is_expression(line):
                block.append((index, start, end))
            elif block:
                break
        if not block or (block[-1][0] + 1 < len(self.lines) and not self.blank(block[-1][0] + 1)):
            return
        for index, start, end in block:
            self.claim(index, index)
            yield _Found(start, end, "lead_in_detached")

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
            rhs = _strip_sentence(self.text, rhs_start, self.lines[last][1])
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

    def _named_assignment(self, index: int, displayed: bool = False) -> tuple[_Found, int] | None:
        start, end = self.lines[index]
        match = _NAME_LINE.fullmatch(self.text, start, end)
        if not match or not self._is_name(match["lhs"]):
            match = _CALL_NAME_LINE.fullmatch(self.text, start, end)
        if not match or not self._is_name(match["lhs"]):
            return None
        last = self._continued(index, index)
        rhs = _strip_sentence(self.text, match.start("rhs"), self.lines[last][1])
        if not self.is_expression(self.text[rhs[0]:rhs[1]], displayed=displayed):
            return None
        self.claim(index, last)
        return _Found(match.start("lhs"), rhs[1], "assignment", match.span("lhs"), rhs), last + 1

    def _is_name(self, lhs: str) -> bool:
        words = _ARGUMENTS.sub(lambda arguments: "".join(arguments.group().split()), lhs).split()
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
        rhs = _strip_sentence(self.text, match.start("rhs"), self.lines[stop][1])
        value = self.text[rhs[0]:rhs[1]]
        if value[:1] in "\"'“":
            return None  # a quoted value: a string setting (`title = "Fleet - Draft"`)
        if not (self.is_expression(value, tight=True) or self._is_copied_quantity(match["lhs"], value)
                or (match["op"] in _SETTING_OPERATORS and re.fullmatch(rf"{_WORD}[\w']*", value))
                or (self._stands_alone(index, stop) and re.fullmatch(r"[A-Z][A-Z0-9]{1,5}", value))):
            return None
        self.claim(index, stop)
        return _Found(match.start("lhs"), rhs[1], "assignment", match.span("lhs"), rhs), stop + 1

    def tariff_cells(self) -> Iterator[_Found]:
        """A tariff table's tariff cell that states a formula rather than an amount: right
        after the currency it is charged in (`Rp`, `USD`: pack data), a percentage or a bracket
        opening a product (`Rp3O% x Harga Indeks Pasar …`, `Rp[Tarif Iuran x harga jual x …`).
        A table flattened one word per line breaks the cell over short lines; it ends at the
        next row's label (`B.`, `C,`), a page number, a longer line, or where a bracket it
        opened closes (`(dua\nratus persen)`, the next row's text glued after it)."""
        if self.currency is None:
            return
        for index in range(len(self.lines)):
            if not self.free(index):
                continue
            line_start, line_end = self.lines[index]
            for match in self.currency.finditer(self.text, line_start, line_end):
                if (found := self._tariff_cell(index, match.end())) is not None:
                    yield found
                    break

    def _tariff_cell(self, index: int, start: int) -> _Found | None:
        end, depth, last = self.lines[index][1], 0, index
        for row in range(index, min(index + _MAX_CELL_LINES, len(self.lines))):
            row_start, row_end = self.lines[row]
            line = self.text[row_start:row_end]
            if row > index and (not self.free(row) or _ROW_LABEL.match(line) or _PAGE_NUMBER.fullmatch(line)
                                or (depth == 0 and len(line.split()) > _MAX_CELL_LINE_WORDS)):
                break
            closed, open_at_break = None, depth > 0
            for offset in range(start if row == index else row_start, row_end):
                depth += {"(": 1, ")": -1}.get(self.text[offset], 0)
                if depth == 0 and open_at_break and self.text[offset] == ")":
                    closed = offset + 1
                    break
            last, end = row, closed or row_end
            if closed:
                break
        start, end = _strip(self.text, start, end)
        cell = self.text[start:end]
        if not re.search(rf"\s(?:{'|'.join(map(re.escape, self.multiply_words))})\s", cell) \
                or not self.is_expression(" ".join(cell.split()), displayed=True):
            return None
        self.claim(index, last)
        return _Found(start, end, "tariff_cell")

    def numbered_equations(self) -> Iterator[_Found]:
        """A displayed equation numbered at the right margin, as standards and textbooks number
        them (`… = ROTR 7(x) ⊕ ROTR 18(x) ⊕ SHR 3(x) (4.6)`), whatever its left side: a PDF
        text layer may give a typeset left side's glyphs in drawing order (`)(}256{ 0 xσ`),
        which is no name. The number is left out of the formula and kept as its `number` part:
        the name the standard refers to it by."""
        for index in range(len(self.lines)):
            if not self.free(index):
                continue
            line_start, line_end = self.lines[index]
            equation = _EQUATION_NUMBER.search(self.text, line_start, line_end)
            if equation is None:
                continue
            start, end = _strip(self.text, line_start, equation.start())
            relation = re.search(_ASSIGN, self.text[start:end])
            if relation is None or _SENTENCE_INSIDE.search(self.text[start:end]) \
                    or not self.is_expression(self.text[start + relation.end():end], tight=True):
                continue
            self.claim(index, index)
            yield _Found(start, end, "numbered_equation", number=_number_bounds(self.text, equation))

    def congruences(self) -> Iterator[_Found]:
        """A congruence in running text, `… the solution to the equation ℓ + 1 + k ≡ 448 mod
        512.`: `≡` is never prose, so the formula is the run of math tokens around it (numbers,
        single-letter symbols, operators, `mod`), up to the first word or full stop."""
        for index in range(len(self.lines)):
            if not self.free(index) or "≡" not in self.line(index):
                continue
            tokens = list(re.finditer(r"\S+", self.text[self.lines[index][0]:self.lines[index][1]]))
            offset = self.lines[index][0]
            for relation in (k for k, t in enumerate(tokens) if "≡" in t[0]):
                first, last = relation, relation
                while first > 0 and _is_math_token(tokens[first - 1][0]) and not tokens[first - 1][0].endswith("."):
                    first -= 1
                while last + 1 < len(tokens) and not tokens[last][0].endswith(".") \
                        and _is_math_token(tokens[last + 1][0].rstrip(".,;:")):
                    last += 1
                if first == last and re.fullmatch(r"\W*≡\W*", tokens[relation][0]):
                    continue  # `≡` alone: a symbol named in prose
                start, end = offset + tokens[first].start(), offset + tokens[last].end()
                end -= len(tokens[last][0]) - len(tokens[last][0].rstrip(".,;:"))
                if not self._taken(start):
                    self.spans.append((start, end))
                    yield _Found(start, end, "congruence")

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

    def code_spans(self) -> Iterator[_Found]:
        """An assignment set as inline code in Markdown prose: `` `MTTR = Downtime / Incidents` ``;
        or any equation a math role marks (reStructuredText `` :math:`DFI_C = \\frac{1}{DMTBF_C}` ``):
        the markup is the evidence, so its right side need not look like an expression."""
        for index in range(len(self.lines)):
            if not self.free(index):
                continue
            for match in _CODE_SPAN.finditer(self.text, *self.lines[index]):
                start, end = _strip(self.text, *match.span("body"))
                body = self.text[start:end]
                if self.text.endswith(_MATH_ROLE, 0, match.start()):
                    if (equation := _ROLE_EQUATION.fullmatch(body)) is not None:
                        self.spans.append((start, end))
                        lhs, rhs = (_strip(self.text, start + a, start + b) for a, b in equation.regs[1:3])
                        yield _Found(start, end, "code_span", lhs, rhs)
                    continue
                if ";" in body or _CONTROL.match(body):
                    continue
                assignment = _NAME_LINE.fullmatch(self.text, start, end)
                if not assignment or not self._is_name(assignment["lhs"]):
                    assignment = _CODE_LINE.fullmatch(self.text, start, end)
                if assignment and self.is_expression(assignment["rhs"], tight=True):
                    self.spans.append((start, end))
                    yield _Found(start, end, "code_span", assignment.span("lhs"), assignment.span("rhs"))

    def inline(self) -> Iterator[_Found]:
        for index in range(len(self.lines)):
            if not self.free(index):
                continue
            start, end = self.lines[index]
            for match in _INLINE.finditer(self.text, start, end):
                if self._taken(match.start()):
                    continue
                rhs_end = match.end("rhs")
                while rhs_end > match.start("rhs") and self.text[rhs_end - 1] in ".,'":
                    rhs_end -= 1
                value = self.text[match.start("rhs"):rhs_end]
                if self.text[rhs_end:rhs_end + 1] == "=" or not self.is_expression(value, tight=True):
                    continue
                self.spans.append((match.start(), rhs_end))
                yield _Found(match.start(), rhs_end, "inline", match.span("lhs"), (match.start("rhs"), rhs_end))

    def prose_expressions(self) -> Iterator[_Found]:
        """A symbolic expression in parentheses inside running text: `… fails in all regions
        is ((1 − N) \\^ R).` Its operands are symbols (`N`, `L1`) and numbers, at least one a
        symbol, joined by an operator with space around it (a Markdown-escaped `\\^`, `\\*`
        too); a call's arguments (`f(a - b)`, `W<sub>c</sub>(t + d)`), one group of a longer
        expression (`(L x A)+(…`), a pair (`(x, y)`), a word (`(TCP/IP)`, `(see 4 - 5)`) and a
        group of numbers only (`(1 − 0.9995)`, a worked example) are not one."""
        for index in range(len(self.lines)):
            if not self.free(index):
                continue
            start, end = self.lines[index]
            for group_start, group_end in _outer_groups(self.text, start, end):
                before, after = self.text[max(group_start - 1, start):group_start], self.text[group_end:group_end + 1]
                continues = index > 0 and not self.text[start:group_start].strip() \
                    and self.trailing_operator.search(self.line(index - 1)) is not None
                if self._taken(group_start) or (before and not re.match(r"[\s\"'“‘(\[]", before)) \
                        or re.match(rf"{_SPACED_OPERATOR}|\w", after) or continues:
                    continue  # a call's arguments, or one group of a longer expression
                body = self.text[group_start + 1:group_end - 1].replace("\\", "")
                operands = [o for o in _OPERAND.findall(body) if o not in self.multiply_words]
                if not re.search(rf"\s(?:{_SPACED_OPERATOR}|x)\s", body) or not operands \
                        or not all(_NUMERIC.fullmatch(o) or _PROSE_SYMBOL.fullmatch(o) for o in operands) \
                        or not any(_PROSE_SYMBOL.fullmatch(o) for o in operands):
                    continue
                self.spans.append((group_start, group_end))
                yield _Found(group_start, group_end, "prose_expression")

    def _taken(self, offset: int) -> bool:
        return any(start <= offset < end for start, end in self.spans)

    # -- shared tests --------------------------------------------------------------------------
    def _continued(self, index: int, first: int, limit: int | None = None) -> int:
        """The last line of a formula starting on line `index`: a line ending on an operator
        continues, and so does one followed by a deeper-indented line starting with one, or by
        any line starting with a multiplication (`x (P-R)`)."""
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
            if not (ends_on_operator or leads_with_operator or self.leading_product.match(next_line)):
                break
            last = following
        return last

    def is_expression(self, value: str, tight: bool = False, displayed: bool = False) -> bool:
        """Whether a right side computes: operands joined by operators (not a legend's prose,
        not a worked example's numbers). A `displayed` right side (a fence's line) may name
        its operands at greater length: nothing around it is prose."""
        flat = " ".join(value.split())
        note = _TRAILING_NOTE.search(flat)
        if note and not self.spaced_operator.search(note[0]):
            flat = flat[:note.start()]  # `(BCM/jam)`, `(initcwnd)`: a unit or a remark, not a term
        if not flat or " = " in flat or "==" in flat:
            return False  # a chained `=` is a worked example
        if not any(self.is_symbol(o) for o in _OPERAND.findall(flat)):
            return False  # numbers and units only: a worked example or a constant
        if ", " in _without_parentheses_content(flat):
            return False  # an apposition: a legend's prose
        if self.spaced_operator.search(flat):
            # an operand is a name, not a sentence: `2 * SMSS is used when the …` is prose
            operands = re.split(r"[()]", self.spaced_operator.sub("(", flat))
            longest = _MAX_DISPLAYED_OPERAND_WORDS if displayed else _MAX_NAME_WORDS
            return all(len(operand.split()) <= longest for operand in operands)
        if _SYMBOL_PRODUCT.fullmatch(flat):
            return True
        if _PROSE.search(_without_parentheses_content(flat) if tight else flat):
            return False  # words side by side: prose (an identifier's call may hold a phrase)
        return bool(_GLUED_OPERATOR.search(flat) or _GLUED_TIMES.search(flat) or _MATH_CALL.search(flat)
                    or self.spaced_call.search(flat))

    def is_symbol(self, operand: str) -> bool:
        """Whether an operand names a quantity: not a number, not a unit (`percent`, `mSv`,
        a pack's data) nor a number written with its unit (`Rp8.874.300`, `50mSv`), not the
        multiplication word."""
        if operand in self.multiply_words or operand in self.units or _NUMERIC.fullmatch(operand):
            return False
        if self.quantity.fullmatch(operand):
            return False
        return re.match(rf"[(∆Δ\\]?{_WORD}", operand) is not None

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
    each clause `Symbol verb meaning` of the paragraph the opener starts. The paragraph is
    prose, read through the chunk's layout-proof reading (`candidates.reading`): it goes on
    over a blank line or page furniture the reading reads through, its words may be split by
    a line-break hyphen, and each clause is mapped back to a verbatim slice of the chunk."""
    last, following = index, index + 1
    while following < len(reader.lines):
        while following < len(reader.lines) and reader.read_through(following):
            following += 1
        if following >= len(reader.lines) or not reader.free(following):
            break
        last, following = following, following + 1
    reading = reader.reading
    start, end = reading.position(reader.lines[index][0]), reading.position(reader.lines[last][1])
    prose = reading.text
    conjunctions = "|".join(re.escape(w) for w in reader.conjunctions) or "(?!)"
    clause = re.compile(rf"(?:^\s*\w+\s+|(?<=[,;])\s*(?:(?:{conjunctions})\s+)?|\s(?:{conjunctions})\s+)"
                        rf"\*?(?P<symbol>[^\W\d][\w,]*?)\*?\s+(?:{verbs})\s+"
                        rf"(?P<meaning>[^,;]+?)(?=\s*[,;]|\.\s|\.\Z|\Z)", re.IGNORECASE | re.MULTILINE)
    found = []
    for match in clause.finditer(prose, start, end):
        if len(match["symbol"]) <= 8:
            meaning = _strip(prose, *match.span("meaning"))
            found.append((reading.bounds(*match.span("symbol")), reading.bounds(*meaning)))
    return found


def _is_index_row(line: str) -> bool:
    """A row of a sum's limits or indices: at most three short tokens (`n`, `i =1   i`, `{256}`)."""
    tokens = line.split()
    return 0 < len(tokens) <= 3 and all(len(t) <= 5 for t in tokens)


def _is_math_token(token: str) -> bool:
    return bool(token) and _MATH_TOKEN.fullmatch(token) is not None


def _number_bounds(text: str, equation: re.Match[str] | None) -> Bounds | None:
    return _strip(text, *equation.span()) if equation else None


def _strip_sentence(text: str, start: int, end: int) -> Bounds:
    """`text[start:end]` trimmed of space and of a sentence's full stop (`… >> n.`, `… ≤ 79.`;
    an ellipsis keeps its dots)."""
    start, end = _strip(text, start, end)
    if end - start > 1 and text[end - 1] == "." and text[end - 2] != ".":
        return _strip(text, start, end - 1)
    return start, end


def _outer_groups(text: str, start: int, end: int) -> Iterator[Bounds]:
    """The outermost balanced `( … )` groups of `text[start:end]`, parentheses included."""
    depth, opened = 0, start
    for offset in range(start, end):
        char = text[offset]
        if char == "(":
            opened = offset if depth == 0 else opened
            depth += 1
        elif char == ")" and depth:
            depth -= 1
            if depth == 0:
                yield opened, offset + 1


def _word_pattern(words: Sequence[str]) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)) or "(?!)"
    return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.IGNORECASE)


def _without_parentheses_content(value: str) -> str:
    while (reduced := re.sub(r"\([^()]*\)|\[[^\[\]]*\]|\{[^{}]*\}", "", value)) != value:
        value = reduced
    return value


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))
