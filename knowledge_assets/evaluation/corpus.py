"""`knowledge-assets eval --corpus DIR`: every document of a development corpus through the
pipeline, scored against its gold with the corpus scorer (`evaluation.corpus_scores`), and
compared with the committed corpus baseline.

A corpus is laid out as the development corpus is:

    DIR/docs/<name>             the documents; `X.pdf.txt` is skipped when `X.pdf` exists
                                (its gold quotes the text layer, the pipeline reads the PDF)
    DIR/gold/<stem>.json        one gold file per document; <stem> is the document's file name
                                without its last extension, and is its doc_id in the run

Each document is registered under its stem (an explicit key) in a private DuckDB file and
materialised against a private Dagster instance, both under the work directory (a temporary
one unless `--work DIR`), by the runner `knowledge-assets run` uses, so the user's store and
instance are untouched. The backend is whatever the LLM settings resolve to (offline without
a key). Each document's contract files are exported to WORK/export/<stem>/ and scored as
files, exactly what the corpus's own score.py reads.

    knowledge-assets eval --corpus ../shared/corpus                 table, means, and the comparison with
                                                                    eval_assets/results/corpus_<backend>_baseline.json
    knowledge-assets eval --corpus DIR --baseline FILE [--tolerance T]   compare with another result file
    knowledge-assets eval --corpus DIR --write                      also write the result file, in
                                                                    eval_assets/results/ as
                                                                    corpus_<date>_<backend>_<prompts>.json
    knowledge-assets eval --corpus DIR --write-baseline             (re)write the committed corpus baseline
    knowledge-assets eval --corpus DIR --doc-id STEM --verbose      one document, with what it missed

A rate that falls by more than the tolerance (absolute, default 0.02), a baseline document or
rate the run no longer scores, and a document that fails all exit 1. The table prints "-"
where a rate is undefined (the gold has no formulas, ...); a mean is over the documents where
the rate is defined.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from tempfile import TemporaryDirectory

from knowledge_assets.candidates.conventions import knowledge_candidates
from knowledge_assets.candidates.source import SourceChunk
from knowledge_assets.errors import KnowledgeError, read_json
from knowledge_assets.evaluation.conventions import (
    ConventionSummary,
    DocumentConvention,
    document_conventions,
    summaries_payload,
    summarise,
)
from knowledge_assets.evaluation.corpus_scores import RATES, CorpusScores, read_outputs, score_outputs
from knowledge_assets.evaluation.leave_one_out import scorer_in_use
from knowledge_assets.evaluation.result_files import (
    DEFAULT_TOLERANCE,
    MetricChange,
    compare,
    read_result_file,
    result_name,
    run_label,
)
from knowledge_assets.evaluation.scores import RunInfo
from knowledge_assets.export import ExportError, export_document
from knowledge_assets.ingest.document_error import DocumentError
from knowledge_assets.ingest.documents import identify
from knowledge_assets.semantic_review.capture import CaseRun
from knowledge_assets.store.database import DuckDBStore
from knowledge_assets.store.parsed import load_parsed
from knowledge_assets.store.protocol import Store
from knowledge_assets.store.registry import register

FORMAT = "knowledge-assets-corpus-eval/1"
# Bump when corpus_scores changes a figure, so results of two scorers are never compared unawares.
SCORING_VERSION = "1"
# The columns of the table (the first seven rates), with their headings.
COLUMNS = dict(zip(RATES[:7], ("term", "top2n", "def_r", "def_p", "form", "rule", "pair")))
COUNTS = ("terms_found", "terms_gold", "definitions_checked", "definitions_gold",
          "formulas_found", "formulas_gold", "rules_found", "rules_gold")

# (doc_id, DuckDB file) -> how materialising that document went; opened on a Dagster instance
# directory. The one `knowledge-assets run` uses is
# knowledge_assets.run_control.pipeline_runner.pipeline_runner.
Runner = Callable[[str, Path], CaseRun]
OpenRunner = Callable[[Path], AbstractContextManager[Runner]]


class CorpusError(KnowledgeError, ValueError):
    """A corpus, gold or result file that cannot be used; the message names it."""


@dataclass(frozen=True)
class CorpusDocument:
    stem: str
    path: Path
    gold: dict


@dataclass(frozen=True)
class DocumentResult:
    stem: str
    file_name: str
    scores: CorpusScores | None
    error: str | None = None
    conventions: dict[str, DocumentConvention] = field(default_factory=dict)

    @property
    def failed(self) -> bool:
        return self.scores is None


def gold_stem(path: Path) -> str:
    """The file name without its last extension: `x.pdf` -> `x`, `x.pdf.txt` -> `x.pdf`."""
    return path.name.rsplit(".", 1)[0] if "." in path.name else path.name


def _read_gold(path: Path) -> dict:
    gold = read_json(path, CorpusError, "gold file")
    if not isinstance(gold, dict) or not isinstance(gold.get("terms", []), list):
        raise CorpusError(f"{path}: not a corpus gold file (an object with a 'terms' list)")
    return gold


def corpus_documents(corpus: Path, only: str | None = None) -> tuple[list[CorpusDocument], list[str]]:
    """The corpus's documents that have gold, by stem, and a note for each file left out."""
    docs, gold_dir = corpus / "docs", corpus / "gold"
    if not docs.is_dir() or not gold_dir.is_dir():
        raise CorpusError(f"{corpus}: not a corpus (it needs docs/ and gold/)")
    documents, notes = [], []
    for path in sorted(p for p in docs.iterdir() if p.is_file() and not p.name.startswith(".")):
        if path.name.endswith(".pdf.txt") and path.with_suffix("").is_file():
            continue  # the text layer of X.pdf, which the pipeline reads itself
        stem = gold_stem(path)
        if only is not None and stem != only:
            continue
        gold_file = gold_dir / f"{stem}.json"
        if not gold_file.is_file():
            notes.append(f"skipped {path.name}: no gold file {gold_file}")
            continue
        documents.append(CorpusDocument(stem, path, _read_gold(gold_file)))
    if only is not None and not documents:
        raise CorpusError(f"{only}: no document with gold of that stem in {corpus}")
    return documents, notes


