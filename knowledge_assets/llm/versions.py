"""Code versions for the LLM-calling assets, so changing a prompt file, the model settings or
the extraction code marks exactly the dependent assets stale in the Dagster UI."""

from __future__ import annotations

import hashlib

from knowledge_assets.llm.offline import OFFLINE_EXTRACTOR_VERSION
from knowledge_assets.llm.prompts import load_prompt
from knowledge_assets.llm.requests import BranchName
from knowledge_assets.llm.settings import LLMSettings

# Bump when request rendering, response models or the call policy change what is extracted.
EXTRACTION_CODE_VERSION = "1"


def branch_code_version(branch: BranchName, settings: LLMSettings) -> str:
    """The offline extractor reads no prompt, so only its own version counts there."""
    if settings.backend == "offline":
        parts = [branch, EXTRACTION_CODE_VERSION, "offline", OFFLINE_EXTRACTOR_VERSION]
    else:
        parts = [branch, EXTRACTION_CODE_VERSION, "openai", settings.model, settings.tier, load_prompt(branch).sha256]
    return f"{branch}-" + hashlib.sha256("|".join(parts).encode("utf-8")).hexdigest()[:12]
