"""The free stages against raw PDF text extraction (issue 13): parse → chunks → term clusters
need no model, so they should cost no more than reading the PDF's text layer.

    python -m bench.bench_free_stages [--pages 9 300] [--repeats 3] [--clock cpu|wall]

For the sample PDF and longer PDFs built by repeating its pages (`bench_parse.build_long_pdf`)
it prints, measured side by side in one run (best of N each):
- raw: pypdf's `page.extract_text()` over every page, as `ingest/pdf.py` calls it;
- parse: `parse_document` (the parser and section-aware chunking);
- funnel: `run_term_funnel` on the parsed document (mentions, noise, clusters);
- free: parse + funnel, the free stages end to end;
- raw/free: the figure the issue judges (goal >= 1.0: the free stages no slower than raw
  text extraction of the same pages), and raw/parse beside it.
Every step is single-threaded Python, so the default clock is the process's CPU time: on a
machine shared with other jobs it gives the figure an idle machine's wall clock would, where
wall time swings with the load (`--clock wall` measures that instead).
Run by hand from the project root, not in CI.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench.bench_parse import SAMPLE, build_long_pdf
from bench.bench_pdf_text import pypdf_page_texts
from knowledge_assets.ingest.documents import identify
from knowledge_assets.ingest.parse import parse_document
from knowledge_assets.terms.funnel import run_term_funnel

CLOCKS: dict[str, Callable[[], float]] = {"cpu": time.process_time, "wall": time.perf_counter}


def best_of(repeats: int, step: Callable[[], object], clock: Callable[[], float]) -> float:
    best = float("inf")
    for _ in range(repeats):
        started = clock()
        step()
        best = min(best, clock() - started)
    return best


def measure(path: Path, doc_id: str, repeats: int, clock: Callable[[], float]) -> None:
    source = identify(path, doc_id)
    parsed = parse_document(source)
    raw = best_of(repeats, lambda: pypdf_page_texts(path), clock)
    parse = best_of(repeats, lambda: parse_document(source), clock)
    funnel = best_of(repeats, lambda: run_term_funnel(parsed), clock)
    free = best_of(repeats, lambda: run_term_funnel(parse_document(source)), clock)
    print(
        f"{parsed.page_count:>5} {len(parsed.chunks):>6} {raw:>8.3f} {parse:>8.3f} {funnel:>8.3f} "
        f"{free:>8.3f} {raw / parse:>9.2f} {raw / free:>9.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pages", type=int, nargs="+", default=[9, 300])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="cpu")
    args = parser.parse_args()
    print(f"seconds of {args.clock} time, best of {args.repeats}")
    print(
        f"{'pages':>5} {'chunks':>6} {'raw s':>8} {'parse s':>8} {'funnel s':>8} {'free s':>8} "
        f"{'raw/parse':>9} {'raw/free':>9}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for pages in args.pages:
            path = SAMPLE if pages <= 9 else build_long_pdf(pages, Path(tmp) / f"long_{pages}_pages.pdf")
            measure(path, f"BENCH-{pages}", args.repeats, CLOCKS[args.clock])


if __name__ == "__main__":
    main()
