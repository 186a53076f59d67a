"""The registry of genre conventions: every finder's cue, named with the kind of candidate it
finds, the genres that write it and what it recognises — one entry per convention, so a new
layout is one entry here beside its finder and its test, and the corpus evaluation can say
which conventions fired on which documents (`evaluation/conventions.py`).

A candidate's convention is its cue, except for the statutory defining sentence, whose cue is
the copula that found it (`adalah`, `means`, `yaitu`: the offline glossary ranks by it), all
of them one convention.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from knowledge_assets.candidates.definitions import find_definitions
from knowledge_assets.candidates.formulas import find_formulas
from knowledge_assets.candidates.model import Candidate, CandidateKind
from knowledge_assets.candidates.packs import cues
from knowledge_assets.candidates.rules import find_rules
from knowledge_assets.candidates.source import SourceChunk

UNREGISTERED = "unregistered"


@dataclass(frozen=True)
class Convention:
    kind: CandidateKind
    name: str
    genre: str
    recognises: str

    @property
    def key(self) -> str:
        return f"{self.kind}/{self.name}"


_REG, _SPEC, _MD, _STD, _ALL = "regulation", "specification", "web markdown", "standard", "any"

CONVENTIONS: tuple[Convention, ...] = (
    Convention("definition", "statutory", _REG, "`X adalah …`, `X means …`: the Ketentuan Umum defining sentence"),
    Convention("definition", "introduced", _REG, "`X yang selanjutnya disingkat Y adalah …`"),
    Convention("definition", "explained", _REG, "the Penjelasan's `Yang dimaksud dengan \"X\" adalah …`"),
    Convention("definition", "referenced", _REG, "`Besaran nilai X sebagaimana dimaksud … merupakan …`"),
    Convention("definition", "label", _ALL, "a glossary line `Term: definition` (RFC lists, bullets, kramdown)"),
    Convention("definition", "heading", _ALL, "a section whose heading names the term its first sentence defines"),
    Convention("definition", "legend", _ALL, "a formula's legend, `Keterangan:` / `where:` `SYM = meaning`"),
    Convention("definition", "glossary_table", _MD, "a table whose header names a term and a definition column"),
    Convention("definition", "markup_label", _MD, "a bold or italic label, `- **Term**: …`, `**Term:** …`"),
    Convention("definition", "heading_label", _MD, "a heading naming the term, then `**Definition**:` / `What is it?`"),
    Convention("definition", "emphasised_subject", _MD, "`*X* represents …`, `An *x* is a …` in running text"),
    Convention("definition", "heading_subject", _MD, "a section's first sentence `X is a/the …` of its heading's X"),
    Convention("definition", "column", _STD, "a two-column glossary under a glossary heading, `Bit   A binary …`"),
    Convention("definition", "hanging", _SPEC, "the RFC hanging entry `Term:` and its indented paragraph"),
    Convention("definition", "variable", _SPEC, "a pseudo-code variable glossed in prose, `MaxEntries is the …`"),
    Convention("definition", "opening", _SPEC, "a section's first sentence restating its heading as its subject"),
    Convention("definition", "generic", _ALL, "the genus-and-difference sentence `A/An X is a/an Y …`"),
    Convention("definition", "quoted", _ALL, "a sentence opening with the quoted term, `\"X\" is the …`"),
    Convention("definition", "fragment", _ALL, "a definition its chunk's end cuts short: names its term only"),
    Convention("definition", "appositive", _SPEC, "a term glossed in apposition, `a draining index, which is the …`"),
    Convention("definition", "sentence_subject", _ALL, "a sentence opening with the term and a defining predicate "
               "(`X is/means/measures …`, `X adalah/merupakan …`), kept by the learned scorer"),
    Convention("definition", "sentence_naming", _ALL, "a sentence naming a term inside it (`called _x_`, `known as`, "
               "`we call the \"x\"`, `disebut`), kept by the learned scorer"),
    Convention("definition", "sentence_marked", _ALL, "a quoted or emphasised term and a defining predicate inside a "
               "sentence (`This \"x\" measures …`), kept by the learned scorer"),
    Convention("definition", "sentence_label", _ALL, "a sentence opening with the term and a colon "
               "(`x.cnt:  Window …`), kept by the learned scorer"),
    Convention("definition", "sentence_column", _ALL, "a two-column glossary line, the term, a wide gap and its "
               "meaning (`bit      A binary digit …`), kept by the learned scorer"),
    Convention("definition", "sentence_apposition", _ALL, "a symbol set off by commas after its name "
               "(`Konsentrasi …, Ca, pada …`), kept by the learned scorer"),
    Convention("formula", "assignment", _ALL, "a line `LHS = expression`"),
    Convention("formula", "code_fence", _MD, "an equation in a fenced code block"),
    Convention("formula", "display", _SPEC, "an indented display equation of a plain-text specification"),
    Convention("formula", "fraction_layout", _REG, "a two-dimensional fraction laid out over several lines"),
    Convention("formula", "inline", _SPEC, "an equation inside a sentence"),
    Convention("formula", "latex_block", _MD, "a LaTeX block (`~~~ math`, `$$ … $$`)"),
    Convention("formula", "lead_in", _ALL, "the equation a lead-in announces (`dihitung dengan rumus:`)"),
    Convention("formula", "lead_in_detached", _REG, "an empty lead-in whose equation follows the next clause"),
    Convention("formula", "sum_layout", _STD, "a sum whose Σ and limits fall on lines of their own"),
    Convention("formula", "numbered_equation", _STD, "an equation numbered at the margin, `(4.6)`"),
    Convention("formula", "congruence", _STD, "a congruence around `≡` (`l + 1 + k ≡ 448 mod 512`)"),
    Convention("formula", "tariff_cell", _REG, "a tariff table's formula cell after `Rp`/`USD`, flattened"),
    Convention("formula", "code_span", _MD, "an equation in an inline code span or a math role "
               "(`` `X = expr` ``, `` :math:`X = …` ``)"),
    Convention("formula", "prose_expression", _MD, "a symbolic expression in parentheses inside prose"),
    Convention("rule", "conditional", _ALL, "a sentence opened by `If/When/Apabila/Jika …`"),
    Convention("rule", "dalam_hal", _REG, "`Dalam hal …, (maka) …`"),
    Convention("rule", "condition_after", _ALL, "the requirement first, its condition after (`X MUST … if …`)"),
    Convention("rule", "proviso", _ALL, "`… dengan syarat …`, `provided that …`"),
    Convention("rule", "circumstance", _ALL, "a requirement opened by a circumstance phrase (`To avoid …, X MUST`)"),
    Convention("rule", "commencement", _REG, "`X mulai berlaku pada …`"),
    Convention("rule", "tier", _REG, "an item of a tiered schedule (`a. 1% untuk keterlambatan …`)"),
    Convention("rule", "anaphora", _SPEC, "`If A, then B. In this case, X MUST …`"),
    Convention("rule", "deadline", _REG, "`X disampaikan paling lambat …`"),
    Convention("rule", "modal", _ALL, "an obligation or prohibition (MUST, wajib, harus, dilarang)"),
    Convention("rule", "computation", _ALL, "how a value is computed (`X dihitung …`, `X is calculated …`)"),
    Convention("rule", "temporal", _ALL, "a requirement opened by a time clause (`After …,`, `Sebelum …,`)"),
    Convention("rule", "stage", _REG, "`Selama tahapan X …`: a requirement of a stage"),
    Convention("rule", "degree", _MD, "what a degree of a value indicates (`A low X might indicate …`)"),
    Convention("rule", "contrast", _MD, "two readings set against each other (`Fast …, while slow …`)"),
    Convention("rule", "correlative", _MD, "`the faster …, the faster …`"),
    Convention("rule", "qualified_subject", _SPEC, "a subject restricted by a relative clause (`An X that … MUST`)"),
    Convention("rule", "rate_tier", _REG, "a royalty tier by price (`HBA > USD90 per ton` → a rate)"),
    Convention("rule", "tariff_row", _REG, "a tariff table's row label and its cell (`Denda dalam hal …` → tariff)"),
    Convention("rule", "branch", _SPEC, "a pseudo-code branch `if X == 0:`"),
    Convention("rule", "step", _SPEC, "a numbered algorithm step (`When the timer expires, do the following: (5.4)`)"),
)
REGISTRY: dict[str, Convention] = {c.key: c for c in CONVENTIONS}


@cache
def _copulas() -> frozenset[str]:
    return frozenset(w.lower() for w in cues("definitions")["copulas"])


def convention_of(candidate: Candidate) -> str:
    """The registry key of the convention that found `candidate`; `<kind>/unregistered:<cue>`
    for a cue no entry names (the corpus test lists them)."""
    name = "statutory" if candidate.kind == "definition" and candidate.cue.lower() in _copulas() else candidate.cue
    key = f"{candidate.kind}/{name}"
    return key if key in REGISTRY else f"{candidate.kind}/{UNREGISTERED}:{candidate.cue}"


def knowledge_candidates(chunks: Sequence[SourceChunk]) -> list[Candidate]:
    """Every definition, formula and rule candidate of a document's chunks."""
    return [*find_definitions(chunks), *find_formulas(chunks), *find_rules(chunks)]
