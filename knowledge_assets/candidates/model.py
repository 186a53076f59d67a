"""What a candidate is: a span of one chunk's text, the cue that found it, and named parts.

Offsets index the chunk's own text, so `chunk.text[start:end] == text` always holds and every
part is a verbatim slice too: whatever is selected from a candidate passes the span check. A
candidate that crosses into the next chunk names it (`next_chunk_id`), and its offsets index
the two chunks' joined text instead (`candidates/boundaries.py`, D56).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, model_validator

CandidateKind = Literal["definition", "formula", "rule", "title", "purpose"]


@dataclass(frozen=True, slots=True)
class Part:
    """A named sub-span: `term`, `definition`, `abbreviation`, `expansion`, `lhs`, `rhs`,
    `condition`, `consequence`, `symbol`, `meaning`…; `label` pairs parts that belong together
    (a legend's symbol and its meaning).

    A slotted dataclass, not a model: a long document's finders make hundreds of thousands of
    parts, all held until their requests are answered, and a frozen model costs ~550 bytes
    each beside its text (its `__dict__` and fields-set), this ~145 (RFC 9002 repeated to
    10 MB: 14,921 rule candidates with 44,763 parts, 69.9 -> 28.2 MiB). A Candidate validates
    and dumps it as it did the model: the same fields in the same order, so requests and
    cache keys are unchanged."""

    role: str
    start: int
    end: int
    text: str
    label: str | None = None


class Candidate(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: CandidateKind
    chunk_id: str
    start: int
    end: int
    text: str
    cue: str
    parts: tuple[Part, ...] = ()
    next_chunk_id: str | None = None

    @model_validator(mode="after")
    def _parts_inside(self) -> Candidate:
        if self.start > self.end:
            raise ValueError(f"candidate bounds {self.start}..{self.end} are reversed")
        return self

    def part(self, role: str) -> Part | None:
        return next((p for p in self.parts if p.role == role), None)

    def parts_of(self, role: str) -> list[Part]:
        return [p for p in self.parts if p.role == role]


def trim(text: str, start: int, end: int) -> tuple[int, int]:
    """`start, end` moved inwards past whitespace: the bounds of what `text[start:end]` says."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def span(kind: CandidateKind, chunk_id: str, text: str, start: int, end: int, cue: str,
         parts: dict[str, tuple[int, int]] | list[tuple[str, int, int, str | None]] = ()) -> Candidate:
    """A candidate over `text[start:end]` of chunk `chunk_id`, its parts cut from the same text.
    `parts` is `{role: (start, end)}`, or `[(role, start, end, label)]` when roles repeat."""
    items = parts.items() if isinstance(parts, dict) else [(r, (s, e), lab) for r, s, e, lab in parts]
    whole = text[start:end]
    built = []
    for item in items:
        role, (s, e), label = (item[0], item[1], None) if len(item) == 2 else item
        # A part as long as its candidate (a rule's statement) shares the candidate's string.
        built.append(Part(role=role, start=s, end=e, text=whole if (s, e) == (start, end) else text[s:e], label=label))
    return Candidate(kind=kind, chunk_id=chunk_id, start=start, end=end, text=whole, cue=cue, parts=tuple(built))
