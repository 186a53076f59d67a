"""What a measurement resolves (docs/semantic_review.md §2): the frozen bundle, the prompts, the
extraction and parsing versions, the pipeline's and this tool's own code, Python and the
dependencies. A plan declares it; a capture records the one it ran with; a review compares both
with its own, and any difference is a blocker that asks for the original build rather than a
silent recheck."""

from __future__ import annotations

import hashlib
import platform
from functools import lru_cache
from importlib import metadata
from pathlib import Path

from knowledge_assets.ingest.parse import parser_versions
from knowledge_assets.llm.offline import OFFLINE_EXTRACTOR_VERSION
from knowledge_assets.llm.prompts import prompt_hashes
from knowledge_assets.llm.versions import EXTRACTION_CODE_VERSION

PACKAGE = Path(__file__).resolve().parents[1]
TOOL = Path(__file__).resolve().parent
DEPENDENCIES = ("dagster", "duckdb", "openai", "pydantic", "pypdf", "rapidfuzz")


def _tree_digest(files: list[Path], root: Path) -> str:
    hasher = hashlib.sha256()
    for path in sorted(files, key=lambda p: p.relative_to(root).as_posix()):
        hasher.update(path.relative_to(root).as_posix().encode("utf-8") + b"\0")
        hasher.update(path.read_bytes() + b"\0")
    return hasher.hexdigest()


# Cached per process: the digest stands for the code this process loaded, which does not
# change when a file is edited after it started.
@lru_cache(maxsize=1)
def tool_digest() -> str:
    """The semantic review's own code (the protocol's compiled semantic-tool bytes, docs/semantic_review.md §2)."""
    return _tree_digest(list(TOOL.glob("*.py")), TOOL)


@lru_cache(maxsize=1)
def pipeline_digest() -> str:
    """Every other module of the package: the pipeline a capture runs."""
    files = [p for p in PACKAGE.rglob("*.py") if TOOL not in p.parents]
    return _tree_digest(files, PACKAGE)


@lru_cache(maxsize=1)
def checker_digest() -> str:
    """The production validators a review reuses to recompute admission: the contract models,
    the span guard and check, and the parsers that rebuild the chunks."""
    files = [PACKAGE / "contracts.py", PACKAGE / "extract" / "guard.py"]
    files += [p for folder in ("verify", "ingest") for p in (PACKAGE / folder).rglob("*.py")]
    return _tree_digest(files, PACKAGE)


def checker_measurement() -> dict:
    """What a review itself depends on: pipeline code and prompts it does not run cannot change
    its result, and a review must not fail because a prompt file was since edited."""
    return {
        "parserVersions": parser_versions(),
        "checkerDigest": checker_digest(),
        "toolDigest": tool_digest(),
        "python": platform.python_version(),
        "packages": {name: metadata.version(name) for name in DEPENDENCIES},
    }


def measurement(bundle_digest: str) -> dict:
    return {
        "bundleDigest": bundle_digest,
        "promptSha256": dict(sorted(prompt_hashes().items())),
        "extractionCodeVersion": EXTRACTION_CODE_VERSION,
        "offlineExtractorVersion": OFFLINE_EXTRACTOR_VERSION,
        "pipelineDigest": pipeline_digest(),
        **checker_measurement(),
    }


def differences(declared: dict, actual: dict) -> list[str]:
    """The keys of `actual` whose values differ from what was declared, in a stable order."""
    return sorted(key for key in actual if declared.get(key) != actual[key])
