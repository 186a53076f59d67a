"""The term stage: a parsed document in, its mentions, noise verdicts and ranked clusters out.

    candidates (discovery) → every occurrence of them (raw mentions), and every name a
    definition gives where it gives it → noise filter
    → clusters, less the section titles (`section_titles`), ranked by mention count, then canonical

Needs no model and no network, and reads nothing but the document.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from itertools import chain

from knowledge_assets.candidates.model import Candidate
from knowledge_assets.contracts import Chunk, ParsedDocument, ParsedPage
from knowledge_assets.terms.clusters import TermCluster, cluster_mentions
from knowledge_assets.terms.discovery import discover
from knowledge_assets.terms.mentions import Mention, find_occurrences, in_reading_order, with_defined_names
from knowledge_assets.terms.noise import edge_lines, read_candidates, screen
from knowledge_assets.terms.section_titles import section_titles
from knowledge_assets.terms.tokens import chunk_words, term_key

# Bump when a change to the stage can change its output: it feeds the asset's code_version.
FUNNEL_VERSION = "7"


@dataclass(frozen=True)
class TermFunnel:
    doc_id: str
    page_count: int
    mentions: list[Mention]  # every raw mention in document order: noise reason or term_id set
    clusters: list[TermCluster]  # ranked
    definitions: list[Candidate]  # every definition candidate, in document order (Discovery.definitions)

    @property
    def raw_mentions(self) -> int:
        return len(self.mentions)

    @property
    def mentions_after_noise(self) -> int:
        return sum(m.noise is None for m in self.mentions)

    def noise_by_reason(self) -> dict[str, int]:
        return dict(sorted(Counter(m.noise for m in self.mentions if m.noise).items()))


@dataclass(frozen=True)
class _Found:
    """Of discovery's findings, what the funnel reads after the noise filter: the (short form,
    long form) pairs and the aliases the clustering joins by, the keys of the names definitions
    give, and the definition candidates."""

    pairs: list[tuple[str, str]]
    aliases: list[tuple[str, str]]
    defined_keys: frozenset[str]
    definitions: list[Candidate]


def edge_lines_only(parsed: ParsedDocument) -> ParsedDocument:
    """The document with each page's text cut to its edge lines (`noise.edge_lines`), the only
    lines of a page the funnel reads, for the page furniture: `run_term_funnel` gives the same
    result for it, and a text file's one page, the whole text again, is not held through the
    funnel. A page of three lines or fewer keeps a line twice: the furniture counts each line
    once a page."""
    pages = [page.model_copy(update={"text": "\n".join(edge_lines(page.text))}) for page in parsed.pages]
    return parsed.model_copy(update={"pages": pages})


def run_term_funnel(parsed: ParsedDocument) -> TermFunnel:
    # Chunks and pages are taken in document order whatever order they arrive in, so the
    # result, and every term_id, depends on the document alone.
    chunks = sorted(parsed.chunks, key=lambda c: c.seq)
    pages = sorted(parsed.pages, key=lambda p: p.page)
    screened, found = _screened_mentions(chunks, pages)
    noise = [m for m in screened if m.noise is not None]
    clustered = [m for m in screened if m.noise is None]
    del screened  # each mention is in one of the two lists
    clusters, cluster_of = cluster_mentions(parsed.doc_id, clustered, chunks, found.pairs, found.aliases)
    # Each kept mention is stamped where it stands, so the unstamped one goes as its stamped one
    # comes: a long document's mentions (a million at 50 MB) are not held twice. The order given
    # here is the screen's; `in_reading_order` below orders them as before, ties kept as given.
    for index, mention in enumerate(clustered):
        clustered[index] = mention.joined(cluster_of[term_key(mention.surface)])
    titles = section_titles(clustered, {chunk.chunk_id: chunk for chunk in chunks}, found.defined_keys)
    if titles:
        # A section's title is no term: its mentions are noise, the other clusters close ranks.
        ranked = (cluster for cluster in clusters if cluster.term_id not in titles)
        clusters = [replace(cluster, rank=rank) for rank, cluster in enumerate(ranked, start=1)]
        noise += [Mention(m.chunk_id, m.start, m.end, m.surface, m.kind, "section_title")
                  for m in clustered if m.term_id in titles]
        clustered = [m for m in clustered if m.term_id not in titles]
    order = {chunk.chunk_id: chunk.seq for chunk in chunks}
    mentions = in_reading_order(chain(noise, clustered), order)
    return TermFunnel(parsed.doc_id, parsed.page_count, mentions, clusters, found.definitions)


def _screened_mentions(chunks: list[Chunk], pages: list[ParsedPage]) -> tuple[list[Mention], _Found]:
    """Every mention with the noise filter's verdict, and what else discovery found that the
    funnel reads on. What only these steps read (the chunks' words, the candidates, the mentions
    before their verdict) goes when this returns: for a long document it is most of what the
    funnel would otherwise hold while it clusters."""
    # Each chunk is tokenised once; every extractor, the occurrence search and the noise
    # filter read the same words.
    words = chunk_words(chunks)
    found = discover(chunks, words)
    occurrences = with_defined_names(find_occurrences(chunks, found.candidates, words), found.defined)
    found = replace(found, candidates=read_candidates(found.candidates))
    screened = screen(occurrences, chunks, pages, found, words)
    return screened, _Found(found.pairs, found.aliases, found.defined_keys, found.definitions)
