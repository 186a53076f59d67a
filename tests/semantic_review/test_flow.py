"""The whole flow on the sample documents, offline: bundle, plan, capture, review."""

from __future__ import annotations

import json
import re
import stat

from knowledge_assets.semantic_review.canonical import digest, sha256_hex
from knowledge_assets.semantic_review.vocabulary import ENTITY_KINDS
from tests.semantic_review.conftest import (
    TINY_DOC_ID,
    all_correct,
    cli,
    make_flow,
    receipt,
    tiny_inputs,
    write_json,
)
from tests.support.openai_server import OpenAIServer, prompt_text, schema_title

FAKE_KEY = "sk-test-SEMANTIC-REVIEW-SECRET"


def _load(path):
    return json.loads(path.read_text(encoding="utf-8"))


def test_offline_capture_of_the_sample_documents_is_pending_with_every_output_and_obligation_a_target(
    sample_flow, sample_pending
):
    captures = _load(sample_flow.captures)
    assert captures["backend"] == "offline" and captures["modelCalls"] == 0
    assert sample_flow.capture_result["modelCallsByThisCommand"] == 0
    assert {r["status"] for r in captures["records"]} == {"ok"}
    assert set(captures["promptSha256"]) == {"glossary", "formula", "rule", "domain_context"}

    targets = [t["target"] for t in _load(sample_pending / "review-targets.json")["targets"]]
    keys = {json.dumps(t, sort_keys=True) for t in targets}
    assert len(keys) == len(targets)
    for record in captures["records"]:
        for kind in ENTITY_KINDS:
            items = record["payloads"][kind.payload]
            for item in items if isinstance(items, list) else [items]:
                target = {"caseId": record["caseId"], "repeat": 1, "itemKind": "entity",
                          "entityKind": kind.name, "entityId": item[kind.id_field]}
                assert json.dumps(target, sort_keys=True) in keys
    for case in _load(sample_flow.plan)["cases"]:
        assert case["obligations"], case["caseId"]
        for role in case["obligations"]:
            assert json.dumps({"caseId": case["caseId"], "repeat": 1, "itemKind": "role", "roleKey": role["roleKey"]},
                              sort_keys=True) in keys
        assert json.dumps({"caseId": case["caseId"], "repeat": 1, "itemKind": "case"}, sort_keys=True) in keys
    template = _load(sample_pending / "review-template.json")
    assert [d["target"] for d in template["decisions"]] == targets
    assert {d["verdict"] for d in template["decisions"]} == {None}

    report = _load(sample_pending / "report.json")
    assert report["state"] == "pending"
    assert report["blockers"] == {"engineering": [], "reference": [], "semantic": [], "threshold": []}
    assert report["coverage"]["undecided"] == len(targets)
    assert report["outputReviewDigest"] is None
    assert report["capturesDigest"] == sha256_hex(sample_flow.captures.read_bytes())
    assert [(u["caseId"], u["usageRows"]) for u in report["capture"]["usage"]] == [
        (r["caseId"], len(r["payloads"]["usage.json"])) for r in captures["records"]]


def test_review_preserves_its_inputs_verbatim_and_derives_the_same_ids_on_every_run(sample_flow, sample_pending):
    completed = write_json(sample_flow.root / "stable-receipt.json", receipt(sample_pending, all_correct))
    first, first_dir = sample_flow.review("stable-1", completed)
    second, second_dir = sample_flow.review("stable-2", completed)
    assert first["reportId"] == second["reportId"]
    for name in ("report.json", "review-targets.json", "review-template.json"):
        assert (first_dir / name).read_bytes() == (second_dir / name).read_bytes()
    assert (first_dir / "output-review.json").read_bytes() == completed.read_bytes()
    assert (first_dir / "captures.json").read_bytes() == sample_flow.captures.read_bytes()
    assert (first_dir / "plan.json").read_bytes() == sample_flow.plan.read_bytes()
    assert (first_dir / "bundle.json").read_bytes() == (sample_flow.bundle / "bundle.json").read_bytes()
    for case_id in ("SKT-MNT-KPI-002", "SKT-STD-PRM-001"):
        for name in ("reference-self-review", "reference-review"):
            copied = first_dir / "references" / case_id / f"{case_id}.{name}.json"
            assert copied.read_bytes() == (sample_flow.bundle / "references" / case_id / copied.name).read_bytes()

    report = _load(first_dir / "report.json")
    assert report["reportId"] == digest({k: v for k, v in report.items() if k != "reportId"})
    assert report["outputReviewDigest"] == sha256_hex(completed.read_bytes())
    assert report["referenceReceiptDigests"]["SKT-MNT-KPI-002"]["review"] == sha256_hex(
        (sample_flow.bundle / "references" / "SKT-MNT-KPI-002" / "SKT-MNT-KPI-002.reference-review.json").read_bytes())
    plan = _load(sample_flow.plan)
    assert plan["planId"] == digest({k: v for k, v in plan.items() if k != "planId"})
    assert plan["measurementId"] == digest(plan["measurement"])


