"""Every refusal exits 2 with one JSON object naming the cause, and writes nothing."""

from __future__ import annotations

import copy
import json
import shutil
from datetime import datetime, timedelta

import pytest

from knowledge_assets.semantic_review.timestamps import format_time, now_utc
from tests.conftest import PROJECT_ROOT
from tests.semantic_review.conftest import (
    GOLD_AUTHOR,
    POLICY,
    all_correct,
    cli,
    receipt,
    write_json,
)


def refused(result: dict, cause: str) -> None:
    assert (result["status"], result["exitCode"], result["modelCallsByThisCommand"]) == ("refused", 2, 0), result
    assert cause in result["error"], result["error"]


def _prepare(flow, output, policy=POLICY, bundle=None, split="development", repeats=1):
    policy_path = write_json(output.parent / f"{output.name}-policy.json", policy)
    return cli("prepare", "--bundle", bundle or flow.bundle, "--policy", policy_path, "--split", split,
               "--repeats", repeats, "--output", output)


def _write_receipt(tmp_path, document, name="receipt.json"):
    return write_json(tmp_path / name, document)


# --- plans ---

def test_a_bundle_that_already_holds_captures_cannot_be_planned(sample_flow, tmp_path):
    seen = tmp_path / "bundle"
    shutil.copytree(sample_flow.bundle, seen)
    shutil.copy(sample_flow.captures, seen / "captures.json")
    refused(_prepare(sample_flow, tmp_path / "plan", bundle=seen), "already holds captures")
    assert not (tmp_path / "plan").exists()


@pytest.mark.parametrize("field", sorted(POLICY))
def test_a_policy_missing_a_criterion_is_refused(sample_flow, tmp_path, field):
    policy = {k: v for k, v in POLICY.items() if k != field}
    refused(_prepare(sample_flow, tmp_path / "plan", policy), f"missing {field}; there are no default tolerances")
    assert not (tmp_path / "plan").exists()


@pytest.mark.parametrize(("change", "cause"), [
    ({"maxConfirmedErrors": -1}, "maxConfirmedErrors must be a whole number >= 0"),
    ({"maxRequiredGaps": True}, "maxRequiredGaps must be a whole number >= 0"),
    ({"requiredGapsRationale": "  "}, "requiredGapsRationale must be a non-empty explanation"),
    ({"maxErrors": 3}, "unknown fields maxErrors"),
])
def test_a_policy_with_an_invalid_criterion_is_refused(sample_flow, tmp_path, change, cause):
    refused(_prepare(sample_flow, tmp_path / "plan", {**POLICY, **change}), cause)


@pytest.mark.parametrize(("split", "repeats", "cause"), [
    ("test", 1, "split must be one of development, validation"),
    ("development", 3, "repeats must be one of 1, 2"),
    ("validation", 1, "no case in split 'validation'"),
])
def test_a_scope_outside_the_capture_format_or_the_bundle_is_refused(sample_flow, tmp_path, split, repeats, cause):
    refused(_prepare(sample_flow, tmp_path / "plan", split=split, repeats=repeats), cause)


def test_a_plan_whose_criteria_were_removed_or_changed_after_declaration_is_refused(sample_flow, tmp_path):
    plan = json.loads(sample_flow.plan.read_text(encoding="utf-8"))
    missing = copy.deepcopy(plan)
    del missing["criteria"]["requiredGapsRationale"]
    (tmp_path / "missing").mkdir()
    result, _ = sample_flow.review("r-missing", plan=write_json(tmp_path / "missing" / "plan.json", missing))
    refused(result, "missing requiredGapsRationale")
    loosened = copy.deepcopy(plan)
    loosened["criteria"]["maxConfirmedErrors"] = 99
    (tmp_path / "loosened").mkdir()
    result, _ = sample_flow.review("r-loosened", plan=write_json(tmp_path / "loosened" / "plan.json", loosened))
    refused(result, "planId is not the digest of the plan body")
    assert not (sample_flow.root / "r-missing").exists() and not (sample_flow.root / "r-loosened").exists()


