"""Re-verification of what the store holds, for the asset checks: plain functions over rows as
DuckDB returns them, independent of the extraction code path that wrote them.

Each function returns findings; an empty list means the property holds. "Verbatim" is
`verify.spans.is_verbatim`, and the guarded fields are the branch registry's (`branches.py`),
which the span guard reads too, so the checks and the guard cannot drift apart on what must be
verbatim, and the check does not import the code it checks. Where a field must be found differs
by branch (`BranchSpec.document_scope`): glossary and domain-context fields may sit in any chunk
of the document (the chunks the model was shown are not stored), rule and formula fields in
their provenance chunk. A span that crosses a page break (D56) is checked piece by piece: its
chunks consecutive, each piece in its own chunk and reaching the chunk's edge at the join.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import TypeAdapter, ValidationError

from knowledge_assets import branches, ids
from knowledge_assets import contracts as c
from knowledge_assets.branches import BranchSpec, BranchTable
from knowledge_assets.crossing import continues, joined
from knowledge_assets.store import knowledge
from knowledge_assets.store.protocol import Store
from knowledge_assets.verify.latex import is_transcription
from knowledge_assets.verify.spans import VerbatimIndex, is_verbatim, locate, pieces_problem

Row = dict[str, Any]


@dataclass(frozen=True)
class Finding:
    entity_id: str
    field: str
    problem: str


REVIEW_QUEUE = "review_queue"  # checked beside the branches' tables; its rows are ranked, not identified


def checked_tables() -> tuple[str, ...]:
    return (*branches.tables(), REVIEW_QUEUE)


_QUEUE_ROW = TypeAdapter(c.ReviewQueueRow)


@dataclass(frozen=True)
class ChunkText:
    text: str
    latex: str | None


@dataclass(frozen=True)
class StoredDocument:
    """One document's rows of one knowledge table, with what they are checked against."""

    doc_id: str
    table: str
    rows: list[Row]
    chunks: dict[str, ChunkText]  # in reading order
    cluster_canonicals: dict[str, str]  # term_id -> canonical, from term_clusters
    glossary_term_ids: set[str]
    # term_id -> its glossary entry's provenance chunk, for the review queue's rows (copied from
    # those entries): where a queue text is looked for before the whole document is.
    term_chunks: dict[str, str | None] = dataclasses.field(default_factory=dict)

    def boundaries(self, chunk_ids: list[str] | None = None) -> Iterator[ChunkText]:
        """The joined text of each two consecutive chunks (of `chunk_ids`, else of the
        document) where the text runs on: where a value crossing a page break is verbatim (D56).
        One at a time: the whole document's would hold its text twice over."""
        order = list(self.chunks) if chunk_ids is None else chunk_ids
        for a, b in zip(order, order[1:]):
            if continues(self.chunks[a].text, self.chunks[b].text):
                yield ChunkText(joined(self.chunks[a].text, self.chunks[b].text), None)

    def pieces_problem(self, provenance: Row) -> str | None:
        """What is wrong with a crossing span's pieces, None when nothing is (`spans.pieces_problem`)."""
        seq = {chunk_id: position for position, chunk_id in enumerate(self.chunks)}
        return pieces_problem(provenance["span"], provenance["chunk_id"],
                              [(piece["chunk_id"], piece["span"]) for piece in provenance["pieces"]],
                              {chunk_id: chunk.text for chunk_id, chunk in self.chunks.items()}, seq)


def load_document(store: Store, table: str, doc_id: str) -> StoredDocument:
    return next(load_documents(store, table, [doc_id]))


# Documents whose rows and chunks one read brings for the checks: a read per kind of row for
# this many documents, not for each one, and no more of a long range's text held at once.
DOCUMENTS_PER_READ = 20


def load_documents(store: Store, table: str, doc_ids: Sequence[str]) -> Iterator[StoredDocument]:
    """Each document's rows of `table` with what they are checked against, in the order given,
    read `DOCUMENTS_PER_READ` documents at a time."""
    if table not in checked_tables():
        raise ValueError(f"{table} is not a knowledge table; expected one of {sorted(checked_tables())}")
    for start in range(0, len(doc_ids), DOCUMENTS_PER_READ):
        some = doc_ids[start:start + DOCUMENTS_PER_READ]
        rows = knowledge.documents_rows(store, table, some)
        chunks = knowledge.chunk_sources(store, some)
        canonicals = knowledge.cluster_canonicals(store, some)
        entries = knowledge.provenance_chunks(store, branches.GLOSSARY, some)
        for doc_id in some:
            yield StoredDocument(
                doc_id=doc_id, table=table, rows=rows[doc_id],
                chunks={chunk_id: ChunkText(*source) for chunk_id, source in chunks[doc_id].items()},
                cluster_canonicals=canonicals[doc_id], glossary_term_ids=set(entries[doc_id]),
                term_chunks=entries[doc_id] if table == REVIEW_QUEUE else {},
            )


def _id_field(document: StoredDocument) -> str:
    return "rank" if document.table == REVIEW_QUEUE else _branch(document).id_field


