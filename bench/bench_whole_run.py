"""A whole offline `knowledge-assets run` per page, against raw pypdf text extraction of the same
pages, and its peak memory (issue 13's first and last rows). Run by hand, not a test:

    python -m bench.bench_whole_run [--pages 90 900] [--repeats 3] [--project DIR]

Builds PDFs by repeating the sample PDF's pages to each `--pages` count and runs the CLI on each
as a separate process (fresh home each: its own DuckDB file and Dagster instance, offline
backend). Per size: the best wall and CPU seconds of the child, its peak RSS (`wait4`'s
`ru_maxrss`), and raw pypdf (`page.extract_text()` over every page, what `ingest/pdf.py`
calls) in this process. The cost per page is the slope between the smallest and largest size,
so the fixed start-up (interpreter, Dagster, definitions) drops out; judged by
slope / raw-pypdf-per-page (goal <= 7, on the way to 3) and peak RSS < 500 MB at 900 pages.
--project runs another checkout's code (its package first on PYTHONPATH, run from its root), to
measure a commit before a change beside this one.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.bench_parse import build_long_pdf
from bench.bench_pdf_text import pypdf_page_texts

ROOT = Path(__file__).resolve().parents[1]


def run_once(pdf: Path, home: Path, project: Path = ROOT, stages: Path | None = None) -> tuple[float, float, float]:
    """(wall s, CPU s, peak RSS MiB) of one `knowledge-assets run PDF` in a fresh home; with
    `stages`, run through `bench/stage_memory.py`, which writes its per-stage table there."""
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "KNOWLEDGE_", "DAGSTER_"))}
    env |= {"KNOWLEDGE_HOME": str(home), "KNOWLEDGE_LLM_BACKEND": "offline", "PYTHONPATH": str(project)}
    started = time.perf_counter()
    staged = [str(ROOT / "bench" / "stage_memory.py"), str(stages)]
    command = ["-m", "knowledge_assets.command"] if stages is None else staged
    child = subprocess.Popen([sys.executable, *command, "run", str(pdf)], cwd=project, env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{pdf.name}: the run failed: {child.stderr.read().decode(errors='replace')[-400:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def raw_seconds(pdf: Path, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        pypdf_page_texts(pdf)
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, nargs="+", default=[90, 900])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--project", type=Path, default=ROOT, help="the checkout whose code runs")
    args = parser.parse_args()
    rows = []
    print(f"code {args.project.resolve()}")
    with tempfile.TemporaryDirectory() as scratch:
        for pages in sorted(args.pages):
            pdf = build_long_pdf(pages, Path(scratch) / f"long_{pages}.pdf")
            runs = [run_once(pdf, Path(scratch) / "home", args.project.resolve()) for _ in range(args.repeats)]
            wall, cpu = min(r[0] for r in runs), min(r[1] for r in runs)
            rss = max(r[2] for r in runs)
            raw = raw_seconds(pdf, args.repeats)
            rows.append((pages, wall, cpu, rss, raw))
            print(f"{pages:>5} pages: run wall {wall:7.2f} s  cpu {cpu:7.2f} s  peak RSS {rss:6.0f} MiB  "
                  f"raw pypdf {raw:6.2f} s ({1000 * raw / pages:.1f} ms/page)")
    (p0, w0, c0, _, _), (p1, w1, c1, rss1, raw1) = rows[0], rows[-1]
    slope_wall, slope_cpu = (w1 - w0) / (p1 - p0), (c1 - c0) / (p1 - p0)
    raw_per_page = raw1 / p1
    print(f"cost per page ({p0} -> {p1} pages): wall {1000 * slope_wall:.1f} ms, cpu {1000 * slope_cpu:.1f} ms; "
          f"raw pypdf {1000 * raw_per_page:.1f} ms/page")
    print(f"ratio to raw pypdf: wall {slope_wall / raw_per_page:.1f}x, cpu {slope_cpu / raw_per_page:.1f}x "
          f"(goal <= 7x); peak RSS at {p1} pages {rss1:.0f} MiB (goal < 500 MB)")


if __name__ == "__main__":
    main()
