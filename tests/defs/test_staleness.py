"""Lineage after a prompt change, as the UI shows it: the definitions are loaded in a fresh
process before and after `glossary.txt` is edited, against a real instance holding both sample
documents, and Dagster's own stale status is read for every asset partition."""

from __future__ import annotations

import shutil

import pytest

from knowledge_assets.llm.prompts import PROMPTS_DIR, PROMPTS_DIR_VARIABLE
from tests.support.fresh_definitions import run_fresh
from tests.support.materialised import materialised_samples
from tests.support.prompt_edits import EXTRACTION_ASSETS, edit_static_part


@pytest.fixture
def samples(tmp_path):
    prompts = tmp_path / "prompts"
    shutil.copytree(PROMPTS_DIR, prompts)
    with pytest.MonkeyPatch.context() as env:
        env.setenv(PROMPTS_DIR_VARIABLE, str(prompts))
        with materialised_samples(tmp_path, env) as samples:
            yield samples, prompts


def stale_extraction_assets() -> dict[str, dict[str, list[str]]]:
    report = run_fresh("stale")
    return {doc: {a: why for a, why in assets.items() if a in EXTRACTION_ASSETS} for doc, assets in report.items()}


def test_after_a_glossary_prompt_edit_exactly_glossary_and_its_downstream_are_stale_for_code(samples):
    materialised, prompts = samples
    assert run_fresh("stale") == {}
    edit_static_part(prompts / "glossary.txt", "Quote the definition sentence exactly as the document writes it.")
    code_changed = ["code version changed"]
    expected = {name: code_changed for name in ("glossary", "domain_context", "review_queue")}
    assert stale_extraction_assets() == {doc_id: expected for doc_id in materialised.doc_ids}


def test_the_schedule_re_extracts_only_what_the_prompt_edit_left_stale(samples):
    materialised, prompts = samples
    edit_static_part(prompts / "glossary.txt", "Quote the definition sentence exactly as the document writes it.")
    first, second = materialised.doc_ids
    runs = run_fresh("schedule")["runs"]
    assert set(runs) == {first, second}
    for selection in runs.values():
        assert EXTRACTION_ASSETS.intersection(selection) == {"glossary", "domain_context", "review_queue"}
    assert run_fresh("materialize", first, *runs[first]) == {"success": True}
    assert set(run_fresh("schedule")["runs"]) == {second}
    assert set(stale_extraction_assets()) == {second}
