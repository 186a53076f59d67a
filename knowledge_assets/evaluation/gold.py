"""Gold annotations: `eval_assets/gold/<doc_id>.json`, written by reading the document, never
the pipeline's output.

    {"doc_id": "...",
     "terms":    [{"canonical": "...", "abbreviation": "..." | null, "definition": "..." | null}],
     "formulas": [{"name": "...", "formula": "...", "variables": ["symbol", ...]}],
     "rules":    [{"rule_type": "calculation" | "interpretation", "statement": "..." | null,
                   "condition": "..." | null, "consequence": "..." | null}],
     "domain":   {"title": "..." | null, "purpose": "..." | null}}

Only "doc_id" and "terms" are required. A missing "formulas", "rules" or "domain" key means
nobody annotated that part, so it is not scored; an empty list means the document has none.

How the sample gold was annotated (apply the same to a new document):
- Every text is copied verbatim from the document as a reader reads it (page headers and
  footers left out).
- terms: the document's terms; `definition` is the sentence or clause the document gives as
  the term's definition, null when it gives none.
- formulas: every equation the document states for computing a value, `formula` as written
  (a legend line that computes, e.g. "Loading Time = jumlah pass x CT Loading (menit)", and a
  formula stated inside prose count; worked examples with numbers do not). `name` is what the
  formula computes as the document names it (its left-hand side); `variables` are the
  symbols of the right-hand side, constants such as 3600 or 100% left out.
- rules: one per sentence (or list item) that says how a value is computed, aggregated,
  rounded or formatted; which units, periods or data it covers and where the data comes from;
  how events are recorded, classified or reported; or what a value indicates and what to
  conclude or do when a condition holds. Not rules: definitions, equations, worked examples,
  the document's purpose and "is used as the basis for" lists, assignments of responsibility,
  document control (revisions, approvals, review cycle, record retention).
  `statement` is the whole sentence. A sentence with one explicit conditional clause (if,
  when, where / jika, apabila, bila) also gets `condition` (from the conditional word to the
  end of the clause) and `consequence` (the rest, with "maka" when present, without the final
  full stop). `rule_type` is `interpretation` when the rule says what a value indicates or
  what to conclude or do when a value meets a condition, else `calculation`; where the
  document itself sorts its rules (a "Recording Rules" / "Interpretation Rules" section), its
  sorting wins.
- domain: the document's title and its own statement of purpose.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from knowledge_assets.errors import KnowledgeError, read_json

GOLD_DIR = Path(__file__).resolve().parents[2] / "eval_assets" / "gold"
RULE_TYPES = ("calculation", "interpretation")


class GoldError(KnowledgeError, ValueError):
    """A gold file that cannot be read as gold; the message names the file."""


@dataclass(frozen=True)
class GoldTerm:
    canonical: str
    abbreviation: str | None
    definition: str | None


@dataclass(frozen=True)
class GoldFormula:
    name: str
    formula: str
    variables: tuple[str, ...]


@dataclass(frozen=True)
class GoldRule:
    rule_type: str
    statement: str | None
    condition: str | None
    consequence: str | None


@dataclass(frozen=True)
class GoldDomain:
    title: str | None
    purpose: str | None


@dataclass(frozen=True)
class Gold:
    doc_id: str
    terms: tuple[GoldTerm, ...]
    # None: that part of the document is not annotated, so it is not scored.
    formulas: tuple[GoldFormula, ...] | None = None
    rules: tuple[GoldRule, ...] | None = None
    domain: GoldDomain | None = None


def gold_path(doc_id: str, gold_dir: Path = GOLD_DIR) -> Path:
    return gold_dir / f"{doc_id}.json"


def load_gold(doc_id: str, gold_dir: Path = GOLD_DIR) -> Gold | None:
    """The document's gold, or None when nobody has annotated it."""
    path = gold_path(doc_id, gold_dir)
    if not path.is_file():
        return None
    data = read_json(path, GoldError, "gold file")
    if not isinstance(data, dict) or data.get("doc_id") != doc_id:
        found = data.get("doc_id") if isinstance(data, dict) else None
        raise GoldError(f"{path}: holds doc_id {found!r}, expected {doc_id!r}")
    try:
        return Gold(
            doc_id,
            tuple(GoldTerm(t["canonical"], t.get("abbreviation"), t.get("definition")) for t in data.get("terms", [])),
            _optional(data, "formulas", _formulas),
            _optional(data, "rules", _rules),
            _optional(data, "domain", lambda d: GoldDomain(d.get("title"), d.get("purpose"))),
        )
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        raise GoldError(f"{path}: malformed gold ({type(exc).__name__}: {exc})") from None


def _optional(data: dict, key: str, read):
    return read(data[key]) if key in data else None


def _formulas(items: list[dict]) -> tuple[GoldFormula, ...]:
    return tuple(GoldFormula(f["name"], f["formula"], tuple(f["variables"])) for f in items)


def _rules(items: list[dict]) -> tuple[GoldRule, ...]:
    rules = tuple(GoldRule(r["rule_type"], r.get("statement"), r.get("condition"), r.get("consequence")) for r in items)
    for number, rule in enumerate(rules, start=1):
        if rule.rule_type not in RULE_TYPES:
            raise ValueError(f"rule {number} has rule_type {rule.rule_type!r}, expected one of {RULE_TYPES}")
        if not (rule.statement or (rule.condition and rule.consequence)):
            raise ValueError(f"rule {number} needs a statement, or a condition and a consequence")
    return rules
