"""Fixtures for the LLM layer: a loopback OpenAI-compatible server, settings that point at
it with a fake key, and the sample documents' real chunks."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from knowledge_assets.ingest.documents import identify
from knowledge_assets.ingest.parse import parse_document
from knowledge_assets.llm.model_settings import LLMSettings, resolve_settings
from knowledge_assets.llm.requests import SourceChunk
from tests.conftest import SAMPLE_MARKDOWN, SAMPLE_PDF
from tests.support.openai_server import Fault, OpenAIServer, schema_title, term_count

FAKE_KEY = "sk-test-SECRET123"


def valid_answer(body: dict) -> dict:
    """A well-formed answer for whichever branch the request is: abstentions and empty lists."""
    title = schema_title(body)
    if title == "GlossaryResponse":
        return {"terms": [
            {"cluster": n, "term": f"T{n}", "full_name": None, "definition": None,
             "subdomain_tags": [], "span": None, "chunk_id": None}
            for n in range(1, term_count(body) + 1)
        ]}
    if title == "DomainContextResponse":
        return {"title": None, "purpose_verbatim": None, "key_parameters": [], "span": None, "chunk_id": None}
    return {"formulas": []} if title == "FormulaResponse" else {"rules": []}


def flaky_attempts() -> list[Fault]:
    """One call's five attempts as a flaky provider met them (issue 20): an answer that fails
    the schema, a rate limit, a server error, then two connections dropped unanswered."""
    return [Fault(content='{"formulas": [{"name": "no span"}]}'), Fault.rate_limited(retry_after=0.01),
            Fault(status=503, message="Service unavailable"), Fault.dropped(), Fault.dropped()]


@pytest.fixture
def openai_server() -> Iterator[OpenAIServer]:
    with OpenAIServer(valid_answer) as server:
        yield server


@pytest.fixture
def llm_settings(openai_server: OpenAIServer, monkeypatch: pytest.MonkeyPatch) -> LLMSettings:
    """Settings resolved as a run would resolve them, from the environment, aimed at the
    loopback server with short timeouts."""
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", openai_server.base_url)
    monkeypatch.delenv("KNOWLEDGE_LLM_BACKEND", raising=False)
    monkeypatch.setenv("KNOWLEDGE_LLM_MODEL", "loopback-nano")
    return resolve_settings(timeout_s=2.0, max_retries=3, max_concurrency=4)


def _chunks(path) -> list[SourceChunk]:
    parsed = parse_document(identify(path))
    return [SourceChunk(chunk_id=c.chunk_id, text=c.text, heading_path=c.heading_path) for c in parsed.chunks]


@pytest.fixture(scope="session")
def pdf_chunks() -> list[SourceChunk]:
    return _chunks(SAMPLE_PDF)


@pytest.fixture(scope="session")
def markdown_chunks() -> list[SourceChunk]:
    return _chunks(SAMPLE_MARKDOWN)
