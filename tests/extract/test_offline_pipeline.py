"""The knowledge assets end to end on the offline backend, read back from DuckDB."""

import json

from pydantic import TypeAdapter

from knowledge_assets import contracts as c
from knowledge_assets.export import export_document
from knowledge_assets.ids import domain_id, term_id
from knowledge_assets.verify.spans import is_verbatim

PRM = "SKT-STD-PRM-001"
KPI = "SKT-MNT-KPI-002"


def _one(store, sql, *params):
    rows = store.fetch(sql, list(params))
    assert len(rows) == 1, rows
    return rows[0]


def test_every_asset_materialises_for_both_documents(offline_run):
    _, _, outcomes = offline_run
    for outcome in outcomes.values():
        assert outcome.success, outcome.error
        assert {"parsed_chunks", "term_clusters", "formulas", "glossary", "rules", "domain_context",
                "review_queue"} <= set(outcome.metadata)
        assert outcome.metadata["glossary"]["llm_backend"] == "offline"


def test_glossary_entry_keeps_the_documents_wording_and_a_verbatim_definition(offline_run):
    store, _, _ = offline_run
    qty = _one(store, "SELECT * FROM glossary WHERE doc_id = ? AND term = 'Qty'", PRM)
    assert qty["definition"] == (
        "Adalah jumlah equipment/unit yang digunakan untuk menghasilkan produksi dalam suatu periode."
    )
    assert qty["source_wording"] == "2.1.2. Quantity (Qty)"
    assert qty["provenance"]["section_no"] == "2.1.2" and qty["provenance"]["page_no"] == 2
    assert qty["term_id"] == term_id(PRM, "Quantity")
    pa = _one(store, "SELECT * FROM glossary WHERE doc_id = ? AND term = 'PA'", PRM)
    assert pa["source_wording"] == "2.1.3. Physical of Availability (PA)"


def test_every_stored_span_and_guarded_field_is_verbatim_in_its_chunk(offline_run):
    store, _, _ = offline_run
    chunks = {r["chunk_id"]: r["text"] for r in store.fetch("SELECT chunk_id, text FROM parsed_chunks")}
    # (table, guarded fields, whether they must sit in the provenance chunk itself)
    checks = [
        ("glossary", ["definition", "full_name", "source_wording"], False),
        ("rules", ["statement", "condition", "consequence"], True),
        ("formulas", ["formula_latex"], True),
        ("domain_context", ["title", "purpose_verbatim"], False),
    ]
    for table, fields, same_chunk in checks:
        for row in store.fetch(f"SELECT * FROM {table}"):
            source = chunks[row["provenance"]["chunk_id"]]
            assert is_verbatim(row["provenance"]["span"], source), (table, row["provenance"])
            doc_chunks = [t for cid, t in chunks.items() if cid.startswith(row["doc_id"] + "::")]
            for field in fields:
                if row[field] is not None:
                    sources = [source] if same_chunk else doc_chunks
                    assert any(is_verbatim(row[field], s) for s in sources), (table, field, row[field])


def test_formula_is_transcribed_with_variables_linked_and_verification_set_by_code(offline_run):
    store, _, _ = offline_run
    production = _one(store, "SELECT * FROM formulas WHERE doc_id = ? AND name = 'Production'", PRM)
    assert production["formula_latex"] == "Production = MOHH x Qty x PA x UA x Pty"
    assert production["latex_verification"] == "unverified_no_markup"  # a PDF text layer has no markup
    symbols = {v["symbol"]: v["term_id"] for v in production["variables"]}
    assert symbols["Qty"] == term_id(PRM, "Quantity") and symbols["MOHH"] is not None
    glossary = _one(store, "SELECT defining_formula_id FROM glossary WHERE doc_id = ? AND term = 'Production'", PRM)
    assert glossary["defining_formula_id"] == production["formula_id"]


def test_the_joint_survey_rule_is_split_into_condition_and_consequence_and_linked(offline_run):
    store, _, _ = offline_run
    rule = _one(store, "SELECT * FROM rules WHERE doc_id = ? AND regexp_replace(condition, '\\s+', ' ', 'g') "
                       "LIKE '%joint survey belum tersedia%'", PRM)
    assert rule["rule_type"] == "calculation"
    assert "truck count" in rule["consequence"]


