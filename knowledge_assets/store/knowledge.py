"""Contract entities in and out of their tables: a row is the entity's JSON shape plus doc_id.

Every branch writes through `write_branch`, so what one branch's write replaces, and what it
appends, is the same for all of them."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from pydantic import BaseModel

from knowledge_assets import branches
from knowledge_assets import contracts as c
from knowledge_assets.branches import FORMULA, GLOSSARY, RULE, BranchSpec, BranchTable
from knowledge_assets.store.protocol import Store
from knowledge_assets.store.rows import DOC_IDS_PER_STATEMENT, batched, each_row, in_list
from knowledge_assets.store.schema import column_list
from knowledge_assets.store.step_writes import reading_one_document

Entity = TypeVar("Entity", bound=BaseModel)
_Row = TypeVar("_Row")

# Each branch's stored order is the registry's; the two audit tables beside them keep theirs.
ORDER_BY: BranchTable[str] = BranchTable(
    lambda spec: spec.table, lambda spec: spec.order_by,
    extra={"review_queue": "rank", "rejected_fields": "branch, entry_term, field"},
)


def entity_rows(doc_id: str, entities: Iterable[BaseModel]) -> Iterator[dict]:
    """Each entity as its row, made as the store inserts it (a batch at a time): a long
    document's rows are never all held as dicts beside its models."""
    return ({"doc_id": doc_id, **entity.model_dump()} for entity in entities)


def stored_rows(store: Store, table: str, doc_id: str) -> list[dict]:
    """The document's rows of a table of `ORDER_BY` in their stored order, without doc_id."""
    order = ORDER_BY[table]
    if "." in order:
        return _in_order(store.fetch(_select(table), [doc_id]), order, _item)
    return store.fetch(f"{_select(table)} ORDER BY {order}", [doc_id])


def load_entities(store: Store, table: str, doc_id: str, model: type[Entity]) -> list[Entity]:
    """The document's rows of a table of `ORDER_BY` as models, in their stored order. Each row
    is made a model as it is fetched, so the rows are never all held as dicts beside the models
    (a 50 MB text's 75,000 rules were 250 MiB of dicts on top of their models)."""
    order = ORDER_BY[table]
    nested = "." in order
    rows = each_row(store, _select(table) if nested else f"{_select(table)} ORDER BY {order}", [doc_id])
    entities = [model.model_validate({k: v for k, v in row.items() if v is not None or k in model.model_fields})
                for row in with_shared_ids(rows)]
    return _in_order(entities, order, getattr) if nested else entities


def with_shared_ids(rows: Iterable[dict]) -> Iterator[dict]:
    """Each row with the strings of its list columns (a rule's `term_ids` and `formula_ids`, a
    formula's …) taken from one pool, one object per distinct id, as they were when written:
    the store gives a new string for every item of every list read. A rule links every formula
    that defines a term it names, so a long document whose definitions recur names the same few
    thousand formula ids millions of times (a 50 MB real text: 15 million items, ~60 bytes each
    as strings of their own, 8 as references to shared ones)."""
    pool: dict[str, str] = {}
    for row in rows:
        for column, value in row.items():
            if isinstance(value, list) and value and isinstance(value[0], str):
                row[column] = [pool.setdefault(item, item) for item in value]
        yield row


def _select(table: str) -> str:
    return f'SELECT {column_list(table, "doc_id")} FROM "{table}" WHERE doc_id = ?'


def _item(row: dict, name: str) -> object:
    return row[name]


def _in_order(rows: list[_Row], order_by: str, field: Callable[[_Row, str], object]) -> list[_Row]:
    """The rows (dicts or models, whose `field` of a name is the column's value) as DuckDB's
    `ORDER BY order_by` sorts them: each term a column or a field of one
    (`provenance.chunk_id`), ascending unless `DESC`, NULLs last either way, text by code
    point. One stable sort per term, the last term first. A field of a nested column is
    spelled differently by each engine, so such an order is taken here rather than in SQL."""
    for term in reversed(order_by.split(",")):
        name, _, direction = term.strip().partition(" ")
        descending = direction.strip().upper() == "DESC"
        rows = sorted(rows, key=_sort_key(name.split("."), descending, field), reverse=descending)
    return rows


