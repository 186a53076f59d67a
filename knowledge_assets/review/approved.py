"""Approved-only knowledge (docs/contract.md v3 §6): the entries a downstream planner prompt may
use.

Per entity, the latest decision decides, while it applies to the current content:
approved → the stored entity; edited → the edited payload; rejected, unreviewed or stale → never.
The result keeps the contract shapes and holds together on its own:
  - a link to an entity outside the approved set is pruned (null or dropped), the contract's
    rule for a dangling link (§10);
  - an approved domain keeps a key parameter only when an approval backs it: its corroborating
    term is approved, or the key parameter itself was approved or edited. An edited domain is
    the expert's own statement, so its key parameters stand, links pruned;
  - the domain's subdomains and counts are recomputed over the approved entries, so they
    describe the files they come with.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from knowledge_assets import branches
from knowledge_assets import contracts as c
from knowledge_assets.branches import DOMAIN_CONTEXT, FORMULA, GLOSSARY, RULE
from knowledge_assets.domain_derivations import complete_domain
from knowledge_assets.export import ExportError, Format, write_folder, write_index
from knowledge_assets.review.decisions import Review
from knowledge_assets.review.entities import KEY_PARAMETER, MODELS, EntityKey, Kind, extracted_documents
from knowledge_assets.review.status import ReviewStatus, review_statuses
from knowledge_assets.store.protocol import Store
from knowledge_assets.store.review import approved_doc_ids
from knowledge_assets.store.revisions import not_current

_TERM, _FORMULA = GLOSSARY.review_kind, FORMULA.review_kind
_RULE, _DOMAIN = RULE.review_kind, DOMAIN_CONTEXT.review_kind


@dataclass(frozen=True)
class ApprovedEntry:
    key: EntityKey
    review: Review
    entity: BaseModel


@dataclass(frozen=True)
class ApprovedKnowledge:
    doc_id: str
    entries: list[ApprovedEntry]
    # How many of the document's current entities are in each review state.
    states: Counter[str]

    def of(self, kind: Kind) -> list[Any]:
        return [entry.entity for entry in self.entries if entry.key.kind == kind]

    def rows(self) -> list[dict[str, Any]]:
        """Rows of the `approved_knowledge` table."""
        return [
            {
                "doc_id": self.doc_id,
                "entity_kind": entry.key.kind,
                "entity_id": entry.key.entity_id,
                "surface": entry.key.surface,
                "decision": entry.review.decision,
                "review_id": entry.review.review_id,
                "reviewer": entry.review.reviewer,
                "reviewed_at": entry.review.reviewed_at,
                "payload": json.dumps(entry.entity.model_dump(mode="json"), ensure_ascii=False),
            }
            for entry in self.entries
        ]


def _chosen(status: ReviewStatus) -> BaseModel:
    assert status.latest is not None
    if status.state == "edited":
        return MODELS[status.key.kind].model_validate(status.latest.edited_payload)
    return status.item.entity


def _kept(value: str | None, allowed: set[str]) -> str | None:
    return value if value in allowed else None


def _prune_links(entity: BaseModel, terms: set[str], formulas: set[str]) -> BaseModel:
    if isinstance(entity, c.GlossaryEntry):
        return entity.model_copy(update={"defining_formula_id": _kept(entity.defining_formula_id, formulas)})
    if isinstance(entity, c.FormulaEntry):
        variables = [v.model_copy(update={"term_id": _kept(v.term_id, terms)}) for v in entity.variables]
        return entity.model_copy(update={"variables": variables})
    if isinstance(entity, c.RuleEntry):
        return entity.model_copy(update={
            "formula_ids": [f for f in entity.formula_ids if f in formulas],
            "term_ids": [t for t in entity.term_ids if t in terms],
        })
    if isinstance(entity, c.KeyParameter):
        return entity.model_copy(update={"term_id": _kept(entity.term_id, terms)})
    return entity


def _key_parameters(
    domain: c.DomainContext, edited: bool, terms: set[str], confirmed: dict[str, c.KeyParameter]
) -> list[c.KeyParameter]:
    """`confirmed`: uncorroborated surfaces an expert approved, as approved or edited."""
    if edited:
        return [p.model_copy(update={"term_id": _kept(p.term_id, terms)}) for p in domain.key_parameters]
    kept = []
    for parameter in domain.key_parameters:
        if parameter.term_id is not None and parameter.term_id in terms:
            kept.append(parameter)
        elif parameter.term_id is None and parameter.surface in confirmed:
            kept.append(confirmed[parameter.surface])
    return kept


def select_approved(doc_id: str, statuses: Sequence[ReviewStatus]) -> ApprovedKnowledge:
    chosen = [s for s in statuses if s.state in ("approved", "edited")]
    terms = {s.key.entity_id for s in chosen if s.key.kind == _TERM}
    formulas = {s.key.entity_id for s in chosen if s.key.kind == _FORMULA}
    pruned = [ApprovedEntry(s.key, s.latest, _prune_links(_chosen(s), terms, formulas)) for s in chosen]  # type: ignore[arg-type]
    # The domain is completed last, over everything else that was approved.
    others = ApprovedKnowledge(doc_id, [e for e in pruned if e.key.kind != _DOMAIN], Counter())
    confirmed = {e.key.surface: e.entity for e in others.entries if e.key.kind == KEY_PARAMETER}
    entries = []
    for entry in pruned:
        if entry.key.kind == _DOMAIN:
            edited = entry.review.decision == "edited"
            domain = entry.entity.model_copy(
                update={"key_parameters": _key_parameters(entry.entity, edited, terms, confirmed)})  # type: ignore[arg-type]
            domain = complete_domain(domain, others.of(_TERM), others.of(_FORMULA), others.of(_RULE))
            entry = ApprovedEntry(entry.key, entry.review, domain)
        entries.append(entry)
    return ApprovedKnowledge(doc_id, entries, Counter(s.state for s in statuses))


def approved_knowledge(store: Store, doc_id: str) -> ApprovedKnowledge:
    return select_approved(doc_id, review_statuses(store, doc_id))


def write_approved_knowledge(store: Store) -> list[ApprovedKnowledge]:
    """Replaces every document's rows of the `approved_knowledge` table, each in one transaction."""
    documents = extracted_documents(store)
    previously = approved_doc_ids(store)
    results = [approved_knowledge(store, doc_id) for doc_id in documents]
    for knowledge in results:
        store.replace_partition(knowledge.doc_id, {"approved_knowledge": knowledge.rows()})
    for gone in sorted(previously - set(documents)):
        store.replace_partition(gone, {"approved_knowledge": []})
    return results


