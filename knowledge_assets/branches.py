"""What a knowledge branch is, said once: every module that needs a branch's table, id, model,
guarded fields, order, export file or links reads it here instead of keeping a table of its own.

The code's one name for a branch is `BranchSpec.name` (`glossary`, `formula`, `rule`,
`domain_context`; `llm.requests.BranchName`, the prompt file's stem). The other words a branch
goes by are fixed outside the code and stay at their boundary, as fields of the spec:
  - `contract_branch`: the output contract's `Branch` (docs/contract.md §11), written into
    `CallUsage.branch` and `RejectedField.branch` (v2 still calls the domain context `summary`);
  - `review_kind`: `knowledge_reviews.entity_kind`, the kind an expert's decision is stored under;
  - `table` and `export_file`: the store's table and the contract's payload file (§2).

This module is low on purpose: it imports the contract models and the standard library only,
so the checks (`verify/`), the store and the review can all read it without importing the
extraction code whose output they check.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from knowledge_assets import contracts as c
from knowledge_assets.errors import KnowledgeError

Row = Mapping[str, Any]
_Value = TypeVar("_Value")


@dataclass(frozen=True)
class Link:
    """A field holding ids of other entities (contract §10): on the row itself, or on each item
    of the row's list field `within` (a formula's variables, a domain's key parameters)."""

    field: str
    within: str | None = None

    def items(self, row: Row) -> Sequence[Row]:
        return row[self.within] if self.within else [row]

    def targets(self, row: Row) -> list[str]:
        found: list[str] = []
        for item in self.items(row):
            value = item[self.field]
            found += value if isinstance(value, list) else [value] if value else []
        return found


@dataclass(frozen=True)
class Dangle:
    """A link whose share left unresolved is reported, never hidden: an item of `link` with no
    target dangles."""

    name: str
    link: Link

    def count(self, rows: Sequence[Row]) -> tuple[int, int]:
        """(dangling, total) over the items the link lives on."""
        items = [item for row in rows for item in self.link.items(row)]
        return sum(not item[self.link.field] for item in items), len(items)


@dataclass(frozen=True)
class BranchSpec:
    name: str
    table: str
    contract_branch: c.Branch
    review_kind: str
    id_field: str
    id_prefix: str  # the prefix of ids.py's formula for `id_field`
    model: type[c.ContractModel]
    export_file: str
    order_by: str  # the stored order of a document's rows: how export and review read them
    # Transcribed fields the span guard nulls when they are not verbatim in their source.
    guarded_fields: tuple[str, ...]
    # The prose fields, where an instruction to a model could pass for content.
    instruction_checked: tuple[str, ...]
    # Fields that are parts of one sentence: when one part instructs a model, the sentence does,
    # and no part of it is kept.
    whole_sentence: bool
    # Guarded fields may sit in any chunk of the document, not only the provenance chunk (the
    # chunks the model was shown are not stored).
    document_scope: bool
    placeholders: frozenset[str]  # the `{{name}}`s the branch's prompt file must hold
    content_fields: tuple[str, ...]  # what a reviewer judges, hashed into a decision's fingerprint
    label: Callable[[Any], str]  # what a reviewer reads first of an entity
    links: tuple[Link, ...] = ()
    dangle: Dangle | None = None
    one_per_document: bool = False  # the payload is one object, not an array

    def linked_ids(self, row: Row) -> list[str]:
        return [target for link in self.links for target in link.targets(row)]


