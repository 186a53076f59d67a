"""The branch registry: one spec per branch, read by every module that keeps branch facts.

Registering a throwaway branch ("units of measure") here makes every registry-driven table
include it, without touching the modules that read them: the span guard (extract/guard.py),
the stored checks and their dangle rates (verify/stored.py), the stored order and the one
branch write (store/knowledge.py), the entity links shown in the UI (defs/assets/metadata.py),
the usage branch (llm/results.py), the prompt placeholders (llm/prompts.py), review references,
models, id fields and fingerprints (review/entities.py, decisions.py, fingerprint.py), the
approved export's files (review/approved.py), the capture's payloads
(semantic_review/admission.py), the export's payload files (export.py) and, as import-time tuples
built from the registry, the semantic review's entity kinds (semantic_review/vocabulary.py) and
review.entities.KINDS; the review worklist orders a kind it does not know after the known ones.

What a real new branch still has to touch, because it is the branch's own content or a
boundary fixed outside the code (existing modules; its builder and offline answerer are new):
  1. contracts.py: its payload model, and the contract's `Branch` literal (CallUsage and
     RejectedField refuse any other word; a test below shows it);
  2. ids.py: its id formula;
  3. store/tables/knowledge.py: its table's columns;
  4. llm/requests.py and 5. llm/responses.py: its request and answer shapes (its prompt file,
     prompts/<name>.txt, is data), with 6. llm/offline/__init__.py dispatching to its answerer;
  7. extract/stages.py: its stage (and its builder, a new extract/ module);
  8. defs/assets/extract.py: its asset;
  9. verify/stored.py: how the check recomputes its id from a stored row (`_EXPECTED_IDS`).
Import-time tuples include a branch registered in branches.py itself, as every real branch is.
"""

import pytest
from pydantic import ValidationError

from knowledge_assets import branches
from knowledge_assets import contracts as c
from knowledge_assets.branches import BranchError, BranchSpec, Dangle, Link
from knowledge_assets.defs.assets.metadata import ENTITY_LINKS
from knowledge_assets.extract.guard import guard
from knowledge_assets.llm.prompts import PLACEHOLDERS
from knowledge_assets.llm.results import call_usage
from knowledge_assets.review.decisions import validate_edit
from knowledge_assets.review.entities import MODELS, EntityKey, Reviewable, ReviewError, kind_branch, parse_ref
from knowledge_assets.review.fingerprint import CONTENT_FIELDS, reviewed_content
from knowledge_assets.semantic_review.admission import PAYLOAD_MODELS
from knowledge_assets.store import knowledge
from knowledge_assets.verify import stored


class UnitEntry(c.ContractModel):
    unit_id: str
    symbol: str | None = None
    meaning: str | None = None
    term_id: str | None = None
    provenance: c.Provenance


UNITS = BranchSpec(
    name="unit", table="units", contract_branch="unit", review_kind="unit",  # type: ignore[arg-type]
    id_field="unit_id", id_prefix="u_", model=UnitEntry, export_file="units.json", order_by="unit_id",
    guarded_fields=("symbol",), instruction_checked=("meaning",), whole_sentence=False, document_scope=False,
    placeholders=frozenset({"candidates", "chunks"}), content_fields=("symbol", "meaning"),
    label=lambda unit: unit.symbol or unit.unit_id,
    links=(Link("term_id"),), dangle=Dangle("units_without_term", Link("term_id")),
)
SOURCE = "Satuan debit adalah m3/s."


@pytest.fixture
def units():
    branches.register(UNITS)
    yield UNITS
    branches.unregister(UNITS)


def _unit(symbol: str, term_id: str | None = None) -> UnitEntry:
    return UnitEntry(unit_id="u_0123456789", symbol=symbol, term_id=term_id,
                     provenance=c.Provenance(doc_id="D", span=SOURCE, chunk_id="D::0001"))


def test_every_registry_driven_table_includes_a_registered_branch(units):
    assert knowledge.ORDER_BY["units"] == "unit_id"
    assert "units" in stored.checked_tables() and stored.DANGLE_RATES["units"] is units.dangle
    assert ENTITY_LINKS["units"][0] == "unit_id"
    assert PLACEHOLDERS["unit"] == frozenset({"candidates", "chunks"})
    assert parse_ref("u_0123456789") == EntityKey("unit", "u_0123456789")
    assert MODELS["unit"] is UnitEntry and kind_branch("unit") is units
    assert CONTENT_FIELDS["unit"] == ("symbol", "meaning")
    assert "units.json" in PAYLOAD_MODELS


def test_the_span_guard_and_the_stored_check_read_the_registered_fields(units):
    values = {"symbol": "m3/s", "meaning": None}
    assert guard(units, "m3/s", values, [SOURCE]) == (values, [])
    row = {"doc_id": "D", **_unit("m³ per second").model_dump()}
    document = stored.StoredDocument("D", "units", [row], {"D::0001": stored.ChunkText(SOURCE, None)}, {}, set())
    assert [(f.entity_id, f.field) for f in stored.unverified_spans(document)] == [("u_0123456789", "symbol")]
    assert stored.contract_violations(document) == []
    assert (stored.dangle_rate(document).name, stored.dangle_rate(document).rate) == ("units_without_term", 1.0)


def test_review_edits_and_fingerprints_follow_the_registered_id_and_content_fields(units):
    entity = _unit("m3/s", term_id="t_aaaaaaaaaa")
    item = Reviewable("D", EntityKey("unit", entity.unit_id), entity, entity.provenance)
    assert reviewed_content("unit", entity) == {"symbol": "m3/s", "meaning": None}
    assert item.label == "m3/s"
    with pytest.raises(ReviewError, match="unit_id"):
        validate_edit(item, {**entity.model_dump(), "unit_id": "u_other"}, "edit.json")
    assert ENTITY_LINKS["units"][1](entity.model_dump()) == ["t_aaaaaaaaaa"]


def test_the_contract_still_names_the_branches_it_admits(units):
    """The contract is the boundary: usage, or a rejected field, of a branch it does not name
    is refused there (contracts.py is the first module a real new branch changes)."""
    with pytest.raises(ValidationError):
        call_usage("unit", deployment="offline", tier="offline", structured_output_mode="none")
    with pytest.raises(ValidationError, match="branch"):
        guard(units, "m3/s", {"symbol": "m³ per second"}, [SOURCE])


def test_a_branch_registered_twice_under_one_name_is_refused():
    with pytest.raises(BranchError, match="table 'rules'"):
        branches.register(BranchSpec(**{**UNITS.__dict__, "table": "rules"}))
    assert UNITS not in branches.registered()


def test_the_registry_agrees_with_the_vocabularies_fixed_outside_it():
    from typing import get_args

    from knowledge_assets import ids
    from knowledge_assets.llm.requests import BranchName
    from knowledge_assets.store.schema import TABLES

    specs = branches.registered()
    assert tuple(s.name for s in specs) == get_args(BranchName)
    assert {s.contract_branch for s in specs} == set(get_args(c.Branch))
    assert all(s.table in TABLES for s in specs)
    made = {"term_id": ids.term_id("D", "x"), "formula_id": ids.formula_id("D", "x", None, None),
            "rule_id": ids.rule_id("D", "D::0001", 0), "domain_id": ids.domain_id("D")}
    assert all(made[s.id_field].startswith(s.id_prefix) for s in specs)
    assert all(set(s.guarded_fields) | set(s.content_fields) <= set(s.model.model_fields) for s in specs)
