"""The development corpus's scorer (`score.py` beside the corpus) as part of the package, so
`knowledge-assets eval --corpus` scores with it in a clone that has no corpus. Standard
library only; same normalisation, same thresholds, same figures (tests/evaluation/
test_corpus_scores.py loads the corpus's own score.py and asserts equal results).

It scores the files `knowledge-assets export` writes for one document (glossary.json,
formulas.json, interpretation_pack.json, review_queue.json) against a corpus gold file
(`{"doc", "language", "terms": [{"canonical", "abbreviation", "definition_verbatim",
"aliases"?}], "formulas": [{"name", "verbatim"}], "rules": [{"condition_verbatim",
"consequence_verbatim"}]}`). A missing file counts as an empty list.

The figures:

    term_recall           gold terms some glossary entry names (`term` or `full_name` equals the
                          canonical, abbreviation or an alias after `norm_name`)
    term_recall_strict    the same without aliases
    term_recall_lenient   the same, output names also split at "Full Name (ABBR)" and plural 's' folded
    term_recall_top2n     gold terms among the first max(2N, 20) term rows of the review queue (by rank;
                          without a queue, the glossary by mention_count)
    definition_recall     gold definitions some matching entry states with token-F1 >= 0.6
    definition_precision  of entries with a definition that match a gold term with one, those with
                          token-F1 >= 0.6; None when nothing was checkable
    formula_recall        gold formulas some output formula overlaps >= 0.6 (windowed token-F1 on
                          operator-normalised tokens of `formula_latex`, "name = latex" and provenance
                          spans)
    rule_recall           gold rules ("condition consequence") some output rule overlaps >= 0.6 (its
                          condition+consequence, statement or provenance span)
    rule_pair_recall      gold rules whose condition and consequence both match one output rule's
                          (>= 0.6 each)

A rate is None when the gold has nothing to measure it on (no formulas, no rules, ...).
"Token overlap" is multiset token-F1; a candidate much longer than the gold (over 1.5x its
tokens, up to 400) is compared by its best window of 1x, 1.25x or 1.5x the gold length (a gold
under 6 tokens needs all its tokens within n+1 consecutive candidate tokens).
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

THRESHOLD = 0.6
WINDOW_CAP = 400
# The rates, in the order the table prints them.
RATES = (
    "term_recall",
    "term_recall_top2n",
    "definition_recall",
    "definition_precision",
    "formula_recall",
    "rule_recall",
    "rule_pair_recall",
    "term_recall_strict",
    "term_recall_lenient",
)
OUTPUT_FILES = {
    "glossary": "glossary.json",
    "formulas": "formulas.json",
    "rules": "interpretation_pack.json",
    "review_queue": "review_queue.json",
}


@dataclass(frozen=True)
class Outputs:
    """One document's exported rows; None where the file does not exist."""

    glossary: list | None = None
    formulas: list | None = None
    rules: list | None = None
    review_queue: list | None = None


@dataclass(frozen=True)
class CorpusScores:
    """The figures, keyed as score.py prints them, and what was missed (score.py --verbose)."""

    figures: dict
    misses: list[str] = field(default_factory=list)
    # Which gold items the outputs recovered, by their index in the gold's list: "definition"
    # indexes `terms`, "formula" `formulas`, "rule" `rules` (what the convention report credits).
    recovered: dict[str, frozenset[int]] = field(default_factory=dict)


def _as_list(obj: object) -> list:
    # An object instead of a list is searched for its first list value ({"items": [...]}).
    if obj is None:
        return []
    if isinstance(obj, list):
        return obj
    if isinstance(obj, dict):
        for value in obj.values():
            if isinstance(value, list):
                return value
        return [obj]
    return []


def read_outputs(directory: Path) -> Outputs:
    """The exported files of one document, as score.py reads them."""
    loaded = {}
    for name, file_name in OUTPUT_FILES.items():
        path = directory / file_name
        loaded[name] = _as_list(json.loads(path.read_text(encoding="utf-8"))) if path.exists() else None
    return Outputs(**loaded)


def _strings_in(obj: object, keys=("span", "text", "quote", "verbatim", "source_text")) -> list[str]:
    """Text of a provenance value: a string, a dict with one of `keys`, or a list of those."""
    if obj is None:
        return []
    if isinstance(obj, str):
        return [obj]
    found: list[str] = []
    if isinstance(obj, dict):
        for key in keys:
            if key in obj:
                found.extend(_strings_in(obj[key], keys))
    elif isinstance(obj, list):
        for item in obj:
            found.extend(_strings_in(item, keys))
    return found


