"""A real prompt edit, as a user makes one, for the lineage tests."""

from __future__ import annotations

from pathlib import Path

from knowledge_assets.llm.prompts import USER_MARKER

# The extraction graph; assets other stages add downstream of it are theirs to version.
EXTRACTION_ASSETS = {
    "parsed_chunks", "term_clusters", "formulas", "glossary", "rules", "domain_context", "review_queue",
}


def edit_static_part(prompt_file: Path, sentence: str) -> None:
    """One more instruction in the prompt's static part; the template stays valid."""
    static, user = prompt_file.read_text(encoding="utf-8").split(USER_MARKER, 1)
    prompt_file.write_text(f"{static.rstrip()}\n{sentence}\n{USER_MARKER}{user}", encoding="utf-8")
