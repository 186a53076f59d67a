"""A real review server over a fresh copy of both extracted samples, per test."""

from __future__ import annotations

import pytest

from tests.review.web.server import review_server


@pytest.fixture
def server(extracted, tmp_path):
    with review_server(extracted, tmp_path / "review-server.log", "--lock-timeout", "1") as running:
        yield running


@pytest.fixture
def client(server):
    return server.client()
