"""The one revision guard (store/revisions.py) as every reader meets it after a real run was
killed between two assets: `run` in its own process, against the loopback model server, is
killed with SIGKILL while the domain context's call of a new revision is in flight, so the
formulas, glossary and rules hold revision 2 and the domain context and the queue revision 1.
Then each surface in its own process: `review list|show` warn in one line, `approve`, `reject`
and `edit` on an entry of the older revision are refused (exit 1) while one of the current
revision is recorded, `export` and `export --approved` refuse, `review serve` shows the banner
and refuses the form; the next run brings it up to date."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import threading
from pathlib import Path

import dagster as dg
import duckdb
import pytest

from knowledge_assets.definitions import defs
from knowledge_assets.defs.assets.review import approved_knowledge
from knowledge_assets.defs.resources import KnowledgeStore
from knowledge_assets.export import ExportError, export_document
from knowledge_assets.ingest.documents import identify
from knowledge_assets.review.decisions import record_decision
from knowledge_assets.review.entities import ReviewError, find
from knowledge_assets.store.database import DuckDBStore
from knowledge_assets.store.registry import register
from knowledge_assets.store.revisions import record_checks, revision_state
from tests.conftest import SAMPLE_MARKDOWN
from tests.documents import write_pdf
from tests.llm.conftest import schema_title, valid_answer
from tests.review.web.server import review_server
from tests.review.web.test_app import decide, entry_path, text_of
from tests.support.command_process import COMMAND, cli_env, cli_process, model_env
from tests.support.materialised import materialised_samples, run_document
from tests.support.openai_server import Fault, OpenAIServer

DOC = "SKT-MNT-KPI-002"  # the sample's sidecar key: a changed file is a new revision of it


def _sample(root: Path) -> Path:
    docs = root / "docs"
    docs.mkdir()
    for source in (SAMPLE_MARKDOWN, SAMPLE_MARKDOWN.with_name(SAMPLE_MARKDOWN.name + ".meta.json")):
        shutil.copy(source, docs / source.name)
    return docs / SAMPLE_MARKDOWN.name


class _HeldAtDomainContext:
    """Answers every call, except the domain context's. Its first request, asked ahead by the
    formulas step (D107), is refused as a wrong key would be, so the domain context's own step
    asks it again; that request waits (until released) after saying it arrived: the run is then
    between the rules and the domain context."""

    def __init__(self):
        self.arrived, self.released = threading.Event(), threading.Event()
        self.asked = 0

    def __call__(self, body: dict) -> dict | Fault:
        if schema_title(body) == "DomainContextResponse":
            self.asked += 1
            if self.asked == 1:
                return Fault(status=401, message="Incorrect API key provided")
            self.arrived.set()
            self.released.wait(timeout=120)
        return valid_answer(body)


def _ids(store_path: Path) -> tuple[str, str]:
    """The document's domain id and one of its term ids, read from the store."""
    with duckdb.connect(str(store_path), read_only=True) as con:
        domain = con.execute("SELECT domain_id FROM domain_context WHERE doc_id = ?", [DOC]).fetchone()[0]
        term = con.execute("SELECT min(term_id) FROM glossary WHERE doc_id = ?", [DOC]).fetchone()[0]
    return domain, term


