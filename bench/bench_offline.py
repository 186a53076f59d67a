"""Every offline stage, timed per document size: is the offline pipeline linear in pages?

    python -m bench.bench_offline [--pages 9 75 150 300] [--repeats 3]

Builds PDFs by repeating the sample PDF's pages, registers each in a temporary store, then runs
the stages the assets run (parse, term funnel, formulas, glossary, rules, domain context,
review queue) with the offline backend, best of N runs per stage. Prints seconds per stage and
seconds per page for the whole: a flat last column is a pipeline linear in document size.
Run by hand from the project root, not in CI.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench.bench_parse import SAMPLE, build_long_pdf
from knowledge_assets.extract import stages
from knowledge_assets.ingest.documents import identify
from knowledge_assets.ingest.stage import parse_registered
from knowledge_assets.llm.extractor import Extractor
from knowledge_assets.llm.offline import OfflineBackend
from knowledge_assets.store.database import DuckDBStore
from knowledge_assets.store.parsed import load_parsed
from knowledge_assets.store.registry import register
from knowledge_assets.terms.funnel import run_term_funnel
from knowledge_assets.terms.store import write_terms


def _best(repeats: int, step: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        step()
        best = min(best, time.perf_counter() - started)
    return best


def measure(path: Path, doc_id: str, repeats: int, directory: Path) -> tuple[int, dict[str, float]]:
    store = DuckDBStore(directory / f"{doc_id}.duckdb")
    register(store, identify(path, doc_id))
    extractor = Extractor(OfflineBackend())
    timings = {"parse": _best(repeats, lambda: parse_registered(store, doc_id))}
    parsed = load_parsed(store, doc_id)
    timings["terms"] = _best(repeats, lambda: write_terms(store, run_term_funnel(parsed)))
    for name, run in (
        ("formulas", stages.run_formulas),
        ("glossary", stages.run_glossary),
        ("rules", stages.run_rules),
        ("domain", stages.run_domain_context),
    ):
        timings[name] = _best(repeats, lambda run=run: run(store, extractor, doc_id, "bench"))
    timings["queue"] = _best(repeats, lambda: stages.run_review_queue(store, doc_id))
    return parsed.page_count, timings


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pages", type=int, nargs="+", default=[9, 75, 150, 300])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    names = ["parse", "terms", "formulas", "glossary", "rules", "domain", "queue"]
    print("pages " + " ".join(f"{n:>9}" for n in names) + "     total   s/page")
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        for pages in args.pages:
            path = SAMPLE if pages <= 9 else build_long_pdf(pages, directory / f"long_{pages}.pdf")
            count, timings = measure(path, f"BENCH-{pages}", args.repeats, directory)
            total = sum(timings.values())
            print(f"{count:5d} " + " ".join(f"{timings[n]:9.3f}" for n in names)
                  + f" {total:9.3f} {total / count:8.4f}")


if __name__ == "__main__":
    main()
