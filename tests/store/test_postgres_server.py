"""The PostgreSQL test server is real: it takes writes, other connections see them, it
listens on 127.0.0.1 only, and it is gone after its block."""

import os
import signal
import socket
import subprocess

import pytest

from tests.support import postgres
from tests.support.postgres import PostgresUnavailable, running_postgres

postgres_server = postgres.postgres_server


def test_a_committed_row_is_seen_by_a_second_connection(postgres_server):
    postgres_server.psql("CREATE TABLE notes (doc_id text PRIMARY KEY, tags text[] NOT NULL)")
    postgres_server.psql("INSERT INTO notes VALUES ('A', ARRAY['x', 'y'])")
    assert postgres_server.psql("SELECT doc_id || ':' || array_to_string(tags, ',') FROM notes") == "A:x,y"


def test_the_server_enforces_keys(postgres_server):
    postgres_server.psql("CREATE TABLE keyed (id text PRIMARY KEY)")
    postgres_server.psql("INSERT INTO keyed VALUES ('k')")
    with pytest.raises(RuntimeError, match="duplicate key"):
        postgres_server.psql("INSERT INTO keyed VALUES ('k')")


def test_a_client_killed_mid_transaction_leaves_the_committed_rows(postgres_server):
    # What D63's choice relies on: a writer killed between its delete and its commit loses nothing.
    postgres_server.psql("CREATE TABLE pages (doc_id text, n integer); INSERT INTO pages VALUES ('A', 1), ('A', 2)")
    client = subprocess.Popen([str(postgres_server.bin_dir / "psql"), postgres_server.url, "-X", "-q", "-A", "-t"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    client.stdin.write("BEGIN; DELETE FROM pages WHERE doc_id = 'A'; INSERT INTO pages VALUES ('A', 9);\n"
                       "SELECT 'midway';\n")
    client.stdin.flush()
    assert client.stdout.readline().strip() == "midway"
    os.kill(client.pid, signal.SIGKILL)
    client.wait()
    assert postgres_server.psql("SELECT string_agg(n::text, ',' ORDER BY n) FROM pages WHERE doc_id = 'A'") == "1,2"
    postgres_server.psql("DELETE FROM pages WHERE doc_id = 'A'")  # and its row locks are gone


def test_the_server_listens_on_the_loopback_address_only(postgres_server):
    assert postgres_server.url.startswith("postgresql://postgres@127.0.0.1:")
    assert postgres_server.psql("SHOW listen_addresses") == "127.0.0.1"
    with socket.create_connection(("127.0.0.1", postgres_server.port), timeout=5):
        pass


def test_the_server_and_its_files_are_gone_after_the_block():
    try:
        with running_postgres() as server:
            data_dir, port = server.data_dir, server.port
            assert server.psql("SELECT 1") == "1"
    except PostgresUnavailable as exc:
        pytest.skip(f"PostgreSQL cannot run here: {exc}")
    assert not data_dir.exists()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
