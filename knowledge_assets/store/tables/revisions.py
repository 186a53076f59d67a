"""Which revision of its document each asset's rows were derived from, and whether the asset's
blocking checks finished on those rows."""

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
    # One row per document and checked asset, removed when the asset materialises again and
    # written when its blocking checks end: a run killed between the two leaves no row.
    "asset_checks": {
        "doc_id": "VARCHAR NOT NULL",
        "asset": "VARCHAR NOT NULL",
        "revision": "INTEGER NOT NULL",
        "failed_checks": "VARCHAR NOT NULL",  # the blocking checks that failed, ", "-joined; "" when all passed
        "run_id": "VARCHAR NOT NULL",
        "recorded_at": "TIMESTAMP NOT NULL",
    },
}

# The natural key of each table of this stage that has one (store/schema.py, KEYS).
KEYS: dict[str, tuple[str, ...]] = {
    "asset_revisions": ("doc_id", "asset"),
    "asset_checks": ("doc_id", "asset"),
}
