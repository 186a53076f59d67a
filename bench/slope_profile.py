"""Where the offline per-page cost goes (issue 31): a sampling profile of a whole `knowledge-assets
run` at two sizes, the smaller subtracted, each sample put in the cost it belongs to. Run by hand
with py-spy (not a dependency: `pip download py-spy` into a scratch venv), not a test:

    python -m bench.slope_profile --py-spy PATH [--pages 90 900] [--rate 50]

Builds the two PDFs as `bench_whole_run` does (the sample's pages repeated), records each run in
a fresh home under `py-spy record --format raw` and files every sample under the innermost of
the frames in `COSTS` on its stack (so pypdf's text extraction inside the parse counts as pypdf,
not as the parse); samples under none of them are Dagster's and the interpreter's. The larger
run's samples less the smaller's, per cost, are the per-page slope: printed in ms per page (at
the sampling rate), as a share of the slope and against raw pypdf per page measured here.
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.bench_parse import build_long_pdf
from bench.bench_whole_run import ROOT, raw_seconds

# (cost, the function whose frame marks it), innermost first wins; names as py-spy prints them.
COSTS = (
    ("pypdf text extraction (the raw baseline)", "PageObject.extract_text"),
    ("parse: lines, blocks, chunks, write", "parse_registered"),
    ("terms: definitions found", "find_definitions"),
    ("terms: mentions, noise screen, clusters, write", "_cluster"),
    ("formulas: candidates", "find_formulas"),
    ("rules: candidates", "find_rules"),
    ("domain context: candidates", "domain_candidates"),
    ("offline answers", "OfflineBackend.answer"),
    ("stages: guard, link, write", "StagePlan.run"),
    ("stages: reading the store, the rest of planning", "_extract.<locals>.plan"),
    ("asset checks", "check_each"),
)
_FRAME = re.compile(r"^(?P<name>.+?) \(")


def profile(pdf: Path, home: Path, py_spy: Path, rate: int, out: Path) -> None:
    home.mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "KNOWLEDGE_", "DAGSTER_"))}
    env |= {"KNOWLEDGE_HOME": str(home), "KNOWLEDGE_LLM_BACKEND": "offline", "PYTHONPATH": str(ROOT)}
    command = [str(py_spy), "record", "--rate", str(rate), "--format", "raw", "--output", str(out), "--",
               sys.executable, "-m", "knowledge_assets.command", "run", str(pdf)]
    subprocess.run(command, cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def samples_by_cost(raw: Path) -> collections.Counter[str]:
    """Each sample of a py-spy raw file (`frame;frame;… count`, root first) under its cost."""
    marks = {function: cost for cost, function in COSTS}
    costs: collections.Counter[str] = collections.Counter()
    for line in raw.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        names = [m.group("name") for frame in stack.split(";") if (m := _FRAME.match(frame))]
        cost = next((marks[name] for name in reversed(names) if name in marks), "Dagster, the interpreter, the rest")
        costs[cost] += int(count)
    return costs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--py-spy", type=Path, required=True, help="the py-spy executable")
    parser.add_argument("--pages", type=int, nargs=2, default=[90, 900])
    parser.add_argument("--rate", type=int, default=50, help="samples per second")
    args = parser.parse_args()
    small, large = sorted(args.pages)
    with tempfile.TemporaryDirectory() as scratch:
        counts = []
        for pages in (small, large):
            pdf = build_long_pdf(pages, Path(scratch) / f"long_{pages}.pdf")
            raw = Path(scratch) / f"profile_{pages}.raw"
            profile(pdf, Path(scratch) / f"home_{pages}", args.py_spy, args.rate, raw)
            counts.append(samples_by_cost(raw))
        raw_per_page = raw_seconds(pdf, 3) / large
    slope = {cost: counts[1][cost] - counts[0][cost] for cost in counts[1] | counts[0]}
    total = sum(slope.values())
    per_page = 1000 / args.rate / (large - small)
    print(f"slope {small} -> {large} pages: {total * per_page:.1f} ms/page sampled, "
          f"raw pypdf {1000 * raw_per_page:.1f} ms/page, {total * per_page / 1000 / raw_per_page:.1f}x")
    for cost, samples in sorted(slope.items(), key=lambda item: -item[1]):
        print(f"{samples * per_page:7.2f} ms/page {100 * samples / total:5.1f}% "
              f"{samples * per_page / 1000 / raw_per_page:5.2f}x  {cost}")


if __name__ == "__main__":
    main()
