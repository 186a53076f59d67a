"""A real PostgreSQL server for the tests and the bench: started, used, stopped and removed.

`running_postgres()` runs Debian's PostgreSQL (15 on the machine image) in a temporary data
directory, on a free port, listening on 127.0.0.1 only, with trust authentication (nothing but
this machine can reach it, and it lives as long as the test). PostgreSQL refuses to run as
root, so as root the data directory is handed to the `postgres` user and every server command
runs through `runuser`; as anyone else it runs as that user.

`postgres_server` is a session-scoped fixture over it that skips, with the reason, where the
binaries are absent. It is not in tests/conftest.py: a test module that needs it binds it with
`postgres_server = postgres.postgres_server` (pytest finds fixtures among a module's names), so
the rest of the suite never pays for a server. Each module that binds it gets its own server.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

# Debian installs each major version side by side; the newest present is used.
BIN_GLOB = "/usr/lib/postgresql/*/bin"
SERVER_USER = "postgres"
START_TIMEOUT_S = 60
PSQL_TIMEOUT_S = 60  # a statement waiting on a lock that is never released fails the test
START_ATTEMPTS = 3  # a free port can be taken between choosing it and the server binding it


class PostgresUnavailable(RuntimeError):
    """The machine cannot run a PostgreSQL server (no binaries, or no user that may run them)."""


@dataclass(frozen=True)
class PostgresServer:
    """A running server: its URL, its port, and the binaries that started it."""

    url: str
    port: int
    bin_dir: Path
    data_dir: Path

    def psql(self, sql: str) -> str:
        """Run SQL through the server's own client, each call a new connection; returns its
        unaligned, tuples-only output."""
        done = subprocess.run(
            [str(self.bin_dir / "psql"), self.url, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", sql],
            capture_output=True, text=True, check=False, timeout=PSQL_TIMEOUT_S,
        )
        if done.returncode != 0:
            raise RuntimeError(f"psql failed: {done.stderr.strip()}")
        return done.stdout.strip()


def find_bin_dir() -> Path:
    """The newest PostgreSQL bin directory that has initdb, pg_ctl and postgres."""
    needed = ("initdb", "pg_ctl", "postgres", "psql")
    candidates = [Path(p) for p in glob.glob(BIN_GLOB)]
    usable = [p for p in candidates if all(os.access(p / name, os.X_OK) for name in needed)]
    if not usable:
        raise PostgresUnavailable(f"no PostgreSQL binaries ({', '.join(needed)}) under {BIN_GLOB}")
    return max(usable, key=lambda p: int(p.parent.name) if p.parent.name.isdigit() else 0)


def _as_server_user() -> list[str]:
    """The command prefix that runs a server command as a user PostgreSQL accepts."""
    if os.geteuid() != 0:
        return []
    try:
        pwd.getpwnam(SERVER_USER)
    except KeyError as exc:
        raise PostgresUnavailable(f"running as root and there is no {SERVER_USER!r} user to run the server") from exc
    # runuser lives in sbin, which a root shell with a minimal PATH (/usr/bin:/bin) does not search.
    runuser = shutil.which("runuser") or shutil.which("runuser", path="/usr/sbin:/sbin")
    if runuser is None:
        raise PostgresUnavailable("running as root and runuser is absent")
    return [runuser, "-u", SERVER_USER, "--"]


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _run(command: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(command, capture_output=True, text=True, check=False, timeout=START_TIMEOUT_S + 30)


@contextlib.contextmanager
def running_postgres(settings: dict[str, str] | None = None) -> Iterator[PostgresServer]:
    """Start a throwaway server and yield it; stop it and delete its files on the way out.

    `settings` are extra `postgres -c name=value` options (the bench raises max_connections)."""
    bin_dir = find_bin_dir()
    prefix = _as_server_user()
    root = Path(tempfile.mkdtemp(prefix="knowledge-pg-"))
    data_dir, socket_dir, log_file = root / "data", root / "socket", root / "server.log"
    socket_dir.mkdir()
    if prefix:
        server_user = pwd.getpwnam(SERVER_USER)
        for path in (root, socket_dir):
            os.chown(path, server_user.pw_uid, server_user.pw_gid)
    started = False
    try:
        init = _run([*prefix, str(bin_dir / "initdb"), "-D", str(data_dir), "-U", SERVER_USER,
                     "--auth=trust", "--encoding=UTF8", "--no-locale", "--no-sync"])
        if init.returncode != 0:
            raise PostgresUnavailable(f"initdb failed: {init.stderr.strip() or init.stdout.strip()}")
        options = {"listen_addresses": "127.0.0.1", "unix_socket_directories": str(socket_dir), **(settings or {})}
        for _ in range(START_ATTEMPTS):
            port = _free_port()
            server_options = " ".join(f"-c {name}={value}" for name, value in {**options, "port": port}.items())
            start = _run([*prefix, str(bin_dir / "pg_ctl"), "start", "-D", str(data_dir), "-l", str(log_file),
                          "-w", "-t", str(START_TIMEOUT_S), "-o", server_options])
            if start.returncode == 0:
                started = True
                break
        if not started:
            log = log_file.read_text(errors="replace")[-2000:] if log_file.exists() else ""
            raise PostgresUnavailable(f"pg_ctl start failed: {start.stderr.strip()}\n{log}")
        yield PostgresServer(url=f"postgresql://{SERVER_USER}@127.0.0.1:{port}/postgres", port=port,
                             bin_dir=bin_dir, data_dir=data_dir)
    finally:
        if started:
            _run([*prefix, str(bin_dir / "pg_ctl"), "stop", "-D", str(data_dir), "-m", "fast", "-w"])
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A running PostgreSQL server for the session; skips with the reason where none can run."""
    try:
        with running_postgres() as server:
            yield server
    except PostgresUnavailable as exc:
        pytest.skip(f"PostgreSQL cannot run here: {exc}")
