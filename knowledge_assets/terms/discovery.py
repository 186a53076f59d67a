"""Runs every extractor over a document's chunks: the candidate terms, the abbreviation pairs
and aliases that tie surfaces together, and the formula symbols."""

from __future__ import annotations

from dataclasses import dataclass

from knowledge_assets.contracts import Chunk
from knowledge_assets.terms.abbreviations import find_abbreviation_pairs
from knowledge_assets.terms.definitions import defined_terms, formula_symbols, labels
from knowledge_assets.terms.headings import heading_terms
from knowledge_assets.terms.mentions import Mention
from knowledge_assets.terms.phrases import acronyms, classified_terms, glosses, title_phrases
from knowledge_assets.terms.tokens import collapse, term_key
from knowledge_assets.terms.vocabulary import read_vocabulary


@dataclass(frozen=True)
class Discovery:
    candidates: list[Mention]
    pairs: list[tuple[str, str]]  # (short form, long form), as the document words them
    aliases: list[tuple[str, str]]  # two names of one concept ("Efisiensi Kerja", "Job Efficiency")
    symbol_keys: frozenset[str]  # term keys of formula left sides: single letters allowed there


def discover(chunks: list[Chunk]) -> Discovery:
    candidates: list[Mention] = []
    pairs: list[tuple[str, str]] = []
    aliases: list[tuple[str, str]] = []
    for chunk in chunks:
        for pair in find_abbreviation_pairs(chunk.text):
            candidates.append(Mention.at(chunk, pair.short_start, pair.short_end, "short_form"))
            candidates.append(Mention.at(chunk, pair.long_start, pair.long_end, "long_form"))
            pairs.append((collapse(pair.short), collapse(pair.long)))
    known = read_vocabulary(chunks, {short for short, _ in pairs})
    symbols: set[str] = set()
    for chunk in chunks:
        headings, heading_aliases = heading_terms(chunk)
        found_symbols = formula_symbols(chunk)
        symbols.update(term_key(m.surface) for m in found_symbols)
        aliases += [(collapse(a), collapse(b)) for a, b in heading_aliases]
        candidates += [
            *headings,
            *found_symbols,
            *defined_terms(chunk, known),
            *labels(chunk, known),
            *acronyms(chunk),
            *title_phrases(chunk, known),
            *glosses(chunk),
            *classified_terms(chunk),
        ]
    return Discovery(candidates, pairs, aliases, frozenset(symbols))
