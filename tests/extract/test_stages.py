"""A model stage's plan reads nothing the other model stages write; only its finish does, when
it runs (extract/stages.py). So a plan made ahead, before the stages it depends on have
written (extract/ahead.py), gives the very contract files of a plan made in its own turn."""

import json

import pytest

from knowledge_assets import branches
from knowledge_assets.extract import stages
from knowledge_assets.ingest.documents import identify
from knowledge_assets.ingest.stage import parse_registered
from knowledge_assets.llm.extractor import Extractor
from knowledge_assets.llm.offline import OfflineBackend
from knowledge_assets.store.database import DuckDBStore
from knowledge_assets.store.knowledge import load_branch
from knowledge_assets.store.parsed import load_parsed
from knowledge_assets.store.registry import register
from knowledge_assets.terms.funnel import run_term_funnel
from knowledge_assets.terms.store import write_terms
from tests.conftest import SAMPLE_MARKDOWN, SAMPLE_PDF

RUN = "run-1"


def _clustered(path, tmp_path):
    store = DuckDBStore(tmp_path / "knowledge.duckdb")
    doc_id = register(store, identify(path)).source.doc_id
    parse_registered(store, doc_id)
    write_terms(store, run_term_funnel(load_parsed(store, doc_id)))
    return store, doc_id


def _contract_files(store, doc_id) -> dict[str, str]:
    """Each branch's rows as its contract file holds them, as JSON text."""
    return {spec.export_file: json.dumps([e.model_dump(mode="json") for e in load_branch(store, spec, doc_id)],
                                         sort_keys=True)
            for spec in branches.registered()}


@pytest.mark.parametrize("path", [SAMPLE_MARKDOWN, SAMPLE_PDF], ids=["markdown", "pdf"])
def test_plans_made_before_the_stages_they_read_have_written_finish_as_plans_made_after(path, tmp_path):
    extractor = Extractor(OfflineBackend())
    in_turn, doc_id = _clustered(path, tmp_path / "in_turn")
    for run_stage in (stages.run_formulas, stages.run_glossary, stages.run_rules, stages.run_domain_context):
        run_stage(in_turn, extractor, doc_id, RUN)

    ahead, _ = _clustered(path, tmp_path / "ahead")
    plans = [plan(ahead, extractor, doc_id, RUN)
             for plan in (stages.plan_glossary, stages.plan_rules, stages.plan_domain_context)]
    answers = [extractor.run(plan.requests) for plan in plans]
    stages.run_formulas(ahead, extractor, doc_id, RUN)
    for plan, answered in zip(plans, answers, strict=True):
        plan.finish(answered)

    expected = _contract_files(in_turn, doc_id)
    assert _contract_files(ahead, doc_id) == expected
    # Not vacuous: what the finishes read of the other stages is in the files.
    files = {name: json.loads(text) for name, text in expected.items()}
    assert files["formulas.json"] and files["interpretation_pack.json"]
    assert files["domain_context.json"][0]["n_formulas"] == len(files["formulas.json"])
