"""A whole `knowledge-assets run` of a folder against a model with a fixed latency (issue 31):
where the run's wall time goes beyond the model's. Run by hand, not a test:

    python -m bench.bench_model_run [--latency 0.5] [--concurrency 8] [--documents NAME ...]

(from the project root, so `tests.support` imports).

The folder holds the two samples of eval_assets/documents/ (with their .meta.json sidecars)
and the `--documents` named from ../shared/corpus/docs/ (skipped, with a note, when the corpus
is absent). The loopback OpenAI-compatible server (tests/support/openai_server.py) answers each
request after `--latency` seconds with what the offline extractor finds in it: the bench first
runs every stage in this process with the offline backend, keeping the requests it is asked,
and `bench_llm.offline_answers` turns them into user message → answer, so the run's model asks
exactly what an offline run would, and gets the same answers. A request the plan lacks gets the
tests' abstaining `valid_answer` and is counted as unplanned.

The CLI then runs as a child process in a fresh KNOWLEDGE_HOME, pointed at the server
(OPENAI_BASE_URL, a placeholder OPENAI_API_KEY, KNOWLEDGE_LLM_MODEL, KNOWLEDGE_LLM_BACKEND=openai),
with KNOWLEDGE_LLM_CONCURRENCY set to `--concurrency`.

Printed: the requests the server received and its peak in flight; the run's wall time against
the ideal (requests x latency / concurrency), and the window from the first request to the last
answer against the same ideal and against the stages' floor (the sum over stages of
ceil(its requests / concurrency) x latency: the shortest window when each stage's calls wait
for the stage before it, as they did before the later stages were asked ahead, D107); per
stage (told apart by the response schema a request names) and per document within it (by its
chunk ids), the requests and the window from the first request's start to the last answer,
against the same ideal; the machine's load
average at start and end.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from bench.bench_llm import offline_answers
from knowledge_assets.extract import stages
from knowledge_assets.ingest.document_error import DocumentError
from knowledge_assets.ingest.documents import discover_documents
from knowledge_assets.ingest.registration import register_files
from knowledge_assets.ingest.stage import parse_registered
from knowledge_assets.llm.extractor import Extractor
from knowledge_assets.llm.offline import OfflineBackend
from knowledge_assets.store.database import DuckDBStore
from knowledge_assets.store.parsed import load_parsed
from knowledge_assets.terms.funnel import run_term_funnel
from knowledge_assets.terms.store import write_terms
from tests.llm.conftest import valid_answer
from tests.support.openai_server import OpenAIServer, schema_title

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "eval_assets" / "documents"
CORPUS = ROOT.parent / "shared" / "corpus" / "docs"
CORPUS_DOCUMENTS = ["oneuptime-mttr-mttd-mtbf.md", "prometheus-histograms.md",
                    "perka-7-2013-lamp-ii-nilai-batas-lepasan.pdf"]
# The model-calling assets in the order the job's in-process executor runs them (their deps).
STAGES = {"FormulaResponse": "formulas", "GlossaryResponse": "glossary", "RuleResponse": "rules",
          "DomainContextResponse": "domain_context"}
STAGE_RUNS = (stages.run_formulas, stages.run_glossary, stages.run_rules, stages.run_domain_context)
_CHUNK_DOCUMENT = re.compile(r'<chunk id="([^"]+)::')


def build_folder(folder: Path, corpus_names: list[str]) -> None:
    folder.mkdir(parents=True)
    for sample in sorted(SAMPLES.glob("*.meta.json")):
        shutil.copy(sample, folder / sample.name)
        shutil.copy(sample.with_name(sample.name.removesuffix(".meta.json")), folder)
    if corpus_names and not CORPUS.is_dir():
        print(f"note: {CORPUS} is absent; running the two samples only, without {', '.join(corpus_names)}")
        return
    for name in corpus_names:
        shutil.copy(CORPUS / name, folder / name)


class _RecordingOffline(OfflineBackend):
    """The offline backend, keeping every request it is asked."""

    def __init__(self) -> None:
        super().__init__()
        self.requests: list = []

    def answer(self, request):
        self.requests.append(request)
        return super().answer(request)


def planned_answers(folder: Path, scratch: Path) -> dict[str, str]:
    """User message → the offline extractor's answer, for every request the folder's run asks:
    each document through the stages the assets run, in their order, with the offline backend."""
    store = DuckDBStore(scratch / "plan.duckdb")
    backend = _RecordingOffline()
    extractor = Extractor(backend)
    for found in register_files(store, discover_documents([folder]).files):
        if isinstance(found, DocumentError):
            raise SystemExit(f"cannot plan the run: {found}")
        doc_id = found.source.doc_id
        parse_registered(store, doc_id)
        write_terms(store, run_term_funnel(load_parsed(store, doc_id)))
        for run_stage in STAGE_RUNS:
            run_stage(store, extractor, doc_id, "plan")
    return offline_answers(backend.requests)


@dataclass(frozen=True)
class Answered:
    stage: str
    doc_id: str
    started: float  # monotonic seconds
    answered: float


class TimedAnswers:
    """The server's answer: the planned one, with when each request started and was answered.
    The server calls it after its latency sleep (and before it writes the answer, microseconds),
    so a request started `latency` seconds before the call."""

    def __init__(self, answers: dict[str, str], latency: float):
        self.answers, self.latency = answers, latency
        self.log: list[Answered] = []
        self.unplanned = 0
        self._lock = threading.Lock()

    def __call__(self, body: dict) -> str | dict:
        now = time.monotonic()
        message = body["messages"][-1]["content"]
        found = _CHUNK_DOCUMENT.search(message)
        entry = Answered(STAGES[schema_title(body)], found.group(1) if found else "?", now - self.latency, now)
        with self._lock:
            self.log.append(entry)
            self.unplanned += message not in self.answers
        return self.answers.get(message) or valid_answer(body)


def run_cli(folder: Path, home: Path, base_url: str, concurrency: int) -> tuple[float, float, str]:
    """(monotonic start, wall s, stdout) of the child `knowledge-assets run FOLDER`."""
    home.mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "KNOWLEDGE_", "DAGSTER_"))}
    # The key is a placeholder: the loopback server checks nothing.
    env |= {"KNOWLEDGE_HOME": str(home), "PYTHONPATH": str(ROOT), "KNOWLEDGE_LLM_BACKEND": "openai",
            "OPENAI_BASE_URL": base_url, "OPENAI_API_KEY": "sk-bench", "KNOWLEDGE_LLM_MODEL": "loopback-nano",
            "KNOWLEDGE_LLM_CONCURRENCY": str(concurrency)}
    started = time.monotonic()
    child = subprocess.run([sys.executable, "-m", "knowledge_assets.command", "run", str(folder)], cwd=ROOT,
                           env=env, capture_output=True, text=True)
    wall = time.monotonic() - started
    if child.returncode != 0:
        raise SystemExit(f"the run failed (exit {child.returncode}):\n{child.stdout}\n{child.stderr[-2000:]}")
    return started, wall, child.stdout


def _row(label: str, entries: list[Answered], since: float, latency: float, concurrency: int) -> str:
    first, last = min(e.started for e in entries), max(e.answered for e in entries)
    window, ideal = last - first, len(entries) * latency / concurrency
    return (f"{label:<44} {len(entries):>8} {first - since:>8.2f} {last - since:>8.2f} {window:>8.2f} "
            f"{ideal:>8.2f} {window / ideal:>7.1f}")


def report(log: list[Answered], started: float, wall: float, latency: float, concurrency: int,
           per_document: bool = True) -> None:
    ideal = len(log) * latency / concurrency
    print(f"wall {wall:.2f} s; ideal {len(log)} x {latency:g} s / {concurrency} = {ideal:.2f} s; "
          f"wall / ideal {wall / ideal:.1f}")
    first, last = min(e.started for e in log), max(e.answered for e in log)
    window = last - first
    print(f"before the first request {first - started:.2f} s; first request to last answer {window:.2f} s; "
          f"after the last answer {started + wall - last:.2f} s")
    counts = Counter(entry.stage for entry in log)
    floor = sum(math.ceil(count / concurrency) * latency for count in counts.values())
    print(f"first request to last answer / ideal {window / ideal:.2f}; the stages' floor (each stage after the "
          f"one before it, ceil(its requests / {concurrency}) x {latency:g} s) {floor:.2f} s, "
          f"window / floor {window / floor:.2f}")
    print(f"{'stage (document)':<44} {'requests':>8} {'first s':>8} {'last s':>8} {'window':>8} {'ideal':>8} "
          f"{'ratio':>7}")
    by_stage: dict[str, list[Answered]] = defaultdict(list)
    for entry in log:
        by_stage[entry.stage].append(entry)
    for stage in (s for s in STAGES.values() if s in by_stage):
        print(_row(stage, by_stage[stage], started, latency, concurrency))
        by_document: dict[str, list[Answered]] = defaultdict(list)
        for entry in by_stage[stage]:
            by_document[entry.doc_id].append(entry)
        for doc_id, entries in sorted(by_document.items(), key=lambda item: min(e.started for e in item[1])):
            if per_document:
                print(_row(f"  {doc_id}", entries, started, latency, concurrency))
    print("(first s, last s: seconds since the child started; ideal: requests x latency / concurrency)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.5, help="seconds the server takes per request")
    parser.add_argument("--concurrency", type=int, default=8, help="the run's model concurrency")
    parser.add_argument("--documents", nargs="*", default=CORPUS_DOCUMENTS,
                        help=f"files of {CORPUS} to run beside the two samples")
    parser.add_argument("--summary", action="store_true", help="per stage only, not per document")
    args = parser.parse_args()
    print("load average at start: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "documents"
        build_folder(folder, args.documents)
        print(f"documents: {', '.join(sorted(p.name for p in folder.iterdir() if not p.name.endswith('.json')))}")
        planning = time.monotonic()
        answers = planned_answers(folder, Path(scratch))
        print(f"planned {len(answers)} distinct requests offline in {time.monotonic() - planning:.1f} s (not timed)")
        timed = TimedAnswers(answers, args.latency)
        with OpenAIServer(timed, latency_s=args.latency) as server:
            started, wall, output = run_cli(folder, Path(scratch) / "home", server.base_url, args.concurrency)
            received, peak = len(server.requests), server.max_in_flight
    print(output.rstrip())
    print(f"requests received {received} ({timed.unplanned} unplanned); peak in flight {peak} "
          f"(concurrency {args.concurrency})")
    report(timed.log, started, wall, args.latency, args.concurrency, per_document=not args.summary)
    print("load average at end: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))


if __name__ == "__main__":
    main()
