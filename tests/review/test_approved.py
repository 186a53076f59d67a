"""Approved-only knowledge: the latest decision per entity picks the entity (approved), the
edited payload (edited), or nothing (rejected, unreviewed, stale); links to anything outside
that set are pruned; the export keeps the contract shapes."""

import json

import pytest
from pydantic import TypeAdapter

from knowledge_assets import contracts as c
from knowledge_assets.domain_derivations import aggregate_subdomains
from knowledge_assets.export import ExportError, export_document
from knowledge_assets.ids import domain_id
from knowledge_assets.review.approved import approved_knowledge, export_approved, write_approved_knowledge
from knowledge_assets.review.decisions import record_decision
from knowledge_assets.review.entities import find
from tests.review.conftest import KPI, PRM, one

DOMAIN = domain_id(KPI)
SKT = f"{DOMAIN}:Samudra Karya Tambang (SKT)"
MTBF_RULE_CONDITION = "If there is no unscheduled breakdown in the period"


def _term(store, term):
    return one(store, "SELECT term_id FROM glossary WHERE doc_id = ? AND term = ?", KPI, term)["term_id"]


def _formula(store, name):
    return one(store, "SELECT formula_id FROM formulas WHERE doc_id = ? AND name = ? ORDER BY formula_id LIMIT 1",
               KPI, name)["formula_id"]


def _approve(store, *refs):
    for ref in refs:
        record_decision(store, find(store, ref), "approved", "alice")


def _reject(store, ref):
    record_decision(store, find(store, ref), "rejected", "bob", note="not what the document says")


def _edit(store, ref, **changes):
    item = find(store, ref)
    record_decision(store, item, "edited", "carol", edited=item.entity.model_copy(update=changes))


@pytest.fixture
def mtbf(extracted):
    """The MTBF term, its formula and its rule, each approved."""
    rule = one(extracted, "SELECT rule_id FROM rules WHERE doc_id = ? AND condition = ?",
               KPI, MTBF_RULE_CONDITION)["rule_id"]
    ids = {"term": _term(extracted, "MTBF"), "formula": _formula(extracted, "MTBF"), "rule": rule}
    _approve(extracted, *ids.values())
    return ids


def test_only_approved_and_edited_entries_are_selected_never_rejected_or_unreviewed(extracted, mtbf):
    mttr, ma = _term(extracted, "MTTR"), _term(extracted, "MA")
    _edit(extracted, ma, definition="MA is working time over working plus repair time.")
    _reject(extracted, mttr)
    knowledge = approved_knowledge(extracted, KPI)
    assert {t.term_id for t in knowledge.of("term")} == {mtbf["term"], ma}
    assert (next(t for t in knowledge.of("term") if t.term_id == ma).definition
            == "MA is working time over working plus repair time.")
    assert [f.formula_id for f in knowledge.of("formula")] == [mtbf["formula"]]
    assert [r.rule_id for r in knowledge.of("rule")] == [mtbf["rule"]]
    assert knowledge.of("domain") == [] and knowledge.of("key_parameter") == []
    assert approved_knowledge(extracted, PRM).entries == []


def test_an_entry_approved_then_rejected_leaves_the_approved_set(extracted, mtbf):
    _reject(extracted, mtbf["term"])
    assert mtbf["term"] not in {t.term_id for t in approved_knowledge(extracted, KPI).of("term")}


def test_links_to_entries_outside_the_approved_set_are_pruned(extracted, mtbf):
    operating_hours = _term(extracted, "Operating Hours")
    _approve(extracted, operating_hours, _term(extracted, "MA"))
    stored_rule = one(extracted, "SELECT term_ids, formula_ids FROM rules WHERE rule_id = ?", mtbf["rule"])
    assert len(stored_rule["term_ids"]) == 2 and stored_rule["formula_ids"] == [mtbf["formula"]]
    knowledge = approved_knowledge(extracted, KPI)
    [rule] = knowledge.of("rule")
    assert rule.term_ids == [mtbf["term"]] and rule.formula_ids == [mtbf["formula"]]
    [formula] = knowledge.of("formula")
    assert {v.symbol: v.term_id for v in formula.variables} == {"Operating Hours": operating_hours,
                                                                "Number of Breakdowns": None}
    terms = {t.term: t for t in knowledge.of("term")}
    assert terms["MTBF"].defining_formula_id == mtbf["formula"]
    assert terms["MA"].defining_formula_id is None  # its formula is not approved


