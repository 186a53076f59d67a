"""Engineering blockers: the review recomputes admission from the frozen bytes instead of
trusting the capture, and a known blocker is reported even when no review exists yet."""

from __future__ import annotations

import copy
import json

from knowledge_assets.semantic_review.canonical import digest, with_derived_id
from tests.semantic_review.conftest import TINY_DOC_ID, make_flow, tiny_inputs, write_json


def _captures(flow) -> dict:
    return json.loads(flow.captures.read_text(encoding="utf-8"))


def _review_altered(flow, name, alter) -> tuple[dict, dict]:
    altered = copy.deepcopy(_captures(flow))
    alter(altered)
    folder = flow.root / f"{name}-captures"
    folder.mkdir()
    result, output = flow.review(name, captures=write_json(folder / "captures.json", altered))
    return result, json.loads((output / "report.json").read_text(encoding="utf-8"))


def test_a_failed_case_blocks_and_its_obligations_stay_reviewable(tmp_path):
    documents, gold = tiny_inputs(tmp_path / "inputs", document="\n   \n")
    flow = make_flow(tmp_path / "flow", documents, gold)
    assert (flow.capture_result["status"], flow.capture_result["exitCode"]) == ("capture_failed", 1)
    assert flow.capture_result["failedCases"] == [f"{TINY_DOC_ID}#1"]
    result, output = flow.review("review")
    report = json.loads((output / "report.json").read_text(encoding="utf-8"))
    assert result["status"] == "blocked"
    assert len(report["blockers"]["engineering"]) == 1
    assert report["blockers"]["engineering"][0].startswith(f"case {TINY_DOC_ID} repeat 1: capture failed:")
    assert "no text found" in report["blockers"]["engineering"][0]
    kinds = [t["target"]["itemKind"] for t in json.loads((output / "review-targets.json").read_text())["targets"]]
    assert kinds == ["role", "role", "role", "case"]


def _fabricate_definition(captures: dict) -> None:
    entry = next(e for e in captures["records"][0]["payloads"]["glossary.json"] if e["definition"])
    entry["definition"] = "A definition no page of the document contains."


def test_a_guarded_field_not_verbatim_in_the_frozen_source_blocks(sample_flow):
    result, report = _review_altered(sample_flow, "fabricated", _fabricate_definition)
    assert result["status"] == "blocked"
    [blocker] = report["blockers"]["engineering"]
    assert blocker.startswith("case SKT-MNT-KPI-002 repeat 1: glossary.json t_")
    assert blocker.endswith(": definition is not verbatim in the frozen source")


def test_a_payload_the_contract_refuses_blocks(sample_flow):
    def add_field(captures):
        captures["records"][1]["payloads"]["formulas.json"][0]["confidence"] = 0.9

    result, report = _review_altered(sample_flow, "contract", add_field)
    assert result["status"] == "blocked"
    assert report["blockers"]["engineering"] == [
        "case SKT-STD-PRM-001 repeat 1: formulas.json is refused by the contract "
        "(0.confidence: Extra inputs are not permitted)"]


def test_a_capture_with_other_prompts_than_the_plan_declared_blocks(sample_flow):
    def other_prompt(captures):
        captures["measurement"]["promptSha256"]["glossary"] = "0" * 64

    result, report = _review_altered(sample_flow, "prompts", other_prompt)
    assert result["status"] == "blocked"
    assert report["blockers"]["engineering"] == ["the capture ran with a different promptSha256 than the plan declared"]


def test_a_missing_or_unplanned_record_blocks(sample_flow):
    def drop_and_add(captures):
        dropped = captures["records"].pop(0)
        captures["records"].append({**dropped, "repeat": 2})

    result, report = _review_altered(sample_flow, "records", drop_and_add)
    assert result["status"] == "blocked"
    assert report["blockers"]["engineering"] == [
        "the capture holds case SKT-MNT-KPI-002 repeat 2, which the plan did not select",
        "case SKT-MNT-KPI-002 repeat 1: unattempted (no capture record)",
    ]


def test_a_plan_declared_by_another_build_of_the_review_tool_blocks_rather_than_rechecking(sample_flow, tmp_path):
    plan = json.loads(sample_flow.plan.read_text(encoding="utf-8"))
    body = {k: v for k, v in plan.items() if k != "planId"}
    body["measurement"] = {**plan["measurement"], "toolDigest": "f" * 64}
    body["measurementId"] = digest(body["measurement"])
    other = with_derived_id(body, "planId")
    captures = _captures(sample_flow)
    captures.update(planId=other["planId"], measurement=other["measurement"])
    (tmp_path / "plan").mkdir()
    (tmp_path / "captures").mkdir()
    result, output = sample_flow.review("other-build", plan=write_json(tmp_path / "plan" / "plan.json", other),
                                        captures=write_json(tmp_path / "captures" / "captures.json", captures))
    report = json.loads((output / "report.json").read_text(encoding="utf-8"))
    assert result["status"] == "blocked"
    assert report["blockers"]["engineering"] == [
        "this review runs with a different toolDigest than the plan declared; review with the original build"]
