"""The failures a user is expected to meet, as one family.

Every expected failure (bad input, a missing file, an upstream asset not yet materialised, a
refused configuration) derives from `KnowledgeError`: the `knowledge-assets` command catches
it in one place, prints `error: <message>` on one line and exits with the error's
`exit_code`. Anything else is a bug and keeps its traceback. Stdlib only: every layer may
raise these.
"""

from __future__ import annotations

import json
import re
from pathlib import Path


class KnowledgeError(Exception):
    """An expected failure, reported as one line naming what and why, never as a traceback."""

    exit_code = 1


class MissingUpstream(KnowledgeError):
    """An upstream asset has not been materialised for this document: run it first."""

    @classmethod
    def parsed_document(cls, doc_id: str) -> MissingUpstream:
        return cls(f"{doc_id}: no parsed document; materialise parsed_chunks first")


class UnwritableHome(KnowledgeError):
    """A folder a command must write its state in (the knowledge home, the store's, the Dagster
    instance's) that it cannot write: named with the cause and the setting that chose it."""


def read_json(path: Path, error: type[KnowledgeError], what: str) -> object:
    """The parsed JSON of the file at `path`; a file that cannot be read or is not UTF-8 JSON
    raises `error` naming the file and the cause (`what` names the file's role)."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise error(f"{path}: cannot read the {what} ({exc.strerror})") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise error(f"{path}: not a UTF-8 JSON file ({exc})") from None


# pydantic ends each error with a link to its own documentation: it names the library's page,
# not the document's problem, and doubles the length of a summary line.
_PYDANTIC_HELP = re.compile(r"\s*For further information visit\s*\S*?(?=[;,]?(?:\s|$))")
CAUSE_CHARS = 200
# A document's failure names the file by its full path before the reason: room for both.
DOCUMENT_CAUSE_CHARS = 2 * CAUSE_CHARS


def short_cause(cause: str, limit: int = CAUSE_CHARS) -> str:
    """A failure's cause as it goes on a summary line: one line, without pydantic's help links,
    cut at `limit` characters (the whole cause stays in the Dagster UI and under --verbose)."""
    text = " ".join(_PYDANTIC_HELP.sub("", cause).split())
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"
