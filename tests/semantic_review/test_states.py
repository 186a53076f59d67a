"""Each report state reached from a real bundle, plan and capture, and the seed's precedence:
a known blocker beats pending review, a critical error blocks whatever the plan allows, an
agent's complete review stays exploratory, and only an independent human's review of ready
gold is accepted within scope."""

from __future__ import annotations

import json

import pytest

from tests.semantic_review.conftest import (
    all_correct,
    make_flow,
    receipt,
    tiny_inputs,
    write_json,
)

HUMAN = {"actor_kind": "human", "actor_id": "output-reviewer", "independent": True}


def _review(flow, pending, name, verdict, **reviewer):
    path = write_json(flow.root / f"{name}.json", receipt(pending, verdict, **reviewer))
    result, output = flow.review(name, path)
    return result, json.loads((output / "report.json").read_text(encoding="utf-8"))


def _first(kind: str, verdict: str, codes: list[str], count: int = 1):
    """All correct except the first `count` targets of `kind`."""
    seen = []

    def decide(target, allowed):
        if target["itemKind"] == kind and len(seen) < count:
            seen.append(target)
            return verdict, codes
        return "correct", []
    return decide


def test_no_receipt_is_pending(sample_flow, sample_pending):
    report = json.loads((sample_pending / "report.json").read_text(encoding="utf-8"))
    assert report["state"] == "pending"
    assert report["reasons"] == [f"no output-review receipt: {report['coverage']['targets']} targets await review"]


def test_a_complete_agent_review_is_exploratory_and_exits_non_zero(sample_flow, sample_pending):
    result, report = _review(sample_flow, sample_pending, "agent", all_correct)
    assert (result["status"], result["exitCode"]) == ("exploratory_reviewed", 1)
    assert report["coverage"]["undecided"] == 0
    assert any("reviewed by an agent" in reason for reason in report["reasons"])


def test_a_human_who_does_not_declare_independence_is_exploratory(sample_flow, sample_pending):
    result, report = _review(sample_flow, sample_pending, "human-dependent", all_correct,
                             actor_kind="human", actor_id="output-reviewer", independent=False)
    assert result["status"] == "exploratory_reviewed"
    assert report["reasons"] == ["output-reviewer did not declare independent human review"]


def test_an_independent_human_review_within_the_limits_is_accepted_within_scope(sample_flow, sample_pending):
    # One non-critical error and two required gaps: exactly the plan's limits.
    errors = _first("span", "incorrect", ["boundary"])
    gaps = _first("role", "required_missing", [], count=2)

    def decide(target, allowed):
        verdict = errors(target, allowed)
        return verdict if verdict[0] != "correct" else gaps(target, allowed)

    result, report = _review(sample_flow, sample_pending, "accepted", decide, **HUMAN)
    assert (result["status"], result["exitCode"]) == ("accepted_within_scope", 0)
    assert report["counts"]["confirmedErrors"] == {"count": 1, "max": 1, "exceeded": False}
    assert report["counts"]["requiredGaps"] == {"count": 2, "max": 2, "exceeded": False}
    assert report["review"]["reviewer"] == {"actorKind": "human", "actorId": "output-reviewer"}


def test_a_critical_error_blocks_even_within_the_error_limit(sample_flow, sample_pending):
    result, report = _review(sample_flow, sample_pending, "critical",
                             _first("entity", "incorrect", ["identity", "scope"]), **HUMAN)
    assert (result["status"], result["exitCode"]) == ("blocked", 1)
    assert report["counts"]["confirmedErrors"]["exceeded"] is False
    assert [b["errorCodes"] for b in report["blockers"]["semantic"]] == [["identity"]]


@pytest.mark.parametrize(("kind", "verdict", "codes", "count", "blocker"), [
    ("span", "incorrect", ["boundary"], 2, "2 confirmed errors exceed the plan's limit of 1"),
    ("role", "required_missing", [], 3, "3 required gaps exceed the plan's limit of 2"),
])
def test_exceeding_the_plans_limits_blocks(sample_flow, sample_pending, kind, verdict, codes, count, blocker):
    result, report = _review(sample_flow, sample_pending, f"over-{verdict}", _first(kind, verdict, codes, count),
                             **HUMAN)
    assert result["status"] == "blocked"
    assert report["blockers"]["threshold"] == [blocker]


def test_an_uncertain_decision_keeps_a_complete_review_pending(sample_flow, sample_pending):
    result, report = _review(sample_flow, sample_pending, "uncertain", _first("case", "uncertain", []), **HUMAN)
    assert result["status"] == "pending"
    assert report["reasons"] == ["uncertain decisions remain unresolved: 1"]


def test_a_partial_review_is_pending_but_a_known_blocker_in_it_still_blocks(sample_flow, sample_pending):
    def partial(target, allowed):
        return ("correct", []) if target["itemKind"] == "case" else (None, [])

    result, report = _review(sample_flow, sample_pending, "partial", partial, **HUMAN)
    assert result["status"] == "pending"
    assert report["coverage"]["decided"] == 2

    def partial_with_critical(target, allowed):
        if target["itemKind"] == "case":
            return "incorrect", ["unsupported_fact"]
        return None, []

    result, report = _review(sample_flow, sample_pending, "partial-critical", partial_with_critical, **HUMAN)
    assert result["status"] == "blocked"
    assert any("targets have no decision" in reason for reason in report["reasons"])


def test_an_optional_obligation_left_out_adds_neither_error_nor_gap(tmp_path):
    documents, gold = tiny_inputs(tmp_path / "inputs", references="ready")
    flow = make_flow(tmp_path / "flow", documents, gold)
    _, pending = flow.review("pending")
    targets = json.loads((pending / "review-targets.json").read_text(encoding="utf-8"))["targets"]
    optional = [t for t in targets if t["target"].get("roleKey") == "term:Availability"]
    assert optional[0]["allowedVerdicts"] == ["correct", "incorrect", "uncertain", "optional_not_selected"]

    def decide(target, allowed):
        return ("optional_not_selected", []) if target.get("roleKey") == "term:Availability" else ("correct", [])

    result, report = _review(flow, pending, "optional", decide, **HUMAN)
    assert result["status"] == "accepted_within_scope"
    assert report["counts"]["verdicts"]["optional_not_selected"] == 1
    assert (report["counts"]["confirmedErrors"]["count"], report["counts"]["requiredGaps"]["count"]) == (0, 0)


def test_gold_without_independent_reference_review_caps_a_human_review_at_exploratory(tmp_path):
    documents, gold = tiny_inputs(tmp_path / "inputs")
    flow = make_flow(tmp_path / "flow", documents, gold)
    _, pending = flow.review("pending")
    result, report = _review(flow, pending, "human", all_correct, **HUMAN)
    assert result["status"] == "exploratory_reviewed"
    assert "case TINY-KPI-001: no independent reference review" in report["reasons"]


def test_a_reference_review_requesting_changes_blocks_every_review_of_the_case(tmp_path):
    documents, gold = tiny_inputs(tmp_path / "inputs", references="changes_requested")
    flow = make_flow(tmp_path / "flow", documents, gold)
    result, output = flow.review("pending")
    report = json.loads((output / "report.json").read_text(encoding="utf-8"))
    assert result["status"] == "blocked"
    assert report["blockers"]["reference"] == ["case TINY-KPI-001: the reference review requests changes to the gold"]
