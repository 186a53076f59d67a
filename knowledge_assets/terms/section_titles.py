"""Section titles: a cluster the document names only in its own section headings, and never
defines, is the title of a section ("Related links", "IANA Considerations", "Pengawasan
kesehatan"), not a term (D81).

A heading that names a term is followed by prose that uses it or by a definition that names
it ("### Blast Radius" then "**Definition**: …", "2.1.3. Physical of Availability (PA)" then
"PA = …"): such a cluster has a mention outside the heading line, or a `defined` one, and
stays. Over the 24 corpus documents, 148 glossary entries were named in headings only; 140 of
them had no definition, and 1 of those was a gold term.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from knowledge_assets.contracts import Chunk
from knowledge_assets.terms.heading_terms import heading_span
from knowledge_assets.terms.mentions import Mention
from knowledge_assets.terms.tokens import term_key, tokens


def section_titles(mentions: Iterable[Mention], chunks: dict[str, Chunk], defined: frozenset[str]) -> frozenset[str]:
    """The term_ids of the clusters every mention of which stands in its chunk's own section
    heading, none of them a name a definition gives (`defined`: the names' term keys; a
    heading's mention outranks the definition's at the same span, so its kind does not say)."""
    by_term: dict[str, list[Mention]] = defaultdict(list)
    for mention in mentions:
        if mention.term_id is not None:
            by_term[mention.term_id].append(mention)
    spans: dict[str, tuple[int, int] | None] = {}
    titles = []
    for term_id, found in by_term.items():
        if any(m.kind == "defined" or term_key(m.surface) in defined for m in found):
            continue
        if all(_in_heading(m, chunks[m.chunk_id], spans) for m in found):
            titles.append(term_id)
    return frozenset(titles)


def _in_heading(mention: Mention, chunk: Chunk, spans: dict[str, tuple[int, int] | None]) -> bool:
    first_line = chunk.text.find("\n")
    if 0 <= first_line < mention.end:
        return False
    if chunk.chunk_id not in spans:
        # The heading stands on the chunk's first line: its words are all `heading_span` reads.
        line = chunk.text if first_line < 0 else chunk.text[:first_line]
        spans[chunk.chunk_id] = heading_span(chunk, tokens(line))
    span = spans[chunk.chunk_id]
    return span is not None and span[0] <= mention.start and mention.end <= span[1]
