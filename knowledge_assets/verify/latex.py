"""`latex_verification` (contract §7): which guarantee a formula's `formula_latex` carries.

`verified` when the transcription is found in the chunk's LaTeX markup under a notation-aware
canonical form; `unverified_operator` when the markup writes multiplication as a bare `x`
(MinerU's pipeline backend does), which no canonical form can tell from a variable named x;
`unverified_no_markup` when there is no markup to check against (PDF text layers, plain
Markdown); null when there is no `formula_latex` at all. Set by code, never by the model.

A chunk's markup is its `Chunk.latex` (MinerU's equations) or, in Markdown, the LaTeX it
writes itself: kramdown/GitHub math fences (`~~~ math`, ```` ```math ````) and `$$ … $$` /
`\\[ … \\]` displays (`math_markup`).

A formula a PDF text layer damaged cannot be transcribed at all (`text_layer_damage`): a
symbol font whose glyphs have no Unicode meaning comes out as private-use code points (ℓ as
U+F06C), and a typeset equation's glyphs may come out in drawing order rather than reading
order (`)(}256{ 0 xσ = …` for σ₀²⁵⁶(x), `512mod4481 ≡++ kℓ` for ℓ + 1 + k ≡ 448 mod 512). The
contract's enum has no value for that, and none is invented: such a text is no
`formula_latex` (so its `latex_verification` is null), the formula keeps its verbatim span,
and the reason the text was refused as a transcription is what `rejected.json` records.
A 2-D fraction layout (a numerator row, a bar row of dashes, a denominator row) may be
transcribed to a linear `\\frac{…}{…}` form beside its verbatim span (`transcribes_layout`): the
check is that the transcription holds exactly the layout's symbols, numbers and operators and
one `\\frac` per bar — not that each numerator sits over the right bar, which only the
markup a text layer lacks could show — so it stays `unverified_no_markup`.

Damage a text cannot show — an exponent set flat on the line (`Z=232X + Y` for Z = 2³²X + Y)
reads as a coefficient — is not detected: such a transcription stays `unverified_no_markup`,
which is what it is.
"""

from __future__ import annotations

import re
from collections import Counter

from knowledge_assets.contracts import LatexVerification
from knowledge_assets.verify.spans import is_verbatim