def _sort_key(path: list[str], descending: bool, field: Callable[[_Row, str], object]) -> Callable[[_Row], tuple]:
    def key(row: _Row) -> tuple:
        value: object = row
        for part in path:
            value = None if value is None else field(value, part)  # type: ignore[arg-type]
        # NULLs last: the flag sorts a NULL after every value, ascending or reversed.
        return (value is not None if descending else value is None, value)

    return key


def load_branch(store: Store, branch: BranchSpec, doc_id: str) -> list:
    """The document's entities of one branch, as its contract model, in the stored order."""
    return load_entities(store, branch.table, doc_id, branch.model)


@dataclass(frozen=True)
class KeptRow:
    """An entity a branch's write kept from an earlier run: the run and revision that produced
    it, and the run that kept it."""

    entity_id: str
    kept_from_run_id: str
    kept_from_revision: int
    run_id: str


@dataclass(frozen=True)
class EarlierResult:
    """What a branch's last write stored for a document, when it was derived from the text the
    store holds now (else empty): the rows a failed call may keep (D58)."""

    entities: list = field(default_factory=list)
    rejected: list[c.RejectedField] = field(default_factory=list)
    run_id: str = ""
    revision: int = 0
    kept: dict[str, KeptRow] = field(default_factory=dict)

    def mark(self, entity_id: str, run_id: str) -> KeptRow:
        """The mark of an entity kept again by `run_id`: where it came from stays the first run's."""
        earlier = self.kept.get(entity_id)
        if earlier is not None:
            return KeptRow(entity_id, earlier.kept_from_run_id, earlier.kept_from_revision, run_id)
        return KeptRow(entity_id, self.run_id, self.revision, run_id)


def write_branch(
    store: Store,
    branch: BranchSpec,
    doc_id: str,
    entities: Iterable[BaseModel],
    rejected: Sequence[c.RejectedField],
    usage: list[dict],
    history: dict[str, list[dict]] | None = None,
    kept: Iterable[KeptRow] = (),
) -> None:
    """One branch's extraction of a document, in one transaction: its entities replace the
    document's rows of the branch's table, its rejected fields and the marks of the rows it kept
    from an earlier run replace the branch's share of `rejected_fields` and `kept_rows` (shared
    by every branch), and its calls' usage rows and any history rows are appended. The record
    that the table's earlier rows passed their checks goes in the same transaction (D57): rows
    written are unchecked until their checks end, whatever happens before the revision stamp.

    The entities may be drawn as they are written (the rules stage builds them so, D104): they
    are written first, and `rejected` and `kept` read only after them, so what drawing them
    gathers (the guard's rejections, the marks of the rows kept) is complete when it is written.
    That holds only while the drawing appends to the very `rejected` list passed here (never a
    copy or a rebound name): the write reads that list's iterator after the entities."""
    share = {"branch": branch.contract_branch}
    store.replace_partition(
        doc_id,
        {branch.table: entity_rows(doc_id, entities), "rejected_fields": entity_rows(doc_id, rejected),
         "kept_rows": ({"doc_id": doc_id, "branch": branch.contract_branch, **vars(row)} for row in kept),
         "asset_checks": []},
        scope={"rejected_fields": share, "kept_rows": share, "asset_checks": {"asset": branch.table}},
        appends={**(history or {}), "llm_usage": usage},
    )


def earlier_result(store: Store, branch: BranchSpec, doc_id: str) -> EarlierResult:
    """The branch's stored rows, the run and revision that wrote them and the marks of those it
    had kept already, if the branch was last materialised from the parsed text the store now
    holds (same content); nothing otherwise, so a row is never kept across a change of text."""
    with reading_one_document(store, doc_id):
        return _earlier_result(store, branch, doc_id)