GLOSSARY = BranchSpec(
    name="glossary", table="glossary", contract_branch="glossary", review_kind="term",
    id_field="term_id", id_prefix="t_", model=c.GlossaryEntry, export_file="glossary.json",
    order_by="mention_count DESC, term, term_id",
    guarded_fields=("definition", "full_name", "source_wording"), instruction_checked=("definition",),
    whole_sentence=False, document_scope=True,
    placeholders=frozenset({"terms", "candidates", "chunks"}),
    content_fields=("term", "full_name", "source_wording", "definition", "subdomain_tags"),
    label=lambda entry: entry.term,
    links=(Link("defining_formula_id"),),
)
FORMULA = BranchSpec(
    name="formula", table="formulas", contract_branch="formula", review_kind="formula",
    id_field="formula_id", id_prefix="f_", model=c.FormulaEntry, export_file="formulas.json",
    order_by="provenance.chunk_id, formula_id",
    guarded_fields=("formula_latex",), instruction_checked=(), whole_sentence=False, document_scope=False,
    placeholders=frozenset({"candidates", "chunks"}),
    content_fields=("name", "formula_latex", "variables", "unit"),
    label=lambda formula: formula.name or formula.formula_latex or formula.formula_id,
    links=(Link("term_id", within="variables"),),
    dangle=Dangle("variables_without_term", Link("term_id", within="variables")),
)
RULE = BranchSpec(
    name="rule", table="rules", contract_branch="rule", review_kind="rule",
    id_field="rule_id", id_prefix="r_", model=c.RuleEntry, export_file="interpretation_pack.json",
    order_by="provenance.chunk_id, rule_id",
    guarded_fields=("statement", "condition", "consequence"),
    instruction_checked=("statement", "condition", "consequence"), whole_sentence=True, document_scope=False,
    placeholders=frozenset({"candidates", "chunks"}),
    content_fields=("rule_type", "statement", "condition", "consequence"),
    label=lambda rule: rule.statement or " … ".join(filter(None, (rule.condition, rule.consequence))),
    links=(Link("term_ids"), Link("formula_ids")),
    dangle=Dangle("rules_without_terms", Link("term_ids")),
)
DOMAIN_CONTEXT = BranchSpec(
    name="domain_context", table="domain_context", contract_branch="summary", review_kind="domain",
    id_field="domain_id", id_prefix="d_", model=c.DomainContext, export_file="domain_context.json",
    order_by="domain_id",
    guarded_fields=("title", "purpose_verbatim"), instruction_checked=("title", "purpose_verbatim"),
    whole_sentence=False, document_scope=True,
    placeholders=frozenset({"outline", "candidates", "chunks"}),
    content_fields=("title", "purpose_verbatim", "outline", "key_parameters"),
    label=lambda domain: domain.title or domain.domain_id,
    links=(Link("term_id", within="key_parameters"),),
    dangle=Dangle("key_parameters_unresolved", Link("term_id", within="key_parameters")),
    one_per_document=True,
)

_REGISTRY: list[BranchSpec] = []


class BranchError(KnowledgeError, ValueError):
    """A name, table or reference that no registered branch answers to."""


_UNIQUE = ("name", "table", "contract_branch", "review_kind", "id_field", "id_prefix", "export_file")


def register(spec: BranchSpec) -> BranchSpec:
    """Adds a branch; each of its names must be its own, or a lookup would answer for two."""
    for attribute in _UNIQUE:
        value = getattr(spec, attribute)
        if any(getattr(other, attribute) == value for other in _REGISTRY):
            raise BranchError(f"branch {spec.name}: {attribute} {value!r} is already another branch's")
    _REGISTRY.append(spec)
    return spec


def unregister(spec: BranchSpec) -> None:
    _REGISTRY.remove(spec)


for _spec in (GLOSSARY, FORMULA, RULE, DOMAIN_CONTEXT):
    register(_spec)


def registered() -> tuple[BranchSpec, ...]:
    """Every branch, in registration order (the order reviews and checks list them in)."""
    return tuple(_REGISTRY)


def _find(attribute: str, value: object) -> BranchSpec:
    for spec in _REGISTRY:
        if getattr(spec, attribute) == value:
            return spec
    known = ", ".join(str(getattr(spec, attribute)) for spec in _REGISTRY)
    raise BranchError(f"no branch has {attribute} {value!r}; expected one of {known}")


def named(name: str) -> BranchSpec:
    return _find("name", name)


def of_table(table: str) -> BranchSpec:
    return _find("table", table)


def of_contract_branch(branch: str) -> BranchSpec:
    return _find("contract_branch", branch)


def of_review_kind(kind: str) -> BranchSpec:
    return _find("review_kind", kind)


def of_id(entity_id: str) -> BranchSpec | None:
    """The branch whose id prefix `entity_id` carries, or None."""
    return next((spec for spec in _REGISTRY if entity_id.startswith(spec.id_prefix)), None)


def tables() -> tuple[str, ...]:
    return tuple(spec.table for spec in _REGISTRY)


class BranchTable(Mapping[str, _Value]):
    """A lookup table read off the registry at each use (so a branch registered later is in
    it), with fixed entries for what is not a branch (the review queue, a key parameter)."""

    def __init__(self, key: Callable[[BranchSpec], str], value: Callable[[BranchSpec], _Value],
                 extra: Mapping[str, _Value] | None = None, where: Callable[[BranchSpec], bool] = lambda _: True):
        self._key, self._value, self._extra, self._where = key, value, dict(extra or {}), where

    def _entries(self) -> dict[str, _Value]:
        return {self._key(s): self._value(s) for s in _REGISTRY if self._where(s)} | self._extra

    def __getitem__(self, key: str) -> _Value:
        return self._entries()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries())

    def __len__(self) -> int:
        return len(self._entries())

    def __repr__(self) -> str:
        return f"BranchTable({self._entries()!r})"
