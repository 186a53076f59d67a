"""Code versions for the LLM-calling assets, so changing a prompt file, the model settings or
the extraction code marks exactly the dependent assets stale in the Dagster UI."""

from __future__ import annotations

import hashlib

from knowledge_assets.llm.model_settings import LLMSettings
from knowledge_assets.llm.offline import OFFLINE_EXTRACTOR_VERSION
from knowledge_assets.llm.prompts import load_prompt
from knowledge_assets.llm.requests import BranchName

# Bump when request rendering, response models or the call policy change what is extracted.
EXTRACTION_CODE_VERSION = "2"


def branch_code_version(branch: BranchName, settings: LLMSettings) -> str:
    """The prompt's hash counts on every backend: the offline extractor reads no prompt, but a
    user who edits one expects the dependent assets to show as stale, and re-running them
    offline costs nothing."""
    if settings.backend == "offline":
        backend = ["offline", OFFLINE_EXTRACTOR_VERSION]
    else:
        backend = ["openai", settings.model, settings.tier]
    parts = [branch, EXTRACTION_CODE_VERSION, *backend, load_prompt(branch).sha256]
    return f"{branch}-" + hashlib.sha256("|".join(parts).encode("utf-8")).hexdigest()[:12]