def _earlier_result(store: Store, branch: BranchSpec, doc_id: str) -> EarlierResult:
    written = store.fetch(
        "SELECT a.run_id, a.revision FROM asset_revisions a JOIN parsed_documents p "
        "ON p.doc_id = a.doc_id AND p.content_sha256 = a.content_sha256 WHERE a.doc_id = ? AND a.asset = ?",
        [doc_id, branch.table],
    )
    if not written:
        return EarlierResult()
    rejected = store.fetch(
        f"SELECT {column_list('rejected_fields', 'doc_id')} FROM rejected_fields WHERE doc_id = ? AND branch = ? "
        "ORDER BY entry_term, field",
        [doc_id, branch.contract_branch],
    )
    return EarlierResult(
        entities=load_branch(store, branch, doc_id),
        rejected=[c.RejectedField.model_validate(row) for row in rejected],
        run_id=written[0]["run_id"], revision=written[0]["revision"],
        kept=kept_marks(store, doc_id),
    )


def kept_marks(store: Store, doc_id: str) -> dict[str, KeptRow]:
    """entity id -> its mark, for the document's entities (any branch) kept from an earlier run."""
    with reading_one_document(store, doc_id):
        rows = store.fetch("SELECT entity_id, kept_from_run_id, kept_from_revision, run_id FROM kept_rows "
                           "WHERE doc_id = ?", [doc_id])
    return {row["entity_id"]: KeptRow(**row) for row in rows}


def write_review_queue(store: Store, doc_id: str, rows: Sequence[BaseModel]) -> None:
    """Replaces the document's queue. A term row carries no domain_id key (decision D4); its
    column is null. The record of the earlier rows' checks goes with them (D57)."""
    store.replace_partition(doc_id, {"review_queue": [{"doc_id": doc_id, "domain_id": None, **row.model_dump()}
                                                      for row in rows], "asset_checks": []},
                            scope={"asset_checks": {"asset": "review_queue"}})


def latest_glossary_version(store: Store, doc_id: str) -> dict[str, str | None]:
    """term_id -> definition, as the document's latest glossary run stored them (empty before
    its first run): what the diff stage compares this run against."""
    with reading_one_document(store, doc_id):
        rows = store.fetch(
            "SELECT term_id, definition FROM glossary_versions WHERE doc_id = ? AND run_id = ("
            "SELECT run_id FROM glossary_versions WHERE doc_id = ? ORDER BY created_at DESC LIMIT 1)",
            [doc_id, doc_id],
        )
    return {r["term_id"]: r["definition"] for r in rows}


def rejected_entry_terms(store: Store, doc_id: str, branch: BranchSpec, field: str) -> set[str]:
    """The entries of a branch whose `field` the span guard rejected in the document."""
    rows = store.fetch(
        "SELECT DISTINCT entry_term FROM rejected_fields WHERE doc_id = ? AND branch = ? AND field = ?",
        [doc_id, branch.contract_branch, field],
    )
    return {r["entry_term"] for r in rows}


def document_rows(store: Store, table: str, doc_id: str, order_by: str | None = None) -> list[dict]:
    """The document's rows of a knowledge table exactly as the store returns them (doc_id
    included), for the checks, which re-verify what is stored rather than what a model would
    read back; sorted by the column `order_by` when one is named."""
    order = f' ORDER BY "{order_by}"' if order_by else ""
    return store.fetch(f'SELECT * FROM "{table}" WHERE doc_id = ?{order}', [doc_id])


def extracted_doc_ids(store: Store) -> list[str]:
    """Documents with rows in any branch's table, sorted."""
    union = " UNION ".join(f'SELECT doc_id FROM "{table}"' for table in branches.tables())
    return [row["doc_id"] for row in store.fetch(f"SELECT DISTINCT doc_id FROM ({union}) extracted ORDER BY doc_id")]


def documents_holding(store: Store, branch: BranchSpec, entity_id: str) -> list[str]:
    """The documents whose rows of the branch's table hold the entity id, sorted."""
    rows = store.fetch(f'SELECT DISTINCT doc_id FROM "{branch.table}" WHERE "{branch.id_field}" = ? ORDER BY doc_id',
                       [entity_id])
    return [row["doc_id"] for row in rows]


