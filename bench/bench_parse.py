"""Parse throughput: the sample PDF and a ~300-page PDF built by repeating it.

    python bench/bench_parse.py [--repeats 3]

Prints pages, chunks, parse seconds and pages/s for each (best of N runs), and the time of one
DuckDB partition write. Run by hand, not in CI.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import pypdf

from knowledge_assets.ingest.documents import identify
from knowledge_assets.ingest.parse import parse_document
from knowledge_assets.store.database import DuckDBStore
from knowledge_assets.store.parsed import write_parsed

SAMPLE = Path(__file__).resolve().parents[1] / "eval_assets" / "documents" / "std_parameter_produksi.pdf"


def build_long_pdf(target_pages: int, out: Path) -> Path:
    writer = pypdf.PdfWriter()
    reader = pypdf.PdfReader(SAMPLE)
    while len(writer.pages) < target_pages:
        for page in reader.pages:
            if len(writer.pages) < target_pages:
                writer.add_page(page)
    with out.open("wb") as fh:
        writer.write(fh)
    return out


def measure(path: Path, repeats: int) -> None:
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        parsed = parse_document(identify(path, "BENCH"))
        best = min(best, time.perf_counter() - started)
    print(f"{path.name}: {parsed.page_count} pages, {len(parsed.chunks)} chunks, "
          f"parse {best:.3f} s, {parsed.page_count / best:.0f} pages/s (best of {repeats})")
    with tempfile.TemporaryDirectory() as tmp:
        store = DuckDBStore(Path(tmp) / "bench.duckdb")
        started = time.perf_counter()
        write_parsed(store, parsed.model_dump(exclude={"pages", "chunks"}), parsed.pages, parsed.chunks)
        print(f"  DuckDB partition write: {time.perf_counter() - started:.3f} s")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    measure(SAMPLE, args.repeats)
    with tempfile.TemporaryDirectory() as tmp:
        measure(build_long_pdf(300, Path(tmp) / "long_300_pages.pdf"), args.repeats)


if __name__ == "__main__":
    main()