def _str(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return " ".join(_str(v) for v in value)
    return str(value)


# ---------------------------------------------------------------- normalisation

_QUOTES = {"\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
           "\u201c": '"', "\u201d": '"', "\u201e": '"', "`": "'", "\u00b4": "'",
           "\u2013": "-", "\u2014": "-", "\u2212": "-", "\u2010": "-", "\u2011": "-"}


def norm_text(value: object) -> str:
    text = unicodedata.normalize("NFKC", _str(value))
    text = "".join(_QUOTES.get(ch, ch) for ch in text).casefold()
    return re.sub(r"\s+", " ", text).strip()


def norm_name(value: object) -> str:
    """norm_text, without surrounding markdown emphasis and a trailing ':' or '.'."""
    name = norm_text(value).strip(" *_\t")
    return re.sub(r"[:.]+$", "", name).strip(" *_")


def word_tokens(value: object) -> list[str]:
    return re.findall(r"\w+", norm_text(value))


def _singular(name: str) -> str:
    return " ".join(w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in name.split(" "))


_LATEX_UNWRAP = (r"\\(?:text|mathrm|mathit|mathbf|mathsf|textit|textbf|textrm|operatorname|mbox|hbox|mathcal"
                 r"|boldsymbol)\s*\{([^{}]*)\}")
_LATEX_REPLACEMENTS = [
    (r"\\(?:times|cdot|ast)\b", " * "),
    (r"\\(?:div)\b", " / "),
    (r"\\(?:leftarrow|gets|coloneqq|Leftarrow|longleftarrow)\b", " = "),
    (r"\\(?:leq|le)\b", " <= "),
    (r"\\(?:geq|ge)\b", " >= "),
    (r"\\(?:neq|ne)\b", " != "),
    (r"\\prime\b", "'"),
    (r"\\%", "%"),
    (r"\\(?:left|right|big|Big|bigg|Bigg)\b", " "),
    (r"\\[,;:! ]", " "),
    (r"\\(?:quad|qquad)\b", " "),
    (r"\\([A-Za-z]+)", r" \1 "),  # \max -> max, \alpha -> alpha, \sum -> sum
]
_FRAC = re.compile(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")
_SYMBOLS = [("×", " * "), ("·", " * "), ("∙", " * "), ("⋅", " * "), ("÷", " / "), ("←", " = "), ("⟵", " = "),
            (":=", " = "), ("<-", " = "), ("≤", " <= "), ("≥", " >= "), ("≠", " != ")]


def _until_stable(text: str, step) -> str:
    previous = None
    while previous != text:
        previous, text = text, step(text)
    return text


def formula_tokens(value: object) -> list[str]:
    """Tokens of a formula with LaTeX and Unicode operators normalised to ASCII ones."""
    text = unicodedata.normalize("NFKC", _str(value))
    text = "".join(_QUOTES.get(ch, ch) for ch in text).replace("$", " ")
    text = _until_stable(text, lambda s: re.sub(_LATEX_UNWRAP, r" \1 ", s))
    text = _until_stable(text, lambda s: _FRAC.sub(r"(\1)/(\2)", s))  # \frac{a}{b} -> (a)/(b), innermost first
    for pattern, replacement in _LATEX_REPLACEMENTS:
        text = re.sub(pattern, replacement, text)
    for symbol, replacement in _SYMBOLS:
        text = text.replace(symbol, replacement)
    text = re.sub(r"(?<=\d),(?=\d)", ".", text)  # decimal comma
    text = re.sub(r"([a-z])([A-Z])", r"\1 \2", text)  # camelCase
    text = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", text)  # ABCWord
    text = text.replace("_", " ").replace("{", " ").replace("}", " ").casefold()
    text = re.sub(r"(?<=[\s(])x(?=\s)", " * ", " " + text + " ")  # a standalone x is a times sign
    return re.findall(r"\d+(?:\.\d+)?|[^\W\d_]+|<=|>=|!=|[+\-*/=<>%]", text)


# ---------------------------------------------------------------- overlap


def f1(candidate: list[str], gold: list[str]) -> float:
    """Multiset token-F1."""
    if not candidate or not gold:
        return 0.0
    common = sum((Counter(candidate) & Counter(gold)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(candidate), common / len(gold)
    return 2 * precision * recall / (precision + recall)


def windowed_f1(candidate: list[str], gold: list[str]) -> float:
    """token-F1 of the candidate's best window when it is much longer than the gold."""
    n, m = len(gold), len(candidate)
    if n == 0 or m == 0:
        return 0.0
    whole = f1(candidate, gold)
    if m <= 1.5 * n or m > WINDOW_CAP:
        return whole
    wanted = Counter(gold)
    if n < 6:
        # A short gold ("SRTT <- R") counts only when n+1 consecutive tokens hold all of it.
        width = n + 1
        for i in range(0, m - width + 1):
            if not (wanted - Counter(candidate[i:i + width])):
                return 1.0
        return whole
    if sum((Counter(candidate) & wanted).values()) / n < 0.4:  # no window can reach the threshold
        return whole
    widths = [w for w in sorted({n, math.ceil(1.25 * n), math.ceil(1.5 * n)}) if w <= m]
    return max(whole, best_window_f1(wanted, candidate, widths))


def best_window_f1(wanted: Counter, tokens: list[str], widths: Iterable[int]) -> float:
    """The best token-F1 of the gold tokens `wanted` against any window of `tokens` of one of
    `widths` tokens (0.0 when none shares a token). The overlap is kept up to date as each window
    slides, so a long text costs one pass per width."""
    n, best = sum(wanted.values()), 0.0
    for width in widths:
        window: Counter = Counter()
        common = 0
        for i, token in enumerate(tokens):
            if window[token] < wanted.get(token, 0):
                common += 1
            window[token] += 1
            if i >= width:
                leaving = tokens[i - width]
                window[leaving] -= 1
                if window[leaving] < wanted.get(leaving, 0):
                    common -= 1
            if i >= width - 1 and common:
                best = max(best, 2 * common / (width + n))
    return best


# ---------------------------------------------------------------- scoring


def gold_names(term: dict, aliases: bool = True) -> set[str]:
    names = [term.get("canonical"), term.get("abbreviation")]
    if aliases:
        names += term.get("aliases") or []
    return {norm_name(x) for x in names if x and norm_name(x)}


def entry_names(entry: dict, lenient: bool = False) -> set[str]:
    names = set()
    for raw in (entry.get("term"), entry.get("full_name")):
        if not raw:
            continue
        raw = _str(raw)
        names.add(norm_name(raw))
        if lenient and (m := re.match(r"^(.*?)\s*\(([^()]+)\)\s*$", raw)):
            names.add(norm_name(m.group(1)))
            names.add(norm_name(m.group(2)))
    names.discard("")
    if lenient:
        names |= {_singular(n) for n in names}
    return names


def _union(sets: Iterable[set[str]]) -> set[str]:
    return set().union(*sets)


def _ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def _dicts(rows: list | None) -> list[dict]:
    return [row for row in rows or [] if isinstance(row, dict)]


def score_outputs(gold: dict, outputs: Outputs) -> CorpusScores:
    """score.py's figures for one document's outputs against its gold."""
    glossary, formulas, rules = _dicts(outputs.glossary), _dicts(outputs.formulas), _dicts(outputs.rules)
    misses: list[str] = []
    gterms = gold.get("terms", [])

    # terms
    out_names = [entry_names(e) for e in glossary]
    all_out, all_out_lenient = _union(out_names), _union(entry_names(e, lenient=True) for e in glossary)
    found = found_strict = found_lenient = 0
    for term in gterms:
        names = gold_names(term)
        hit = bool(names & all_out)
        found += hit
        found_strict += bool(gold_names(term, aliases=False) & all_out)
        found_lenient += bool((names | {_singular(n) for n in names}) & all_out_lenient)
        if not hit:
            misses.append(f"term MISSED: {term.get('canonical')!r} / {term.get('abbreviation')!r}")

    # definition precision: entries with a definition that match a gold term with one
    checked = correct = 0
    for entry, names in zip(glossary, out_names):
        definition = _str(entry.get("definition")).strip()
        matches = [t for t in gterms if t.get("definition_verbatim") and gold_names(t) & names]
        if not definition or not matches:
            continue
        checked += 1
        best = max(f1(word_tokens(definition), word_tokens(t["definition_verbatim"])) for t in matches)
        if best >= THRESHOLD:
            correct += 1
        else:
            misses.append(f"definition WRONG ({best:.2f}) for {entry.get('term')!r}: {definition[:120]!r}")

    # definition recall
    gdefs = [t for t in gterms if t.get("definition_verbatim")]
    defined_items: set[int] = set()
    for index, term in enumerate(gterms):
        if not term.get("definition_verbatim"):
            continue
        names, wanted = gold_names(term), word_tokens(term["definition_verbatim"])
        if any(names & n and _str(e.get("definition")).strip() and f1(word_tokens(e["definition"]), wanted) >= THRESHOLD
               for e, n in zip(glossary, out_names)):
            defined_items.add(index)
        else:
            misses.append(f"definition MISSED: {term.get('canonical')!r}")

    # ranking: gold terms among the first max(2N, 20) term rows a reviewer reads
    if outputs.review_queue is not None:
        ordered = sorted((r for r in _dicts(outputs.review_queue) if r.get("row_kind", "term") == "term"),
                         key=lambda r: r.get("rank") or 0)
        ordered_names = [entry_names(r) for r in ordered]
    else:
        by_mentions = sorted(zip(glossary, out_names), key=lambda pair: -(pair[0].get("mention_count") or 0))
        ordered_names = [names for _, names in by_mentions]
    top = _union(ordered_names[:max(2 * len(gterms), 20)])
    found_top = sum(bool(gold_names(t) & top) for t in gterms)

    # formulas
    candidates = []
    for entry in formulas:
        latex, name = _str(entry.get("formula_latex")), _str(entry.get("name"))
        named = [f"{name} = {latex}"] if latex and name and "=" not in latex else []
        candidates.extend(
            formula_tokens(s) for s in [latex, *named, *_strings_in(entry.get("provenance"))] if s and s.strip()
        )
    gforms = gold.get("formulas", [])
    formula_items: set[int] = set()
    for index, formula in enumerate(gforms):
        wanted = formula_tokens(formula["verbatim"])
        best = max((windowed_f1(c, wanted) for c in candidates), default=0.0)
        if best >= THRESHOLD:
            formula_items.add(index)
        else:
            misses.append(f"formula MISSED ({best:.2f}): {formula.get('name')!r}: {formula['verbatim']!r}")

    # rules
    rule_texts, pairs = [], []
    for entry in rules:
        condition, consequence = _str(entry.get("condition")), _str(entry.get("consequence"))
        texts = [f"{condition} {consequence}", _str(entry.get("statement")), *_strings_in(entry.get("provenance"))]
        rule_texts.extend(word_tokens(t) for t in texts if t and t.strip())
        pairs.append((word_tokens(condition), word_tokens(consequence)))
    grules = gold.get("rules", [])
    rules_paired = 0
    rule_items: set[int] = set()
    for index, rule in enumerate(grules):
        condition, consequence = word_tokens(rule["condition_verbatim"]), word_tokens(rule["consequence_verbatim"])
        best = max((windowed_f1(t, condition + consequence) for t in rule_texts), default=0.0)
        if best >= THRESHOLD:
            rule_items.add(index)
        else:
            misses.append(f"rule MISSED ({best:.2f}): {rule['condition_verbatim'][:60]!r} -> "
                          f"{rule['consequence_verbatim'][:60]!r}")
        rules_paired += any(windowed_f1(c, condition) >= THRESHOLD and windowed_f1(q, consequence) >= THRESHOLD
                            for c, q in pairs)

    defined, formulas_found, rules_found = len(defined_items), len(formula_items), len(rule_items)
    figures = {
        "doc": gold.get("doc"),
        "term_recall": _ratio(found, len(gterms)),
        "term_recall_strict": _ratio(found_strict, len(gterms)),
        "term_recall_lenient": _ratio(found_lenient, len(gterms)),
        "terms_found": found, "terms_gold": len(gterms),
        "term_recall_top2n": _ratio(found_top, len(gterms)),
        "definition_precision": _ratio(correct, checked),
        "definitions_checked": checked,
        "definition_recall": _ratio(defined, len(gdefs)),
        "definitions_gold": len(gdefs),
        "formula_recall": _ratio(formulas_found, len(gforms)),
        "formulas_found": formulas_found, "formulas_gold": len(gforms),
        "rule_recall": _ratio(rules_found, len(grules)),
        "rule_pair_recall": _ratio(rules_paired, len(grules)),
        "rules_found": rules_found, "rules_gold": len(grules),
        "outputs": {"glossary": None if outputs.glossary is None else len(glossary),
                    "formulas": None if outputs.formulas is None else len(formulas),
                    "interpretation_pack": None if outputs.rules is None else len(rules)},
    }
    recovered = {"definition": frozenset(defined_items), "formula": frozenset(formula_items),
                 "rule": frozenset(rule_items)}
    return CorpusScores(figures, misses, recovered)