# --- captures ---

@pytest.mark.parametrize(("shift", "cause"), [
    (timedelta(days=-1), "before the plan was declared"),
    (timedelta(days=1), "claims a time after now"),
])
def test_a_capture_started_before_the_plan_or_in_the_future_is_refused(sample_flow, tmp_path, shift, cause):
    captures = json.loads(sample_flow.captures.read_text(encoding="utf-8"))
    plan = json.loads(sample_flow.plan.read_text(encoding="utf-8"))
    moved = now_utc() + shift if shift.days > 0 else datetime.fromisoformat(plan["declaredAt"]) + shift
    captures["startedAt"] = format_time(moved)
    result, output = sample_flow.review(f"r-time{shift.days}",
                                        captures=write_json(tmp_path / "captures.json", captures))
    refused(result, cause)
    assert not output.exists()


def test_capture_bytes_changed_after_review_break_the_receipts_digest(sample_flow, sample_pending, tmp_path):
    completed = _write_receipt(tmp_path, receipt(sample_pending, all_correct))
    changed = tmp_path / "changed"
    changed.mkdir()
    (changed / "captures.json").write_bytes(
        sample_flow.captures.read_bytes().replace(b'"modelCalls": 0', b'"modelCalls": 0 '))
    result, output = sample_flow.review("r-tampered", completed, captures=changed / "captures.json")
    refused(result, "capture digest mismatch")
    assert not output.exists()


def test_capture_into_the_bundle_is_refused(sample_flow):
    result = cli("capture", "--bundle", sample_flow.bundle, "--plan", sample_flow.plan,
                 "--output", sample_flow.bundle / "captures")
    refused(result, "which must stay unchanged")
    assert not (sample_flow.bundle / "captures").exists()


def test_a_bundle_whose_frozen_source_changed_is_refused(sample_flow, tmp_path):
    changed = tmp_path / "bundle"
    shutil.copytree(sample_flow.bundle, changed)
    source = next((changed / "sources" / "SKT-MNT-KPI-002").iterdir())
    source.write_bytes(source.read_bytes() + b"\nAn added line.\n")
    result = cli("review", "--bundle", changed, "--plan", sample_flow.plan, "--captures", sample_flow.captures,
                 "--output", tmp_path / "review")
    refused(result, "no longer matches its frozen sha256")


# --- receipts ---

def _decide_first(kind, verdict, codes, rationale="checked"):
    done = []

    def decide(target, allowed):
        if target["itemKind"] == kind and not done:
            done.append(target)
            return verdict, codes
        return "correct", []
    return decide


@pytest.mark.parametrize(("change", "cause"), [
    ({"reviewer": {"actorKind": "agent", "actorId": "review-agent"}, "independentHuman": True},
     "an agent (review-agent) cannot attest independent human review"),
    ({"reviewer": {"actorKind": "human", "actorId": GOLD_AUTHOR}, "independentHuman": True},
     f"{GOLD_AUTHOR} authored the gold and cannot declare independent review"),
    ({"reviewer": {"actorKind": "robot", "actorId": "x"}}, "reviewer.actorKind must be 'agent' or 'human'"),
    ({"reviewer": {"actorKind": None, "actorId": None}, "independentHuman": None}, "reviewer.actorKind"),
    ({"reviewedAt": format_time(now_utc() + timedelta(days=1))}, "must lie between the capture's completion"),
    ({"reviewedAt": "2020-01-01T00:00:00+00:00"}, "must lie between the capture's completion"),
    ({"reviewedAt": "2026-01-01T00:00:00"}, "has no time zone"),
    ({"planId": "0" * 64}, "reviews plan 0000"),
])
def test_a_receipt_with_a_false_or_impossible_declaration_is_refused(
    sample_flow, sample_pending, tmp_path, change, cause
):
    document = {**receipt(sample_pending, all_correct), **change}
    result, output = sample_flow.review("r-declaration", _write_receipt(tmp_path, document))
    refused(result, cause)
    assert not output.exists()


