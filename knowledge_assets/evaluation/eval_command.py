"""The `knowledge-assets eval` commands.

    knowledge-assets eval [--doc-id X]            scores of the documents in the store that have gold
    knowledge-assets eval --write                 also write eval_assets/results/<date>_<backend>_<prompts>.json
    knowledge-assets eval --baseline FILE         compare with a result file; exit 1 on a regression

    knowledge-assets eval --corpus DIR            run every document of a corpus (docs/, gold/) in a
                                                  private store and instance, score it with the corpus
                                                  scorer, compare with the committed corpus baseline
    knowledge-assets eval --corpus DIR --write-baseline
                                                  (re)write eval_assets/results/corpus_<backend>_baseline.json
    knowledge-assets eval --corpus DIR --leave-one-out
                                                  the generalisation figure: each document scored with the
                                                  definition scorer trained on the other documents only
                                                  (baseline corpus_<backend>_leave_one_out_baseline.json)
    knowledge-assets eval --corpus DIR --train-scorer
                                                  train the definition scorer on the whole corpus and write
                                                  knowledge_assets/candidates/scorers/defining_sentences.json

    Regenerate the committed corpus baseline, from the project root:
        KNOWLEDGE_LLM_BACKEND=offline knowledge-assets eval --corpus ../shared/corpus --write-baseline
    See docs/evaluation.md.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

from knowledge_assets.candidates.definition_scorer import COMMITTED
from knowledge_assets.errors import KnowledgeError, MissingUpstream
from knowledge_assets.evaluation import corpus
from knowledge_assets.evaluation.conventions import render_conventions
from knowledge_assets.evaluation.eval_report import render_comparison, render_scores
from knowledge_assets.evaluation.gold import GOLD_DIR, gold_path, load_gold
from knowledge_assets.evaluation.leave_one_out import fold_scorers, train_corpus_scorer
from knowledge_assets.evaluation.result_files import (
    DEFAULT_TOLERANCE,
    RESULTS_DIR,
    compare,
    document_entry,
    read_results,
    regressions,
    write_result_file,
    write_results,
)
from knowledge_assets.evaluation.scores import (
    DocumentScores,
    RunInfo,
    kill_lines,
    recorded_run,
    score_document,
)
from knowledge_assets.llm.model_settings import resolve_settings
from knowledge_assets.llm.prompts import prompt_hashes
from knowledge_assets.store.backends import open_store
from knowledge_assets.store.protocol import Store
from knowledge_assets.store.registry import registered_doc_ids


class EvalError(KnowledgeError):
    """A request `eval` cannot answer: an unknown document, no gold, nothing scored, a bad option."""


def add_commands(subparsers: argparse._SubParsersAction, open_runner: Callable[[], corpus.OpenRunner]) -> None:
    """Adds this module's subcommands to the `knowledge-assets` parser; `open_runner` gives the
    pipeline runner a corpus run materialises its documents with."""
    parser = subparsers.add_parser(
        "eval", help="score the documents in the store against their gold",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--doc-id", help="only this document (default: every document in the store with gold; "
                        "with --corpus, the document of that gold stem)")
    parser.add_argument("--write", action="store_true", help="also write the result JSON (see --results-dir)")
    parser.add_argument("--results-dir", type=Path, default=RESULTS_DIR,
                        help="where --write puts it (default: eval_assets/results)")
    parser.add_argument("--baseline", type=Path,
                        help="a result JSON to compare with, metric by metric; exit 1 on a regression "
                        "(with --corpus, default: the committed corpus_<backend>_baseline.json when it exists)")
    parser.add_argument("--corpus", type=Path,
                        help="run and score every document of this corpus (DIR/docs, DIR/gold/<stem>.json)")
    parser.add_argument("--work", type=Path, help="with --corpus: keep the private store, instance and exports here "
                        "(default: a temporary directory)")
    parser.add_argument("--write-baseline", action="store_true", help="with --corpus: (re)write the committed corpus "
                        "baseline in --results-dir; regressions are shown, not failed")
    parser.add_argument("--leave-one-out", action="store_true", help="with --corpus: run each document with the "
                        "definition scorer trained on the other documents (needs the train extra)")
    parser.add_argument("--train-scorer", action="store_true", help="with --corpus: train the definition scorer on "
                        "every document and write it (--scorer-file); runs no pipeline")
    parser.add_argument("--scorer-file", type=Path, default=COMMITTED,
                        help="where --train-scorer writes (default: the committed scorer file)")
    parser.add_argument("--verbose", action="store_true", help="with --corpus: print what each document missed")
    parser.add_argument("--tolerance", type=float, default=DEFAULT_TOLERANCE,
                        help="allowed fall of a rate before it is a regression")
    parser.set_defaults(handler=cmd_eval, open_runner=open_runner)


def _documents(store: Store, doc_id: str | None) -> list[str]:
    known = registered_doc_ids(store)
    if doc_id is None:
        return known
    if doc_id not in known:
        raise EvalError(f"{doc_id}: no such document in the store {store.location}")
    if not gold_path(doc_id).is_file():
        raise EvalError(f"{doc_id}: no gold file {gold_path(doc_id)}")
    return [doc_id]


def _score_all(store: Store, doc_ids: list[str], only: bool) -> list[tuple[RunInfo, DocumentScores]]:
    hashes = prompt_hashes()
    scored = []
    for doc_id in doc_ids:
        gold = load_gold(doc_id)
        if gold is None:
            continue
        try:
            scores = score_document(store, doc_id, gold)
        except MissingUpstream as exc:
            if only:
                raise EvalError(str(exc)) from None
            print(f"skipped {exc}", file=sys.stderr)
            continue
        run, current_prompts = recorded_run(store, doc_id, hashes)
        print(render_scores(scores, run, kill_lines(scores)))
        if not current_prompts:
            print("  note: the glossary was extracted with another prompts/glossary.txt than today's;"
                  " re-run to score it")
        scored.append((run, scores))
    return scored


def _write(directory: Path, scored: list[tuple[RunInfo, DocumentScores]]) -> None:
    now = datetime.now(timezone.utc)
    by_run: dict[str, tuple[RunInfo, list[DocumentScores]]] = {}
    for run, scores in scored:
        by_run.setdefault(f"{run.backend}|{run.model}|{run.prompt_hash}", (run, []))[1].append(scores)
    for run, documents in by_run.values():
        print(f"wrote {write_results(directory, run, documents, now)}")


def _compare(path: Path, scored: list[tuple[RunInfo, DocumentScores]], doc_id: str | None, tolerance: float) -> int:
    baseline = read_results(path)
    if doc_id is not None:
        baseline["documents"] = {k: v for k, v in baseline["documents"].items() if k == doc_id}
    current = {"documents": {scores.doc_id: document_entry(scores, run) for run, scores in scored}}
    print(f"baseline {path}: backend={baseline.get('backend')} model={baseline.get('model')}"
          f" prompts={baseline.get('prompt_hash')}")
    changes = compare(baseline, current, tolerance)
    print(render_comparison(changes, tolerance))
    failed = regressions(changes)
    if failed:
        print(f"{len(failed)} regressions beyond the tolerance", file=sys.stderr)
        return 1
    print("no regression")
    return 0


def _corpus_run_info() -> RunInfo:
    settings = resolve_settings()
    print("llm: " + ", ".join(f"{k.removeprefix('llm_')}={v}" for k, v in settings.describe().items()))
    return RunInfo(settings.backend, settings.deployment, prompt_hashes())


def _print_result(result: corpus.DocumentResult, verbose: bool) -> None:
    print(corpus.table_row(result), flush=True)
    if verbose and not result.failed:
        for miss in result.scores.misses:
            print(f"    {miss}")


def _corpus_baseline(args: argparse.Namespace, run: RunInfo) -> Path | None:
    if args.baseline is not None:
        return args.baseline
    committed = args.results_dir / corpus.baseline_name(run, args.leave_one_out)
    if committed.is_file():
        return committed
    print(f"no committed corpus baseline {committed}: nothing to compare with")
    return None


def _train_scorer(args: argparse.Namespace) -> int:
    documents, notes = corpus.corpus_documents(args.corpus)
    for note in notes:
        print(note, file=sys.stderr)
    samples = train_corpus_scorer(documents, args.corpus, args.scorer_file)
    print(f"wrote {args.scorer_file}: trained on {len(documents)} documents, {samples} samples")
    return 0


def cmd_eval_corpus(args: argparse.Namespace) -> int:
    """`eval --corpus`: exit 1 when a document fails or a rate regresses beyond the tolerance."""
    if args.train_scorer:
        return _train_scorer(args)
    documents, notes = corpus.corpus_documents(args.corpus, args.doc_id)
    if args.write_baseline and args.doc_id is not None:
        raise EvalError("--write-baseline writes the whole corpus's baseline; drop --doc-id")
    run = _corpus_run_info()
    baseline_path = _corpus_baseline(args, run)
    baseline = corpus.read_corpus_results(baseline_path) if baseline_path else None
    for note in notes:
        print(note, file=sys.stderr)
    with corpus.work_directory(args.work) as work:
        scorers = None
        if args.leave_one_out:
            every, _ = corpus.corpus_documents(args.corpus)
            scorers = fold_scorers(every, args.corpus, work / "scorers")
            print(f"leave-one-document-out: each document scored with the definition scorer trained on the other "
                  f"{len(every) - 1} ({work / 'scorers'})")
        print(corpus.table_header())
        results = corpus.run_corpus(documents, work, args.open_runner(), lambda r: _print_result(r, args.verbose),
                                         scorers)
    print(corpus.table_footer(results))
    print(render_conventions(corpus.convention_summaries(results)))
    if args.work is not None:
        print(f"work: {args.work.resolve()} (store, Dagster instance, exports in export/<stem>/)")
    now = datetime.now(timezone.utc)
    payload = corpus.results_payload(results, run, args.corpus, now) | {"leave_one_out": args.leave_one_out}
    failed = [r.stem for r in results if r.failed]
    status = 0
    if baseline is not None:
        print(f"baseline {baseline_path}: backend={baseline.get('backend')} model={baseline.get('model')} "
              f"prompts={baseline.get('prompt_hash')}")
        changes = corpus.compare_with_baseline(baseline, payload, args.tolerance, args.doc_id)
        print(corpus.render_comparison(changes, args.tolerance))
        regressed = [c for c in regressions(changes) if c.metric in corpus.RATES]
        if not regressed:
            print("no regression")
        elif args.write_baseline:
            print(f"{len(regressed)} rates below the old baseline; --write-baseline replaces it", file=sys.stderr)
        else:
            print(f"{len(regressed)} regressions beyond the tolerance", file=sys.stderr)
            status = 1
    if args.write:
        dated = args.results_dir / corpus.dated_name(run, now, args.leave_one_out)
        print(f"wrote {write_result_file(dated, payload)}")
    if failed:
        print(f"{len(failed)} of {len(results)} documents failed: {', '.join(failed)}", file=sys.stderr)
        if args.write_baseline:
            print("the baseline is not written while a document fails", file=sys.stderr)
        return 1
    if args.write_baseline:
        written = args.results_dir / corpus.baseline_name(run, args.leave_one_out)
        print(f"wrote {write_result_file(written, payload)}")
    return status


def cmd_eval(args: argparse.Namespace) -> int:
    """Its expected failures (EvalError, GoldError, ResultsError, CorpusError, SettingsError) are
    reported by `knowledge-assets` itself: one line, exit 1."""
    if args.tolerance < 0:
        raise EvalError(f"--tolerance must be 0 or more, not {args.tolerance}")
    if args.corpus is not None:
        return cmd_eval_corpus(args)
    store = open_store()
    scored = _score_all(store, _documents(store, args.doc_id), only=args.doc_id is not None)
    if not scored:
        raise EvalError(f"no document in {store.location} has both gold in {GOLD_DIR} and extracted knowledge")
    if args.write:
        _write(args.results_dir, scored)
    return _compare(args.baseline, scored, args.doc_id, args.tolerance) if args.baseline else 0
