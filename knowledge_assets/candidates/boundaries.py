"""Candidates that cross a chunk boundary: a sentence, list item or rule that a page break, the
page furniture between two pages or the chunker's size cap cuts in two (decisions D56).

The convention, of every genre that is paginated or chunked: a text that runs on across a break
does not end its first part with a sentence or item end (`.;:!?`), and its second part opens in
lowercase (`… atau nilai yang sesuai` | `terhadap organ tertentu.`). A chunk never holds the
furniture (it sits between chunks), so such a sentence is the tail of chunk i and the head of
chunk i+1, and nothing that lies between them is part of it.

For each such pair of consecutive chunks the finders read one boundary view: chunk i's last
sentence and the one before it (the lead-in of a list item; at most `_REACH` characters back),
one space, and chunk i+1 up to its first sentence end. Only what crosses the join is kept, so no candidate is
found twice and the cost stays linear in the chunks.

A family may say what else runs on (`runs`): the formula finders also read a view where chunk
i's last line ends on an operator (`OEE = Availability × Performance ×` | `Quality`: the next
page may open in capitals), and keep a formula whose legend meaning, not its own text, crosses
the join (a "where …" sentence cut mid-clause, D66).

A crossing candidate's `chunk_id` is chunk i, its `next_chunk_id` chunk i+1, and its offsets
(its parts' too) index `joined(chunk i, chunk i+1)`: chunk i's text without its trailing
blanks, one space, chunk i+1's text without its leading ones. So its text is its two pieces
joined by one space, each piece an exact slice of its own chunk: derived, never repaired.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from knowledge_assets.candidates.model import Candidate, Part
from knowledge_assets.candidates.source import SourceChunk
from knowledge_assets.crossing import JOIN, joined, runs_on

# Where a sentence or item ends: its mark at a line end, a word's full stop before a capital,
# a blank line, or the line break before a numbered or lettered item (`2. `, `b) `).
_SENTENCE_END = re.compile(
    r"[.;:!?][ \t]*(?:\r?\n|$)|(?<=[^\W\d_]{2})\.[ \t]+(?=[A-Z])|\n[ \t]*\n"
    r"|\n(?=[ \t]*(?:\d{1,3}|[a-z])[.)][ \t])"
)
_REACH = 800  # the longest tail or head a view takes from either chunk
_CONTEXT_UNITS = 2  # the tail is the chunk's last sentence and the one before it

@dataclass(frozen=True)
class _View:
    """A boundary view and where it lies in `joined(first, second)`."""

    first: SourceChunk
    second: SourceChunk
    offset: int  # where the view starts in the joined text
    join: int  # where the join's space stands in the view

    def chunk(self) -> SourceChunk:
        whole = joined(self.first.text, self.second.text)
        head = self.second.text.lstrip()
        head_end = _first_end(head)
        text = whole[self.offset : self.offset + self.join + len(JOIN) + head_end]
        return SourceChunk(chunk_id=self.first.chunk_id, text=text, heading_path=self.first.heading_path)


def _first_end(text: str) -> int:
    match = _SENTENCE_END.search(text, 0, _REACH)
    return match.end() if match else min(len(text), _REACH)


def _tail_start(text: str) -> int:
    """Where the view's tail starts: at the unit before the last one, which a list item needs
    (`… meliputi:` licenses the outcome items under it), at most `_REACH` back."""
    floor = max(0, len(text) - _REACH)
    ends = list(_SENTENCE_END.finditer(text, floor))
    if ends:
        return ends[-_CONTEXT_UNITS].end() if len(ends) >= _CONTEXT_UNITS else floor
    line = text.find("\n", floor) + 1 if floor else 0
    return line if 0 < line < len(text) else floor


Runs = Callable[[str, str], bool]


def views(chunks: Sequence[SourceChunk], runs: Runs = runs_on) -> list[_View]:
    """The boundary view of each pair of consecutive chunks (in the given reading order) where
    a text runs on from one into the next: a sentence (`runs_on`), or what else a family's
    `runs` says goes on (a formula whose line ends on an operator, D66)."""
    found = []
    for first, second in zip(chunks, chunks[1:]):
        if runs(first.text, second.text):
            tail = first.text.rstrip()
            start = _tail_start(tail)
            found.append(_View(first, second, start, len(tail) - start))
    return found


def across(chunks: Sequence[SourceChunk], find: Callable[[Sequence[SourceChunk]], list[Candidate]],
           found: list[Candidate], runs: Runs = runs_on) -> list[Candidate]:
    """`found` (the candidates `find` found in `chunks`) with those `find` finds across the
    chunks' boundaries (where `runs` says a text goes on): each crossing candidate takes the
    place of the ones it overlaps, the cut halves of it each chunk holds, and stands after its
    first chunk's own candidates."""
    # A crossing candidate covers only candidates of its own two chunks (`_covers`): each view
    # looks at those, not at every candidate of the document, which made this quadratic.
    by_chunk: dict[str, list[Candidate]] = {}
    for candidate in found:
        by_chunk.setdefault(candidate.chunk_id, []).append(candidate)
    covered: set[int] = set()
    crossings: list[Candidate] = []
    for view in views(chunks, runs):
        crossing = [_in_joined(c, view) for c in find([view.chunk()]) if _crosses(c, view)]
        if not crossing:
            continue
        join = len(view.first.text.rstrip())
        lead = len(view.second.text) - len(view.second.text.lstrip())
        near = {id(c): c for chunk_id in {x.chunk_id for x in crossing} | {x.next_chunk_id for x in crossing}
                for c in by_chunk.get(chunk_id or "", [])}
        covered |= {key for key, c in near.items() if any(_covers(x, c, join, lead) for x in crossing)}
        crossings += crossing
    kept = [c for c in found if id(c) not in covered] + crossings
    if not crossings:
        return kept
    # Each crossing candidate after its first chunk's own (it stands at that chunk's end); the
    # order of the others is left as the finder gave it.
    order = {chunk.chunk_id: index for index, chunk in enumerate(chunks)}
    return sorted(kept, key=lambda c: (order.get(c.chunk_id, len(order)), c.next_chunk_id is not None))


def _crosses(candidate: Candidate, view: _View) -> bool:
    """Whether the candidate, or one of its parts (a formula's legend meaning, D66), crosses the join."""
    return any(item.start < view.join and item.end > view.join + len(JOIN) for item in (candidate, *candidate.parts))


def _covers(crossing: Candidate, other: Candidate, join: int, lead: int) -> bool:
    """Whether `other`, a candidate of one of the two chunks, overlaps `crossing`'s piece there."""
    if other.kind != crossing.kind or other.next_chunk_id is not None:
        return False
    if other.chunk_id == crossing.chunk_id:
        return other.end > crossing.start and other.start < join
    if other.chunk_id == crossing.next_chunk_id:
        return other.start < lead + crossing.end - join - len(JOIN)
    return False


def _in_joined(candidate: Candidate, view: _View) -> Candidate:
    """The view's candidate, its offsets moved into the joined text of its two chunks."""
    whole = joined(view.first.text, view.second.text)
    shift = view.offset

    def moved(part: Part) -> Part:
        return replace(part, start=part.start + shift, end=part.end + shift,
                       text=whole[part.start + shift : part.end + shift])

    start, end = candidate.start + shift, candidate.end + shift
    return candidate.model_copy(update={
        "start": start, "end": end, "text": whole[start:end], "next_chunk_id": view.second.chunk_id,
        "parts": tuple(moved(p) for p in candidate.parts),
    })