def _branch(document: StoredDocument) -> BranchSpec:
    return branches.of_table(document.table)


def _entity_id(document: StoredDocument, row: Row) -> str:
    return str(row.get(_id_field(document)))


# --- every non-null guarded field is verbatim in its source ---


# What a reviewer reads on a queue row is copied from an entry, so it must be verbatim too.
_QUEUE_TEXT_FIELDS = ("span", "definition", "source_wording")


def _unverified_queue_text(document: StoredDocument) -> list[Finding]:
    everywhere = _LazyIndex(document)
    findings = []
    for row in document.rows:
        # Looked for in the chunk of the entry the row was copied from first: one search of the
        # whole document per value would make the check quadratic in the document's length.
        chunk = document.chunks.get(document.term_chunks.get(row["term_id"]) or "")
        for name in _QUEUE_TEXT_FIELDS:
            value = row[name]
            if value is not None and not ((chunk and is_verbatim(value, chunk.text)) or everywhere.holds(value)):
                findings.append(Finding(str(row["rank"]), name, "not verbatim in any chunk of the document"))
    return findings


def unverified_spans(document: StoredDocument) -> list[Finding]:
    if document.table == REVIEW_QUEUE:
        return _unverified_queue_text(document)
    spec = _branch(document)
    everywhere = _LazyIndex(document)
    findings = []
    for row in document.rows:
        entity = _entity_id(document, row)
        provenance = row["provenance"]
        chunk = document.chunks.get(provenance["chunk_id"]) if provenance["chunk_id"] else None
        if provenance["chunk_id"] and chunk is None:
            findings.append(Finding(entity, "provenance.chunk_id",
                                    f"{provenance['chunk_id']} is not a chunk of the document"))
            continue
        crossed = [piece["chunk_id"] for piece in provenance.get("pieces") or []]
        if crossed:
            if problem := document.pieces_problem(provenance):
                findings.append(Finding(entity, "provenance.pieces", problem))
                continue
        elif not (is_verbatim(provenance["span"], chunk.text) if chunk else everywhere.holds(provenance["span"])):
            findings.append(Finding(entity, "provenance.span", "not verbatim in its provenance chunk"))
        own = [chunk, *document.boundaries(crossed)] if chunk else []
        # Where the guard looked (D12): the provenance chunk, or for a document-scoped branch any
        # chunk — looked for in the own chunk first, the whole document only when not there.
        anywhere = spec.document_scope or chunk is None
        for field in spec.guarded_fields:
            value = row[field]
            if value is None:
                continue
            if field == "formula_latex" and chunk is not None:
                # A formula across a boundary (D66) is transcribed from its chunks' joined text.
                found = any(is_transcription(value, provenance["span"], source.text, source.latex)
                            for source in (document.boundaries(crossed) if crossed else [chunk]))
            else:
                found = any(is_verbatim(value, source.text) for source in own) or (
                    anywhere and everywhere.holds(value))
            if not found:
                where = "any chunk of the document" if anywhere else "its provenance chunk"
                findings.append(Finding(entity, field, f"not verbatim in {where}"))
    return findings


class _LazyIndex:
    """Every chunk of the document and every two consecutive chunks joined (D56), indexed the
    first time a value is not found where it claims to be."""

    def __init__(self, document: StoredDocument):
        self._document = document
        self._index: VerbatimIndex | None = None

    def holds(self, value: str | None) -> bool:
        if self._index is None:
            document = self._document
            sources = itertools.chain(document.chunks.values(), document.boundaries())
            self._index = VerbatimIndex(source.text for source in sources)
        return self._index.holds(value)


# --- ids unique per document and derived by the contract's formulas (so stable across runs) ---


def duplicate_ids(document: StoredDocument) -> list[Finding]:
    field = _id_field(document)
    counts = Counter(row[field] for row in document.rows)
    return [Finding(str(value), field, f"{n} rows share this id") for value, n in counts.items() if n > 1]


def _expected_term_id(document: StoredDocument, row: Row) -> set[str]:
    canonical = document.cluster_canonicals.get(row["term_id"])
    return {ids.term_id(document.doc_id, canonical)} if canonical is not None else set()


def _expected_formula_ids(document: StoredDocument, row: Row) -> set[str]:
    # The formula branch's own fallback chain (name, then latex, then chunk) when two formulas
    # of a document would share an id: any link of the chain is a contract-derived id.
    chunk_id = row["provenance"]["chunk_id"]
    chain = ((row["name"], row["formula_latex"]), (None, row["formula_latex"]), (None, None))
    return {ids.formula_id(document.doc_id, name, latex, chunk_id)
            for name, latex in chain if name or latex or chunk_id}


def _expected_rule_id(document: StoredDocument, row: Row) -> set[str]:
    provenance = row["provenance"]
    chunk = document.chunks.get(provenance["chunk_id"] or "")
    span = provenance["pieces"][0]["span"] if provenance.get("pieces") else provenance["span"]
    start = locate(span, chunk.text) if chunk else None
    return {ids.rule_id(document.doc_id, provenance["chunk_id"], start)} if start is not None else set()


