"""The one error type for a document that cannot be ingested: it names the file and the cause."""

from __future__ import annotations

from pathlib import Path

from knowledge_assets.errors import KnowledgeError


class DocumentError(KnowledgeError):
    """An expected failure of one document (bad input), reported without a traceback."""

    def __init__(self, path: Path | str, cause: str):
        self.path = str(path)
        self.cause = cause
        super().__init__(f"{self.path}: {cause}")
