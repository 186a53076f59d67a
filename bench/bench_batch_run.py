"""Many small documents in one `knowledge-assets run FOLDER` against one `knowledge-assets run
FILE` call per document (issue 13, "100 small documents"). Run by hand, not a test:

    .venv/bin/python -m bench.bench_batch_run [--documents 100] [--separate 10]
        [--sample eval_assets/documents/maintenance_kpi.md] [--project DIR] [--dagster-home own]
        [--registered N]

(from the project root). It writes --documents copies of the sample, each with a sidecar
naming its own doc_id (`batch-bench-000` ...), into a temporary folder, then measures, side by
side in one call, each in a fresh private home (KNOWLEDGE_HOME alone, so the store and the
Dagster instance are the home's defaults, its dagster.yaml the one the command writes there, as
a user's first run gets it; with `--dagster-home own`, a DAGSTER_HOME of the user's own beside it,
empty, so Dagster's stock defaults apply: its SQLite storage), offline, as fresh processes:

  folder    one `knowledge-assets run FOLDER` over all the copies;
  separate  `knowledge-assets run FILE` for the first --separate copies, one call each (fewer
            than the folder's documents: each call costs seconds; the figure compared is
            seconds per document, which does not depend on how many calls are made).

It prints seconds per document for each, and the ratio separate / folder (the issue's goal:
>= 10, with <= 0.5 s per document in the folder run). --project runs another checkout's code
(its package put first on PYTHONPATH), to measure a commit before a change beside it.
--registered N first sets each home's instance up and registers N other documents' partition
keys in it, before the clock starts (only the keys: not the runs, events or rows a home that ran
them would also hold). It measures what Dagster's listing of the registered documents adds to
each document (D109): compare `--registered 0` with `--registered N`, both set up alike (without
the option, each home is fresh and its first call sets the instance up). It needs a checkout
with `knowledge_assets.instance.home`.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-c", "import sys; from knowledge_assets.command import main; sys.exit(main())"]


def _copies(sample: Path, folder: Path, count: int) -> list[Path]:
    folder.mkdir(parents=True)
    copies = []
    for n in range(count):
        copy = folder / f"doc-{n:03d}{sample.suffix}"
        shutil.copyfile(sample, copy)
        copy.with_name(copy.name + ".meta.json").write_text(json.dumps({"doc_id": f"batch-bench-{n:03d}"}))
        copies.append(copy)
    return copies


def _environment(home: Path, project: Path, dagster_home: str) -> dict[str, str]:
    home.mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "KNOWLEDGE_", "DAGSTER_"))}
    env |= {"KNOWLEDGE_HOME": str(home), "KNOWLEDGE_LLM_BACKEND": "offline", "PYTHONPATH": str(project)}
    if dagster_home == "own":
        (home.parent / f"{home.name}-dagster").mkdir()
        env["DAGSTER_HOME"] = str(home.parent / f"{home.name}-dagster")
    return env


_REGISTER = (
    "import sys; from knowledge_assets.defs.partitions import documents; "
    "from knowledge_assets.instance.home import project_instance; "
    "keys = [f'registered-{n:06d}' for n in range(int(sys.argv[1]))]; "
    "project_instance().add_dynamic_partitions(documents.name, keys)"
)


def _register(count: int | None, env: dict[str, str], project: Path) -> None:
    """The home's instance set up, with `count` other documents as dynamic partitions (untimed);
    nothing without the option."""
    if count is not None:
        subprocess.run([sys.executable, "-c", _REGISTER, str(count)], cwd=project, env=env, check=True,
                       capture_output=True)


def _timed_run(paths: list[Path], env: dict[str, str], project: Path) -> float:
    started = time.perf_counter()
    done = subprocess.run([*CLI, "run", *map(str, paths)], cwd=project, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"run {paths[0]} failed ({done.returncode}):\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=100, help="copies in the folder run")
    parser.add_argument("--separate", type=int, default=10, help="copies run one call each")
    parser.add_argument("--sample", type=Path, default=PROJECT_ROOT / "eval_assets/documents/maintenance_kpi.md")
    parser.add_argument("--project", type=Path, default=PROJECT_ROOT, help="the checkout whose code runs")
    parser.add_argument("--dagster-home", choices=("project", "own"), default="project",
                        help="the instance: the home's (project) or an empty DAGSTER_HOME of the user's own")
    parser.add_argument("--registered", type=int, help="set each home up first, with N other documents registered")
    args = parser.parse_args()
    project = args.project.resolve()
    with tempfile.TemporaryDirectory(prefix="bench-batch-run-") as tmp:
        copies = _copies(args.sample.resolve(), Path(tmp) / "documents", args.documents)
        folder_env = _environment(Path(tmp) / "folder-home", project, args.dagster_home)
        _register(args.registered, folder_env, project)
        folder_s = _timed_run([copies[0].parent], folder_env, project)
        separate_env = _environment(Path(tmp) / "separate-home", project, args.dagster_home)
        _register(args.registered, separate_env, project)
        separate_s = sum(_timed_run([copy], separate_env, project) for copy in copies[: args.separate])
    folder_per_doc = folder_s / args.documents
    separate_per_doc = separate_s / args.separate
    registered = "fresh" if args.registered is None else f"set up, {args.registered} other documents registered"
    print(f"sample {args.sample.name}, code {project}, instance: {args.dagster_home} DAGSTER_HOME, {registered}")
    print(f"folder    1 call, {args.documents} documents: {folder_s:7.1f} s  {folder_per_doc:.3f} s/document")
    print(f"separate  {args.separate} calls, 1 document each: {separate_s:7.1f} s  {separate_per_doc:.3f} s/document")
    print(f"ratio separate/folder per document: {separate_per_doc / folder_per_doc:.1f}x "
          "(issue 31 goal: >= 20x and <= 0.25 s/document on the home's instance, >= 15x on one's own)")


if __name__ == "__main__":
    main()
