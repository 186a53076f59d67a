"""The knowledge assets against a real OpenAI-compatible server on 127.0.0.1: what the model
answers is guarded, linked and stored; what it fabricates is nulled and logged, never kept."""

import re

import dagster as dg
import pytest

from knowledge_assets import contracts as c
from knowledge_assets.ingest.documents import identify
from knowledge_assets.run_control.launch import materialize_document
from knowledge_assets.store.database import DuckDBStore
from knowledge_assets.store.registry import register
from tests.conftest import SAMPLE_MARKDOWN
from tests.support.openai_server import OpenAIServer, prompt_text, schema_title

FAKE_KEY = "sk-test-PIPELINE-SECRET"
MTTR_DEFINITION = "MTTR means the average time needed to return a unit to service after a breakdown."
FABRICATED_DEFINITION = "MTBF is the average lifetime of a bolt."
FABRICATED_PURPOSE = "This procedure guarantees that no unit ever breaks down."
RULE = "If a breakdown lasts less than 15 minutes, it is recorded as a delay and not as a breakdown."


def _chunks(text: str) -> list[tuple[str, str]]:
    """(chunk id, text) of each block; a formula or rule request shows one chunk in several."""
    return re.findall(r'<chunk id="([^"]+)"[^>]*>\n(.*?)\n</chunk>', text, flags=re.S)


def _chunk_with(text: str, needle: str) -> str | None:
    return next((cid for cid, body in _chunks(text) if needle in body), None)


def model(body: dict) -> dict:
    """A model that answers like a real one: mostly faithful, sometimes inventing."""
    text = prompt_text(body).rsplit("<document>", 1)[-1]  # the document part, not the worked examples
    title = schema_title(body)
    if title == "GlossaryResponse":
        terms = []
        for number, canonical in re.findall(r'\[term (\d+)\] canonical: "([^"]+)"', text):
            definition = None
            if canonical == "Mean Time To Repair" and _chunk_with(text, MTTR_DEFINITION):
                definition = MTTR_DEFINITION
            elif canonical == "Mean Time Between Failures":
                definition = FABRICATED_DEFINITION
            terms.append({"cluster": int(number), "term": canonical, "full_name": canonical, "definition": definition,
                          "subdomain_tags": ["maintenance"], "span": definition,
                          "chunk_id": _chunk_with(text, MTTR_DEFINITION) if definition == MTTR_DEFINITION else None})
        return {"terms": terms}
    if title == "DomainContextResponse":
        return {"title": "Maintenance KPI Procedure", "purpose_verbatim": FABRICATED_PURPOSE,
                "key_parameters": ["Mean Time To Repair (MTTR)", "Grouping (Composite)"],
                "span": "Maintenance KPI Procedure", "chunk_id": _chunk_with(text, "Maintenance KPI Procedure")}
    if title == "FormulaResponse":
        span = "MTTR = Total Repair Hours / Number of Repairs"
        chunk_id = _chunk_with(text, span)
        formulas = [] if chunk_id is None else [{
            "name": "MTTR", "formula_latex": r"MTTR = \frac{Total Repair Hours}{Number of Repairs}",
            "variables": [{"symbol": "Total Repair Hours", "meaning": None}], "unit": "hours",
            "span": span, "chunk_id": chunk_id}]
        return {"formulas": formulas}
    chunk_id = _chunk_with(text, RULE)
    rules = [] if chunk_id is None else [{
        "rule_type": "calculation", "statement": RULE, "condition": "If a breakdown lasts less than 15 minutes",
        "consequence": "it is recorded as a delay and not as a breakdown", "span": RULE, "chunk_id": chunk_id}]
    return {"rules": rules}


@pytest.fixture(scope="module")
def openai_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("openai")
    store = DuckDBStore(root / "knowledge.duckdb")
    with OpenAIServer(model) as server, pytest.MonkeyPatch.context() as env:
        env.setenv("KNOWLEDGE_DB", str(store.path))
        env.setenv("OPENAI_API_KEY", FAKE_KEY)
        env.setenv("OPENAI_BASE_URL", server.base_url)
        env.setenv("KNOWLEDGE_LLM_MODEL", "loopback-nano")
        env.delenv("KNOWLEDGE_LLM_BACKEND", raising=False)
        (root / "dagster").mkdir()
        with dg.instance_for_test(temp_dir=str(root / "dagster")) as instance:
            doc_id = register(store, identify(SAMPLE_MARKDOWN)).source.doc_id
            outcome = materialize_document(instance, doc_id)
            yield store, doc_id, outcome, server


