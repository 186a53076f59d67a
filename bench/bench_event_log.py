"""What Dagster's event log costs per event, on each instance storage the project can run on
(issue 21; docs/decisions.md D72). Run by hand, not a test:

    .venv/bin/python -m bench.bench_event_log [--partitions 100] [--checks 19] [--rounds 3] [--no-postgres]

(from the project root). One toy asset over --partitions partitions, materialised in one range
run as a folder run is, each partition given its own materialisation and --checks check
evaluations (a document of `knowledge-assets run FOLDER` records 8 materialisations, 8 planned
events and 19 check evaluations). The same run on three instances, in turns, --rounds times:

  sqlite   Dagster's stock SQLite storage (`storage: sqlite:`), a new connection per write;
  held     the project's (`knowledge_assets.instance.storage.HeldSqliteStorage`);
  postgres dagster-postgres on a throwaway local PostgreSQL server (tests/support/postgres.py);
  postgres_async  the same, its database set to `synchronous_commit = off`;
  postgres_held   the same server, the instance holding one connection open
                  (`DagsterInstance.optimize_for_webserver`, what the CLI's run does).

It prints, for each, the median run's seconds, the events it stored and milliseconds per event.
"""

import argparse
import statistics
import tempfile
import time
import warnings
from contextlib import ExitStack

import dagster as dg

from tests.support import postgres

warnings.filterwarnings("ignore", category=dg.PreviewWarning)
warnings.filterwarnings("ignore", category=dg.BetaWarning)


def _toy_asset(partitions: int, checks: int) -> dg.AssetsDefinition:
    keys = dg.StaticPartitionsDefinition([f"p{n:04d}" for n in range(partitions)])
    names = [f"check_{n}" for n in range(checks)]

    @dg.asset(partitions_def=keys, backfill_policy=dg.BackfillPolicy.single_run(),
              check_specs=[dg.AssetCheckSpec(name, asset="toy", partitions_def=keys) for name in names])
    def toy(context: dg.AssetExecutionContext):
        for key in context.partition_keys:
            context.add_asset_metadata({"rows": 1, "partition": key}, partition_key=key)
        yield dg.MaterializeResult()
        for key in context.partition_keys:
            for name in names:
                yield dg.AssetCheckEvaluation(asset_key=context.asset_key, check_name=name, passed=True,
                                              metadata={"rows_checked": 1}, partition=key)
        for name in names:
            yield dg.Output(None, output_name=context.assets_def.get_output_name_for_asset_check_key(
                dg.AssetCheckKey(context.asset_key, name)))

    return toy


def _storages(stack: ExitStack, with_postgres: bool) -> dict[str, dict]:
    held = {"custom": {"module": "knowledge_assets.instance.storage", "class": "HeldSqliteStorage"}}
    storages = {"sqlite": lambda home: {"sqlite": {"base_dir": home}},
                "held": lambda home: {"custom": {**held["custom"], "config": {"base_dir": home}}}}
    if with_postgres:
        server = stack.enter_context(postgres.running_postgres())
        url = server.url.replace("postgresql://", "postgresql+psycopg2://")
        storages["postgres"] = lambda home: {"postgres": {"postgres_url": url}}
        # The same server, a database whose commits do not wait for the disk (PostgreSQL's
        # trade-off is NORMAL's: consistent after a crash, the last commits may be lost).
        server.psql("CREATE DATABASE events_async")
        server.psql("ALTER DATABASE events_async SET synchronous_commit = off")
        async_url = url.rsplit("/", 1)[0] + "/events_async"
        storages["postgres_async"] = lambda home: {"postgres": {"postgres_url": async_url}}
        storages["postgres_held"] = storages["postgres"]
    return storages


def _one_run(storage: dict, home: str, toy: dg.AssetsDefinition, partitions: int,
             held: bool) -> tuple[float, int]:
    with dg.instance_for_test(temp_dir=home, overrides={"storage": storage}) as instance:
        if held:
            # What the run launcher does for a run worker (run_control/launch.py): one connection
            # kept open instead of one per statement (dagster-postgres's default).
            instance.optimize_for_webserver(statement_timeout=0, pool_recycle=3600, max_overflow=10)
        started = time.perf_counter()
        # Quiet, as the CLI runs it: the events still go to the instance.
        quiet = {"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}}
        result = dg.materialize([toy], instance=instance, run_config=quiet, tags={
            "dagster/asset_partition_range_start": "p0000",
            "dagster/asset_partition_range_end": f"p{partitions - 1:04d}"})
        seconds = time.perf_counter() - started
        assert result.success
        events = len(instance.all_logs(result.run_id))
        instance.delete_run(result.run_id)
    return seconds, events


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--partitions", type=int, default=100)
    parser.add_argument("--checks", type=int, default=19)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument("--only", default="", help="comma-separated storages to run (default: all)")
    args = parser.parse_args()
    toy = _toy_asset(args.partitions, args.checks)
    timings: dict[str, list[tuple[float, int]]] = {}
    with ExitStack() as stack:
        storages = _storages(stack, not args.no_postgres)
        only = set(filter(None, args.only.split(",")))
        for _ in range(args.rounds):
            for name, storage_for in storages.items():
                if only and name not in only:
                    continue
                with tempfile.TemporaryDirectory(prefix=f"bench-event-log-{name}-") as home:
                    run = _one_run(storage_for(home), home, toy, args.partitions, held=name == "postgres_held")
                    timings.setdefault(name, []).append(run)
    print(f"{args.partitions} partitions x (1 materialisation + {args.checks} checks), {args.rounds} rounds")
    for name, runs in timings.items():
        seconds = statistics.median(s for s, _ in runs)
        events = runs[0][1]
        print(f"{name:9s} {seconds:7.2f} s  {events} events  {1000 * seconds / events:6.2f} ms/event")


if __name__ == "__main__":
    main()