@pytest.mark.parametrize(("kind", "verdict", "codes", "cause"), [
    ("entity", "required_missing", [], "verdict 'required_missing' does not fit this target"),
    ("role", "optional_not_selected", [], "verdict 'optional_not_selected' does not fit this target"),
    ("span", "wrong", [], "verdict 'wrong' is not one of"),
    ("span", "incorrect", [], "an incorrect decision names at least one error code"),
    ("span", "correct", ["boundary"], "a correct decision carries no error code"),
    ("case", "incorrect", ["hallucination"], "errorCodes must be distinct codes from"),
    ("case", "incorrect", ["time", "time"], "errorCodes must be distinct codes from"),
])
def test_a_decision_that_does_not_fit_its_target_is_refused(
    sample_flow, sample_pending, tmp_path, kind, verdict, codes, cause
):
    document = receipt(sample_pending, _decide_first(kind, verdict, codes))
    result, _ = sample_flow.review("r-decision", _write_receipt(tmp_path, document))
    refused(result, cause)


def test_a_decision_without_rationale_an_unknown_target_or_a_repeated_target_is_refused(
    sample_flow, sample_pending, tmp_path
):
    base = receipt(sample_pending, all_correct)
    blank = copy.deepcopy(base)
    blank["decisions"][0]["rationale"] = " "
    unknown = copy.deepcopy(base)
    unknown["decisions"][0]["target"] = {**unknown["decisions"][0]["target"], "repeat": 2}
    repeated = copy.deepcopy(base)
    repeated["decisions"].append(repeated["decisions"][0])
    for name, document, cause in (("blank", blank, "every decision needs a non-empty rationale"),
                                  ("unknown", unknown, "is not a target of this review"),
                                  ("repeated", repeated, "repeats the target")):
        result, output = sample_flow.review(f"r-{name}", _write_receipt(tmp_path, document, f"{name}.json"))
        refused(result, cause)
        assert not output.exists()


def test_the_blank_template_is_not_a_receipt(sample_flow, sample_pending):
    result, _ = sample_flow.review("r-template", sample_pending / "review-template.json")
    refused(result, "reviewer.actorKind must be 'agent' or 'human'")


# --- output directories ---

def test_an_output_that_is_not_a_new_absolute_directory_outside_the_repository_is_refused(sample_flow, tmp_path):
    occupied = tmp_path / "occupied"
    occupied.mkdir()
    (occupied / "keep.txt").write_text("mine")
    link = tmp_path / "into-repo"
    link.symlink_to(PROJECT_ROOT)
    link_output = tmp_path / "link-output"
    link_output.symlink_to(tmp_path / "elsewhere")
    cases = [
        (occupied, "already exists and is not an empty directory"),
        ("relative/output", "must be an absolute path"),
        (tmp_path / "missing" / "output", "parent directory"),
        (PROJECT_ROOT / "semantic-review-output", "inside the repository"),
        (link / "semantic-review-output", "inside the repository"),
        (link_output, "is a symlink"),
    ]
    for output, cause in cases:
        refused(cli("review", "--bundle", sample_flow.bundle, "--plan", sample_flow.plan, "--captures",
                    sample_flow.captures, "--output", output), cause)
    assert [p.name for p in occupied.iterdir()] == ["keep.txt"]
    assert not (PROJECT_ROOT / "semantic-review-output").exists()
    assert not (tmp_path / "elsewhere").exists()


def test_an_empty_existing_directory_is_accepted_as_new(sample_flow, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    result = cli("review", "--bundle", sample_flow.bundle, "--plan", sample_flow.plan, "--captures",
                 sample_flow.captures, "--output", empty)
    assert result["status"] == "pending"