def test_every_directory_written_is_0700_and_every_file_0600(sample_flow, sample_pending):
    checked = 0
    for root in (sample_flow.bundle, sample_flow.plan.parent, sample_flow.captures.parent, sample_pending):
        for path in [root, *root.rglob("*")]:
            mode = stat.S_IMODE(path.lstat().st_mode)
            assert mode == (0o700 if path.is_dir() else 0o600), (path, oct(mode))
            checked += 1
    assert checked > 20


def test_review_makes_no_model_call_even_with_a_model_configured(sample_flow, monkeypatch):
    with OpenAIServer(lambda body: "{}") as server:
        monkeypatch.setenv("KNOWLEDGE_LLM_BACKEND", "openai")
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
        result, _ = sample_flow.review("with-a-model")
        assert result["modelCallsByThisCommand"] == 0
        assert server.requests == []


def _empty_answers(body: dict) -> dict:
    """A model that abstains on everything, answering every term block it is given."""
    title = schema_title(body)
    if title == "GlossaryResponse":
        found = re.findall(r'\[term (\d+)\] canonical: "([^"]+)"', prompt_text(body).rsplit("<document>", 1)[-1])
        return {"terms": [{"cluster": int(n), "term": canonical, "full_name": None, "definition": None,
                           "subdomain_tags": [], "span": None, "chunk_id": None} for n, canonical in found]}
    if title == "DomainContextResponse":
        return {"title": None, "purpose_verbatim": None, "key_parameters": [], "span": None, "chunk_id": None}
    return {"formulas": []} if title == "FormulaResponse" else {"rules": []}


def test_capture_through_a_model_records_backend_model_and_every_call_without_the_key(tmp_path, monkeypatch):
    documents, gold = tiny_inputs(tmp_path / "inputs")
    with OpenAIServer(_empty_answers) as server:
        def capture_with_model(bundle, plan, output):
            monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
            monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
            monkeypatch.setenv("KNOWLEDGE_LLM_MODEL", "loopback-nano")
            monkeypatch.setenv("KNOWLEDGE_LLM_CACHE", "off")
            monkeypatch.delenv("KNOWLEDGE_LLM_BACKEND", raising=False)
            return cli("capture", "--bundle", bundle, "--plan", plan, "--output", output)

        flow = make_flow(tmp_path / "flow", documents, gold, capture=capture_with_model)
        calls = len(server.requests)
    assert flow.capture_result["status"] == "captured"
    assert calls > 0 and flow.capture_result["modelCallsByThisCommand"] == calls
    captures = _load(flow.captures)
    assert (captures["backend"], captures["model"], captures["modelCalls"]) == ("openai", "loopback-nano", calls)
    assert captures["endpoint"].startswith("http://127.0.0.1")
    for path in flow.captures.parent.rglob("*"):
        if path.is_file():
            assert FAKE_KEY.encode() not in path.read_bytes(), path


def test_two_repeats_capture_each_case_twice_in_separate_stores_and_review_both(tmp_path):
    documents, gold = tiny_inputs(tmp_path / "inputs")
    flow = make_flow(tmp_path / "flow", documents, gold, repeats=2)
    records = _load(flow.captures)["records"]
    assert [(r["caseId"], r["repeat"], r["status"]) for r in records] == [
        (TINY_DOC_ID, 1, "ok"), (TINY_DOC_ID, 2, "ok")]
    assert (flow.captures.parent / "work" / "repeat-1" / "knowledge.duckdb").is_file()
    assert (flow.captures.parent / "work" / "repeat-2" / "knowledge.duckdb").is_file()
    _, output = flow.review("review")
    cases = [t["target"] for t in _load(output / "review-targets.json")["targets"] if t["target"]["itemKind"] == "case"]
    assert cases == [{"caseId": TINY_DOC_ID, "repeat": 1, "itemKind": "case"},
                     {"caseId": TINY_DOC_ID, "repeat": 2, "itemKind": "case"}]
