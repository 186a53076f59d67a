"""Code versions that carry their upstream assets' versions.

Dagster marks only the asset whose own code version changed as stale; its downstream assets
turn stale only after it is re-materialised. Folding each upstream asset's code version into
the downstream one makes a prompt edit, a model change or a parser bump show at once, on every
asset it will change, with the reason "code version changed" — what a user inspecting lineage
after a prompt change expects to see.
"""

import hashlib

import dagster as dg


def chained_code_version(own: str, *upstream: dg.AssetsDefinition) -> str:
    versions = sorted(v or "" for asset in upstream for v in asset.code_versions_by_key.values())
    if not versions:
        return own
    return f"{own}+" + hashlib.sha256("|".join(versions).encode("utf-8")).hexdigest()[:8]
