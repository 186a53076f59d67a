"""Canonical JSON and SHA-256 digests: every derived id (planId, measurementId, reportId) is
the digest of a canonical body, so two runs over the same evidence derive the same ids."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from knowledge_assets.semantic_review.refusal import Refusal


def canonical_bytes(value: object) -> bytes:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def digest(value: object) -> str:
    return sha256_hex(canonical_bytes(value))


def with_derived_id(body: dict, key: str) -> dict:
    """The body plus `key` = the digest of the body without it."""
    return {**body, key: digest(body)}


def derived_id_holds(document: dict, key: str) -> bool:
    body = {k: v for k, v in document.items() if k != key}
    return document.get(key) == digest(body)


def pretty_bytes(value: object) -> bytes:
    return (json.dumps(value, ensure_ascii=False, indent=2, allow_nan=False) + "\n").encode("utf-8")


def read_json(path: Path, what: str) -> tuple[bytes, object]:
    """The file's exact bytes (what digests bind) and its parsed value."""
    if not path.is_file():
        raise Refusal(f"{what} {path}: no such file")
    raw = path.read_bytes()
    try:
        return raw, json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise Refusal(f"{what} {path}: not UTF-8 JSON ({exc})") from None


def read_object(path: Path, what: str) -> tuple[bytes, dict]:
    raw, value = read_json(path, what)
    if not isinstance(value, dict):
        raise Refusal(f"{what} {path}: expected a JSON object")
    return raw, value


def read_document(path: Path, what: str, expected_format: str) -> tuple[bytes, dict]:
    """A JSON object declaring the protocol identity it is read as."""
    raw, value = read_object(path, what)
    if value.get("format") != expected_format:
        raise Refusal(f"{what} {path}: not a {expected_format} file")
    return raw, value