def test_an_approved_domain_keeps_the_key_parameters_an_approval_backs_and_counts_what_is_approved(extracted, mtbf):
    mttr = _term(extracted, "MTTR")
    _approve(extracted, DOMAIN, mttr)
    [domain] = approved_knowledge(extracted, KPI).of("domain")
    surfaces = {"Mean Time Between Failures (MTBF)": mtbf["term"], "Mean Time To Repair (MTTR)": mttr}
    assert {p.surface: p.term_id for p in domain.key_parameters} == surfaces  # PA, KPIs… not approved; SKT unreviewed
    _approve(extracted, SKT)
    knowledge = approved_knowledge(extracted, KPI)
    [domain] = knowledge.of("domain")
    assert {p.surface: p.term_id for p in domain.key_parameters} == {**surfaces, "Samudra Karya Tambang (SKT)": None}
    assert (domain.n_terms, domain.n_formulas, domain.n_rules) == (2, 1, 1)
    assert domain.subdomains == aggregate_subdomains(knowledge.of("term"))
    assert [p.surface for p in knowledge.of("key_parameter")] == ["Samudra Karya Tambang (SKT)"]


def test_an_edited_domain_is_the_experts_statement_with_links_pruned(extracted, mtbf):
    _edit(extracted, DOMAIN, title="Maintenance KPIs", key_parameters=[
        c.KeyParameter(surface="MTBF", term_id=mtbf["term"]),
        c.KeyParameter(surface="PA", term_id=_term(extracted, "PA"))])
    [domain] = approved_knowledge(extracted, KPI).of("domain")
    assert domain.title == "Maintenance KPIs"
    assert [(p.surface, p.term_id) for p in domain.key_parameters] == [("MTBF", mtbf["term"]), ("PA", None)]


def test_export_approved_writes_the_contract_shapes_one_folder_per_document(extracted, mtbf, tmp_path):
    _reject(extracted, _term(extracted, "MTTR"))
    _approve(extracted, DOMAIN)
    exported = export_approved(extracted, tmp_path)
    # PRM has nothing approved: no folder of empty files that would read as approved and empty.
    assert sorted(p.relative_to(tmp_path).as_posix() for p in exported.written) == sorted(
        [f"{KPI}/{name}"
         for name in ("glossary.json", "interpretation_pack.json", "formulas.json", "domain_context.json")]
        + ["index.json"])
    assert exported.nothing_approved == [PRM] and not (tmp_path / PRM).exists()
    load = lambda doc, name: json.loads((tmp_path / doc / name).read_text(encoding="utf-8"))  # noqa: E731
    glossary = load(KPI, "glossary.json")
    assert [e.term_id for e in TypeAdapter(list[c.GlossaryEntry]).validate_python(glossary)] == [mtbf["term"]]
    assert all(set(e) == set(c.GlossaryEntry.model_fields) for e in glossary)
    assert [r["rule_id"] for r in load(KPI, "interpretation_pack.json")] == [mtbf["rule"]]
    assert set(load(KPI, "interpretation_pack.json")[0]) == set(c.RuleEntry.model_fields)
    assert [f["formula_id"] for f in load(KPI, "formulas.json")] == [mtbf["formula"]]
    domain = c.DomainContext.model_validate(load(KPI, "domain_context.json"))
    assert domain.domain_id == DOMAIN and set(load(KPI, "domain_context.json")) == set(c.DomainContext.model_fields)
    _reject(extracted, DOMAIN)
    export_approved(extracted, tmp_path, [KPI])
    assert not (tmp_path / KPI / "domain_context.json").exists()


def test_an_approved_export_over_a_full_export_replaces_it_whole(extracted, mtbf, tmp_path):
    out = tmp_path / "out"
    export_document(extracted, KPI, out / KPI)
    export_approved(extracted, out, [KPI])
    assert sorted(p.name for p in (out / KPI).iterdir()) == ["formulas.json", "glossary.json",
                                                             "interpretation_pack.json"]
    assert sorted(p.name for p in out.iterdir()) == [KPI, "index.json"]  # nothing else beside it


def test_exporting_an_unknown_document_is_refused_before_anything_is_written(extracted, tmp_path):
    with pytest.raises(ExportError, match="NO-SUCH-DOC: no extracted knowledge"):
        export_approved(extracted, tmp_path / "out", [KPI, "NO-SUCH-DOC"])
    assert not (tmp_path / "out").exists()


def test_the_approved_knowledge_table_is_replaced_per_document_by_each_write(extracted, mtbf):
    write_approved_knowledge(extracted)
    rows = extracted.fetch("SELECT doc_id, entity_kind, entity_id, decision, reviewer, payload "
                           "FROM approved_knowledge ORDER BY entity_kind")
    assert [(r["doc_id"], r["entity_kind"], r["entity_id"], r["decision"]) for r in rows] == [
        (KPI, "formula", mtbf["formula"], "approved"), (KPI, "rule", mtbf["rule"], "approved"),
        (KPI, "term", mtbf["term"], "approved")]
    assert c.GlossaryEntry.model_validate_json(rows[2]["payload"]).term == "MTBF"
    _reject(extracted, mtbf["rule"])
    write_approved_knowledge(extracted)
    assert ({r["entity_kind"] for r in extracted.fetch("SELECT entity_kind FROM approved_knowledge")}
            == {"formula", "term"})
