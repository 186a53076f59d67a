"""Partial results never displace complete ones (D58), through the real path: the loopback
OpenAI-compatible server, a real Dagster instance and a real DuckDB store. A run whose model
calls fail keeps what the document's last run stored for what went unanswered, marked as kept;
a later healthy run replaces it."""

from __future__ import annotations

import re
import shutil
from contextlib import contextmanager
from dataclasses import dataclass

import dagster as dg
import pytest

from knowledge_assets.ingest.documents import identify
from knowledge_assets.review.document_queues import queue_entries, worklist
from knowledge_assets.run_control.document_state import call_figures, kept_figure, partition_states
from knowledge_assets.run_control.launch import materialize_document
from knowledge_assets.store.database import DuckDBStore
from knowledge_assets.store.protocol import Store
from knowledge_assets.store.registry import register
from tests.conftest import SAMPLE_MARKDOWN
from tests.support.command_process import cli_process, model_env
from tests.support.openai_server import OpenAIServer, prompt_text, schema_title

_TERM = re.compile(r'\[term (\d+)\] canonical: "([^"]+)"(?:; abbreviation: "([^"]+)")?')
_CHUNK = re.compile(r'<chunk id="([^"]+)"[^>]*>\n(.*?)\n</chunk>', re.S)
_FORMULA = re.compile(r"^[A-Z]{2,5} = [^\n]+$", re.M)
_RULE = re.compile(r"(If [^.,]+), ([^.]+)\.")
UNANSWERABLE = '{"terms": [{"cluster": 1, "term": '


def _document(body: dict) -> str:
    """The request's own part, after the prompt's worked examples."""
    return prompt_text(body).rsplit("<document>", 1)[-1]


def _chunks(body: dict) -> list[tuple[str, str]]:
    return _CHUNK.findall(_document(body))


def _definition(names: tuple[str, ...], chunks: list[tuple[str, str]]) -> tuple[str, str] | None:
    """The first sentence that opens with one of the term's names and `means` or `is defined as`."""
    for name in filter(None, names):
        pattern = re.compile(rf"(?:^|(?<=\n)|(?<=\. )){re.escape(name)} (?:means|is defined as) [^\n]*?\.(?=\s|$)")
        for chunk_id, text in chunks:
            if found := pattern.search(text):
                return chunk_id, found.group(0)
    return None


def faithful_model(body: dict) -> dict:
    """A model that answers only with sentences the request shows: the definitions that say
    `X means`, every `ABC = …` line as a formula, every `If …, ….` sentence as a rule."""
    title = schema_title(body)
    chunks = _chunks(body)
    if title == "GlossaryResponse":
        terms = []
        for number, canonical, abbreviation in _TERM.findall(_document(body)):
            found = _definition((abbreviation, canonical), chunks)
            terms.append({"cluster": int(number), "term": canonical, "full_name": None,
                          "definition": found and found[1], "subdomain_tags": [], "span": found and found[1],
                          "chunk_id": found and found[0]})
        return {"terms": terms}
    if title == "DomainContextResponse":
        chunk_id, text = chunks[0]
        first_line = text.splitlines()[0].lstrip("# ")
        return {"title": first_line, "purpose_verbatim": None, "key_parameters": [], "span": first_line,
                "chunk_id": chunk_id}
    if title == "FormulaResponse":
        return {"formulas": [{"name": line.split(" = ")[0], "formula_latex": line, "variables": [], "unit": None,
                              "span": line, "chunk_id": chunk_id}
                             for chunk_id, text in chunks for line in _FORMULA.findall(text)]}
    return {"rules": [{"rule_type": "interpretation", "statement": m.group(0), "condition": m.group(1),
                       "consequence": m.group(2), "span": m.group(0), "chunk_id": chunk_id}
                      for chunk_id, text in chunks for m in _RULE.finditer(text)]}


def failing_for(term: str):
    """The faithful model, whose every answer to a glossary request asking about `term` is cut off."""
    def answer(body: dict):
        if schema_title(body) == "GlossaryResponse" and f'canonical: "{term}"' in _document(body):
            return UNANSWERABLE
        return faithful_model(body)
    return answer


