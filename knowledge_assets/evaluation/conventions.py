"""Generalisation you can see: which genre convention (`candidates/conventions.py`) fired on
which corpus documents, and which gold items it recovered.

A convention *fires* on a document when it finds at least one candidate there. It *recovers*
a gold item when one of its candidates carries that item's evidence by the corpus scorer's
own measure (a definition candidate's defining sentence token-F1 >= 0.6 with the gold
definition; a formula or rule candidate's span overlapping the gold formula, or the gold
condition and consequence, by windowed token-F1 >= 0.6) and the exported outputs recovered
the item too. So an item is credited to every convention that found its evidence, and never
to one whose candidate the pipeline did not turn into the output the scorer accepted.

A convention that fires on one document only is named in the report: a rule that fits one
layout is what fails on documents not seen.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from knowledge_assets.candidates.conventions import REGISTRY, convention_of
from knowledge_assets.candidates.model import Candidate
from knowledge_assets.evaluation.corpus_scores import THRESHOLD, f1, formula_tokens, windowed_f1, word_tokens


@dataclass(frozen=True)
class DocumentConvention:
    """One convention on one document: how many candidates it found, which gold items (by
    index in the gold's list of that kind) it recovered."""

    candidates: int
    recovered: frozenset[int]


def _carries(candidate: Candidate, item: dict) -> bool:
    if candidate.kind == "definition":
        definition = candidate.part("definition")
        text = definition.text if definition is not None else candidate.text
        return f1(word_tokens(text), word_tokens(item["definition_verbatim"])) >= THRESHOLD
    if candidate.kind == "formula":
        return windowed_f1(formula_tokens(candidate.text), formula_tokens(item["verbatim"])) >= THRESHOLD
    wanted = word_tokens(item["condition_verbatim"]) + word_tokens(item["consequence_verbatim"])
    return windowed_f1(word_tokens(candidate.text), wanted) >= THRESHOLD


_GOLD_LISTS = {"definition": "terms", "formula": "formulas", "rule": "rules"}


def document_conventions(gold: dict, candidates: Sequence[Candidate],
                         recovered: Mapping[str, frozenset[int]]) -> dict[str, DocumentConvention]:
    """Per convention key, what it did on one document; `recovered` is what the outputs
    recovered (`CorpusScores.recovered`)."""
    by_key: dict[str, list[Candidate]] = {}
    for candidate in candidates:
        if candidate.kind in _GOLD_LISTS:
            by_key.setdefault(convention_of(candidate), []).append(candidate)
    result = {}
    for key, found in by_key.items():
        kind = found[0].kind
        items = gold.get(_GOLD_LISTS[kind], [])
        credited = frozenset(index for index in recovered.get(kind, ())
                             if any(_carries(candidate, items[index]) for candidate in found))
        result[key] = DocumentConvention(len(found), credited)
    return result


@dataclass(frozen=True)
class ConventionSummary:
    key: str
    genre: str
    documents: tuple[str, ...]  # fired on, sorted
    recovered: dict[str, int]  # stem -> gold items recovered there (only stems with some)

    @property
    def recovered_total(self) -> int:
        return sum(self.recovered.values())


def summarise(per_document: Mapping[str, Mapping[str, DocumentConvention]]) -> list[ConventionSummary]:
    """Every registered convention (fired or not) and every unregistered cue that fired, in
    registry order, unregistered ones last."""
    keys = list(REGISTRY) + sorted({k for d in per_document.values() for k in d} - set(REGISTRY))
    summaries = []
    for key in keys:
        fired = {stem: d[key] for stem, d in per_document.items() if key in d}
        genre = REGISTRY[key].genre if key in REGISTRY else "?"
        summaries.append(ConventionSummary(key, genre, tuple(sorted(fired)),
                                           {s: len(c.recovered) for s, c in sorted(fired.items()) if c.recovered}))
    return summaries


def summaries_payload(summaries: Iterable[ConventionSummary]) -> dict:
    return {s.key: {"genre": s.genre, "documents": list(s.documents), "recovered": s.recovered} for s in summaries}


# A hand-written cue counts as general once it recovers gold on this many documents (issue 28):
# a cue that fits the layouts of one or two documents measures memory of them.
GENERAL_DOCUMENTS = 3


def render_conventions(summaries: Sequence[ConventionSummary]) -> str:
    lines = ["conventions: documents fired on, gold items recovered with the convention's evidence",
             f"{'convention':34} {'genre':14} {'docs':>4} {'gold':>4}  recovered on"]
    for s in summaries:
        where = ", ".join(f"{stem} {n}" for stem, n in s.recovered.items()) or "-"
        lines.append(f"{s.key:34} {s.genre:14} {len(s.documents):4} {s.recovered_total:4}  {where}")
    single = [f"{s.key} ({s.documents[0]})" for s in summaries if len(s.documents) == 1]
    silent = [s.key for s in summaries if not s.documents]
    if single:
        lines.append(f"fires on one document only: {'; '.join(single)}")
    if silent:
        lines.append(f"fires on no document: {', '.join(silent)}")
    narrow = [f"{s.key} ({len(s.recovered)})" for s in summaries
              if s.documents and len(s.recovered) < GENERAL_DOCUMENTS]
    if narrow:
        lines.append(f"recovers gold on fewer than {GENERAL_DOCUMENTS} documents, so not yet general: "
                     f"{'; '.join(narrow)}")
    return "\n".join(lines)
