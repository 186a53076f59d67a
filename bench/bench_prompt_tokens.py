"""Prompt tokens the model backend sends for a whole document, through the real graph: run by
hand, not a test.

    python -m bench.bench_prompt_tokens [--pages 300] [--document PATH]

(from the project root, so `tests.support` imports). Each document is materialised with the
model backend against the loopback OpenAI-compatible server, which answers every request with
the smallest valid JSON (nothing found), so no answer adds or re-asks a call and the requests
are exactly those the stages build (candidate chunks for formulas and rules, each term's
evidence for the glossary). Prompt tokens are the usage the server reports (4 characters per
token) as the backend stored it in `llm_usage`.

Documents: the 9-page sample PDF and, by repetition of its pages, a `--pages`-page PDF.
Printed per document: calls and prompt tokens per branch, the total, tokens per page, and the
issue-13 targets beside them (<= 46,000 on the sample, <= 1,500 per page on the long PDF).
`bench/bench_llm.py` measures concurrency and the response cache on requests it builds
itself; this is the figure of what a run really sends.
"""

from __future__ import annotations

import argparse
import tempfile
from collections import Counter
from pathlib import Path

from bench.bench_parse import SAMPLE, build_long_pdf
from bench.bench_request_coverage import loopback_model_run
from knowledge_assets.ingest.documents import identify
from knowledge_assets.run_control.launch import materialize_document
from knowledge_assets.store.registry import register
from tests.support.openai_server import schema_title

SAMPLE_TARGET = 46_000
PER_PAGE_TARGET = 1_500


def measure(documents: list[tuple[str, Path]]) -> list[dict]:
    rows = []
    with loopback_model_run() as (store, server, instance):
        for doc_id, path in documents:
            before = len(server.requests)
            register(store, identify(path, doc_id))
            outcome = materialize_document(instance, doc_id)
            if not outcome.success:
                raise SystemExit(f"{doc_id}: the run failed: {outcome.error}")
            calls = Counter(schema_title(r.body) for r in server.requests[before:])
            tokens = {row["branch"]: int(row["n"]) for row in store.fetch(
                "SELECT branch, SUM(prompt_tokens) AS n FROM llm_usage WHERE doc_id = ? GROUP BY branch", [doc_id])}
            pages = int(outcome.metadata["parsed_chunks"]["pages"])
            rows.append({"document": path.name, "pages": pages, "calls": dict(calls), "prompt_tokens": tokens,
                         "total": sum(tokens.values()), "per_page": round(sum(tokens.values()) / pages)})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--document", type=Path, default=SAMPLE)
    parser.add_argument("--pages", type=int, default=300, help="pages of the long PDF built from the sample (0: none)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        documents = [("SAMPLE", args.document)]
        if args.pages:
            documents.append(("LONG", build_long_pdf(args.pages, Path(scratch) / f"long_{args.pages}.pdf")))
        rows = measure(documents)
    for row in rows:
        print(f"{row['document']}: {row['pages']} pages, calls {row['calls']}")
        print(f"  prompt tokens {row['prompt_tokens']} = {row['total']:,} ({row['per_page']:,} per page)")
    print(f"sample total {rows[0]['total']:,} (target <= {SAMPLE_TARGET:,}: "
          f"{'met' if rows[0]['total'] <= SAMPLE_TARGET else 'NOT met'})")
    if len(rows) > 1:
        print(f"long PDF {rows[1]['per_page']:,} tokens per page (target <= {PER_PAGE_TARGET:,}: "
              f"{'met' if rows[1]['per_page'] <= PER_PAGE_TARGET else 'NOT met'})")


if __name__ == "__main__":
    main()