_MULTIPLY = re.compile(r"\\times|\\cdot|\\ast|×|·|\*")
_WRAPPERS = re.compile(r"\\(?:text|mathrm|mathit|mathbf|operatorname|textit|textbf)\s*\{([^{}]*)\}")
_FRAC = re.compile(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")
_SIZING = re.compile(r"\\(?:left|right|big|Big|bigg|Bigg)\b")
_SPACING = re.compile(r"\\[,;:! ]|~|\\quad|\\qquad")
_BARE_X_PRODUCT = re.compile(r"(?<=[\w})\]])\s+x\s+(?=[\w\\({\[])")


_MATH_FENCE = re.compile(r"^[ \t]*(?P<mark>`{3,}|~{3,})[ \t]*(?:math|latex|tex|katex)\b[^\n]*\n"
                         r"(?P<body>.*?)^[ \t]*(?P=mark)[ \t]*$",
                         re.MULTILINE | re.DOTALL | re.IGNORECASE)
_DISPLAY_MATH = re.compile(r"\$\$(?P<body>.+?)\$\$|\\\[(?P<bracketed>.+?)\\\]", re.DOTALL)


_PRIVATE_USE = re.compile(r"[\uE000-\uF8FF]")
# The first brackets of the text a pair written backwards: `)(`, `),,(`, `}256{`.
_BACKWARDS_PAIR = re.compile(r"^[^()\[\]{}]*(?P<pair>\)[^()\[\]{}]*\(|\][^()\[\]{}]*\[|\}[^()\[\]{}]*\{)")
# ASCII `-` is left out: a run of it is a fraction bar.
_OPERATORS_RUN_TOGETHER = re.compile(r"[+−=≡×⊕∧∨¬]{3,}|≡[+−=×⊕∧∨]")


def text_layer_damage(text: str) -> str | None:
    """What shows that a formula's text is a damaged rendering rather than the formula, or
    None: a private-use glyph, a bracket pair written backwards (the first brackets are `)(`
    or `}…{`: glyphs in drawing order), or operators run together with no operand between."""
    if glyph := _PRIVATE_USE.search(text):
        return (f"the text holds the private-use glyph U+{ord(glyph[0]):04X}: a symbol font's character "
                "that has no Unicode meaning")
    if pair := _BACKWARDS_PAIR.search(text):
        return f"a bracket pair is written backwards ({pair['pair']!r}): the glyphs are in drawing order"
    if run := _OPERATORS_RUN_TOGETHER.search(text):
        return f"operators run together with no operand between ({run[0]!r}): the glyphs are out of order"
    return None


_LAYOUT_BAR = re.compile(r"[-_—]{4,}")
_LAYOUT_MARKUP = re.compile(r"\\(?:frac|mathrm|text)\b|[{}]")


def _layout_tokens(text: str) -> Counter[str]:
    text = text.replace("\\times", " x ").replace("\\%", "%")
    return Counter(_LAYOUT_MARKUP.sub(" ", text).split())


def transcribes_layout(formula_latex: str, layout: str) -> bool:
    """Whether a linear transcription (`D = \\frac{dE}{dm}`) carries a 2-D fraction layout's
    every symbol, number and operator, and one `\\frac` per bar of the layout."""
    bars = len(_LAYOUT_BAR.findall(layout))
    if not bars or formula_latex.count("\\frac") != bars:
        return False
    return _layout_tokens(formula_latex) == _layout_tokens(_LAYOUT_BAR.sub(" ", layout))


def math_markup(text: str) -> str | None:
    """The LaTeX a Markdown text writes in math fences and `$$` displays, one block a line
    group; None when it writes none."""
    blocks = [m[m.lastgroup].strip() for pattern in (_MATH_FENCE, _DISPLAY_MATH) for m in pattern.finditer(text)]
    return "\n".join(block for block in blocks if block) or None


def _grouped(operand: str) -> str:
    """`\\frac{a+b}{c}` is `(a+b)/c`; `\\frac{Total Hours}{n}` is `Total Hours/n`, as text writes it."""
    return f"({operand})" if re.search(r"[-+*/=]|\\times|\\cdot", operand) else operand


def canonical_latex(latex: str) -> str:
    text = _WRAPPERS.sub(r"\1", latex)
    while (replaced := _FRAC.sub(lambda m: f"{_grouped(m[1])}/{_grouped(m[2])}", text)) != text:
        text = replaced
    text = _SIZING.sub("", text)
    text = _SPACING.sub(" ", text)
    text = _MULTIPLY.sub("*", text)
    text = text.replace("\\%", "%").replace("$", "").replace("{", "").replace("}", "")
    return re.sub(r"\s+", "", text)


def has_bare_x_multiplication(markup: str) -> bool:
    return bool(_BARE_X_PRODUCT.search(markup))


def latex_verification(formula_latex: str | None, chunk_latex: str | None) -> LatexVerification | None:
    if not formula_latex:
        return None
    if not chunk_latex:
        return "unverified_no_markup"
    if canonical_latex(formula_latex) in canonical_latex(chunk_latex):
        return "verified"
    if has_bare_x_multiplication(chunk_latex):
        return "unverified_operator"
    return "unverified_no_markup"


def transcribes_plain_text(formula_latex: str, text: str) -> bool:
    """Whether a LaTeX transcription says what a plain-text formula line says, reading a bare
    `x` between operands as multiplication — safe in running text, unlike in markup."""
    def as_product(value: str) -> str:
        return canonical_latex(_BARE_X_PRODUCT.sub(" * ", value))

    return as_product(formula_latex) in as_product(text)


def is_transcription(formula_latex: str, span: str, chunk_text: str, chunk_latex: str | None) -> bool:
    """Whether `formula_latex` is transcribed, never derived (contract §7): verbatim in its
    chunk, or the same formula as its own verbatim span — in notation-aware form, or a 2-D
    fraction layout's linear form —, or found in the chunk's markup (its `latex`, else the math
    its Markdown writes). The span guard and the stored check both ask this."""
    return (
        is_verbatim(formula_latex, chunk_text)
        or (is_verbatim(span, chunk_text)
            and (transcribes_plain_text(formula_latex, span) or transcribes_layout(formula_latex, span)))
        or latex_verification(formula_latex, chunk_latex or math_markup(chunk_text)) == "verified"
    )
