"""The review server as the user starts it — `knowledge-assets review serve` in its own process,
on 127.0.0.1 and a free port — and an HTTP client that keeps its cookies like a browser."""

from __future__ import annotations

import http.cookiejar
import re
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from knowledge_assets.store.protocol import Store
from tests.ui.servers import dagster_process, free_port, wait_for

CLI = str(Path(sys.executable).parent / "knowledge-assets")
_CSRF = re.compile(r'name="csrf" value="([^"]+)"')


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    @property
    def text(self) -> str:
        return self.body.decode("utf-8")

    @property
    def csrf(self) -> str:
        return _CSRF.search(self.text).group(1)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


class Client:
    """Cookies kept, redirects not followed (a test reads where a decision sends the reviewer)."""

    def __init__(self, base_url: str):
        self.base_url = base_url
        self.cookies = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies), _NoRedirect)

    def request(self, path: str, data: dict | list | None = None, headers: dict | None = None) -> Answer:
        body = None if data is None else urllib.parse.urlencode(data, doseq=True).encode()
        request = urllib.request.Request(self.base_url + path, data=body, headers=headers or {})
        try:
            with self.opener.open(request, timeout=60) as response:
                return Answer(response.status, dict(response.headers), response.read())
        except urllib.error.HTTPError as error:
            return Answer(error.code, dict(error.headers), error.read())

    def get(self, path: str, headers: dict | None = None) -> Answer:
        return self.request(path, headers=headers)

    def post(self, path: str, data: dict | list, headers: dict | None = None) -> Answer:
        return self.request(path, data, headers)


@dataclass
class ReviewServer:
    url: str
    store: Store
    log: Path

    def client(self) -> Client:
        return Client(self.url)


def _answers(url: str) -> bool:
    with urllib.request.urlopen(url + "/static/review.css", timeout=5) as response:
        return response.status == 200


@contextmanager
def review_server(store: Store, log: Path, *extra: str, host: str = "127.0.0.1") -> Iterator[ReviewServer]:
    port = free_port()
    args = [CLI, "review", "serve", "--host", host, "--port", str(port), *extra]
    # The shared store is named by its URL (KNOWLEDGE_STORE), the DuckDB file by its path.
    env = {"KNOWLEDGE_STORE": store.url} if store.engine == "PostgreSQL" else {"KNOWLEDGE_DB": str(store.path)}
    with dagster_process(args, log, env=env) as process:
        url = f"http://{host}:{port}"
        wait_for(lambda: _answers(url), "the review server answering", process, log, deadline_s=60)
        yield ReviewServer(url, store, log)
