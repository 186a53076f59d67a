"""The `knowledge-assets semantic-review` commands (docs/semantic_review.md). Other tools call
them exactly so:

    semantic-review bundle  --documents DIR --gold DIR --output NEW
    semantic-review prepare --bundle B --policy POLICY.json --split development --repeats 1 --output NEW
    semantic-review capture --bundle B --plan P/plan.json --output NEW
    semantic-review review  --bundle B --plan P --captures C --output NEW [--receipt R]

Each prints one JSON object (output, status, modelCallsByThisCommand, exitCode). Exit 0 for a
bundle, a plan, a capture without failures and a review that reached accepted_within_scope;
1 for any other review state or a capture with failed cases; 2 for a refusal, which writes nothing.
Only `capture` may call a model.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path

from knowledge_assets.errors import KnowledgeError
from knowledge_assets.semantic_review.bundle import build_bundle, load_bundle
from knowledge_assets.semantic_review.canonical import pretty_bytes
from knowledge_assets.semantic_review.capture import OpenRunner, run_capture
from knowledge_assets.semantic_review.captured import load_captures
from knowledge_assets.semantic_review.output_review import run_review
from knowledge_assets.semantic_review.outputs import EvidenceWriter, checked_output
from knowledge_assets.semantic_review.plan import PLAN_FILE, build_plan, load_plan, load_policy
from knowledge_assets.semantic_review.refusal import Refusal
from knowledge_assets.semantic_review.timestamps import now_utc


def _result(output: Path | str, status: str, exit_code: int, model_calls: int = 0, **extra: object) -> int:
    print(json.dumps({"output": str(output), "status": status, "modelCallsByThisCommand": model_calls,
                      "exitCode": exit_code, **extra}, ensure_ascii=False))
    return exit_code


def cmd_bundle(args: argparse.Namespace) -> int:
    documents, gold = Path(args.documents), Path(args.gold)
    output = checked_output(args.output, not_inside=[documents, gold])
    built = build_bundle(documents, gold, output, now_utc())
    return _result(output, "bundled", 0, **built)


def cmd_prepare(args: argparse.Namespace) -> int:
    bundle = load_bundle(Path(args.bundle))
    criteria = load_policy(Path(args.policy))
    output = checked_output(args.output, not_inside=[bundle.root])
    plan = build_plan(bundle, criteria, args.split, args.repeats, now_utc())
    writer = EvidenceWriter(output)
    writer.create()
    writer.write_bytes(PLAN_FILE, pretty_bytes(plan))
    return _result(output, "prepared", 0, planId=plan["planId"], declaredAt=plan["declaredAt"])


def cmd_capture(args: argparse.Namespace) -> int:
    bundle = load_bundle(Path(args.bundle))
    plan = load_plan(Path(args.plan), bundle)
    output = checked_output(args.output, not_inside=[bundle.root, Path(args.plan).parent])
    captured = run_capture(bundle, plan, output, args.open_runner(), now_utc)
    failed = [f"{r['caseId']}#{r['repeat']}" for r in captured["records"] if r["status"] != "ok"]
    return _result(output, "capture_failed" if failed else "captured", 1 if failed else 0,
                   captured["modelCalls"], backend=captured["backend"], model=captured["model"], failedCases=failed)


def cmd_review(args: argparse.Namespace) -> int:
    now = now_utc()
    bundle = load_bundle(Path(args.bundle))
    plan = load_plan(Path(args.plan), bundle)
    captures = load_captures(Path(args.captures), plan, now)
    output = checked_output(args.output, not_inside=[bundle.root, Path(args.plan).parent, Path(args.captures).parent])
    report = run_review(bundle, plan, captures, Path(args.receipt) if args.receipt else None, output, now)
    accepted = report["state"] == "accepted_within_scope"
    return _result(output, report["state"], 0 if accepted else 1, reportId=report["reportId"])


def _report_failure(args: argparse.Namespace, exc: KnowledgeError) -> None:
    """A command that failed still prints its one JSON object; `knowledge-assets` has already
    printed the error line and exits with the error's code (2 for a Refusal)."""
    _result(args.output, "refused" if isinstance(exc, Refusal) else "failed", exc.exit_code, error=str(exc))


# name → (handler, help, its options besides --output; "repeats" is the one number)
_COMMANDS = {
    "bundle": (cmd_bundle, "freeze documents and their gold obligations", ("documents", "gold")),
    "prepare": (cmd_prepare, "declare the review plan before any output exists",
                ("bundle", "policy", "split", "repeats")),
    "capture": (cmd_capture, "run the pipeline over the plan's cases (may call a model)", ("bundle", "plan")),
    "review": (cmd_review, "targets, template and report; zero model calls", ("bundle", "plan", "captures")),
}


def add_commands(subparsers: argparse._SubParsersAction, open_runner: Callable[[], OpenRunner]) -> None:
    """Adds this module's subcommands to the `knowledge-assets` parser; `open_runner` gives the
    pipeline runner `capture` materialises its cases with."""
    parser = subparsers.add_parser("semantic-review", help="frozen plans, captures and itemwise review of outputs")
    commands = parser.add_subparsers(dest="semantic_command", required=True)
    for name, (handler, help_text, options) in _COMMANDS.items():
        command = commands.add_parser(name, help=help_text)
        for option in options:
            command.add_argument(f"--{option}", required=True, type=int if option == "repeats" else str)
        if name == "review":
            command.add_argument("--receipt", help="a completed output-review receipt")
        command.add_argument("--output", required=True, help="a new absolute directory outside the repository")
        command.set_defaults(handler=handler, open_runner=open_runner, report_failure=_report_failure)
