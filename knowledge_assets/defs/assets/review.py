"""Approved-only knowledge across all documents. Thin wiring around `knowledge_assets.review`."""

from collections import Counter

import dagster as dg

from knowledge_assets.defs.assets.code_versions import chained_code_version
from knowledge_assets.defs.assets.extract import domain_context, formulas, glossary, rules
from knowledge_assets.defs.assets.metadata import store_value
from knowledge_assets.defs.resources import KnowledgeStore
from knowledge_assets.review.approved import write_approved_knowledge
from knowledge_assets.review.entities import KINDS
from knowledge_assets.review.web.links import document_review_url, review_base_url
from knowledge_assets.store.revisions import not_current


def _document_cell(doc_id: str) -> str:
    """The doc_id, linked to its page in `review serve` when KNOWLEDGE_REVIEW_URL says where it runs."""
    url = document_review_url(doc_id)
    return doc_id if url is None else f"[{doc_id}]({url})"


def _by_document(counts: dict[str, dict[str, int]]) -> dg.MetadataValue:
    if not counts:
        return dg.MetadataValue.md("_no documents_")
    lines = ["| doc_id | " + " | ".join(KINDS) + " |", "|---|" + "---|" * len(KINDS)]
    lines += [f"| {_document_cell(doc_id)} | " + " | ".join(str(row[k]) for k in KINDS) + " |"
              for doc_id, row in counts.items()]
    return dg.MetadataValue.md("\n".join(lines))


@dg.asset(
    deps=[glossary, formulas, rules, domain_context],
    group_name="review",
    kinds={"python", "duckdb"},
    owners=["team:knowledge-assets"],
    code_version=chained_code_version("approved_knowledge-1", glossary, formulas, rules, domain_context),
    description="The knowledge a downstream planner prompt may use, all documents: entries whose latest "
    "review is approved (the entity) or edited (the edited payload) and still matches the current "
    "content; rejected, unreviewed and changed-since-review entries never. Table: approved_knowledge.",
)
def approved_knowledge(knowledge_store: KnowledgeStore) -> dg.MaterializeResult:
    store = knowledge_store.open()
    approved = write_approved_knowledge(store)
    per_document = {k.doc_id: {kind: len(k.of(kind)) for kind in KINDS} for k in approved}
    states = sum((k.states for k in approved), Counter())
    return dg.MaterializeResult(metadata={
        "dagster/row_count": sum(len(k.entries) for k in approved),
        **{f"approved_{kind}": sum(row[kind] for row in per_document.values()) for kind in KINDS},
        **{f"entries_{state}": states[state] for state in ("approved", "edited", "rejected", "stale", "unreviewed")},
        "documents": len(approved),
        "by_document": _by_document(per_document),
        # What export and the review refuse: each such document, why, and the command that fixes it.
        "documents_not_current": dg.MetadataValue.md(
            "\n".join(f"- {state.describe()}" for state in not_current(store, list(per_document))) or "_none_"),
        "table": "approved_knowledge",
        "database": store_value(store),
        **({"review": dg.MetadataValue.url(base + "/")} if (base := review_base_url()) else {}),
    })


ASSETS = [approved_knowledge]
