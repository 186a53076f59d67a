"""Real bundles, plans and captures for the semantic review tests: the commands run in-process
as other tools call them, the pipeline runs offline against a private store and a real
temporary Dagster instance inside each capture's directory."""

from __future__ import annotations

import io
import json
import shutil
from collections.abc import Callable
from contextlib import redirect_stdout
from dataclasses import dataclass
from pathlib import Path

import pytest

from knowledge_assets.command import main
from knowledge_assets.semantic_review.canonical import sha256_hex
from knowledge_assets.semantic_review.timestamps import format_time, now_utc
from tests.conftest import PROJECT_ROOT, SAMPLE_DOCUMENTS

SAMPLE_GOLD = PROJECT_ROOT / "eval_assets" / "gold"
POLICY = {
    "maxConfirmedErrors": 1,
    "confirmedErrorsRationale": "One non-critical confirmed error is tolerated in this synthetic regression.",
    "maxRequiredGaps": 2,
    "requiredGapsRationale": "Two required gaps are tolerated while the offline extractor is tuned.",
}
GOLD_AUTHOR = "gold-author"
REFERENCE_REVIEWER = "reference-reviewer"
TINY_DOC_ID = "TINY-KPI-001"
TINY_DOCUMENT = """# Tiny KPI Note

## 1. Scope
This note defines Mean Time To Repair (MTTR) for haul trucks.

## 2. Definitions
MTTR means the average time needed to return a unit to service after a breakdown.

Availability is reported every month.
"""
TINY_GOLD = {
    "doc_id": TINY_DOC_ID,
    "terms": [
        {"canonical": "Mean Time To Repair", "abbreviation": "MTTR",
         "definition": "MTTR means the average time needed to return a unit to service after a breakdown."},
        {"canonical": "Availability", "abbreviation": None, "definition": None, "required": False},
    ],
}


def cli(*args: object) -> dict:
    """One `knowledge-assets semantic-review` command; its standard output must be one JSON object."""
    out = io.StringIO()
    with redirect_stdout(out):
        code = main(["semantic-review", *map(str, args)])
    lines = out.getvalue().strip().splitlines()
    assert len(lines) == 1, out.getvalue()
    result = json.loads(lines[0])
    assert result["exitCode"] == code
    return result


def write_json(path: Path, value: object) -> Path:
    path.write_text(json.dumps(value, ensure_ascii=False, indent=2), encoding="utf-8")
    return path


def add_reference_records(gold_dir: Path, case_id: str, *, author: str = GOLD_AUTHOR,
                          reviewer: str = REFERENCE_REVIEWER, decision: str = "ready") -> None:
    gold_sha256 = sha256_hex((gold_dir / f"{case_id}.json").read_bytes())
    common = {"format": "knowledge-assets/reference-review/v1", "caseId": case_id, "goldSha256": gold_sha256,
              "reviewedAt": format_time(now_utc()), "rationale": "Read every gold item against the document."}
    write_json(gold_dir / f"{case_id}.reference-self-review.json", {
        **common, "role": "author", "reviewer": {"actorKind": "human", "actorId": author},
        "independentHuman": False, "decision": "ready"})
    write_json(gold_dir / f"{case_id}.reference-review.json", {
        **common, "role": "independent", "reviewer": {"actorKind": "human", "actorId": reviewer},
        "independentHuman": True, "decision": decision})


@dataclass(frozen=True)
class Flow:
    root: Path
    bundle: Path
    plan: Path
    captures: Path
    capture_result: dict

    def review(self, name: str, receipt: Path | None = None, captures: Path | None = None,
               plan: Path | None = None) -> tuple[dict, Path]:
        output = self.root / name
        args = ["review", "--bundle", self.bundle, "--plan", plan or self.plan, "--captures", captures or self.captures,
                "--output", output]
        return cli(*args, *(["--receipt", receipt] if receipt else [])), output


