"""The project's two samples must chunk exactly as they did before the structure work of issue 11:
rule ids hash (doc_id, chunk_id, char_start) and chunk ids are `<doc_id>::<seq>`, so any change in
their chunks would change ids the evaluation baseline and existing reviews refer to."""

import hashlib
import json
from pathlib import Path

import pytest

from knowledge_assets.ingest.documents import identify
from knowledge_assets.ingest.parse import parse_document

SAMPLES = Path(__file__).resolve().parents[2] / "eval_assets" / "documents"

# sha256 of the JSON list of [seq, page, char_start, char_end, text, heading_path, section_no]
PINNED = {
    "maintenance_kpi.md": (20, "04f6ac965b8ca2c5b9ff46559475e7a6b003bef4c818caff5d6a3453e1b64f97"),
    "std_parameter_produksi.pdf": (37, "4624265b95ce634ada92ec0dbaa304afa82050b7d65d1ad69f4eace4e0a7fd6d"),
}


def chunk_digest(path: Path) -> tuple[int, str]:
    parsed = parse_document(identify(path))
    rows = [[c.seq, c.page, c.char_start, c.char_end, c.text, c.heading_path, c.section_no] for c in parsed.chunks]
    return len(rows), hashlib.sha256(json.dumps(rows, ensure_ascii=False).encode("utf-8")).hexdigest()


@pytest.mark.parametrize("name", sorted(PINNED))
def test_sample_chunks_are_unchanged(name):
    assert chunk_digest(SAMPLES / name) == PINNED[name]