def _run_document(document: CorpusDocument, store: DuckDBStore, run: Runner, export_dir: Path) -> DocumentResult:
    def failed(error: str) -> DocumentResult:
        return DocumentResult(document.stem, document.path.name, None, error)

    try:
        register(store, identify(document.path, document.stem))
    except DocumentError as exc:
        return failed(str(exc))
    outcome = run(document.stem, store.path)
    if not outcome.success:
        return failed(outcome.error or "the run failed")
    directory = export_dir / document.stem
    try:
        export_document(store, document.stem, directory)
    except ExportError as exc:
        return failed(str(exc))
    scores = score_outputs(document.gold, read_outputs(directory))
    return DocumentResult(document.stem, document.path.name, scores,
                          conventions=_conventions(store, document, scores))


def _conventions(store: Store, document: CorpusDocument, scores: CorpusScores) -> dict[str, DocumentConvention]:
    """What each genre convention found in the document's stored chunks, and recovered."""
    parsed = load_parsed(store, document.stem)
    chunks = [SourceChunk(chunk_id=c.chunk_id, text=c.text, heading_path=c.heading_path) for c in parsed.chunks]
    return document_conventions(document.gold, knowledge_candidates(chunks), scores.recovered)


@contextmanager
def work_directory(work: Path | None) -> Iterator[Path]:
    """`work` itself (kept, for inspection), else a temporary directory removed afterwards."""
    if work is not None:
        work.mkdir(parents=True, exist_ok=True)
        yield work
        return
    with TemporaryDirectory(prefix="knowledge-corpus-") as temporary:
        yield Path(temporary)


def run_corpus(documents: list[CorpusDocument], work: Path, open_runner: OpenRunner,
               on_result: Callable[[DocumentResult], None] = lambda result: None,
               scorers: dict[str, Path] | None = None) -> list[DocumentResult]:
    """Each document through the pipeline into WORK/knowledge.duckdb (instance in WORK/dagster,
    exports in WORK/export/<stem>/), scored; `on_result` sees each as it finishes. `scorers`
    names the definition scorer each document runs with (the leave-one-out folds)."""
    store = DuckDBStore(work / "knowledge.duckdb")
    instance_dir = work / "dagster"
    instance_dir.mkdir(exist_ok=True)
    (instance_dir / "dagster.yaml").touch()  # an empty configuration: Dagster's defaults, without its warning
    results = []
    with open_runner(instance_dir) as run:
        for document in documents:
            with scorer_in_use((scorers or {}).get(document.stem)):
                result = _run_document(document, store, run, work / "export")
            on_result(result)
            results.append(result)
    return results


def means(results: list[DocumentResult]) -> dict[str, float | None]:
    """Each rate's mean over the scored documents where it is defined."""
    averaged = {}
    for rate in RATES:
        values = [r.scores.figures[rate] for r in results if not r.failed and r.scores.figures[rate] is not None]
        averaged[rate] = round(sum(values) / len(values), 4) if values else None
    return averaged


