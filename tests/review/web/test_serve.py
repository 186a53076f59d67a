"""`knowledge-assets review serve`: this machine only by default, and loud when told otherwise."""

from __future__ import annotations

import urllib.request

from knowledge_assets.review.web.serve import exposure_warning
from tests.review.web.server import CLI, review_server
from tests.ui.servers import dagster_process, free_port, wait_for


def test_only_a_loopback_address_goes_without_a_warning():
    assert exposure_warning("127.0.0.1") is None and exposure_warning("localhost") is None
    warning = exposure_warning("0.0.0.0")
    assert "WARNING" in warning and "0.0.0.0" in warning and "no login" in warning


def test_by_default_it_listens_on_127_0_0_1_and_says_where(extracted, tmp_path):
    port, log = free_port(), tmp_path / "serve.log"
    command = [CLI, "review", "serve", "--port", str(port)]
    with dagster_process(command, log, env={"KNOWLEDGE_DB": str(extracted.path)}) as process:
        url = f"http://127.0.0.1:{port}/"
        wait_for(lambda: urllib.request.urlopen(url, timeout=5).status == 200, "the review server", process, log, 60)
    assert f"review: http://127.0.0.1:{port}/" in log.read_text(encoding="utf-8")
    assert "WARNING" not in log.read_text(encoding="utf-8")


def test_another_address_is_served_after_a_loud_warning(extracted, tmp_path):
    log = tmp_path / "serve.log"
    with review_server(extracted, log, host="127.0.0.2") as server:
        assert server.client().get("/").status == 200
    assert "WARNING: the review server listens on 127.0.0.2" in log.read_text(encoding="utf-8")
