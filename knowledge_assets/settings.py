"""Settings read from the environment when they are needed, never at import time."""

from __future__ import annotations

import os
from pathlib import Path

DEFAULT_DATABASE = Path(".knowledge") / "knowledge.duckdb"


def database_path() -> Path:
    """`KNOWLEDGE_DB`, else `.knowledge/knowledge.duckdb` under the working directory."""
    return Path(os.environ.get("KNOWLEDGE_DB") or DEFAULT_DATABASE)


DEFAULT_INBOX = Path("inbox")


def inbox_path() -> Path:
    """`KNOWLEDGE_INBOX`, else `inbox/` under the working directory: where the sensor looks."""
    return Path(os.environ.get("KNOWLEDGE_INBOX") or DEFAULT_INBOX)
