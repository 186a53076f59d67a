"""A real Redis server on 127.0.0.1, the Celery broker and result backend of the tests that run
steps on Celery workers: Debian's `redis-server` (.ci/run installs it), on a free port, nothing
written to disk, stopped when the module's tests are done. `redis_server` is a module-scoped
fixture that skips, with the reason, where the binary is absent; a module binds it with
`redis_server = redis_server.redis_server`, as it does PostgreSQL's."""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

BINARY = Path("/usr/bin/redis-server")
START_TIMEOUT_S = 30


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as connection:
            connection.sendall(b"PING\r\n")
            return connection.recv(16).startswith(b"+PONG")
    except OSError:
        return False


@pytest.fixture(scope="module")
def redis_server(tmp_path_factory) -> Iterator[str]:
    """The server's URL, `redis://127.0.0.1:PORT`; database numbers are the caller's."""
    if not BINARY.is_file():
        pytest.skip(f"Redis is not installed at {BINARY}: .ci/run installs it with `apt-get install redis-server`")
    log = tmp_path_factory.mktemp("redis") / "redis.log"
    port = _free_port()
    server = subprocess.Popen([str(BINARY), "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                               "--appendonly", "no", "--logfile", str(log)])
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while not _answers(port):
            if server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"redis-server did not start: {log.read_text(errors='replace')[-2000:]}")
            time.sleep(0.2)
        yield f"redis://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(timeout=30)
