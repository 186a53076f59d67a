"""What the model backend is shown, measured on a corpus: run by hand, not a test.

    python -m bench.bench_request_coverage [--corpus DIR] [--json OUT] [--verbose]

(from the project root, so `tests.support` imports). The corpus is in the layout of
`../shared/corpus` (docs/, gold/<stem>.json, score.py); by default the first `shared/corpus`
beside the project root or one of its parents.

Every document goes through the whole graph with the model backend, against the loopback
OpenAI-compatible server, which records every request and answers each with the smallest
valid JSON (every term block answered, nothing found), so no answer adds or re-asks a call.
Then, for each gold definition (a gold term with `definition_verbatim`):

  asked     some glossary request has a `[term N]` block whose canonical, abbreviation or
            long form names the term (canonical, abbreviation or alias), names normalised
            as the corpus scorer's `norm_name`;
  sent      some glossary request's user message contains the defining sentence
            (whitespace-normalised);
  covered   one request does both: a model that answered it perfectly could state it;
  stateable the same, with the scorer's own tolerance: one request asks the term and some
            window of its user message reaches token-F1 >= 0.6 with the gold definition (the
            corpus scorer's `word_tokens` and threshold), so a model that quoted that window
            verbatim would score the definition. It differs from `covered` where the parser's
            text of a PDF differs from the `pdftotext -layout` text the gold was cut from
            (`adal ah` for `adalah`);
  chunked   (for telling the misses apart) the sentence is inside one of the document's
            parsed chunks at all: when it is not, no request could carry it.

`coverage = covered / gold definitions` is the ceiling the requests put on the model
backend's definition recall. Pages are the parser's (a Markdown or plain-text document is
one page), so tokens per 1,000 characters of chunk text are printed beside tokens per page.
Prompt tokens are the usage the server reports for each call as
the backend stored it (`llm_usage`; the loopback server counts 4 characters per token); a
document with no stored usage falls back to the recorded request bodies' characters / 4.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import tempfile
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import ModuleType

import dagster as dg

from knowledge_assets.evaluation import corpus_scores
from knowledge_assets.ingest.documents import identify
from knowledge_assets.run_control.launch import materialize_document
from knowledge_assets.store.database import DuckDBStore
from knowledge_assets.store.protocol import Store
from knowledge_assets.store.registry import register
from tests.support.openai_server import CHARS_PER_TOKEN, OpenAIServer, RecordedRequest, prompt_text, schema_title

ROOT = Path(__file__).resolve().parents[1]
_TERM_BLOCK = re.compile(r"^\[term (\d+)\] (.*)$", re.MULTILINE)
_QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"')
_EMPTY_ANSWERS = {
    "FormulaResponse": {"formulas": []},
    "RuleResponse": {"rules": []},
    "DomainContextResponse": {"title": None, "purpose_verbatim": None, "key_parameters": [], "span": None,
                              "chunk_id": None},
}


def default_corpus() -> Path:
    for directory in (ROOT, *ROOT.parents):
        candidate = directory.parent / "shared" / "corpus"
        if (candidate / "gold").is_dir():
            return candidate
    return ROOT.parent / "shared" / "corpus"


def load_scorer(corpus: Path) -> ModuleType:
    """The corpus's own scorer, so names are normalised exactly as it scores them."""
    spec = importlib.util.spec_from_file_location("corpus_score", corpus / "score.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def user_message(body: dict) -> str:
    return str(body["messages"][-1]["content"])


def term_blocks(body: dict) -> dict[int, list[str]]:
    """`[term N]` → the names the block gives (canonical, abbreviation, long forms), as shown."""
    blocks = {}
    for number, rest in _TERM_BLOCK.findall(user_message(body)):
        rest = rest.split("; chunks: ", 1)[0]
        blocks[int(number)] = [json.loads(quoted) for quoted in _QUOTED.findall(rest)]
    return blocks


def empty_answer(body: dict) -> dict:
    title = schema_title(body)
    if title == "GlossaryResponse":
        return {"terms": [
            {"cluster": number, "term": names[0] if names else "?", "full_name": None, "definition": None,
             "subdomain_tags": [], "span": None, "chunk_id": None}
            for number, names in sorted(term_blocks(body).items())]}
    return _EMPTY_ANSWERS[title]


def flat(text: str) -> str:
    return " ".join(text.split())


def best_window_f1(gold: list[str], text: list[str]) -> float:
    """The best token-F1 of `gold` against any window of `text` of 1, 1.25 or 1.5 times its
    length (the corpus scorer's windows, without its 400-token cap: a request is long)."""
    n = len(gold)
    return corpus_scores.best_window_f1(Counter(gold), text, sorted({n, -(-5 * n // 4), -(-3 * n // 2)}))


@dataclass
class DocumentReport:
    stem: str
    pages: int
    chunk_chars: int
    requests: dict[str, int]
    prompt_tokens: int
    branch_tokens: dict[str, int]
    token_source: str
    definitions: int
    chunked: int
    asked: int
    sent: int
    covered: int
    stateable: int
    misses: list[dict] = field(default_factory=list)

    @property
    def tokens_per_page(self) -> float:
        return self.prompt_tokens / self.pages if self.pages else 0.0

    @property
    def tokens_per_kchar(self) -> float:
        return 1000 * self.prompt_tokens / self.chunk_chars if self.chunk_chars else 0.0


def coverage(gold: dict, requests: list[RecordedRequest], chunks: list[str], norm_name, word_tokens) -> tuple[int, ...]:
    glossary = [r.body for r in requests if schema_title(r.body) == "GlossaryResponse"]
    shown = [({norm_name(n) for names in term_blocks(body).values() for n in names}, flat(user_message(body)))
             for body in glossary]
    chunk_texts = [flat(text) for text in chunks]
    tokens = [word_tokens(text) for _, text in shown]
    definitions = chunked = asked = sent = covered = stateable = 0
    misses = []
    for term in gold["terms"]:
        if not term.get("definition_verbatim"):
            continue
        definitions += 1
        names = {norm_name(n) for n in (term["canonical"], term.get("abbreviation"), *term.get("aliases", [])) if n}
        sentence = flat(term["definition_verbatim"])
        in_terms = [bool(names & block_names) for block_names, _ in shown]
        in_text = [sentence in text for _, text in shown]
        in_chunks = any(sentence in text for text in chunk_texts)
        chunked += in_chunks
        asked += any(in_terms)
        sent += any(in_text)
        gold_tokens = word_tokens(term["definition_verbatim"])
        stateable += any(a and best_window_f1(gold_tokens, t) >= 0.6 for a, t in zip(in_terms, tokens))
        if any(a and s for a, s in zip(in_terms, in_text)):
            covered += 1
        else:
            misses.append({"term": term["canonical"], "chunked": in_chunks, "asked": any(in_terms),
                           "sent": any(in_text)})
    return definitions, chunked, asked, sent, covered, stateable, misses


def prompt_tokens(store: Store, doc_id: str, requests: list[RecordedRequest]) -> tuple[dict[str, int], str]:
    """Prompt tokens per branch: the usage the server reported, as stored; else chars / 4."""
    rows = store.fetch("SELECT branch, SUM(prompt_tokens) AS n FROM llm_usage WHERE doc_id = ? GROUP BY branch",
                       [doc_id])
    if any(row["n"] for row in rows):
        return {row["branch"]: int(row["n"]) for row in rows}, "server-reported usage"
    counted: dict[str, int] = {}
    for request in requests:
        title = schema_title(request.body)
        counted[title] = counted.get(title, 0) + len(prompt_text(request.body)) // CHARS_PER_TOKEN
    return counted, "request chars / 4"


def documents(corpus: Path) -> list[tuple[str, Path]]:
    """(stem, file) for each document with a gold file; a PDF's `.pdf.txt` is the gold's
    reference text, not a document to run."""
    found = []
    for path in sorted((corpus / "docs").iterdir()):
        stem = path.name.split(".", 1)[0] if path.suffix == ".pdf" else path.stem
        if path.name.endswith(".pdf.txt") or not (corpus / "gold" / f"{stem}.json").is_file():
            continue
        found.append((stem, path))
    return found


@contextmanager
def loopback_model_run() -> Iterator[tuple[Store, OpenAIServer, dg.DagsterInstance]]:
    """A private store and Dagster instance whose runs use the model backend against the loopback
    server, which answers every request with the smallest valid JSON (`empty_answer`)."""
    with tempfile.TemporaryDirectory() as scratch, OpenAIServer(empty_answer) as server:
        store = DuckDBStore(Path(scratch) / "knowledge.duckdb")
        os.environ.update({"KNOWLEDGE_DB": str(store.path), "OPENAI_API_KEY": "sk-bench",
                           "OPENAI_BASE_URL": server.base_url, "KNOWLEDGE_LLM_MODEL": "loopback-nano"})
        os.environ.pop("KNOWLEDGE_LLM_BACKEND", None)
        (Path(scratch) / "dagster").mkdir()
        with dg.instance_for_test(temp_dir=str(Path(scratch) / "dagster")) as instance:
            yield store, server, instance


def run(corpus: Path) -> list[DocumentReport]:
    scorer = load_scorer(corpus)
    norm_name = scorer.norm_name
    reports = []
    with loopback_model_run() as (store, server, instance):
        for stem, path in documents(corpus):
            before = len(server.requests)
            register(store, identify(path, stem))
            outcome = materialize_document(instance, stem)
            if not outcome.success:
                raise SystemExit(f"{stem}: the run failed: {outcome.error}")
            requests = server.requests[before:]
            gold = json.loads((corpus / "gold" / f"{stem}.json").read_text(encoding="utf-8"))
            by_branch, source = prompt_tokens(store, stem, requests)
            chunks = [row["text"] for row in store.fetch("SELECT text FROM parsed_chunks WHERE doc_id = ?", [stem])]
            branches: dict[str, int] = {}
            for request in requests:
                title = schema_title(request.body)
                branches[title] = branches.get(title, 0) + 1
            reports.append(DocumentReport(stem, int(outcome.metadata["parsed_chunks"]["pages"]),
                                          sum(len(text) for text in chunks), branches,
                                          sum(by_branch.values()), by_branch, source,
                                          *coverage(gold, requests, chunks, norm_name, scorer.word_tokens)))
    return reports


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=default_corpus())
    parser.add_argument("--json", type=Path, help="write the per-document figures here")
    parser.add_argument("--verbose", action="store_true", help="list the gold definitions no request covers")
    args = parser.parse_args()

    reports = run(args.corpus.resolve())
    print(f"{'document':40} {'pages':>5} {'reqs':>5} {'gloss':>5} {'tokens':>8} {'tok/page':>8} {'tok/kch':>7} "
          f"{'defs':>4} {'chunkd':>6} {'asked':>5} {'sent':>4} {'cover':>5} {'f1>=.6':>6}")
    for r in reports:
        print(f"{r.stem:40} {r.pages:5d} {sum(r.requests.values()):5d} {r.requests.get('GlossaryResponse', 0):5d} "
              f"{r.prompt_tokens:8d} {r.tokens_per_page:8.0f} {r.tokens_per_kchar:7.0f} "
              f"{r.definitions:4d} {r.chunked:6d} {r.asked:5d} {r.sent:4d} {r.covered:5d} {r.stateable:6d}")
        if args.verbose:
            for miss in r.misses:
                print(f"    miss  {miss['term']!r}  chunked={miss['chunked']}  asked={miss['asked']}  "
                      f"sent={miss['sent']}")
    pages = sum(r.pages for r in reports)
    tokens = sum(r.prompt_tokens for r in reports)
    definitions = sum(r.definitions for r in reports)
    sources = sorted({r.token_source for r in reports})
    print(f"requests = {sum(sum(r.requests.values()) for r in reports)} "
          f"(glossary {sum(r.requests.get('GlossaryResponse', 0) for r in reports)})")
    print(f"chunked = {sum(r.chunked for r in reports)}/{definitions}  "
          f"asked = {sum(r.asked for r in reports)}/{definitions}  "
          f"sent = {sum(r.sent for r in reports)}/{definitions}")
    print(f"coverage = {sum(r.covered for r in reports)}/{definitions}  "
          f"(within the scorer's tolerance: {sum(r.stateable for r in reports)}/{definitions})")
    chars = sum(r.chunk_chars for r in reports)
    branch_totals: dict[str, int] = {}
    for r in reports:
        for branch, n in r.branch_tokens.items():
            branch_totals[branch] = branch_totals.get(branch, 0) + n
    print("prompt tokens by branch: " + ", ".join(f"{b} {n}" for b, n in sorted(branch_totals.items())))
    print(f"tokens/page = {tokens / pages:.0f}  ({tokens} prompt tokens over {pages} pages; {', '.join(sources)})")
    print(f"tokens/kchar = {1000 * tokens / chars:.0f}  (over {chars} characters of chunk text)")
    if args.json:
        args.json.write_text(json.dumps([{**asdict(r), "tokens_per_page": r.tokens_per_page,
                                          "tokens_per_kchar": r.tokens_per_kchar} for r in reports], indent=1))


if __name__ == "__main__":
    main()
