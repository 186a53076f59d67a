"""Term stage throughput: the sample PDF and longer PDFs built by repeating its pages, up to
300 pages. Run by hand from the project root, not in CI:

    python -m bench.bench_terms [--pages 9 75 150 300] [--repeats 3]

Each document is parsed once (not timed); the term funnel is timed, best of N runs. Prints
pages, chunks, raw mentions, mentions after noise, clusters, seconds and seconds per page:
a flat seconds-per-page column is a stage linear in document size.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from bench.bench_parse import SAMPLE, build_long_pdf
from knowledge_assets.contracts import ParsedDocument
from knowledge_assets.ingest.documents import identify
from knowledge_assets.ingest.parse import parse_document
from knowledge_assets.terms.funnel import run_term_funnel


def document_of(pages: int, directory: Path) -> ParsedDocument:
    path = SAMPLE if pages <= 9 else build_long_pdf(pages, directory / f"long_{pages}_pages.pdf")
    return parse_document(identify(path, f"BENCH-{pages}"))


def measure(parsed: ParsedDocument, repeats: int) -> None:
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        funnel = run_term_funnel(parsed)
        best = min(best, time.perf_counter() - started)
    print(
        f"{parsed.page_count:>5} {len(parsed.chunks):>6} {funnel.raw_mentions:>8} "
        f"{funnel.mentions_after_noise:>8} {len(funnel.clusters):>8} {best:>8.3f} "
        f"{best / parsed.page_count * 1000:>8.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pages", type=int, nargs="+", default=[9, 75, 150, 300])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"{'pages':>5} {'chunks':>6} {'raw':>8} {'kept':>8} {'clusters':>8} {'seconds':>8} {'ms/page':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        for pages in args.pages:
            measure(document_of(pages, Path(tmp)), args.repeats)


if __name__ == "__main__":
    main()