@dataclass(frozen=True)
class ApprovedExport:
    written: list[Path]  # every file put in place, index.json last
    nothing_approved: list[str]  # the documents left out: nothing of theirs is approved yet


def export_approved(
    store: Store, out_dir: Path, doc_ids: Sequence[str] | None = None, fmt: Format = "json"
) -> ApprovedExport:
    """One folder per document with something approved, put in place whole (export.write_folder),
    a file per branch (its registered export_file): glossary.json, interpretation_pack.json and
    formulas.json (bare arrays, maybe empty), and domain_context.json (one object) only when the
    domain context is approved; in CSV a file, in a workbook a sheet, for each. Key parameters
    travel inside the domain context. Then `index.json` naming them (export.write_index), what
    the command and the browser's download both write. A document with nothing approved gets no
    folder and no index entry (an empty file would read as approved and empty); with nothing
    approved in any, the export is refused, writing nothing. A document that is not current
    refuses the export whole."""
    known = extracted_documents(store)
    unknown = [d for d in doc_ids or () if d not in known]
    if unknown:
        raise ExportError(f"{', '.join(unknown)}: no extracted knowledge in {store.location}; run the document first")
    chosen = list(doc_ids or known)
    behind = not_current(store, chosen)
    if behind:
        raise ExportError("; ".join(state.describe() for state in behind))
    folders: dict[str, dict[str, object]] = {}
    for doc_id in chosen:
        knowledge = approved_knowledge(store, doc_id)
        documents: dict[str, object] = {}
        for spec in branches.registered():
            entities = knowledge.of(spec.review_kind)
            if not spec.one_per_document:
                documents[spec.export_file] = entities
            elif entities:
                documents[spec.export_file] = entities[0]
        if any(documents.values()):
            folders[doc_id] = documents
    if not folders:
        which = chosen[0] if len(chosen) == 1 else f"any of the {len(chosen)} extracted documents"
        raise ExportError(f"nothing approved yet in {which}; nothing exported (`knowledge-assets review` approves "
                          "entries)")
    written = [path for doc_id, documents in folders.items() for path in write_folder(out_dir / doc_id, documents, fmt)]
    written.append(write_index(store, out_dir, list(folders), fmt, approved=True))
    return ApprovedExport(written, [doc_id for doc_id in chosen if doc_id not in folders])
