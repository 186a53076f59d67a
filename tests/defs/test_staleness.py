"""Lineage after a prompt change, as the UI shows it: the definitions are loaded in a fresh
process before and after `glossary.txt` is edited, against a real instance holding both sample
documents, and Dagster's own stale status is read for every asset partition."""

from __future__ import annotations

import shutil

import pytest

from knowledge_assets.llm.prompts import PROMPTS_DIR, PROMPTS_DIR_VARIABLE, USER_MARKER
from tests.support.fresh_definitions import run_fresh
from tests.support.materialised import materialised_samples


def edit_static_part(prompt_file, sentence: str) -> None:
    """A real prompt edit: one more instruction in the static part, the template still valid."""
    static, user = prompt_file.read_text(encoding="utf-8").split(USER_MARKER, 1)
    prompt_file.write_text(f"{static.rstrip()}\n{sentence}\n{USER_MARKER}{user}", encoding="utf-8")


@pytest.fixture
def samples(tmp_path):
    root = tmp_path
    prompts = root / "prompts"
    shutil.copytree(PROMPTS_DIR, prompts)
    with pytest.MonkeyPatch.context() as env:
        env.setenv(PROMPTS_DIR_VARIABLE, str(prompts))
        with materialised_samples(root, env) as samples:
            yield samples, prompts


# The extraction graph; assets other stages add downstream are theirs to chain.
EXTRACTION_ASSETS = {"parsed_chunks", "term_clusters", "formulas", "glossary", "rules", "domain_context", "review_queue"}


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
