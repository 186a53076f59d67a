"""Dagster's SQLite storage, with the event log's connections kept open for the process's life.

Dagster's own SQLite event log opens a new SQLAlchemy engine and connection for every write and
closes it after; a range run of many documents records some forty events per document (each
materialisation, its planned event, each partition's check evaluation), and each event opens
and closes the run's shard and the cross-run index several times. Closing the last connection
to a SQLite database in WAL mode checkpoints the log into the file, and each commit waits for the
disk (`synchronous=FULL`): most of an event's cost was those waits, not the write.

`HeldSqliteStorage` is Dagster's `DagsterSqliteStorage` — the same files, tables and layout, so
the UI, the daemon and Dagster's stock classes read and write them as before — whose event log
keeps one engine per shard (the index and the few most recent runs' shards), so its connections
stay open between events, writes each event (and each batch Dagster hands it) in one transaction
per shard, and commits in WAL mode at `synchronous=NORMAL`: a commit is appended to the
write-ahead log without waiting for the disk; the disk is synced at each checkpoint. SQLite's
guarantee under NORMAL in WAL mode: the database stays consistent after any crash; a process that
dies loses nothing it committed; a power loss may lose the last commits before the checkpoint.
The events are then what Dagster shows, not what the store holds, and a rerun writes them again.

It also keeps the last list of each dynamic partitions definition's keys and hands it out again
while the index is unchanged: Dagster lists every registered document in each
`add_asset_metadata(partition_key=...)` (a step calls it once per document), so a home of 5,000
documents paid 5.6 ms per call, all for the same list. The index is unchanged while SQLite's
`PRAGMA data_version`, read on a connection of the cache's own, is the same (it changes with
every commit any other connection makes: another process's, and this process's own writes through
its engines) and the file is the same (D111).

The home's dagster.yaml names this class (`knowledge_assets.instance.home`); a DAGSTER_HOME with
its own dagster.yaml, or none, keeps whatever storage that names (docs/decisions.md D72).

It overrides private parts of Dagster's class, so it is guarded (`held_log_unfit`, D93): loaded
on a Dagster it was not tested with, or one whose overridden names changed, the class hands
Dagster its own `DagsterSqliteStorage` on the same folder (the same files and layout; each event
then costs what Dagster's costs) and says so in one line on stderr, instead of failing every
instance that names it.
"""

from __future__ import annotations

import inspect
import os
import sqlite3
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

import dagster as dg
import sqlalchemy as db
from dagster._core.storage.event_log.sqlite.sqlite_event_log import INDEX_SHARD_NAME, SqliteEventLogStorage
from dagster._core.storage.runs.sqlite.sqlite_run_storage import SqliteRunStorage
from dagster._core.storage.schedules.sqlite.sqlite_schedule_storage import SqliteScheduleStorage
from dagster._core.storage.sqlite import SQLITE_BUSY_TIMEOUT_SECONDS
from dagster._core.storage.sqlite_storage import (
    DagsterSqliteStorage,
    _event_logs_directory,
    _runs_directory,
    _schedule_directory,
)
from dagster._serdes import ConfigurableClassData
from dagster._utils import mkdir_p

# The Dagster versions the held log was tested with (pyproject pins one). Add a version once the
# suite passes on it: tests/instance/test_storage.py fails on any other, so an upgrade is seen.
TESTED_DAGSTER_VERSIONS = frozenset({"1.13.27"})

# What the held log relies on in Dagster's classes: the methods it overrides or calls, with their
# parameters, and the attributes their constructors set that it reads or replaces.
_EVENT_LOG_METHODS = {
    "_connect": ["self", "shard"],
    "_initdb": ["self", "engine", "for_index_shard"],
    "conn_string_for_shard": ["self", "shard_name"],
    "store_event": ["self", "event"],
    "has_table": ["self", "table_name"],
    "dispose": ["self"],
    "path_for_shard": ["self", "run_id"],
    "get_dynamic_partitions": ["self", "partitions_def_name"],
}
_EVENT_LOG_ATTRIBUTES = ("_initialized_dbs", "_db_lock")
_STORAGE_ATTRIBUTES = ("_run_storage", "_event_log_storage", "_schedule_storage", "_inst_data")