def _kill_while_held(doc: Path, root: Path, server: OpenAIServer, held: _HeldAtDomainContext) -> None:
    process = subprocess.Popen([*COMMAND, "run", str(doc)], cwd=root, env=cli_env(root, **model_env(server)),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert held.arrived.wait(timeout=240), "the run never reached the domain context"
        process.send_signal(signal.SIGKILL)
        assert process.wait(timeout=60) == -signal.SIGKILL
    finally:
        held.released.set()
        if process.poll() is None:
            process.kill()


def test_after_a_run_killed_between_two_assets_every_reader_says_so_and_refuses(tmp_path):
    doc = _sample(tmp_path)
    held = _HeldAtDomainContext()
    with OpenAIServer(valid_answer) as server:
        env = model_env(server)
        first = cli_process(["run", str(doc)], tmp_path, tmp_path, **env)
        assert first.returncode == 0, first.stdout + first.stderr
        doc.write_text(doc.read_text(encoding="utf-8") + "\n\n## 9. Added\n\nA new section.\n", encoding="utf-8")
        server.set_answer(held)
        _kill_while_held(doc, tmp_path, server, held)
        server.set_answer(valid_answer)
        store_path = tmp_path / "home" / "knowledge.duckdb"
        domain, term = _ids(store_path)

        def cli(*args: str) -> subprocess.CompletedProcess:
            return cli_process(list(args), tmp_path, tmp_path, **env)

        def seen(ref: str) -> str:
            """The fingerprint `review show` prints, which a decision passes back as --seen."""
            shown = cli("review", "show", ref, "--doc-id", DOC)
            assert shown.returncode == 0, shown.stderr
            return json.loads(shown.stdout)["fingerprint"]

        behind = f"{DOC}: the document is at revision 2 but these assets are behind: domain_context (revision 1), " \
                 "review_queue (revision 1)"
        listed = cli("review", "list", "--doc-id", DOC)
        assert listed.returncode == 0 and f"pending in {DOC}" in listed.stdout
        [warning] = listed.stderr.splitlines()
        assert warning.startswith(f"warning: not current: {behind}")
        assert warning.endswith(f"run `knowledge-assets run {doc}` again to bring it up to date")
        shown = cli("review", "show", domain, "--doc-id", DOC)
        assert shown.returncode == 0 and json.loads(shown.stdout)["id"] == domain and behind in shown.stderr

        payload = tmp_path / "domain.json"
        payload.write_text(json.dumps(json.loads(shown.stdout)["entry"]), encoding="utf-8")
        # Refused for the revision, not the content: the fingerprint is what `review show` printed.
        for decision in (["approve", domain], ["reject", domain, "--note", "old"],
                         ["edit", domain, "--payload", str(payload)]):
            refused = cli("review", *decision, "--doc-id", DOC, "--reviewer", "ana",
                          "--seen", json.loads(shown.stdout)["fingerprint"])
            assert refused.returncode == 1, refused.stdout + refused.stderr
            [line] = refused.stderr.splitlines()
            assert f"not recorded: {domain} is in domain_context, which is not current" in line and behind in line
        # The glossary is of revision 2 and its checks passed: a decision on a term is recorded.
        approved = cli("review", "approve", term, "--doc-id", DOC, "--reviewer", "ana", "--seen", seen(term))
        assert approved.returncode == 0, approved.stderr

        exported = cli("export", "--doc-id", DOC, "--out", str(tmp_path / "out"))
        assert exported.returncode == 1 and behind in exported.stderr
        approved_export = cli("export", "--approved", "--out", str(tmp_path / "approved"))
        assert approved_export.returncode == 1 and behind in approved_export.stderr
        assert not (tmp_path / "out").exists() and not (tmp_path / "approved" / DOC).exists()

        with review_server(DuckDBStore(store_path), tmp_path / "serve.log") as served:
            client = served.client()
            for page in ("/", f"/documents/{DOC}", entry_path(domain, DOC)):
                answer = client.get(page)
                shown = text_of(answer.text)
                assert answer.status == 200 and "1 not current — decisions on its entries are refused until it " \
                    "is run again" in shown and behind in shown, page
            form = decide(client, domain, DOC, "approve", reviewer="ana")
            assert form.status == 400 and "not recorded" in text_of(form.text)

        again = cli("run", str(doc))
        assert again.returncode == 0, again.stdout + again.stderr
        assert "not current" not in cli("review", "list", "--doc-id", DOC).stderr
        # The domain context was run again: what is shown now is what is decided on.
        assert cli("review", "approve", domain, "--doc-id", DOC, "--reviewer", "ana",
                   "--seen", seen(domain)).returncode == 0
        assert cli("export", "--doc-id", DOC, "--out", str(tmp_path / "out")).returncode == 0


def test_a_run_stopped_before_the_queue_checks_leaves_a_document_export_refuses(tmp_path):
    # A kill during the blocking checks leaves what this run leaves: the queue materialised at
    # the latest revision, and no record that its checks ended.
    without_checks = dg.define_asset_job(
        "queue_without_checks", selection=dg.AssetSelection.assets("review_queue").without_checks())
    job = dg.Definitions.merge(defs, dg.Definitions(jobs=[without_checks])).resolve_job_def("queue_without_checks")
    doc = _sample(tmp_path)
    with pytest.MonkeyPatch.context() as env, materialised_samples(tmp_path, env, paths=()) as samples:
        register(samples.store, identify(doc))
        assert run_document(samples.instance, DOC).success
        assert job.execute_in_process(instance=samples.instance, partition_key=DOC).success
        state = revision_state(samples.store, DOC)
        assert not state.behind and [u.asset for u in state.unchecked] == ["review_queue"]
        with pytest.raises(ExportError, match="the blocking checks of review_queue did not finish"):
            export_document(samples.store, DOC, tmp_path / "out")
        approved = dg.materialize([approved_knowledge], instance=samples.instance,
                                  resources={"knowledge_store": KnowledgeStore()})
        [materialised] = approved.asset_materializations_for_node("approved_knowledge")
        assert materialised.metadata["documents_not_current"].value == f"- {state.describe()}"
        # A failed check is named, and refused the same way.
        record_checks(samples.store, DOC, "review_queue", ["ids_unique_and_stable"], "a-run")
        with pytest.raises(ExportError, match=r"the blocking checks of review_queue failed \(ids_unique_and_stable\)"):
            export_document(samples.store, DOC, tmp_path / "out")
        assert run_document(samples.instance, DOC).success
        assert revision_state(samples.store, DOC).current


def test_a_new_revision_that_fails_to_parse_leaves_the_old_one_flagged_and_undecidable(tmp_path):
    pdf = write_pdf(tmp_path / "scope.pdf", [["1. Scope", "A Widget Count (WC) is the number of widgets."]])
    with pytest.MonkeyPatch.context() as env, materialised_samples(tmp_path, env, paths=()) as samples:
        doc_id = register(samples.store, identify(pdf, "SCOPE-1")).source.doc_id
        assert run_document(samples.instance, doc_id).success
        [domain] = samples.store.fetch("SELECT domain_id FROM domain_context WHERE doc_id = ?", [doc_id])
        whole = pdf.read_bytes()
        pdf.write_bytes(whole[:len(whole) * 2 // 3])  # cut off before its end: pypdf cannot read it
        assert register(samples.store, identify(pdf, doc_id)).revision == 2
        assert not run_document(samples.instance, doc_id).success
        state = revision_state(samples.store, doc_id)
        assert [b.asset for b in state.behind][0] == "parsed_chunks"
        assert "revision 2 was not parsed (`knowledge-assets documents` says why)" in state.describe()
        with pytest.raises(ReviewError, match="not recorded: .* is in domain_context, which is not current"):
            record_decision(samples.store, find(samples.store, domain["domain_id"], doc_id), "approved", "ana")


def test_rows_rewritten_at_the_same_revision_are_unchecked_until_their_checks_end(tmp_path):
    # A re-run of an unchanged revision (a partial run's retry, D58) killed after a stage wrote
    # its rows and before it stamped them: the earlier record that the checks passed must not
    # vouch for rows no check has seen.
    from pydantic import TypeAdapter

    from knowledge_assets import contracts as c
    from knowledge_assets.branches import GLOSSARY
    from knowledge_assets.store.knowledge import document_rows, write_branch, write_review_queue

    doc = _sample(tmp_path)
    with pytest.MonkeyPatch.context() as env, materialised_samples(tmp_path, env, paths=()) as samples:
        register(samples.store, identify(doc))
        assert run_document(samples.instance, DOC).success
        assert revision_state(samples.store, DOC).current
        rows = document_rows(samples.store, "glossary", DOC)
        entries = [c.GlossaryEntry.model_validate({k: v for k, v in r.items() if k != "doc_id"}) for r in rows]
        write_branch(samples.store, GLOSSARY, DOC, entries, [], [])
        state = revision_state(samples.store, DOC)
        assert [u.asset for u in state.unchecked] == ["glossary"] and not state.behind
        queue = document_rows(samples.store, "review_queue", DOC)
        row_model = TypeAdapter(c.ReviewQueueRow)
        write_review_queue(samples.store, DOC, [row_model.validate_python(
            {k: v for k, v in r.items() if k != "doc_id" and (k != "domain_id" or v is not None)}) for r in queue])
        assert [u.asset for u in revision_state(samples.store, DOC).unchecked] == ["glossary", "review_queue"]
