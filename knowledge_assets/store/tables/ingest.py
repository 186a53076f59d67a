"""Tables of the ingest stage: the document registry and the parsed document."""

TABLES: dict[str, dict[str, str]] = {
    # Append-only: one row each time a document's content or location changes.
    "documents": {
        "doc_id": "VARCHAR NOT NULL",
        "revision": "INTEGER NOT NULL",
        "content_sha256": "VARCHAR NOT NULL",
        "kind": "VARCHAR NOT NULL",
        "key_source": "VARCHAR NOT NULL",
        "source_path": "VARCHAR NOT NULL",
        "file_name": "VARCHAR NOT NULL",
        "registered_at": "TIMESTAMP NOT NULL",
    },
    "parsed_documents": {
        "doc_id": "VARCHAR NOT NULL",
        "source_file": "VARCHAR NOT NULL",
        "content_sha256": "VARCHAR NOT NULL",
        "parser": "VARCHAR NOT NULL",
        "parser_version": "VARCHAR NOT NULL",
        "schema_version": "VARCHAR NOT NULL",
        "page_count": "INTEGER NOT NULL",
        "chunk_count": "INTEGER NOT NULL",
        "parsed_at": "TIMESTAMP NOT NULL",
    },
    "parsed_pages": {
        "doc_id": "VARCHAR NOT NULL",
        "page": "INTEGER NOT NULL",
        "page_no": "INTEGER NOT NULL",
        "text": "VARCHAR NOT NULL",
    },
    "parsed_chunks": {
        "doc_id": "VARCHAR NOT NULL",
        "chunk_id": "VARCHAR NOT NULL",
        "seq": "INTEGER NOT NULL",
        "page": "INTEGER NOT NULL",
        "page_no": "INTEGER NOT NULL",
        "section_no": "VARCHAR",
        "heading_path": "VARCHAR[] NOT NULL",
        "text": "VARCHAR NOT NULL",
        "latex": "VARCHAR",
        "char_start": "INTEGER NOT NULL",
        "char_end": "INTEGER NOT NULL",
    },
}

# The natural key of each table of this stage that has one (store/schema.py, KEYS).
KEYS: dict[str, tuple[str, ...]] = {
    "parsed_documents": ("doc_id",),
    "parsed_pages": ("doc_id", "page"),
    "parsed_chunks": ("doc_id", "chunk_id"),
}