def capture_offline(bundle: Path, plan: Path, output: Path) -> dict:
    with pytest.MonkeyPatch.context() as env:
        env.setenv("KNOWLEDGE_LLM_BACKEND", "offline")
        env.delenv("OPENAI_API_KEY", raising=False)
        env.delenv("OPENAI_BASE_URL", raising=False)
        return cli("capture", "--bundle", bundle, "--plan", plan, "--output", output)


def make_flow(root: Path, documents: Path, gold: Path, *, policy: dict = POLICY, repeats: int = 1,
              capture: Callable[[Path, Path, Path], dict] = capture_offline) -> Flow:
    root.mkdir(parents=True, exist_ok=True)
    assert cli("bundle", "--documents", documents, "--gold", gold, "--output", root / "bundle")["exitCode"] == 0
    policy_path = write_json(root / "policy.json", policy)
    prepared = cli("prepare", "--bundle", root / "bundle", "--policy", policy_path, "--split", "development",
                   "--repeats", repeats, "--output", root / "plan")
    assert prepared["status"] == "prepared", prepared
    captured = capture(root / "bundle", root / "plan" / "plan.json", root / "capture")
    return Flow(root, root / "bundle", root / "plan" / "plan.json", root / "capture" / "captures.json", captured)


def tiny_inputs(
    root: Path, *, document: str = TINY_DOCUMENT, gold: dict = TINY_GOLD, references: str | None = None
) -> tuple[Path, Path]:
    """A one-document corpus; `references` ("ready" or "changes_requested") adds the gold's
    reference records with that independent decision."""
    documents, gold_dir = root / "documents", root / "gold"
    documents.mkdir(parents=True)
    gold_dir.mkdir()
    (documents / "tiny.md").write_text(document, encoding="utf-8")
    write_json(documents / "tiny.md.meta.json", {"doc_id": TINY_DOC_ID})
    write_json(gold_dir / f"{TINY_DOC_ID}.json", gold)
    if references:
        add_reference_records(gold_dir, TINY_DOC_ID, decision=references)
    return documents, gold_dir


def receipt(flow_review: Path, verdict: Callable[[dict, list[str]], tuple[str | None, list[str]]], *,
            actor_kind: str = "agent", actor_id: str = "review-agent", independent: bool = False) -> dict:
    """A receipt completed from a review's template: `verdict(target, allowed)` decides each item."""
    template = json.loads((flow_review / "review-template.json").read_text(encoding="utf-8"))
    allowed = {json.dumps(t["target"], sort_keys=True): t["allowedVerdicts"]
               for t in json.loads((flow_review / "review-targets.json").read_text(encoding="utf-8"))["targets"]}
    decisions = []
    for entry in template["decisions"]:
        chosen, codes = verdict(entry["target"], allowed[json.dumps(entry["target"], sort_keys=True)])
        decisions.append({"target": entry["target"], "verdict": chosen, "errorCodes": codes,
                          "rationale": "" if chosen is None else f"{chosen}: checked against the frozen source"})
    return {**template, "reviewer": {"actorKind": actor_kind, "actorId": actor_id}, "independentHuman": independent,
            "reviewedAt": format_time(now_utc()), "decisions": decisions}


def all_correct(target: dict, allowed: list[str]) -> tuple[str, list[str]]:
    return "correct", []


@pytest.fixture(scope="session")
def sample_flow(tmp_path_factory) -> Flow:
    """Both sample documents, their gold with ready reference records, captured offline."""
    root = tmp_path_factory.mktemp("semantic")
    gold = root / "gold"
    shutil.copytree(SAMPLE_GOLD, gold)
    for path in sorted(gold.glob("*.json")):
        add_reference_records(gold, path.stem)
    flow = make_flow(root / "flow", SAMPLE_DOCUMENTS, gold)
    assert flow.capture_result["status"] == "captured", flow.capture_result
    return flow


@pytest.fixture(scope="session")
def sample_pending(sample_flow) -> Path:
    result, output = sample_flow.review("pending")
    assert result["status"] == "pending", result
    return output
