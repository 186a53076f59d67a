"""The store: what one is (`protocol.Store`), its two backends (the DuckDB file,
`database.DuckDBStore`; the shared PostgreSQL store, `postgres.PostgresStore`), found by the
setting's URL scheme (`backends.open_store`); the schema and each table's key (`schema`,
`tables/`); what both backends share, none of it tied to an engine (`rows`: a connection held
or opened, rows as dicts, `doc_id IN (…)` a slice at a time), and the DuckDB file's queue of
waiting processes (`file_queue`); the document registry (`registry`), and the reads and
partition-replacing writes every stage makes, in SQL both backends run."""
