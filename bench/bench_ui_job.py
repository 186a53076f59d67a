r"""A UI-style run of one document against the CLI's run of the same document. Run by hand,
not a test:

    .venv/bin/python -m bench.bench_ui_job [--document eval_assets/documents/std_parameter_produksi.pdf] [--runs 3]

(from the project root). Both commands run in a private home (KNOWLEDGE_HOME = DAGSTER_HOME
= a temporary folder), offline, as fresh processes, in turn (A B A B ...), and the median
wall time of each is printed:

  ui   `dg launch --job extract_document --partition KEY`: a new process that loads the
       definitions and executes the job with the executor the job declares — what the UI's run
       launcher does for a launched run (it starts `dagster api execute_run` the same way);
  cli  `knowledge-assets run FILE`: registers (unchanged, a no-op) and runs the same job.

The same figures from outside, start-up included, with the machine's own accounting:
    farm-bench -n 3 --timeout 900 --vs '.venv/bin/knowledge-assets run FILE' \
        -- .venv/bin/dg launch --job extract_document --partition KEY
with KNOWLEDGE_HOME and DAGSTER_HOME exported to one folder.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def _timed(command: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(command, cwd=PROJECT_ROOT, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--document", default=str(PROJECT_ROOT / "eval_assets/documents/std_parameter_produksi.pdf"))
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-ui-job-") as home:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "KNOWLEDGE_"))}
        env |= {"KNOWLEDGE_HOME": home, "DAGSTER_HOME": home, "KNOWLEDGE_LLM_BACKEND": "offline"}
        cli = [str(BIN / "knowledge-assets"), "run", args.document]
        # The first run registers the document, adds its partition and writes the home's dagster.yaml.
        first = subprocess.run(cli, cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, check=True).stdout
        key = next(line.split()[1] for line in first.splitlines() if line.startswith("ok"))
        ui = [str(BIN / "dg"), "launch", "--job", "extract_document", "--partition", key]
        times: dict[str, list[float]] = {"ui": [], "cli": []}
        for _ in range(args.runs):
            times["ui"].append(_timed(ui, env))
            times["cli"].append(_timed(cli, env))
    medians = {name: statistics.median(values) for name, values in times.items()}
    print(json.dumps({"document": Path(args.document).name, "partition": key, "runs": args.runs,
                      "wall_s": {name: [round(v, 2) for v in values] for name, values in times.items()},
                      "median_s": {name: round(v, 2) for name, v in medians.items()},
                      "ui_over_cli": round(medians["ui"] / medians["cli"], 2)}, indent=2))


if __name__ == "__main__":
    main()
