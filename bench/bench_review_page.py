"""How long the review server takes to serve an entry page and a page image on a 300-page PDF.

    python bench/bench_review_page.py [--pages 300] [--repeats 7] [--store PATH]

Builds the PDF by repeating the sample PDF's pages (as bench_parse.py does), runs the pipeline on
it offline (`knowledge-assets run`, a few minutes), starts `knowledge-assets review serve` on
127.0.0.1, and times over HTTP: the entry page of a PDF term (fields, history, page highlight),
its page image rendered (cache emptied first) and served from the cache. Prints the median of
`--repeats` runs of each. `--store` reuses a store that already holds the document BENCH-<pages>.
Run by hand, not in CI.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from urllib.parse import quote

from bench_parse import build_long_pdf

from knowledge_assets.store.database import DuckDBStore

CLI = str(Path(sys.executable).parent / "knowledge-assets")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def extract(pages: int, root: Path) -> tuple[Path, str]:
    doc_id = f"BENCH-{pages}"
    documents = root / "documents"
    documents.mkdir(parents=True)
    pdf = build_long_pdf(pages, documents / f"long_{pages}_pages.pdf")
    pdf.with_name(pdf.name + ".meta.json").write_text(f'{{"doc_id": "{doc_id}"}}', encoding="utf-8")
    store = root / "knowledge.duckdb"
    (root / "dagster").mkdir()
    (root / "dagster" / "dagster.yaml").write_text("telemetry:\n  enabled: false\n", encoding="utf-8")
    env = {**os.environ, "KNOWLEDGE_DB": str(store), "DAGSTER_HOME": str(root / "dagster"),
           "KNOWLEDGE_LLM_BACKEND": "offline"}
    started = time.perf_counter()
    done = subprocess.run([CLI, "run", str(documents)], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"the pipeline failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    print(f"pipeline on {pages} pages: {time.perf_counter() - started:.0f} s")
    return store, doc_id


def _get(url: str) -> float:
    started = time.perf_counter()
    with urllib.request.urlopen(url, timeout=300) as response:
        response.read()
        assert response.status == 200, url
    return time.perf_counter() - started


def _median_ms(times: list[float]) -> str:
    return (f"{statistics.median(times) * 1000:.0f} ms (median of {len(times)}; "
            f"min {min(times) * 1000:.0f}, max {max(times) * 1000:.0f})")


def measure(store_path: Path, doc_id: str, repeats: int) -> None:
    store = DuckDBStore(store_path)
    # The rule furthest into the document: its page is rendered from the end of the file.
    term = store.fetch("SELECT rule_id AS entity_id, provenance.page_no AS page_no FROM rules WHERE doc_id = ? "
                       "ORDER BY provenance.page DESC, rule_id LIMIT 1", [doc_id])[0]
    entries = store.fetch("SELECT (SELECT count(*) FROM glossary WHERE doc_id = ?)"
                          " + (SELECT count(*) FROM formulas WHERE doc_id = ?)"
                          " + (SELECT count(*) FROM rules WHERE doc_id = ?) AS n", [doc_id] * 3)[0]["n"]
    port = _free_port()
    server = subprocess.Popen([CLI, "review", "serve", "--port", str(port)],
                              env={**os.environ, "KNOWLEDGE_DB": str(store_path)},
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                _get(base + "/static/review.css")
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        entry = f"{base}/entries/{quote(term['entity_id'])}?doc_id={doc_id}"
        image = f"{base}/pages/{doc_id}/{term['page_no']}.png"
        cache = store_path.resolve().parent / "review_pages" / doc_id
        _get(entry)  # warm: the first request opens the store and checks its schema
        print(f"{doc_id}: {entries} terms/formulas/rules; entry {term['entity_id']} on page {term['page_no']}")
        print(f"  entry page:              {_median_ms([_get(entry) for _ in range(repeats)])}")
        rendered = []
        for _ in range(repeats):
            shutil.rmtree(cache, ignore_errors=True)
            rendered.append(_get(image))
        print(f"  page image, rendered:    {_median_ms(rendered)}")
        print(f"  page image, from cache:  {_median_ms([_get(image) for _ in range(repeats)])}")
        print(f"  queue page:              {_median_ms([_get(f'{base}/documents/{doc_id}') for _ in range(repeats)])}")
    finally:
        server.terminate()
        server.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pages", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--store", type=Path, help="a store already holding BENCH-<pages>")
    args = parser.parse_args()
    if args.store:
        measure(args.store, f"BENCH-{args.pages}", args.repeats)
        return
    with tempfile.TemporaryDirectory() as tmp:
        store, doc_id = extract(args.pages, Path(tmp))
        measure(store, doc_id, args.repeats)


if __name__ == "__main__":
    main()
