"""Structural admission, recomputed (docs/semantic_review.md §5): a review does not trust a
capture's own checks. Every payload is validated against the contract models, ids must be unique
and provenance must name the case, and every guarded field is located again, verbatim, in the
document parsed afresh from the bundle's frozen bytes. A failure here is an engineering blocker;
a pass proves only the quote, never its meaning.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

from pydantic import TypeAdapter, ValidationError

from knowledge_assets import branches
from knowledge_assets import contracts as c
from knowledge_assets.semantic_review.vocabulary import ENTITY_KINDS, EntityKind
from knowledge_assets.verify.latex import latex_verification, transcribes_plain_text
from knowledge_assets.verify.spans import crossing_pieces, is_verbatim, pieces_problem


@cache
def _payload_model(spec: branches.BranchSpec) -> TypeAdapter:
    return TypeAdapter(spec.model if spec.one_per_document else list[spec.model])


# The payloads of a capture: each branch's export file, then the three audit files.
PAYLOAD_MODELS: branches.BranchTable[TypeAdapter] = branches.BranchTable(
    lambda spec: spec.export_file, _payload_model,
    extra={
        "review_queue.json": TypeAdapter(list[c.ReviewQueueRow]),
        "rejected.json": TypeAdapter(list[c.RejectedField]),
        "usage.json": TypeAdapter(list[c.CallUsage]),
    },
)
PROVENANCE_SPAN = "provenance.span"


@dataclass(frozen=True)
class SpanCheck:
    field: str
    value: str
    verbatim: bool
    chunk_id: str | None


@dataclass(frozen=True)
class Entity:
    kind: EntityKind
    entity_id: str
    item: dict
    spans: tuple[SpanCheck, ...]


@dataclass
class AdmittedCase:
    entities: list[Entity] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def _first_error(exc: ValidationError) -> str:
    error = exc.errors()[0]
    return f"{'.'.join(map(str, error['loc'])) or '(root)'}: {error['msg']}"


def _span_check(name: str, value: str, item: dict, chunks: dict[str, c.Chunk]) -> SpanCheck:
    """Where the production guard would have found the value: the provenance span in its own
    chunk; a formula's LaTeX in its chunk, its markup or as a transcription of its span; any
    other guarded field in one single chunk (a quote is never stitched across chunks) — or, for
    an entity whose provenance is in pieces (D56), across exactly the two chunks its pieces
    name, from the end of the first into the start of the second."""
    own = chunks.get(item["provenance"].get("chunk_id") or "")
    pair = _piece_chunks(item, chunks)
    if name == PROVENANCE_SPAN and item["provenance"].get("pieces"):
        problem = pieces_problem(value, item["provenance"].get("chunk_id"),
                                 [(p.get("chunk_id") or "", p.get("span") or "") for p in item["provenance"]["pieces"]],
                                 {i: ch.text for i, ch in chunks.items()}, {i: ch.seq for i, ch in chunks.items()})
        found = own if problem is None else None
    elif name == PROVENANCE_SPAN:
        candidates = [own] if own is not None else list(chunks.values())
        found = next((ch for ch in candidates if is_verbatim(value, ch.text)), None)
    elif name == "formula_latex":
        found = own if own is not None and (
            is_verbatim(value, own.text) or transcribes_plain_text(value, item["provenance"]["span"])
            or latex_verification(value, own.latex) == "verified") else None
    else:
        found = next((ch for ch in chunks.values() if is_verbatim(value, ch.text)), None)
        if found is None and pair is not None and crossing_pieces(value, pair[0].text, pair[1].text):
            found = pair[0]
    return SpanCheck(name, value, found is not None, found.chunk_id if found else None)


def _piece_chunks(item: dict, chunks: dict[str, c.Chunk]) -> tuple[c.Chunk, c.Chunk] | None:
    """The two consecutive chunks a two-piece provenance names, or None (no pieces, a chunk
    missing from the frozen source, or chunks that do not follow each other)."""
    pieces = item["provenance"].get("pieces") or []
    found = [chunks.get(piece.get("chunk_id") or "") for piece in pieces]
    if len(found) != 2 or None in found or found[1].seq != found[0].seq + 1:
        return None
    return found[0], found[1]


def _entity(kind: EntityKind, item: dict, chunks: dict[str, c.Chunk]) -> Entity:
    fields = [(name, item.get(name)) for name in branches.of_contract_branch(kind.branch).guarded_fields]
    fields.append((PROVENANCE_SPAN, item["provenance"]["span"]))
    spans = tuple(_span_check(name, value, item, chunks) for name, value in fields if isinstance(value, str))
    return Entity(kind, item[kind.id_field], item, spans)


def admit(case_id: str, payloads: object, chunks: dict[str, c.Chunk]) -> AdmittedCase:
    admitted = AdmittedCase()
    if not isinstance(payloads, dict) or set(payloads) != set(PAYLOAD_MODELS):
        admitted.problems.append(f"the capture does not hold exactly the files {', '.join(sorted(PAYLOAD_MODELS))}")
        return admitted
    valid = set()
    for name, model in PAYLOAD_MODELS.items():
        try:
            model.validate_python(payloads[name])
            valid.add(name)
        except ValidationError as exc:
            admitted.problems.append(f"{name} is refused by the contract ({_first_error(exc)})")
    for kind in ENTITY_KINDS:
        if kind.payload not in valid:
            continue
        items = payloads[kind.payload]
        items = items if isinstance(items, list) else [items]
        ids = [item[kind.id_field] for item in items]
        if len(set(ids)) != len(ids):
            admitted.problems.append(f"{kind.payload} repeats an {kind.id_field}")
        for item in items:
            if item["provenance"]["doc_id"] != case_id:
                admitted.problems.append(f"{kind.payload} {item[kind.id_field]}: "
                                         f"provenance names {item['provenance']['doc_id']}")
            entity = _entity(kind, item, chunks)
            admitted.problems.extend(
                f"{kind.payload} {entity.entity_id}: {span.field} is not verbatim in the frozen source"
                for span in entity.spans if not span.verbatim)
            admitted.entities.append(entity)
    return admitted
