"""Table definitions and their natural keys, one module per stage; store/schema.py gathers them."""

# The contract's Provenance as a DuckDB STRUCT, so `SELECT provenance.page_no FROM …` works.
PROVENANCE = (
    "STRUCT(doc_id VARCHAR, span VARCHAR, page INTEGER, page_no INTEGER, section_no VARCHAR, "
    "chunk_id VARCHAR, pieces STRUCT(page INTEGER, page_no INTEGER, chunk_id VARCHAR, span VARCHAR)[])"
)
