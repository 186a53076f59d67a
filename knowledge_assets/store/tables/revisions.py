"""Which revision of its document each asset's rows were derived from."""

TABLES: dict[str, dict[str, str]] = {
    # One row per document and asset, replaced each time the asset materialises: a run killed
    # between two assets leaves the later ones on the older revision, and this table says so.
    "asset_revisions": {
        "doc_id": "VARCHAR NOT NULL",
        "asset": "VARCHAR NOT NULL",
        "revision": "INTEGER NOT NULL",
        "content_sha256": "VARCHAR NOT NULL",
        "run_id": "VARCHAR NOT NULL",
        "recorded_at": "TIMESTAMP NOT NULL",
    },
}
