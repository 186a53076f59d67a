"""What an extraction asset hands the LLM layer: one request per call, structured, so the
OpenAI backend renders a prompt from it and the offline extractor reads it directly.

A request carries document content and the deterministic keys the caller needs to join an
answer back (`TermBlock.key`); none of those keys is ever shown to a model as something to
write. Each request class names its branch, so a mixed list can run in one pool.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import ClassVar, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from knowledge_assets.candidates.model import Candidate
from knowledge_assets.candidates.source import SourceChunk

BranchName = Literal["glossary", "formula", "rule", "domain_context"]

_Item = TypeVar("_Item")


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _Request(_Frozen):
    branch: ClassVar[BranchName]

    def answered(self) -> _Request:
        """What is kept of the request once it is answered: everything an answer is joined back
        by and a failure leaves unanswered (`kept.unanswered_keys`, `usage.unanswered_items`)."""
        return self


class _ChunkRequest(_Request):
    """A request of chunks and the candidates found in them (formulas, rules)."""

    chunks: list[SourceChunk] = Field(min_length=1)
    candidates: list[Candidate] = Field(default_factory=list)

    def answered(self) -> _ChunkRequest:
        # The candidates are what the model reads, and RFC 9002 repeated to 50 MB holds 140 MiB
        # of rule candidates: kept until its answer, they were all held beside every answer (D106).
        return self.model_copy(update={"candidates": []})


class TermBlock(_Frozen):
    key: str = Field(description="term_id; used to join the answer back, never shown to the model")
    canonical: str
    abbreviation: str | None = None
    long_forms: list[str] = Field(default_factory=list)
    chunks: list[SourceChunk] = Field(min_length=1)
    candidates: list[Candidate] = Field(default_factory=list, description="definition candidates naming this term")


class GlossaryRequest(_Request):
    branch: ClassVar[BranchName] = "glossary"
    clusters: list[TermBlock] = Field(min_length=1)
    mining_document: bool = Field(True, description="whether the document's own text names the mining domain the "
                                  "subdomain enum describes (subdomains.speaks_mining); never shown to the model")

    def answered(self) -> GlossaryRequest:
        # Each term's evidence chunks and candidates are what the model reads: 24,000 terms of
        # generated prose at 50 MB held ~44 MiB of them beside every answer (D106). A term keeps
        # its key (what its answer is joined back by) and its first chunk (a block has one).
        return self.model_copy(update={"clusters": [
            block.model_copy(update={"chunks": block.chunks[:1], "candidates": []}) for block in self.clusters]})

    def distinct_chunks(self) -> list[SourceChunk]:
        """Each chunk once, in first-seen order: clusters of one batch often share a chunk."""
        seen: dict[str, SourceChunk] = {}
        for cluster in self.clusters:
            for chunk in cluster.chunks:
                seen.setdefault(chunk.chunk_id, chunk)
        return list(seen.values())


class FormulaRequest(_ChunkRequest):
    branch: ClassVar[BranchName] = "formula"


class RuleRequest(_ChunkRequest):
    branch: ClassVar[BranchName] = "rule"


class DomainContextRequest(_Request):
    branch: ClassVar[BranchName] = "domain_context"
    outline: list[str] = Field(default_factory=list)
    chunks: list[SourceChunk] = Field(min_length=1)
    candidates: list[Candidate] = Field(default_factory=list, description="title and purpose candidates")


ExtractionRequest = GlossaryRequest | FormulaRequest | RuleRequest | DomainContextRequest


def pack(
    items: Iterable[_Item], size: Callable[[_Item, list[_Item]], int], budget: int, max_items: int
) -> Iterator[list[_Item]]:
    """Greedy batches in input order, each within `budget` (an item larger than the budget goes
    alone) and at most `max_items` long; `size` is what an item adds to the batch so far.
    Fewer, fuller calls are what keeps a document's request count and repeated prompt prefix
    down."""
    batch: list[_Item] = []
    used = 0
    for item in items:
        if batch and (used + size(item, batch) > budget or len(batch) >= max_items):
            yield batch
            batch, used = [], 0
        used += size(item, batch)
        batch.append(item)
    if batch:
        yield batch


def chunk_batches(
    chunks: Iterable[SourceChunk], budget_chars: int = 12000, max_chunks: int = 20,
    chars: Callable[[SourceChunk], int] = lambda chunk: len(chunk.text),
) -> Iterator[list[SourceChunk]]:
    """`chars` is what a chunk costs a request: its text, or its candidate windows."""
    return pack(chunks, lambda chunk, _: chars(chunk), budget_chars, max_chunks)


def cluster_batches(
    clusters: Iterable[TermBlock], budget_chars: int = 24000, max_clusters: int = 32
) -> Iterator[list[TermBlock]]:
    """A chunk shared by clusters of one batch is sent once, so it is counted once: clusters
    in document order then share most of their chunks with their batch."""
    def added_chars(cluster: TermBlock, batch: list[TermBlock]) -> int:
        present = {chunk.chunk_id for other in batch for chunk in other.chunks}
        return sum(len(chunk.text) for chunk in cluster.chunks if chunk.chunk_id not in present)

    return pack(clusters, added_chars, budget_chars, max_clusters)


# Lines of context a candidate window keeps on either side of the whole lines its candidate
# and parts span. None: the parts already reach a formula's legend and a rule's list items,
# and the chunk's heading rides on the block; one line each side cost 12 % more prompt tokens
# on the 300-page bench PDF (1,539 against 1,378 per page) for text no candidate quotes.
WINDOW_CONTEXT_LINES = 0


def _line_start(text: str, position: int, lines_before: int) -> int:
    start = text.rfind("\n", 0, position) + 1
    for _ in range(lines_before):
        if start == 0:
            break
        start = text.rfind("\n", 0, start - 1) + 1
    return start


def _line_end(text: str, position: int, lines_after: int) -> int:
    end = text.find("\n", position)
    for _ in range(lines_after):
        if end == -1:
            break
        end = text.find("\n", end + 1)
    return len(text) if end == -1 else end


def candidate_windows(chunk: SourceChunk, candidates: Sequence[Candidate]) -> list[tuple[int, int]]:
    """The stretches of `chunk.text` a model needs to read the chunk's candidates: each
    candidate with its parts, widened to whole lines (and `WINDOW_CONTEXT_LINES` of context on
    either side), overlapping or touching stretches merged, in text order. A formula or rule
    request shows these, not the whole chunk (issue 18): every span a model can quote from a
    window is verbatim in the chunk, and the span check reads the stored chunk."""
    text = chunk.text
    stretches = []
    for candidate in candidates:
        if candidate.chunk_id != chunk.chunk_id:
            continue
        start = min([candidate.start, *(p.start for p in candidate.parts)])
        end = max([candidate.end, *(p.end for p in candidate.parts)])
        stretches.append((_line_start(text, start, WINDOW_CONTEXT_LINES), _line_end(text, end, WINDOW_CONTEXT_LINES)))
    merged: list[tuple[int, int]] = []
    for start, end in sorted(stretches):
        if merged and start <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def window_chars(chunk: SourceChunk, candidates: Sequence[Candidate]) -> int:
    return sum(end - start for start, end in candidate_windows(chunk, candidates))