def test_the_run_succeeds_through_the_real_http_path(openai_run):
    store, doc_id, outcome, server = openai_run
    assert outcome.success, outcome.error
    assert outcome.metadata["glossary"]["llm_backend"] == "openai"
    assert len(server.requests) == sum(outcome.metadata[a]["llm_requests"] for a in
                                       ("formulas", "glossary", "rules", "domain_context"))


def test_a_verbatim_definition_is_kept_and_a_fabricated_one_is_nulled_and_logged(openai_run):
    store, doc_id, _, _ = openai_run
    mttr = store.fetch("SELECT * FROM glossary WHERE doc_id = ? AND term = 'Mean Time To Repair'", [doc_id])[0]
    assert mttr["definition"] == MTTR_DEFINITION and mttr["extraction_status"] == "ok"
    mtbf = store.fetch("SELECT * FROM glossary WHERE doc_id = ? AND term = 'Mean Time Between Failures'", [doc_id])[0]
    assert mtbf["definition"] is None
    rejected = store.fetch("SELECT * FROM rejected_fields WHERE doc_id = ? AND field = 'definition'", [doc_id])
    assert [(r["entry_term"], r["offending_value"], r["branch"]) for r in rejected] == [
        ("Mean Time Between Failures", FABRICATED_DEFINITION, "glossary")]
    queue = store.fetch("SELECT review_reason FROM review_queue WHERE term_id = ?", [mtbf["term_id"]])
    assert queue == [{"review_reason": c.REVIEW_REASON_REJECTED}]


def test_a_fabricated_purpose_is_refused_and_an_unresolved_key_parameter_is_queued_second(openai_run):
    store, doc_id, _, _ = openai_run
    domain = store.fetch("SELECT * FROM domain_context WHERE doc_id = ?", [doc_id])[0]
    assert domain["title"] == "Maintenance KPI Procedure" and domain["purpose_verbatim"] is None
    reasons = store.fetch("SELECT reason FROM rejected_fields WHERE doc_id = ? AND branch = 'summary'", [doc_id])
    assert reasons == [{"reason": "purpose_verbatim is not a verbatim transcription of the source"}]
    key = {k["surface"]: k["term_id"] for k in domain["key_parameters"]}
    assert key["Mean Time To Repair (MTTR)"] is not None and key["Grouping (Composite)"] is None
    queue = store.fetch("SELECT rank, row_kind, term, domain_id FROM review_queue WHERE doc_id = ? ORDER BY rank",
                        [doc_id])
    assert queue[0] == {"rank": 1, "row_kind": "key_parameter", "term": "Grouping (Composite)",
                        "domain_id": domain["domain_id"]}


def test_a_latex_transcription_of_a_text_formula_is_kept_and_unverified(openai_run):
    store, doc_id, _, _ = openai_run
    formula = store.fetch("SELECT * FROM formulas WHERE doc_id = ?", [doc_id])
    assert len(formula) == 1
    assert formula[0]["formula_latex"] == r"MTTR = \frac{Total Repair Hours}{Number of Repairs}"
    assert formula[0]["latex_verification"] == "unverified_no_markup"


def test_rules_get_a_deterministic_id_and_usage_is_stored_without_the_key(openai_run):
    store, doc_id, _, _ = openai_run
    rule = store.fetch("SELECT * FROM rules WHERE doc_id = ?", [doc_id])
    assert len(rule) == 1 and rule[0]["rule_id"].startswith("r_")
    usage = store.fetch("SELECT DISTINCT deployment, simulated FROM llm_usage WHERE doc_id = ?", [doc_id])
    assert usage == [{"deployment": "loopback-nano", "simulated": False}]
    assert FAKE_KEY.encode() not in store.path.read_bytes()
