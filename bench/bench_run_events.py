"""What Dagster records for a folder run, read back from the run's event log (issue 31;
docs/decisions.md D93). Run by hand, not a test:

    .venv/bin/python -m bench.bench_run_events [--documents 20] [--dagster-home project|own]

(from the project root). One `knowledge-assets run FOLDER` over --documents copies of the
Markdown sample, in a fresh private home as `bench_batch_run` makes it (`--dagster-home own`: an
empty DAGSTER_HOME of the user's own, Dagster's stock SQLite storage), then every event of its
runs counted by kind, each check evaluation by its check's name: what each document adds and
what the run adds once. It prints the run's seconds too, the events' share of which
`bench_event_log` measures per event.
"""

import argparse
import collections
import os
import tempfile
from pathlib import Path

import dagster as dg

from bench.bench_batch_run import PROJECT_ROOT, _copies, _environment, _timed_run


def _kinds(instance: dg.DagsterInstance) -> collections.Counter:
    kinds: collections.Counter = collections.Counter()
    for run in instance.get_runs():
        for entry in instance.all_logs(run.run_id):
            event = entry.dagster_event
            if event is None:
                kinds["(log line)"] += 1
            elif event.event_type == dg.DagsterEventType.ASSET_CHECK_EVALUATION:
                kinds[f"{event.event_type_value}: {event.event_specific_data.check_name}"] += 1
            else:
                kinds[event.event_type_value] += 1
    return kinds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=20)
    parser.add_argument("--dagster-home", choices=("project", "own"), default="project")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-run-events-") as tmp:
        copies = _copies(PROJECT_ROOT / "eval_assets/documents/maintenance_kpi.md", Path(tmp) / "documents",
                         args.documents)
        env = _environment(Path(tmp) / "home", PROJECT_ROOT, args.dagster_home)
        seconds = _timed_run([copies[0].parent], env, PROJECT_ROOT)
        os.environ["DAGSTER_HOME"] = env.get("DAGSTER_HOME", env["KNOWLEDGE_HOME"])
        with dg.DagsterInstance.get() as instance:
            storage = type(instance.event_log_storage).__name__
            kinds = _kinds(instance)
    print(f"{args.documents} documents, {args.dagster_home} DAGSTER_HOME ({storage}): {seconds:.1f} s")
    for kind, count in sorted(kinds.items(), key=lambda item: -item[1]):
        print(f"{kind:55s} {count:6d}  {count / args.documents:6.2f} per document")
    total = sum(kinds.values())
    print(f"{'all':55s} {total:6d}  {total / args.documents:6.2f} per document")


if __name__ == "__main__":
    main()