def _expected_domain_id(document: StoredDocument, row: Row) -> set[str]:
    return {ids.domain_id(document.doc_id)}


# How the check recomputes each branch's id from a stored row: the one piece of a branch a
# new branch brings to this module (its id formula lives in ids.py).
_EXPECTED_IDS: dict[str, Callable[[StoredDocument, Row], set[str]]] = {
    branches.GLOSSARY.id_field: _expected_term_id,
    branches.FORMULA.id_field: _expected_formula_ids,
    branches.RULE.id_field: _expected_rule_id,
    branches.DOMAIN_CONTEXT.id_field: _expected_domain_id,
}


def unstable_ids(document: StoredDocument) -> list[Finding]:
    """An id the contract's formula (ids.py) does not reproduce from the row's own content would
    not survive a re-run, and an expert's approval attached to it would be lost."""
    if document.table == REVIEW_QUEUE:
        return _queue_reference_findings(document)
    field = _id_field(document)
    expected = _EXPECTED_IDS[field]
    return [
        Finding(row[field], field, "not the id the contract derives from this row's content")
        for row in document.rows
        if row[field] not in expected(document, row)
    ]


def _queue_reference_findings(document: StoredDocument) -> list[Finding]:
    """Queue rows are ranked 1..n, and a term row names a glossary term exactly once."""
    findings = []
    ranks = sorted(row["rank"] for row in document.rows)
    if ranks != list(range(1, len(ranks) + 1)):
        findings.append(Finding("rank", "rank", f"ranks are not 1..{len(ranks)}"))
    term_ids = Counter(row["term_id"] for row in document.rows if row["row_kind"] == "term")
    findings += [Finding(str(t), "term_id", f"{n} queue rows for one term") for t, n in term_ids.items() if n > 1]
    findings += [
        Finding(str(t), "term_id", "no glossary entry has this term_id")
        for t in term_ids if t not in document.glossary_term_ids
    ]
    return findings


# --- rows read back validate against the contract models ---


def _payload(document: StoredDocument, row: Row) -> Row:
    payload = {k: v for k, v in row.items() if k != "doc_id"}
    if document.table == REVIEW_QUEUE and payload.get("domain_id") is None:
        payload.pop("domain_id", None)  # a term row carries no domain_id key (decision D4)
    return payload


def contract_violations(document: StoredDocument) -> list[Finding]:
    findings = []
    for row in document.rows:
        entity = _entity_id(document, row)
        try:
            if document.table == REVIEW_QUEUE:
                _QUEUE_ROW.validate_python(_payload(document, row))
            else:
                _branch(document).model.model_validate(_payload(document, row))
        except ValidationError as exc:
            for error in exc.errors():
                location = ".".join(str(part) for part in error["loc"])
                findings.append(Finding(entity, location, error["msg"]))
        provenance = row.get("provenance")
        if provenance is not None and provenance["doc_id"] != document.doc_id:
            findings.append(Finding(entity, "provenance.doc_id",
                                    f"names {provenance['doc_id']}, not {document.doc_id}"))
    return findings


# --- dangling links: reported as a rate, never hidden ---


@dataclass(frozen=True)
class DangleRate:
    name: str
    dangling: int
    total: int

    @property
    def rate(self) -> float:
        return self.dangling / self.total if self.total else 0.0


# The tables whose links are reported as a dangle rate, each with its measure.
DANGLE_RATES: BranchTable[branches.Dangle] = BranchTable(
    lambda spec: spec.table, lambda spec: spec.dangle, where=lambda spec: spec.dangle is not None)


def dangle_rate(document: StoredDocument) -> DangleRate:
    measure = DANGLE_RATES[document.table]
    return DangleRate(measure.name, *measure.count(document.rows))


@dataclass(frozen=True)
class DocumentYield:
    """What a document yielded, per page: a long document with none of a kind is a warning
    sign (a parser or extractor that found nothing), never proof of an error."""

    pages: int
    definitions: int
    formulas: int
    rules: int

    def per_page(self, count: int) -> float:
        return round(count / self.pages, 4) if self.pages else 0.0

    def shortfalls(self) -> list[str]:
        if self.pages <= 1:
            return []
        found = []
        if self.definitions == 0:
            found.append("no definitions")
        if self.formulas == 0 and self.rules == 0:
            found.append("no formulas and no rules")
        return found


def document_yield(store: Store, doc_id: str) -> DocumentYield:
    return DocumentYield(**knowledge.document_counts(store, doc_id))


def blocking_findings(document: StoredDocument) -> dict[str, list[Finding]]:
    """What each blocking check finds on the document's rows, by check name: what must be empty
    before the rows are exported or reviewed as current (D57)."""
    return {
        "spans_verbatim": unverified_spans(document),
        "ids_unique_and_stable": duplicate_ids(document) + unstable_ids(document),
        "contract_valid": contract_violations(document),
    }
