"""Document identity (docs/contract.md v3 §9.7) as the file alone tells it: an explicit key
supplied at ingest (`--doc-id`, a sidecar), else a key people can read, made from the file's
name (`Kepka 12-1999 Penambangan.pdf` → `Kepka-12-1999-Penambangan`), else, when the name gives
no such key, the content hash the contract falls back on (docs/decisions.md D89). Against the registry
a file without a key is first the document registered at its path or with its content
(ingest/registration.py, D52), so renaming or editing a file keeps its doc_id and every id derived
from it: the name only names new documents, made unique there (`-2`, `-3`…)."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml

from knowledge_assets.ingest.document_error import DocumentError
from knowledge_assets.store.registry import DocumentKind, DocumentSource

_SUFFIX_KINDS: dict[str, DocumentKind] = {
    ".pdf": "pdf",
    ".md": "markdown",
    ".markdown": "markdown",
    ".rst": "restructuredtext",
    ".rest": "restructuredtext",
    ".docx": "docx",
    ".html": "html",
    ".htm": "html",
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


# Room after a name for the `-N` that makes it unique, within the key's 128 characters.
_NAME_KEY_CHARS = 100
_NOT_KEY = re.compile(r"[^A-Za-z0-9._-]+")


def file_name_doc_id(path: Path) -> str | None:
    """A doc_id people recognise, from the file's name without its extension: accents dropped,
    every run of other characters one `-`, case kept (`SKT Standard (rev 2).pdf` →
    `SKT-Standard-rev-2`); a MinerU `content_list.json` is named by its folder. None when the
    name holds no letter or digit a key can keep (a name in another script)."""
    name = path.name
    if name.endswith(_MINERU_NAME):
        name = name[: -len(_MINERU_NAME)].rstrip("._- ") or path.parent.name
    else:
        name = path.stem
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    key = _NOT_KEY.sub("-", ascii_name)[:_NAME_KEY_CHARS].strip("._-")
    key = re.sub(r"-{2,}", "-", key)
    return key if key and _DOC_ID_PATTERN.fullmatch(key) else None


def sidecar_doc_id(path: Path) -> str | None:
    """The doc_id declared in `<file>.meta.json` / `.meta.yaml` beside the file, if any."""
    for suffix in _SIDECAR_SUFFIXES:
        sidecar = path.with_name(path.name + suffix)
        if not sidecar.is_file():
            continue
        try:
            text = sidecar.read_text(encoding="utf-8")
            meta = json.loads(text) if suffix == ".meta.json" else yaml.safe_load(text)
        except OSError as exc:
            raise DocumentError(sidecar, f"cannot read the sidecar ({exc.strerror})") from None
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
    """Resolves a file's doc_id: explicit key > sidecar > its file name > content hash."""
    path = Path(path)
    try:
        if not path.is_file():
            raise DocumentError(path, _not_a_file(path))
        kind = document_kind(path)
        data = path.read_bytes()
    except OSError as exc:  # no permission to read it, or to look into its folder
        raise DocumentError(path, f"cannot read the file ({exc.strerror})") from None
    if not data:
        raise DocumentError(path, "empty file (0 bytes)")
    sha = hashlib.sha256(data).hexdigest()
    if explicit_doc_id is not None:
        doc_id, key_source = validate_doc_id(explicit_doc_id, path), "explicit"
    elif (declared := sidecar_doc_id(path)) is not None:
        doc_id, key_source = declared, "sidecar"
    elif (named := file_name_doc_id(path)) is not None:
        doc_id, key_source = named, "file_name"
    else:
        doc_id, key_source = content_hash_doc_id(sha), "content_hash"
    return DocumentSource(doc_id, path.resolve(), kind, sha, key_source)


@dataclass(frozen=True)
class Discovery:
    """What the paths given to a run hold: the files to register, and each folder that gave
    none of them: one that could not be listed, or one named that holds no document."""

    files: list[Path]
    problems: list[DocumentError]


def discover_documents(paths: Sequence[Path]) -> Discovery:
    """Files named directly, plus every non-hidden, non-sidecar file below named folders, and the
    links there that reach no file (a loop, a missing target), so that each is reported rather
    than skipped without a word; a folder that cannot be read, and a named folder with nothing
    in it to register, are problems of their own (docs/decisions.md D83)."""
    files: list[Path] = []
    problems: list[DocumentError] = []
    for path in map(Path, paths):
        if not _is_folder(path):
            files.append(path)  # identify says why, when it is no file either
            continue
        unlisted: list[OSError] = []
        below = _files_below(path, unlisted.append)
        problems += [DocumentError(exc.filename, f"cannot read the folder ({exc.strerror})") for exc in unlisted]
        if not below and not unlisted:
            problems.append(DocumentError(path, "no documents in this folder"))
        files += below
    return Discovery(files, problems)


def discover(paths: list[Path]) -> list[Path]:
    """The files of `discover_documents`, for a caller that meets an empty folder as normal
    (the inbox)."""
    return discover_documents(paths).files


def _is_folder(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:  # its own folder cannot be searched: registering it names the cause
        return False


def _files_below(folder: Path, unlisted: Callable[[OSError], None]) -> list[Path]:
    """The documents below `folder`, sorted, its hidden folders skipped; each folder that cannot
    be listed goes to `unlisted`. Linked folders are not followed."""
    found: list[Path] = []
    for parent, folders, names in os.walk(folder, onerror=unlisted):
        folders[:] = [name for name in folders if not name.startswith(".")]
        found += [child for name in names
                  if not name.startswith(".") and _is_document(child := Path(parent, name))]
    return sorted(found)


def _is_document(child: Path) -> bool:
    """A file to register: a regular file or a link that reaches no file, not a sidecar. One
    whose kind cannot be looked at is listed, so that registering it names why."""
    if is_sidecar(child):
        return False
    try:
        return child.is_file() or (child.is_symlink() and not child.exists())
    except OSError:
        return True
