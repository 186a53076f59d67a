"""`latex_verification` (contract §7): which guarantee a formula's `formula_latex` carries.

`verified` when the transcription is found in the chunk's LaTeX markup under a notation-aware
canonical form; `unverified_operator` when the markup writes multiplication as a bare `x`
(MinerU's pipeline backend does), which no canonical form can tell from a variable named x;
`unverified_no_markup` when there is no markup to check against (PDF text layers, plain
Markdown); null when there is no `formula_latex` at all. Set by code, never by the model.

A chunk's markup is its `Chunk.latex` (MinerU's equations) or, in Markdown, the LaTeX it
writes itself: kramdown/GitHub math fences (`~~~ math`, ```` ```math ````) and `$$ … $$` /
`\\[ … \\]` displays (`math_markup`).
"""

from __future__ import annotations

import re

from knowledge_assets.contracts import LatexVerification

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