@dataclass
class Pipeline:
    store: Store
    doc_id: str
    server: OpenAIServer
    instance: dg.DagsterInstance

    def run(self, answer) -> dict:
        self.server.set_answer(answer)
        outcome = materialize_document(self.instance, self.doc_id)
        assert outcome.success, outcome.error
        return outcome.metadata

    def rows(self, table: str, id_field: str) -> dict[str, dict]:
        return {row[id_field]: row for row in self.store.fetch(f"SELECT * FROM {table} WHERE doc_id = ?",
                                                                 [self.doc_id])}

    def definitions(self) -> dict[str, str]:
        return {term_id: row["definition"] for term_id, row in self.rows("glossary", "term_id").items()
                if row["definition"] is not None}

    def kept(self) -> list[dict]:
        return self.store.fetch("SELECT branch, entity_id, kept_from_run_id FROM kept_rows WHERE doc_id = ? "
                                "ORDER BY branch, entity_id", [self.doc_id])

    def queued_definitions(self) -> dict[str, str]:
        """What a reviewer reads in the document's queue: each term row's definition."""
        rows = self.store.fetch("SELECT term_id, definition FROM review_queue WHERE doc_id = ? "
                                "AND definition IS NOT NULL", [self.doc_id])
        return {row["term_id"]: row["definition"] for row in rows}


@contextmanager
def pipeline(root, source=SAMPLE_MARKDOWN):
    store = DuckDBStore(root / "knowledge.duckdb")
    with OpenAIServer(faithful_model) as server, pytest.MonkeyPatch.context() as env:
        for name, value in model_env(server, KNOWLEDGE_DB=str(store.path)).items():
            env.setenv(name, value)
        env.delenv("KNOWLEDGE_LLM_BACKEND", raising=False)
        (root / "dagster").mkdir()
        with dg.instance_for_test(temp_dir=str(root / "dagster")) as instance:
            doc_id = register(store, identify(source)).source.doc_id
            yield Pipeline(store, doc_id, server, instance)


def test_a_run_whose_every_call_fails_leaves_every_earlier_row_in_place_marked_as_kept(tmp_path):
    with pipeline(tmp_path) as p:
        p.run(faithful_model)
        definitions, queued = p.definitions(), p.queued_definitions()
        formulas, rules = p.rows("formulas", "formula_id"), p.rows("rules", "rule_id")
        [domain] = p.rows("domain_context", "domain_id").values()
        assert len(definitions) >= 4 and formulas and rules and domain["title"] == "Maintenance KPI Procedure"
        assert p.kept() == [] and len(queued) == len(definitions)
        listed = {item.id for item in worklist(p.store, p.doc_id)}
        first_run = p.store.fetch("SELECT run_id FROM asset_revisions WHERE doc_id = ? AND asset = 'glossary'",
                                  [p.doc_id])[0]["run_id"]

        for _ in range(2):  # the same failure twice: kept once, never duplicated
            meta = p.run(lambda body: UNANSWERABLE)
            failed, unanswered, _ = call_figures(meta)
            assert failed > 0 and unanswered > 0
            assert p.definitions() == definitions and p.queued_definitions() == queued
            assert p.rows("formulas", "formula_id") == formulas and p.rows("rules", "rule_id") == rules
            assert [d["title"] for d in p.rows("domain_context", "domain_id").values()] == [domain["title"]]
            kept = p.kept()
            answered_terms = {e for e, row in p.rows("glossary", "term_id").items()
                              if row["extraction_status"] != "escalated"}
            assert {(k["branch"], k["entity_id"]) for k in kept} == {
                *(("glossary", t) for t in answered_terms), *(("formula", f) for f in formulas),
                *(("rule", r) for r in rules), ("summary", domain["domain_id"])}
            assert {k["kept_from_run_id"] for k in kept} == {first_run}
            assert kept_figure(meta) == len(kept)
            assert meta["review_queue"]["kept_from_earlier_run"] == len(answered_terms)
            # `review list` still lists every entry, and says which ones were kept and whence.
            items = {item.id: item for item in worklist(p.store, p.doc_id)}
            assert set(items) == listed
            assert {i for i, item in items.items() if item.kept} == {
                i for i in items if i.split(":")[0] in {k["entity_id"] for k in kept}}
            assert items[next(iter(definitions))].kept.startswith("kept from revision 1 (run ")
            assert {e.ref: e.kept for e in queue_entries(p.store, p.doc_id)} == {i: w.kept for i, w in items.items()}

        p.run(faithful_model)
        assert p.kept() == [] and p.definitions() == definitions and p.rows("formulas", "formula_id") == formulas
        assert not any(item.kept for item in worklist(p.store, p.doc_id))