def test_a_rule_links_the_terms_it_names_and_the_formulas_defining_them(offline_run):
    store, _, _ = offline_run
    rule = _one(store, "SELECT * FROM rules WHERE doc_id = ? AND condition LIKE 'Apabila PA dihitung untuk grup unit%'",
                PRM)
    pa = _one(store, "SELECT term_id, defining_formula_id FROM glossary WHERE doc_id = ? AND term = 'PA'", PRM)
    assert pa["term_id"] in rule["term_ids"]
    assert pa["defining_formula_id"] in rule["formula_ids"]


def test_domain_context_is_located_derived_and_counted(offline_run):
    store, _, _ = offline_run
    domain = _one(store, "SELECT * FROM domain_context WHERE doc_id = ?", PRM)
    assert domain["domain_id"] == domain_id(PRM)
    assert domain["purpose_verbatim"].startswith("Standard Parameter ini merupakan pedoman")
    assert domain["outline"][:3] == ["1. TUJUAN PARAMETER", "2. PENJELASAN PARAMETER", "2.1. Production Parameter"]
    assert "2.1.3. Physical of Availability (PA)" in domain["outline"]
    counts = {t: _one(store, f"SELECT count(*) AS n FROM {t} WHERE doc_id = ?", PRM)["n"]
              for t in ("glossary", "formulas", "rules")}
    assert (domain["n_terms"], domain["n_formulas"], domain["n_rules"]) == (
        counts["glossary"], counts["formulas"], counts["rules"])
    tags = [t for r in store.fetch("SELECT subdomain_tags FROM glossary WHERE doc_id = ?", [PRM])
            for t in r["subdomain_tags"]]
    assert domain["subdomains"] and domain["subdomains"][0] == max(set(tags), key=lambda t: (tags.count(t), -ord(t[0])))


def test_review_queue_is_ranked_and_every_reason_is_a_contract_reason(offline_run):
    store, _, _ = offline_run
    rows = store.fetch("SELECT * FROM review_queue WHERE doc_id = ? ORDER BY rank", [PRM])
    assert [r["rank"] for r in rows] == list(range(1, len(rows) + 1))
    assert all(r["review_reason"] in c.REVIEW_REASONS for r in rows)
    term_rows = [r for r in rows if r["row_kind"] == "term"]
    formulas = {r["term_id"]: r["defining_formula_id"]
                for r in store.fetch("SELECT term_id, defining_formula_id FROM glossary WHERE doc_id = ?", [PRM])}
    groups = [(0 if r["definition"] is not None else 1 if formulas[r["term_id"]] is not None else 2, r["mention_count"])
              for r in term_rows if r["review_reason"] != c.REVIEW_REASON_CONFLICT]
    # Terms defined in words first, then those only a formula defines, then the rest; each by mention count.
    assert groups == sorted(groups, key=lambda row: (row[0], -row[1]))


def test_export_writes_the_seven_contract_files_with_exact_key_sets(offline_run, tmp_path):
    store, _, _ = offline_run
    written = export_document(store, PRM, tmp_path)
    assert sorted(p.name for p in written) == sorted([
        "glossary.json", "interpretation_pack.json", "formulas.json", "domain_context.json",
        "review_queue.json", "rejected.json", "usage.json"])
    load = lambda name: json.loads((tmp_path / name).read_text())  # noqa: E731
    provenance_keys = {"doc_id", "span", "page", "page_no", "section_no", "chunk_id"}
    glossary = TypeAdapter(list[c.GlossaryEntry]).validate_python(load("glossary.json"))
    assert glossary and all(set(e) == set(c.GlossaryEntry.model_fields) for e in load("glossary.json"))
    assert all(set(e["provenance"]) == provenance_keys for e in load("glossary.json"))
    assert all(set(r) == set(c.RuleEntry.model_fields) for r in load("interpretation_pack.json"))
    assert all(set(f) == set(c.FormulaEntry.model_fields) for f in load("formulas.json"))
    domain = load("domain_context.json")
    assert isinstance(domain, dict) and set(domain) == set(c.DomainContext.model_fields)
    queue = load("review_queue.json")
    TypeAdapter(list[c.ReviewQueueRow]).validate_python(queue)
    assert all("domain_id" not in r for r in queue if r["row_kind"] == "term")
    usage = TypeAdapter(list[c.CallUsage]).validate_python(load("usage.json"))
    assert {u.branch for u in usage} == {"glossary", "formula", "rule", "summary"}
    assert all(u.deployment == "offline" and u.prompt_tokens == 0 and not u.simulated for u in usage)
    assert isinstance(load("rejected.json"), list)
