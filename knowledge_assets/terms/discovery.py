"""Runs every extractor over a document's chunks: the candidate terms, the abbreviation pairs
and aliases that tie surfaces together, the formula symbols, and the terms the document
defines (the definition candidates' terms, short forms and other-language names)."""

from __future__ import annotations

from dataclasses import dataclass, field

from knowledge_assets.candidates.defining_sentences import CUES, Found, introduces_its_term
from knowledge_assets.candidates.definitions import find_definitions, introduced_terms
from knowledge_assets.candidates.model import Candidate
from knowledge_assets.candidates.source import SourceChunk
from knowledge_assets.contracts import Chunk
from knowledge_assets.crossing import joined
from knowledge_assets.terms.abbreviations import find_abbreviation_pairs
from knowledge_assets.terms.defined_terms import defined_terms, formula_symbols, labels
from knowledge_assets.terms.document_vocabulary import read_vocabulary
from knowledge_assets.terms.heading_terms import heading_terms
from knowledge_assets.terms.mentions import Mention, MentionKind
from knowledge_assets.terms.phrases import acronyms, classified_terms, glosses, title_phrases
from knowledge_assets.terms.tokens import ChunkWords, chunk_words, collapse, term_key


@dataclass(frozen=True)
class Discovery:
    candidates: list[Mention]
    pairs: list[tuple[str, str]]  # (short form, long form), as the document words them
    aliases: list[tuple[str, str]]  # two names of one concept ("Efisiensi Kerja", "Job Efficiency")
    symbol_keys: frozenset[str]  # term keys of formula left sides: single letters allowed there
    defined: list[Mention] = field(default_factory=list)  # the names definition candidates give
    # Every definition candidate `find_definitions` found, those that name no term too: the
    # glossary reads them as they are stored (`definition_candidates`), rather than finding
    # them a second time.
    definitions: list[Candidate] = field(default_factory=list)

    @property
    def defined_keys(self) -> frozenset[str]:
        return frozenset(term_key(m.surface) for m in self.defined)


def source_chunks(chunks: list[Chunk]) -> list[SourceChunk]:
    return [SourceChunk(chunk_id=c.chunk_id, text=c.text, heading_path=c.heading_path) for c in chunks]


def discover(chunks: list[Chunk], words_of: ChunkWords | None = None) -> Discovery:
    """`words_of` are the chunks' tokens (`chunk_words`), tokenised here if not given."""
    words_of = chunk_words(chunks) if words_of is None else words_of
    candidates: list[Mention] = []
    pairs: list[tuple[str, str]] = []
    aliases: list[tuple[str, str]] = []
    by_id = {chunk.chunk_id: chunk for chunk in chunks}
    # The general recogniser's sentences define the document's terms and name none of their own
    # (D79), unless the document marks the term as introduced (quotes, emphasis): a term comes
    # from the funnel's evidence, a definition may then attach to it.
    sources = source_chunks(chunks)
    sentences: list[Found] = []
    found_definitions = find_definitions(sources, sentences)
    definitions = [d for d in found_definitions
                   if d.cue not in CUES or introduces_its_term(d, _candidate_text(by_id, d))]
    defined = [m for d in definitions for m in _defined_names(by_id[d.chunk_id], d)]
    # A term the document introduces in quotes or emphasis is a term even where the scorer
    # does not keep its sentence as a definition (D80).
    named = {(m.chunk_id, m.start, m.end) for m in defined}
    for d in introduced_terms(sources, sentences):
        term = d.part("term")
        if term is not None and (d.chunk_id, term.start, term.end) not in named:
            defined.append(Mention.at(by_id[d.chunk_id], term.start, term.end, "defined"))
    for d in definitions:
        short, long, alias, term = d.part("abbreviation"), d.part("expansion"), d.part("alias"), d.part("term")
        if short and long:
            pairs.append((collapse(short.text), collapse(long.text)))
        if alias and term:
            aliases.append((collapse(term.text), collapse(alias.text)))
    for chunk in chunks:
        for pair in find_abbreviation_pairs(chunk.text):
            candidates.append(Mention.at(chunk, pair.short_start, pair.short_end, "short_form"))
            candidates.append(Mention.at(chunk, pair.long_start, pair.long_end, "long_form"))
            pairs.append((collapse(pair.short), collapse(pair.long)))
    known = read_vocabulary(chunks, {short for short, _ in pairs}, words_of)
    symbols: set[str] = set()
    for chunk in chunks:
        words = words_of[chunk.chunk_id]
        headings, heading_aliases = heading_terms(chunk, words)
        found_symbols = formula_symbols(chunk)
        symbols.update(term_key(m.surface) for m in found_symbols)
        aliases += [(collapse(a), collapse(b)) for a, b in heading_aliases]
        candidates += [
            *headings,
            *found_symbols,
            *defined_terms(chunk, known, words),
            *labels(chunk, known),
            *acronyms(chunk, words),
            *title_phrases(chunk, known, words),
            *glosses(chunk),
            *classified_terms(chunk),
        ]
    return Discovery(candidates + defined, pairs, aliases, frozenset(symbols), defined, found_definitions)


def _candidate_text(by_id: dict[str, Chunk], candidate: Candidate) -> str:
    """The text a candidate's offsets index: its chunk's, or the two chunks joined (D56)."""
    chunk = by_id[candidate.chunk_id]
    if candidate.next_chunk_id is None:
        return chunk.text
    return joined(chunk.text, by_id[candidate.next_chunk_id].text)


_NAME_KINDS: dict[str, MentionKind] = {"term": "defined", "abbreviation": "short_form", "expansion": "long_form",
                                       "alias": "gloss"}


def _defined_names(chunk: Chunk, definition: Candidate) -> list[Mention]:
    return [Mention.at(chunk, p.start, p.end, _NAME_KINDS[p.role]) for p in definition.parts if p.role in _NAME_KINDS]