def test_a_failed_glossary_call_keeps_only_its_own_terms_and_the_answered_ones_are_this_runs(tmp_path):
    with pipeline(tmp_path) as p:
        p.run(faithful_model)
        definitions = p.definitions()
        glossary = p.rows("glossary", "term_id")
        mttr = next(t for t, row in glossary.items() if row["term"] == "Mean Time To Repair")
        assert mttr in definitions

        meta = p.run(failing_for("Mean Time To Repair"))
        assert meta["glossary"]["llm_failed"] == 1 and meta["formulas"]["llm_failed"] == 0
        kept = {k["entity_id"] for k in p.kept()}
        # The failed batch's answered terms are kept; the other batch was answered afresh.
        assert mttr in kept and kept < set(glossary) and {k["branch"] for k in p.kept()} == {"glossary"}
        assert p.definitions() == definitions and len(p.queued_definitions()) == len(definitions)
        assert meta["glossary"]["kept_from_earlier_run"] == len(kept)
        # What `knowledge-assets documents` says of the document.
        state = partition_states(p.instance, [p.doc_id])[p.doc_id]
        assert state.outcome == "partial" and f"{len(kept)} rows kept from an earlier run;" in state.cause


def test_the_first_run_of_a_document_whose_calls_fail_has_nothing_to_keep(tmp_path):
    with pipeline(tmp_path) as p:
        meta = p.run(lambda body: UNANSWERABLE)
        assert call_figures(meta)[0] > 0 and kept_figure(meta) == 0
        assert p.definitions() == {} and p.kept() == []
        assert {row["extraction_status"] for row in p.rows("glossary", "term_id").values()} == {"escalated"}


def test_run_exits_3_after_a_failed_re_run_and_says_what_it_kept(tmp_path):
    with OpenAIServer(faithful_model) as server:
        healthy = cli_process(["run", str(SAMPLE_MARKDOWN)], tmp_path, tmp_path, **model_env(server))
        server.set_answer(lambda body: UNANSWERABLE)
        failed = cli_process(["run", str(SAMPLE_MARKDOWN)], tmp_path, tmp_path, **model_env(server))
    assert healthy.returncode == 0, healthy.stdout + healthy.stderr
    assert failed.returncode == 3, failed.stdout + failed.stderr
    before, after = (next(line for line in r.stdout.splitlines() if "maintenance_kpi.md" in line)
                     for r in (healthy, failed))
    definitions = re.search(r" definitions=(\d+) ", before).group(1)
    assert after.startswith("PARTIAL") and f" definitions={definitions} " in after
    assert re.search(r" kept_from_earlier_run=[1-9]\d* ", after) and "kept_from_earlier_run" not in before


def test_nothing_is_kept_across_a_change_of_the_documents_text(tmp_path):
    document = tmp_path / SAMPLE_MARKDOWN.name
    for path in (SAMPLE_MARKDOWN, SAMPLE_MARKDOWN.with_name(SAMPLE_MARKDOWN.name + ".meta.json")):
        shutil.copy(path, tmp_path / path.name)  # the sidecar's key keeps the doc_id across revisions
    with pipeline(tmp_path, document) as p:
        p.run(faithful_model)
        assert p.definitions()
        document.write_text(document.read_text(encoding="utf-8") + "\n## 9. Amendments\n\nNone yet.\n",
                            encoding="utf-8")
        assert register(p.store, identify(document)).source.doc_id == p.doc_id
        meta = p.run(lambda body: UNANSWERABLE)
        # The earlier rows quote another text: the new revision starts over where its calls failed.
        assert meta["glossary"]["document_revision"] == 2 and kept_figure(meta) == 0
        assert p.definitions() == {} and p.kept() == []