def _by_document(rows: list[dict], doc_ids: Sequence[str]) -> dict[str, list[dict]]:
    """The rows grouped by their doc_id, every one of `doc_ids` present (with none, empty), each
    document's rows in the order read."""
    grouped: dict[str, list[dict]] = {doc_id: [] for doc_id in doc_ids}
    for row in rows:
        grouped[row["doc_id"]].append(row)
    return grouped


def _read_for(store: Store, sql: str, doc_ids: Sequence[str],
              each: Callable[[Iterable[dict]], Iterable[dict]] = iter) -> dict[str, list[dict]]:
    """`sql` (a SELECT … WHERE {documents}, that reads doc_id) for all of `doc_ids` in as few
    reads as the statement's parameters allow, grouped by document; `each` sees the rows as
    they are fetched."""
    rows: list[dict] = []
    for some in batched(doc_ids, DOC_IDS_PER_STATEMENT):
        rows += each(each_row(store, sql.format(documents=in_list("doc_id", len(some))), list(some)))
    return _by_document(rows, doc_ids)


def documents_rows(store: Store, table: str, doc_ids: Sequence[str]) -> dict[str, list[dict]]:
    """`document_rows` of several documents in one read (the checks of a run's step), each
    document's rows as the store returns them."""
    return _read_for(store, f'SELECT * FROM "{table}" WHERE {{documents}}', doc_ids, with_shared_ids)


def provenance_chunks(store: Store, branch: BranchSpec, doc_ids: Sequence[str]) -> dict[str, dict[str, str | None]]:
    """Each document's entries of `branch`, by id, and its provenance chunk (the field taken in
    Python: a STRUCT's field is `provenance.chunk_id` in DuckDB and JSON in PostgreSQL)."""
    rows = _read_for(store, f'SELECT doc_id, "{branch.id_field}" AS id, provenance FROM "{branch.table}" '
                            "WHERE {documents}", doc_ids)
    return {doc_id: {row["id"]: (row["provenance"] or {}).get("chunk_id") for row in found}
            for doc_id, found in rows.items()}


def chunk_sources(store: Store, doc_ids: Sequence[str]) -> dict[str, dict[str, tuple[str, str | None]]]:
    """Each document's parsed chunks, chunk_id -> (text, latex), in reading order: what every
    span is checked against (a span crossing a page break, D56, against two consecutive ones)."""
    rows = _read_for(store, "SELECT doc_id, seq, chunk_id, text, latex FROM parsed_chunks WHERE {documents}", doc_ids)
    return {doc_id: {row["chunk_id"]: (row["text"], row["latex"]) for row in sorted(found, key=lambda r: r["seq"])}
            for doc_id, found in rows.items()}


def cluster_canonicals(store: Store, doc_ids: Sequence[str]) -> dict[str, dict[str, str]]:
    """Each document's term clusters, term_id -> canonical: what a term_id is derived from."""
    rows = _read_for(store, "SELECT doc_id, term_id, canonical FROM term_clusters WHERE {documents}", doc_ids)
    return {doc_id: {row["term_id"]: row["canonical"] for row in found} for doc_id, found in rows.items()}


def document_counts(store: Store, doc_id: str) -> dict[str, int]:
    """How many pages the document has, and how many definitions, formulas and rules it yielded."""
    def count(sql: str) -> int:
        return store.fetch(sql, [doc_id])[0]["n"]

    return dict(
        pages=count("SELECT coalesce(max(page_count), 0) AS n FROM parsed_documents WHERE doc_id = ?"),
        definitions=count(f"SELECT count(*) AS n FROM {GLOSSARY.table} WHERE doc_id = ? AND definition IS NOT NULL"),
        formulas=count(f"SELECT count(*) AS n FROM {FORMULA.table} WHERE doc_id = ?"),
        rules=count(f"SELECT count(*) AS n FROM {RULE.table} WHERE doc_id = ?"),
    )
