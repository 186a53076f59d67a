"""The bundle freezes each document's bytes, its gold and reference records, and the
obligations read from the gold: terms, definitions, formulas, rules and the domain, required
unless the gold says otherwise. Gold keys this tool does not know are kept, not refused."""

from __future__ import annotations

import json

import pytest

from knowledge_assets.semantic_review.canonical import sha256_hex
from tests.semantic_review.conftest import TINY_DOC_ID, TINY_GOLD, add_reference_records, cli, tiny_inputs, write_json


def _bundle(tmp_path, gold_dir, documents):
    return cli("bundle", "--documents", documents, "--gold", gold_dir, "--output", tmp_path / "bundle")


def test_the_bundle_holds_the_exact_bytes_and_every_obligation_of_the_gold(tmp_path):
    gold = {**TINY_GOLD, "formulas": [{"name": "MTTR", "formula": "MTTR = repair hours / repairs", "variables": []}],
            "rules": [{"rule_type": "calculation", "statement": "Availability is reported every month.",
                       "required": False}],
            "domain": {"title": "Tiny KPI Note",
                       "purpose": "This note defines Mean Time To Repair (MTTR) for haul trucks."},
            "annotator_notes": "kept verbatim, ignored by the obligations"}
    documents, gold_dir = tiny_inputs(tmp_path / "inputs", gold=gold, references="ready")
    result = _bundle(tmp_path, gold_dir, documents)
    assert (result["status"], result["cases"]) == ("bundled", [TINY_DOC_ID])
    document = json.loads((tmp_path / "bundle" / "bundle.json").read_text(encoding="utf-8"))
    assert result["bundleDigest"] == sha256_hex((tmp_path / "bundle" / "bundle.json").read_bytes())
    [case] = document["cases"]
    assert (tmp_path / "bundle" / case["source"]["path"]).read_bytes() == (documents / "tiny.md").read_bytes()
    assert (tmp_path / "bundle" / case["gold"]["path"]).read_bytes() == (gold_dir / f"{TINY_DOC_ID}.json").read_bytes()
    assert case["references"]["review"]["sha256"] == sha256_hex(
        (gold_dir / f"{TINY_DOC_ID}.reference-review.json").read_bytes())
    assert [(o["roleKey"], o["coverage"]) for o in case["obligations"]] == [
        ("term:Mean Time To Repair", "required"),
        ("definition:Mean Time To Repair", "required"),
        ("term:Availability", "if_selected"),
        ("formula:1", "required"),
        ("rule:1", "if_selected"),
        ("domain:title", "required"),
        ("domain:purpose", "required"),
    ]
    assert case["obligations"][3]["label"] == "MTTR"


@pytest.mark.parametrize(("gold", "cause"), [
    ({**TINY_GOLD, "doc_id": "OTHER"}, "holds doc_id 'OTHER', expected 'TINY-KPI-001'"),
    ({**TINY_GOLD, "terms": TINY_GOLD["terms"] * 2}, "two obligations share the key 'term:Mean Time To Repair'"),
    ({**TINY_GOLD, "terms": [{"abbreviation": "MTTR"}]}, "expected an object with a non-empty 'canonical'"),
    ({**TINY_GOLD, "rules": {"statement": "x"}}, "'rules' must be a list"),
    ({**TINY_GOLD, "terms": [{"canonical": "MTTR", "required": "no"}]}, "'required' must be true or false"),
    ({**TINY_GOLD, "split": "holdout"}, "split must be one of development, validation"),
])
def test_gold_that_cannot_declare_obligations_is_refused(tmp_path, gold, cause):
    documents, gold_dir = tiny_inputs(tmp_path / "inputs", gold=gold)
    result = _bundle(tmp_path, gold_dir, documents)
    assert (result["status"], result["exitCode"]) == ("refused", 2)
    assert cause in result["error"]
    assert not (tmp_path / "bundle").exists()


def test_a_document_without_gold_is_refused(tmp_path):
    documents, gold_dir = tiny_inputs(tmp_path / "inputs")
    (gold_dir / f"{TINY_DOC_ID}.json").unlink()
    result = _bundle(tmp_path, gold_dir, documents)
    assert result["status"] == "refused"
    assert f"no gold for {TINY_DOC_ID}" in result["error"]


@pytest.mark.parametrize(("change", "cause"), [
    ({"goldSha256": "0" * 64}, "goldSha256 does not match the gold file's bytes"),
    ({"reviewer": {"actorKind": "agent", "actorId": "a"}}, "an agent (a) cannot attest independent human review"),
    ({"decision": "maybe"}, "decision must be one of ready, changes_requested"),
    ({"role": "author"}, "role must be 'independent' for this file name"),
])
def test_an_invalid_reference_record_is_refused(tmp_path, change, cause):
    documents, gold_dir = tiny_inputs(tmp_path / "inputs")
    add_reference_records(gold_dir, TINY_DOC_ID)
    path = gold_dir / f"{TINY_DOC_ID}.reference-review.json"
    write_json(path, {**json.loads(path.read_text(encoding="utf-8")), **change})
    result = _bundle(tmp_path, gold_dir, documents)
    assert result["status"] == "refused"
    assert cause in result["error"]
