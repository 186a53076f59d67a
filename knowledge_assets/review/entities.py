"""What an expert reviews: the current extraction's entities, each under a stable reference.

A reference is the entity's own content-derived id — `t_…` term, `f_…` formula, `r_…` rule,
`d_…` domain — or `<domain_id>:<surface>` for a key parameter no extracted term corroborates
(the only key parameters reviewed on their own; a corroborated one stands on its term).
Domain ids never contain `:`, so the first `:` separates the surface, which may hold anything.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from pydantic import BaseModel

from knowledge_assets import branches
from knowledge_assets import contracts as c
from knowledge_assets.branches import DOMAIN_CONTEXT, BranchSpec, BranchTable
from knowledge_assets.errors import KnowledgeError
from knowledge_assets.store.knowledge import documents_holding, extracted_doc_ids, load_entities
from knowledge_assets.store.protocol import Store

# A kind is a branch's review_kind (`term`, `formula`, `rule`, `domain`: the words stored in
# knowledge_reviews.entity_kind), or a key parameter, reviewed on its own inside its domain.
Kind = str
KEY_PARAMETER: Kind = "key_parameter"
KINDS: tuple[Kind, ...] = (*(spec.review_kind for spec in branches.registered()), KEY_PARAMETER)

MODELS: BranchTable[type[BaseModel]] = BranchTable(
    lambda spec: spec.review_kind, lambda spec: spec.model, extra={KEY_PARAMETER: c.KeyParameter})


class ReviewError(KnowledgeError):
    """A bad reference, an unknown document or an invalid decision: nothing is written."""


def kind_branch(kind: Kind) -> BranchSpec:
    """The branch an entity of this kind is stored in: a key parameter lives in its domain."""
    return DOMAIN_CONTEXT if kind == KEY_PARAMETER else branches.of_review_kind(kind)


@dataclass(frozen=True)
class EntityKey:
    kind: Kind
    entity_id: str
    surface: str | None = None

    @property
    def ref(self) -> str:
        return self.entity_id if self.surface is None else f"{self.entity_id}:{self.surface}"


def parse_ref(ref: str) -> EntityKey:
    spec = branches.of_id(ref)
    if spec is None or len(ref) <= len(spec.id_prefix):
        raise ReviewError(
            f"{ref!r} is not a review id: expected a term_id (t_…), formula_id (f_…), rule_id (r_…), "
            "domain_id (d_…) or <domain_id>:<surface> for a key parameter"
        )
    if ":" not in ref:
        return EntityKey(spec.review_kind, ref)
    domain, surface = ref.split(":", 1)
    if spec is not DOMAIN_CONTEXT or not surface.strip():
        raise ReviewError(f"{ref!r}: only a key parameter id has a ':', as <domain_id>:<surface>")
    return EntityKey(KEY_PARAMETER, domain, surface)


@dataclass(frozen=True)
class Reviewable:
    """One current entity, with the provenance a reviewer checks (a key parameter's is its domain's)."""

    doc_id: str
    key: EntityKey
    entity: BaseModel
    provenance: c.Provenance

    @property
    def label(self) -> str:
        """What the reviewer reads first."""
        if self.key.kind == KEY_PARAMETER:
            return self.entity.surface  # type: ignore[attr-defined]
        return kind_branch(self.key.kind).label(self.entity)

    @property
    def preview(self) -> str | None:
        """What the reviewer judges, in one line of the queue: a term's definition, a formula's
        LaTeX, a rule's condition → consequence (its statement when it has neither), a domain's
        purpose. None when the entity has nothing of the kind (a term without a definition)."""
        return entity_preview(self.entity)


def entity_preview(entity: BaseModel) -> str | None:
    if isinstance(entity, c.GlossaryEntry):
        return entity.definition
    if isinstance(entity, c.FormulaEntry):
        return entity.formula_latex
    if isinstance(entity, c.RuleEntry):
        if entity.condition or entity.consequence:
            return f"{entity.condition or '…'} → {entity.consequence or '…'}"
        return entity.statement
    if isinstance(entity, c.DomainContext):
        return entity.purpose_verbatim
    return None


def current_entities(store: Store, doc_id: str, loaded: Mapping[str, list] | None = None,
                     among: Collection[BranchSpec] | None = None) -> list[Reviewable]:
    """Every reviewable entity of the document's current extraction, in the stored order; a
    branch whose entities the caller has loaded already (`loaded`, by table, as `load_branch`
    gives them) is not read again. `among`: only these branches' entities, for a caller that
    asks about some kinds alone (the review queue: terms and key parameters, not a long
    document's 75,000 rules)."""
    items = []
    for spec in branches.registered():
        if among is not None and spec not in among:
            continue
        entities = (loaded or {}).get(spec.table)
        for entity in load_entities(store, spec.table, doc_id, spec.model) if entities is None else entities:
            entity_id = getattr(entity, spec.id_field)
            items.append(Reviewable(doc_id, EntityKey(spec.review_kind, entity_id), entity, entity.provenance))
            if spec is DOMAIN_CONTEXT:
                items += [
                    Reviewable(doc_id, EntityKey(KEY_PARAMETER, entity_id, p.surface), p, entity.provenance)
                    for p in entity.key_parameters
                    if p.term_id is None
                ]
    return items


def extracted_documents(store: Store) -> list[str]:
    """Documents with any extracted knowledge in the store, sorted."""
    return extracted_doc_ids(store)


def require_document(store: Store, doc_id: str) -> None:
    if doc_id not in extracted_documents(store):
        raise ReviewError(
            f"{doc_id}: no extracted knowledge for this document in {store.location}; run it first "
            "(knowledge-assets run FILE)"
        )


def find(store: Store, ref: str, doc_id: str | None = None) -> Reviewable:
    """The current entity a reference names, in `doc_id` or in the one document holding it."""
    key = parse_ref(ref)
    if doc_id is None:
        doc_id = _holding_document(store, key)
    else:
        require_document(store, doc_id)
    for item in current_entities(store, doc_id):
        if item.key == key:
            return item
    if key.kind == KEY_PARAMETER:
        raise _key_parameter_error(store, key, doc_id)
    raise ReviewError(f"{ref}: no {key.kind} with this id in the current extraction of document {doc_id}")


def _holding_document(store: Store, key: EntityKey) -> str:
    spec = kind_branch(key.kind)
    holding = documents_holding(store, spec, key.entity_id)
    if not holding:
        kind = spec.review_kind
        raise ReviewError(
            f"{key.ref}: no {kind} {key.entity_id} in the current extraction of any document in {store.location}")
    if len(holding) > 1:
        raise ReviewError(f"{key.ref}: found in documents {', '.join(holding)}; pass --doc-id")
    return holding[0]


def _key_parameter_error(store: Store, key: EntityKey, doc_id: str) -> ReviewError:
    stored = load_entities(store, DOMAIN_CONTEXT.table, doc_id, c.DomainContext)
    domains = [d for d in stored if d.domain_id == key.entity_id]
    if not domains:
        return ReviewError(f"{key.ref}: no domain {key.entity_id} in document {doc_id}")
    parameters = {p.surface: p.term_id for p in domains[0].key_parameters}
    if parameters.get(key.surface):
        return ReviewError(
            f"{key.ref}: key parameter {key.surface!r} is corroborated by term {parameters[key.surface]}; "
            f"review that term or the domain {key.entity_id} instead"
        )
    open_ones = ", ".join(repr(s) for s, term in parameters.items() if term is None) or "none"
    return ReviewError(
        f"{key.ref}: domain {key.entity_id} has no uncorroborated key parameter {key.surface!r} "
        f"(uncorroborated: {open_ones})"
    )