def held_log_unfit(version: str = dg.__version__, event_log: type = SqliteEventLogStorage,
                   storage: type = DagsterSqliteStorage) -> str | None:
    """Why the held event log cannot be trusted on this Dagster (its version, or a changed name
    it overrides), or None when it can."""
    if version not in TESTED_DAGSTER_VERSIONS:
        return f"Dagster {version} is not a version it was tested with ({', '.join(sorted(TESTED_DAGSTER_VERSIONS))})"
    for name, parameters in _EVENT_LOG_METHODS.items():
        method = getattr(event_log, name, None)
        if not callable(method) or list(inspect.signature(method).parameters) != parameters:
            return f"{event_log.__name__}.{name} is no longer {name}({', '.join(parameters)})"
    # Set in the constructors: the names their code stores.
    for cls, attributes in ((event_log, _EVENT_LOG_ATTRIBUTES), (storage, _STORAGE_ATTRIBUTES)):
        missing = [name for name in attributes if name not in cls.__init__.__code__.co_names]
        if missing:
            return f"{cls.__name__} no longer sets {', '.join(missing)}"
    return None


# Shards whose engine stays open: the cross-run index and the runs a process writes or reads
# last. A webserver that shows many runs one after another keeps only these few open.
_HELD_SHARDS = 8


def _commit_without_waiting_for_the_disk(dbapi_connection, _record) -> None:
    dbapi_connection.execute("PRAGMA synchronous=NORMAL")


class HeldSqliteEventLogStorage(SqliteEventLogStorage):
    """Dagster's SQLite event log, each shard's engine held open (module docstring)."""

    def __init__(self, base_dir: str, inst_data: ConfigurableClassData | None = None):
        self._engines: OrderedDict[str, db.engine.Engine] = OrderedDict()
        self._tables_present: set[str] = set()
        # The connections of the events being stored now, one per shard, each in its transaction.
        self._storing = threading.local()
        super().__init__(base_dir, inst_data)
        # Re-entered by the connections `_one_transaction_per_shard` opens under it.
        self._db_lock = threading.RLock()
        self._partition_lists = _PartitionLists(self.path_for_shard(INDEX_SHARD_NAME))

    def _engine(self, shard: str) -> db.engine.Engine:
        engine = self._engines.pop(shard, None)
        if engine is None:
            engine = db.create_engine(
                self.conn_string_for_shard(shard), connect_args={"timeout": SQLITE_BUSY_TIMEOUT_SECONDS}
            )
            db.event.listen(engine, "connect", _commit_without_waiting_for_the_disk)
        self._engines[shard] = engine
        while len(self._engines) > _HELD_SHARDS:
            self._engines.popitem(last=False)[1].dispose()
        return engine

    @contextmanager
    def _connect(self, shard: str) -> Iterator[db.engine.Connection]:
        with self._db_lock:
            storing = getattr(self._storing, "connections", None)
            if storing is not None and shard in storing:
                yield storing[shard]
                return
            engine = self._engine(shard)
            if shard not in self._initialized_dbs:
                self._initdb(engine)
                self._initialized_dbs.add(shard)
            if storing is not None:
                conn = storing[shard] = engine.connect()
                conn.begin()
                yield conn
                return
            with engine.connect() as conn, conn.begin():
                yield conn

    @contextmanager
    def _one_transaction_per_shard(self) -> Iterator[None]:
        """Every write inside on one connection per shard, each shard's writes one transaction,
        committed together at the end (the run's shard before the index, as Dagster writes an
        event) or all rolled back. Dagster's class makes each of an event's writes a transaction
        of its own: a check evaluation is three (a folder run of 50 documents: 950 of them)."""
        with self._db_lock:
            if getattr(self._storing, "connections", None) is not None:
                yield
                return
            storing = self._storing.connections = {}
            try:
                yield
                for conn in storing.values():
                    conn.commit()
            except BaseException:
                for conn in storing.values():
                    conn.rollback()
                raise
            finally:
                self._storing.connections = None
                for conn in storing.values():
                    conn.close()

    def store_event(self, event: dg.EventLogEntry) -> None:
        with self._one_transaction_per_shard():
            super().store_event(event)

    def store_event_batch(self, events: Sequence[dg.EventLogEntry]) -> None:
        """The batch's events in one transaction per shard (Dagster's stores each alone)."""
        with self._one_transaction_per_shard():
            for event in events:
                super().store_event(event)

    def get_dynamic_partitions(self, partitions_def_name: str) -> Sequence[str]:
        """Dagster's list, read again only when the index changed since it was last read (module
        docstring); inside an event's transaction, read as Dagster reads it."""
        if getattr(self._storing, "connections", None) is not None:
            return super().get_dynamic_partitions(partitions_def_name)
        return self._partition_lists.get(partitions_def_name, super().get_dynamic_partitions)

    def has_table(self, table_name: str) -> bool:
        # Asked before most writes; a table, once there, stays (a missing one is asked again,
        # so a migration run meanwhile is seen).
        if table_name not in self._tables_present and super().has_table(table_name):
            self._tables_present.add(table_name)
        return table_name in self._tables_present

    def dispose(self) -> None:
        with self._db_lock:
            while self._engines:
                self._engines.popitem()[1].dispose()
        self._partition_lists.close()
        super().dispose()


