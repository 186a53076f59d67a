"""Document identity (seed 001 §9 item 7) as the file alone tells it: an explicit key supplied at
ingest, else a content hash — never the file name, so renaming a file keeps every id derived
from its doc_id. Against the registry a file without a key is first the document registered at
its path or with its content (ingest/registration.py, D52): the hash names new documents only."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
from pathlib import Path

import yaml

from knowledge_assets.ingest.errors import DocumentError
from knowledge_assets.store.registry import DocumentKind, DocumentSource

_SUFFIX_KINDS: dict[str, DocumentKind] = {
    ".pdf": "pdf",
    ".md": "markdown",
    ".markdown": "markdown",
    ".rst": "restructuredtext",
    ".rest": "restructuredtext",
    ".txt": "text",
    ".text": "text",
}
_MINERU_NAME = "content_list.json"
_SIDECAR_SUFFIXES = (".meta.json", ".meta.yaml", ".meta.yml")

# A doc_id is a Dagster partition key, a SQL value and the prefix of `<doc_id>::<seq>` chunk ids:
# letters, digits, dot, dash and underscore keep it safe in all three (no ':' so `::` stays a
# separator, no ',' or brackets, which Dagster reserves in partition keys).
_DOC_ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")


def document_kind(path: Path) -> DocumentKind:
    if path.name.endswith(_MINERU_NAME):
        return "mineru"
    kind = _SUFFIX_KINDS.get(path.suffix.lower())
    if kind is None:
        supported = ", ".join([*sorted(_SUFFIX_KINDS), f"*{_MINERU_NAME} (MinerU)"])
        raise DocumentError(
            path, f"unsupported file type '{path.suffix or path.name}'; supported: {supported}"
        )
    return kind


def is_sidecar(path: Path) -> bool:
    return path.name.endswith(_SIDECAR_SUFFIXES)


def validate_doc_id(doc_id: object, origin: Path | str) -> str:
    if not isinstance(doc_id, str) or not doc_id.strip():
        raise DocumentError(origin, "doc_id is empty; give a non-empty document key")
    if not _DOC_ID_PATTERN.fullmatch(doc_id):
        raise DocumentError(
            origin,
            f"doc_id {doc_id!r} is not a valid document key: use 1-128 letters, digits, '.', '-' "
            "or '_', starting with a letter or digit",
        )
    return doc_id


def content_hash_doc_id(content_sha256: str) -> str:
    return f"doc-{content_sha256[:16]}"


def sidecar_doc_id(path: Path) -> str | None:
    """The doc_id declared in `<file>.meta.json` / `.meta.yaml` beside the file, if any."""
    for suffix in _SIDECAR_SUFFIXES:
        sidecar = path.with_name(path.name + suffix)
        if not sidecar.is_file():
            continue
        try:
            text = sidecar.read_text(encoding="utf-8")
            meta = json.loads(text) if suffix == ".meta.json" else yaml.safe_load(text)
        except (UnicodeDecodeError, json.JSONDecodeError, yaml.YAMLError) as exc:
            raise DocumentError(sidecar, f"unreadable sidecar: {exc}") from None
        if not isinstance(meta, dict) or "doc_id" not in meta:
            raise DocumentError(sidecar, "sidecar has no 'doc_id' key")
        return validate_doc_id(meta["doc_id"], sidecar)
    return None


def _not_a_file(path: Path) -> str:
    """Why a path given as a document is no file to read: a link that never reaches one is
    named as such, not as a missing file."""
    try:
        path.stat()
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "symlink loop: the link leads back to itself, never to a file"
        if path.is_symlink():
            return f"broken symlink: its target {os.readlink(path)} does not exist"
        return "no such file"
    return "not a regular file"


def identify(path: Path, explicit_doc_id: str | None = None) -> DocumentSource:
    """Resolves a file's doc_id: explicit key > sidecar > content hash."""
    path = Path(path)
    if not path.is_file():
        raise DocumentError(path, _not_a_file(path))
    kind = document_kind(path)
    data = path.read_bytes()
    if not data:
        raise DocumentError(path, "empty file (0 bytes)")
    sha = hashlib.sha256(data).hexdigest()
    if explicit_doc_id is not None:
        doc_id, key_source = validate_doc_id(explicit_doc_id, path), "explicit"
    elif (declared := sidecar_doc_id(path)) is not None:
        doc_id, key_source = declared, "sidecar"
    else:
        doc_id, key_source = content_hash_doc_id(sha), "content_hash"
    return DocumentSource(doc_id, path.resolve(), kind, sha, key_source)


def discover(paths: list[Path]) -> list[Path]:
    """Files named directly, plus every non-hidden, non-sidecar file below named folders, and the
    links there that reach no file (a loop, a missing target), so that each is reported rather
    than skipped without a word."""
    found: list[Path] = []
    for path in map(Path, paths):
        if path.is_dir():
            found.extend(
                child
                for child in sorted(path.rglob("*"))
                if (child.is_file() or (child.is_symlink() and not child.exists()))
                and not is_sidecar(child)
                and not any(part.startswith(".") for part in child.relative_to(path).parts)
            )
        else:
            found.append(path)
    return found
