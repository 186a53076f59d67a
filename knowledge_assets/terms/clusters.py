"""Surface variants of one concept, grouped into clusters, each with a canonical form and an id.

Two surfaces join one cluster when
1. their term keys are equal: case, spacing, hyphen and plural variants ("Cut-off", "cut off");
2. the document pairs them as abbreviation and long form (`Physical Availability (PA)`), or
   gives one as the other's translation in a heading; so `Physical of Availability` and
   `Physical Availability` meet through `PA` when the document pairs both with it;
3. they are spelling variants: the same number of content words, each pair of words and the
   whole alike by rapidfuzz's ratio ("Utilisation" / "Utilization"). A content word is any but
   those that only join a name's words (`of`, `dan`, `yang`: "Physical of Availability" is
   "Physical Availability"); a function word that says something makes another name
   (`penyinaran lebih` is not `penyinaran`, nor `sangat rendah` `rendah`). Only surfaces whose first
   word begins alike are compared (blocking), so the cost grows with the number of distinct
   surfaces, not with their square; and two clusters with different abbreviations, or two
   names the document defines each in its own definition, never merge this way.

The canonical form is the document's own wording, chosen by a fixed rule, first that applies:
1. the most frequent long form (`Physical Availability` over `Physical of Availability`);
2. the most frequent surface the document introduces the term with: a heading, a defining
   sentence or label, a formula's left side (`Unscheduled Breakdown`, not `breakdowns`);
3. the most frequent abbreviation (`CMMS`), its singular before its plural (`SLO`, not `SLOs`);
4. the most frequent surface.
Frequency counts mentions of that exact surface (whitespace collapsed; never respelled);
a tie goes to the surface the document uses first. Nothing here depends on the order the
chunks arrive in, so a document always gives the same canonicals, hence the same
`term_id`s (contract §1). Clusters never span documents: the input is one document's
mentions.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, replace
from functools import cache
from itertools import combinations

from rapidfuzz import fuzz

from knowledge_assets.candidates.packs import cues
from knowledge_assets.contracts import Chunk, Provenance
from knowledge_assets.ids import term_id
from knowledge_assets.terms.mentions import Mention, in_reading_order
from knowledge_assets.terms.tokens import collapse, is_acronym, key_words, plain_name, term_key

_SPELLING_RATIO = 90
_WORD_RATIO = 85
_BLOCK_PREFIX = 3
_MIN_FUZZY_KEY = 6
# Where a document introduces a term: its heading, its definition, its formula.
_DEFINING_KINDS = frozenset({"heading", "defined", "symbol"})


@dataclass(frozen=True)
class TermCluster:
    doc_id: str
    term_id: str
    canonical: str
    abbreviation: str | None
    long_forms: tuple[str, ...]
    surfaces: tuple[str, ...]  # most used first
    mention_count: int
    rank: int
    provenance: Provenance  # the first mention in the document


def cluster_mentions(
    doc_id: str,
    mentions: list[Mention],
    chunks: list[Chunk],
    pairs: list[tuple[str, str]],
    aliases: list[tuple[str, str]],
) -> tuple[list[TermCluster], dict[str, str]]:
    """Clusters of the kept mentions, ranked, and each mention's term key's term_id: the caller
    stamps the mentions (`Mention.joined`), in place if it likes, so that a long document's
    mentions are not held twice, unstamped and stamped."""
    order = {chunk.chunk_id: chunk.seq for chunk in chunks}
    mentions = in_reading_order(mentions, order)
    by_key: dict[str, list[Mention]] = defaultdict(list)
    for mention in mentions:
        by_key[term_key(mention.surface)].append(mention)
    content = {key: _content_words(found[0].surface) for key, found in by_key.items()}
    defined = {key for key, found in by_key.items() if any(m.kind == "defined" for m in found)}
    groups = _Groups(content, {term_key(short) for short, _ in pairs}, defined)
    for a, b in pairs + aliases:
        groups.join(term_key(a), term_key(b))
    groups.join_spelling_variants()
    long_forms = {long for _, long in pairs}
    short_forms = {short for short, _ in pairs}
    chunk_by_id = {chunk.chunk_id: chunk for chunk in chunks}
    drafted = [
        (_draft(doc_id, [m for key in keys for m in by_key[key]], long_forms, short_forms, chunk_by_id, order), keys)
        for keys in groups.members()
    ]
    drafted.sort(key=lambda pair: (-pair[0].mention_count, pair[0].canonical))
    clusters = [replace(draft, rank=rank) for rank, (draft, _) in enumerate(drafted, start=1)]
    return clusters, {key: draft.term_id for draft, keys in drafted for key in keys}


def _content_words(surface: str) -> tuple[str, ...]:
    joining = _joining_words()
    return tuple(word for word in key_words(surface) if word.lower() not in joining)


@cache
def _joining_words() -> frozenset[str]:
    """The words that only join a name's words, in every language's pack."""
    return frozenset(w.lower() for w in cues("definitions")["term_connectors"])


def _singular_first(shorts: list[str]) -> list[str]:
    """The short forms, an acronym's plural (`SLOs`) after its singular (`SLO`) when the
    document writes both: the entry is headed by the singular, the plural stays a surface."""
    present = set(shorts)
    return sorted(shorts, key=lambda s: s.endswith("s") and s[:-1] in present)


def _draft(
    doc_id: str,
    mentions: list[Mention],
    long_forms: set[str],
    short_forms: set[str],
    chunks: dict[str, Chunk],
    order: dict[str, int],
) -> TermCluster:
    mentions = in_reading_order(mentions, order)
    # Counter keeps first-seen order and mentions are in document order, so a stable sort by
    # count leaves ties in the order the document first uses them. Each spelling is
    # collapsed once, in the order it is first used, which keeps that order.
    counts: Counter[str] = Counter()
    for surface, count in Counter(m.surface for m in mentions).items():
        counts[collapse(surface)] += count
    surfaces = tuple(sorted(counts, key=lambda s: -counts[s]))
    longs = tuple(s for s in surfaces if s in long_forms)
    # A word in capitals the cluster also holds in lowercase ("MENTERI", "Menteri") is shouted.
    folded = Counter(s.lower() for s in surfaces)
    shorts = _singular_first([s for s in surfaces if s in short_forms or (is_acronym(s) and folded[s.lower()] == 1)])
    defining = {collapse(m.surface) for m in mentions if m.kind in _DEFINING_KINDS}
    introduced = [s for s in surfaces if s in defining]
    abbreviation = shorts[0] if shorts else None
    # Markup is not wording: `*W<sub>max</sub>*` is named as it reads, `W_max`.
    canonical = plain_name([*longs, *introduced, *shorts, *surfaces][0])
    first = mentions[0]
    chunk = chunks[first.chunk_id]
    return TermCluster(
        doc_id=doc_id,
        term_id=term_id(doc_id, canonical),
        canonical=canonical,
        abbreviation=abbreviation,
        long_forms=longs,
        surfaces=surfaces,
        mention_count=len(mentions),
        rank=0,
        provenance=Provenance(
            doc_id=doc_id,
            span=first.surface,
            page=chunk.page,
            page_no=chunk.page_no,
            section_no=chunk.section_no,
            chunk_id=chunk.chunk_id,
        ),
    )


class _Groups:
    """Union–find over term keys that remembers which abbreviations each group holds."""

    def __init__(self, content: dict[str, tuple[str, ...]], short_keys: set[str], defined: set[str] = frozenset()):
        self.content = content
        self.defined = defined
        self.keys = sorted(content)
        self.parent = {key: key for key in self.keys}
        self.shorts = {key: ({key} if key in short_keys else set()) for key in self.keys}

    def find(self, key: str) -> str:
        while self.parent[key] != key:
            self.parent[key] = self.parent[self.parent[key]]
            key = self.parent[key]
        return key

    def join(self, a: str, b: str) -> None:
        if a not in self.parent or b not in self.parent:
            return
        root_a, root_b = sorted((self.find(a), self.find(b)))
        if root_a != root_b:
            self.parent[root_b] = root_a
            self.shorts[root_a] |= self.shorts.pop(root_b)

    def join_spelling_variants(self) -> None:
        blocks: dict[str, list[str]] = defaultdict(list)
        for key in self.keys:
            if len(key) >= _MIN_FUZZY_KEY:
                blocks[key[:_BLOCK_PREFIX]].append(key)
        for block in blocks.values():
            for a, b in combinations(block, 2):
                if self._may_merge(a, b) and _spelling_variants(self.content[a], self.content[b]):
                    self.join(a, b)

    def _may_merge(self, a: str, b: str) -> bool:
        # Two names the document defines apart are two terms, however alike they are spelt.
        if a in self.defined and b in self.defined:
            return False
        shorts_a, shorts_b = self.shorts[self.find(a)], self.shorts[self.find(b)]
        return not (shorts_a and shorts_b and shorts_a != shorts_b)

    def members(self) -> list[list[str]]:
        groups: dict[str, list[str]] = defaultdict(list)
        for key in self.keys:
            groups[self.find(key)].append(key)
        return [groups[root] for root in sorted(groups)]


def _spelling_variants(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Same content words but for spelling: "Physical of Availability" and "Physical
    Availability", "Utilisation" and "Utilization"; never "CT Loading" and "CT Hauling"."""
    return (
        len(a) == len(b) > 0
        and all(fuzz.ratio(x, y) >= _WORD_RATIO for x, y in zip(a, b))
        and fuzz.ratio(" ".join(a), " ".join(b)) >= _SPELLING_RATIO
    )