class _PartitionLists:
    """Each dynamic partitions definition's keys as last read, with the index's version then:
    SQLite's `data_version` on a connection that only ever reads it (it changes when any other
    connection commits), the file's identity, and which opening of the connection counted it (a
    reopened connection starts a new count, so a list read before never matches one after);
    once closed (the storage disposed), every list is read from the index."""

    def __init__(self, index_path: str):
        self._path = index_path
        self._lock = threading.Lock()
        self._connection: sqlite3.Connection | None = None
        self._file: tuple[int, int] | None = None
        self._opened = 0  # how often the connection was opened: a version is of one opening
        self._closed = False
        self._lists: dict[str, tuple[tuple, tuple[str, ...]]] = {}

    def get(self, name: str, read: Callable[[str], Sequence[str]]) -> list[str]:
        with self._lock:
            version = self._version()
            kept = self._lists.get(name)
            if version is not None and kept is not None and kept[0] == version:
                return list(kept[1])
        keys = tuple(read(name))  # after the version: a commit in between is seen at the next call
        with self._lock:
            if version is not None and not self._closed:
                self._lists[name] = (version, keys)
        return list(keys)

    def _version(self) -> tuple | None:
        """The index's version now, or None while it has no file, cannot be asked, or once
        closed (nothing is kept then)."""
        if self._closed:
            return None
        try:
            stat = os.stat(self._path)
        except FileNotFoundError:
            return None
        file = (stat.st_dev, stat.st_ino)
        try:
            if self._connection is None or file != self._file:
                self._forget()
                self._connection = sqlite3.connect(self._path, isolation_level=None, check_same_thread=False)
                self._file = file
                self._opened += 1
            return self._opened, file, self._connection.execute("PRAGMA data_version").fetchone()[0]
        except sqlite3.Error:  # cannot open, busy, not a database: the list is read as Dagster reads it
            self._forget()
            return None

    def close(self) -> None:
        with self._lock:
            self._forget()
            self._closed = True

    def _forget(self) -> None:
        if self._connection is not None:
            self._connection.close()
        self._connection, self._file, self._lists = None, None, {}


class HeldSqliteStorage(DagsterSqliteStorage):
    """Dagster's SQLite storage in `base_dir`, its event log `HeldSqliteEventLogStorage`."""

    def __init__(self, base_dir: str, inst_data: ConfigurableClassData | None = None):
        mkdir_p(base_dir)
        self.base_dir = base_dir
        self._run_storage = SqliteRunStorage.from_local(_runs_directory(base_dir))
        self._event_log_storage = HeldSqliteEventLogStorage(_event_logs_directory(base_dir))
        self._schedule_storage = SqliteScheduleStorage.from_local(_schedule_directory(base_dir))
        self._inst_data = inst_data
        super(DagsterSqliteStorage, self).__init__()

    @classmethod
    def config_type(cls):
        return {"base_dir": dg.StringSource}

    @classmethod
    def from_config_value(cls, inst_data: ConfigurableClassData, config_value) -> DagsterSqliteStorage:
        """This class, or Dagster's own SQLite storage on the same folder where the guard finds
        the held log unfit (module docstring)."""
        unfit = held_log_unfit()
        if unfit is not None:
            print(f"warning: {unfit}: Dagster's own SQLite storage is used instead of the held event log, in the "
                  "same files; each event costs more (docs/decisions.md D93)", file=sys.stderr)
            return DagsterSqliteStorage.from_local(inst_data=inst_data, **config_value)
        return cls(inst_data=inst_data, **config_value)

