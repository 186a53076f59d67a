"""The text a finder reads: a chunk's verbatim text, with its id and heading path."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class SourceChunk(BaseModel):
    """A chunk's verbatim text: every span an answer quotes must be found in one of these."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    chunk_id: str
    text: str
    heading_path: list[str] = Field(default_factory=list)