def results_payload(results: list[DocumentResult], run: RunInfo, corpus: Path, created_at: datetime) -> dict:
    scored = sorted((r for r in results if not r.failed), key=lambda r: r.stem)
    return {
        "format": FORMAT,
        "scoring_version": SCORING_VERSION,
        "created_at": created_at.isoformat(timespec="seconds"),
        "corpus": corpus.resolve().name,
        "backend": run.backend,
        "model": run.model,
        "prompt_hash": run.prompt_hash,
        "prompt_hashes": dict(sorted(run.prompt_hashes.items())),
        "documents": {
            r.stem: {"metrics": {rate: r.scores.figures[rate] for rate in RATES},
                     "counts": {count: r.scores.figures[count] for count in COUNTS}}
            for r in scored
        },
        "failed": {r.stem: r.error for r in sorted(results, key=lambda r: r.stem) if r.failed},
        "means": means(results),
        "conventions": summaries_payload(convention_summaries(results)),
    }


def convention_summaries(results: list[DocumentResult]) -> list[ConventionSummary]:
    return summarise({r.stem: r.conventions for r in results if not r.failed})


def baseline_name(run: RunInfo, leave_one_out: bool = False) -> str:
    return f"corpus_{run_label(run)}{'_leave_one_out' if leave_one_out else ''}_baseline.json"


def dated_name(run: RunInfo, created_at: datetime, leave_one_out: bool = False) -> str:
    return f"corpus_{'leave_one_out_' if leave_one_out else ''}{result_name(run, created_at)}"


def read_corpus_results(path: Path) -> dict:
    data = read_result_file(path, FORMAT, CorpusError, kind="corpus result file")
    if data.get("scoring_version") != SCORING_VERSION:
        raise CorpusError(f"{path}: scored by corpus scorer version {data.get('scoring_version')!r}, "
                          f"this one is {SCORING_VERSION!r}; regenerate it with --write-baseline")
    return data


def compare_with_baseline(baseline: dict, current: dict, tolerance: float = DEFAULT_TOLERANCE,
                          only: str | None = None) -> list[MetricChange]:
    """results.compare's verdicts with every corpus rate gated: a rate that falls by more than
    the tolerance, or that a baseline document no longer has, is a regression."""
    documents = baseline["documents"]
    if only is not None:
        documents = {k: v for k, v in documents.items() if k == only}
    return compare({"documents": documents}, current, tolerance, gated=RATES)


# ---------------------------------------------------------------- text


def _cell(value: float | None) -> str:
    return f"{'-' if value is None else f'{value:.2f}':>5}"


def table_header() -> str:
    return f"{'document':<40} " + " ".join(f"{h:>5}" for h in COLUMNS.values())


def table_row(result: DocumentResult) -> str:
    if result.failed:
        return f"{result.stem:<40} FAILED  {result.error}"
    return f"{result.stem:<40} " + " ".join(_cell(result.scores.figures[rate]) for rate in COLUMNS)


def table_footer(results: list[DocumentResult]) -> str:
    averaged = means(results)
    scored = sum(not r.failed for r in results)
    legend = ("term recall, ranked term recall (top max(2N,20) review-queue term rows), definition recall, "
              "definition precision, formula recall, rule recall, rule pair recall; '-' = undefined")
    return "\n".join([
        f"{f'mean of {scored} scored':<40} " + " ".join(_cell(averaged[rate]) for rate in COLUMNS),
        f"  columns: {legend}",
    ])


def render_comparison(changes: list[MetricChange], tolerance: float) -> str:
    """The rates that moved beyond the tolerance or disappeared; counts are left out."""
    lines = [f"comparison with the baseline (tolerance {tolerance:g} absolute)"]
    rates = [c for c in changes if c.metric in RATES]
    for change in rates:
        if change.verdict == "ok":
            continue
        delta = "" if change.delta is None else f"{change.delta:+.3f}"
        lines.append(f"  {change.doc_id:<40} {change.metric:<22} {_cell(change.baseline)} -> {_cell(change.current)}"
                     f"  {delta:>7}"
                     f"  {change.verdict.upper() if change.verdict in ('regressed', 'missing') else change.verdict}")
    lines.append(f"  {sum(c.verdict == 'ok' for c in rates)} of {len(rates)} rates within the tolerance")
    return "\n".join(lines)
