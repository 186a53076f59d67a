"""The `knowledge-assets` command in a fresh process, as other tools call it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import SAMPLE_MARKDOWN
from tests.documents import write_pdf

COMMAND = [sys.executable, "-m", "knowledge_assets.command"]


def cli_env(root: Path, **extra_env) -> dict[str, str]:
    """An environment whose store and instance are in one private home, `root/home`, whose
    dagster.yaml turns telemetry and its banner off (the overrides tests use)."""
    home = root / "home"
    home.mkdir(exist_ok=True)
    (home / "dagster.yaml").write_text("telemetry:\n  enabled: false\n", encoding="utf-8")
    return {**os.environ, "KNOWLEDGE_DB": str(home / "knowledge.duckdb"), "DAGSTER_HOME": str(home), **extra_env}


def cli_process(args, cwd, root: Path, **extra_env) -> subprocess.CompletedProcess:
    """The command run to its end in a fresh process, in `root/home` (cli_env)."""
    return subprocess.run([*COMMAND, *args], cwd=cwd, env=cli_env(root, **extra_env),
                          capture_output=True, text=True, timeout=300)


def kpi_and_truncated_pdf(root: Path) -> Path:
    """`root/docs`: the Markdown sample with its sidecar key, and a PDF cut off before its end
    (pypdf meets no EOF marker and fails to read it)."""
    docs = root / "docs"
    docs.mkdir()
    for source in (SAMPLE_MARKDOWN, SAMPLE_MARKDOWN.with_name(SAMPLE_MARKDOWN.name + ".meta.json")):
        shutil.copy(source, docs / source.name)
    whole = write_pdf(root / "whole.pdf", [["1. Scope", "Text."]]).read_bytes()
    (docs / "truncated.pdf").write_bytes(whole[:len(whole) * 2 // 3])
    return docs


def model_env(server, **extra) -> dict[str, str]:
    """The settings that point a process at a loopback OpenAI-compatible server (cache off)."""
    return {"OPENAI_API_KEY": "sk-test-SECRET123", "OPENAI_BASE_URL": server.base_url,
            "KNOWLEDGE_LLM_MODEL": "loopback-nano", "KNOWLEDGE_LLM_CACHE": "off", **extra}
