"""Writes a document's seven contract payloads (contract §2-§3) as files, read back from DuckDB:
bare JSON arrays (the domain context: one object), 0-based `page` beside 1-based `page_no`.
A document that is not current (store/revisions.py: assets derived from different revisions,
a run killed half-way, or blocking checks that did not end or failed) is refused, naming what
is behind: a mix, or unchecked rows, are never exported.

Nor is a mix of two exports: the folder is written whole beside the target, under a hidden
name, and put in place in one system call (D84): renamed there, or over an earlier export
exchanged with it (Linux's renameat2 RENAME_EXCHANGE, macOS's renamex_np RENAME_SWAP), the
earlier export then removed from the hidden name. A reader, and a kill at any moment, finds
the earlier export whole or the new one whole. Only where the system cannot exchange two
folders (another system, or a file system such as NFS) is the earlier export renamed aside
first, and the target absent between the two renames. What a killed export left beside the
target is removed by the next export to it. A target that holds anything but an export's
files is refused rather than replaced.

The same payloads are written as JSON (the contract, the default), as CSV (one file per
payload) or as one Excel workbook (one sheet per payload), for people who read them in a
spreadsheet (D62): a row per entity, the provenance's fields as `provenance.*` columns, lists
"; "-joined, a list of objects one "first value (field: value, …)" per item. A document's text
is data there too: a CSV cell a spreadsheet would run as a formula (it starts with = + - @, a
tab or a carriage return) gets a leading apostrophe; a workbook holds every text as a typed
string, never a formula, so it keeps the text verbatim.

`index.json` at the root beside the documents' folders names, for people, each document a
root holds: its files, title, revision, source file, format and when it was exported. It is
merged with the index already there and replaced whole by one rename, after the folders are
in place: it never names a folder that is not there."""

from __future__ import annotations

import csv
import ctypes
import errno
import glob
import json
import os
import re
import secrets
import shutil
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Literal, get_args

from pydantic import BaseModel, TypeAdapter

from knowledge_assets import branches
from knowledge_assets import contracts as c
from knowledge_assets.errors import KnowledgeError
from knowledge_assets.store.audit import latest_calls
from knowledge_assets.store.knowledge import load_entities, stored_rows
from knowledge_assets.store.protocol import Store
from knowledge_assets.store.registry import document_title, latest_source
from knowledge_assets.store.revisions import revision_state

_QUEUE = TypeAdapter(list[c.ReviewQueueRow])
_USAGE_FIELDS = list(c.CallUsage.model_fields)
# Beside the target while an export is written, and an earlier export while it is replaced.
_WRITING, _REPLACED = ".writing-", ".replaced-"
# renameat2(2) on Linux: AT_FDCWD, RENAME_EXCHANGE; renamex_np(2) on macOS: RENAME_SWAP.
_AT_FDCWD, _RENAME_EXCHANGE, _RENAME_SWAP = -100, 2, 2
# What an exchange fails with where the system or the file system has none (NFS: EINVAL).
_NO_EXCHANGE = {errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP}

Format = Literal["json", "csv", "xlsx"]
FORMATS: tuple[str, ...] = get_args(Format)
INDEX_FILE = "index.json"
# The models of each payload file's rows: a sheet's columns are theirs, an empty one's too.
_ROW_MODELS = branches.BranchTable(
    lambda spec: spec.export_file, lambda spec: (spec.model,),
    extra={"review_queue.json": (c.TermQueueRow, c.KeyParameterQueueRow), "rejected.json": (c.RejectedField,),
           "usage.json": (c.CallUsage,)},
)
_LIST_SEPARATOR = "; "
# What a spreadsheet reads as the start of a formula (OWASP, "CSV Injection").
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
# XML 1.0 cannot hold these; OOXML writes any character as _xHHHH_, and so an underscore that
# would read as the start of one (ECMA-376 Part 1, 22.9.2.19 ST_Xstring).
_NOT_IN_XML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]|_(?=x[0-9A-Fa-f]{4}_)")
Cell = str | int | float | bool | None


class ExportError(KnowledgeError):
    """A document or option that cannot be exported; the message names it."""


def _review_queue(store: Store, doc_id: str) -> list[BaseModel]:
    return _QUEUE.validate_python(
        [{k: v for k, v in row.items() if not (k == "domain_id" and v is None)}
         for row in stored_rows(store, "review_queue", doc_id)]
    )


def _usage(store: Store, doc_id: str) -> list[c.CallUsage]:
    """The calls of each branch's latest materialisation."""
    return [c.CallUsage(**{f: row[f] for f in _USAGE_FIELDS}) for row in latest_calls(store, doc_id)]


def payloads(store: Store, doc_id: str) -> dict[str, object]:
    domain = branches.DOMAIN_CONTEXT
    domains = load_entities(store, domain.table, doc_id, domain.model)
    if not domains and latest_source(store, doc_id) is None:
        raise ExportError(f"{doc_id}: no such document in {store.location}; `knowledge-assets documents` lists "
                          "the registered ones")
    if not domains:
        raise ExportError(f"{doc_id}: no domain context in {store.location}; materialise the document first")
    revisions = revision_state(store, doc_id)
    if not revisions.current:
        raise ExportError(revisions.describe())
    entities: dict[str, object] = {}
    for spec in branches.registered():
        rows = domains if spec is domain else load_entities(store, spec.table, doc_id, spec.model)
        entities[spec.export_file] = rows[0] if spec.one_per_document else rows
    return {
        **entities,
        "review_queue.json": _review_queue(store, doc_id),
        "rejected.json": load_entities(store, "rejected_fields", doc_id, c.RejectedField),
        "usage.json": _usage(store, doc_id),
    }


def _json(value: object) -> object:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    return [_json(item) for item in value]  # type: ignore[union-attr]


def export_document(store: Store, doc_id: str, out_dir: Path, fmt: Format = "json") -> list[Path]:
    return write_folder(out_dir, payloads(store, doc_id), fmt)


def export_into(store: Store, root: Path, doc_id: str, fmt: Format = "json") -> list[Path]:
    """The document's export in `root/<doc_id>/`, and its entry in the root's index."""
    check_index(root)
    written = export_document(store, doc_id, root / doc_id, fmt)
    write_index(store, root, [doc_id], fmt)
    return written


def write_folder(target: Path, documents: dict[str, object], fmt: Format = "json") -> list[Path]:
    """`target` holding exactly `documents` (JSON file name → payload) in `fmt`, put in place
    whole in one system call (_put_in_place), over an earlier export of any format too."""
    folder = Path(os.path.abspath(target))  # "." and ".." named, symbolic links not followed
    names = _file_names(folder.name, documents, fmt)
    _refuse_foreign(folder, set(names) | _export_names(folder.name, documents))
    folder.parent.mkdir(parents=True, exist_ok=True)
    _remove_leftovers(folder)
    # os.mkdir, not tempfile.mkdtemp: the folder keeps the umask's permissions once in place.
    staging = folder.with_name(f".{folder.name}{_WRITING}{secrets.token_hex(6)}")
    staging.mkdir()
    try:
        _WRITERS[fmt](staging, names, documents)
        _put_in_place(staging, folder)
    except BaseException:
        # Not yet in place, or (exchanged) the earlier export: either way no longer wanted.
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return [target / name for name in names]


def _put_in_place(staging: Path, folder: Path) -> None:
    """The staging folder at `folder` in one system call, which a kill cannot split: renamed
    there, or over an earlier export exchanged with it, the earlier export then removed from
    the staging name. Where no exchange is to be had it takes two renames, and between them
    (microseconds) there is no folder at all (D84)."""
    if not folder.exists():
        os.rename(staging, folder)
    elif _exchange(staging, folder):
        shutil.rmtree(staging)
    else:
        previous = folder.with_name(staging.name.replace(_WRITING, _REPLACED))
        os.rename(folder, previous)
        os.rename(staging, folder)
        shutil.rmtree(previous)


def _exchange(first: Path, second: Path) -> bool:
    """Swaps two existing paths in one system call; False where the C library has no such call
    (before glibc 2.28 or macOS 10.12) or the file system none (NFS)."""
    libc = ctypes.CDLL(None, use_errno=True)
    paths = os.fsencode(first), os.fsencode(second)
    if hasattr(libc, "renameat2"):
        failed = libc.renameat2(_AT_FDCWD, paths[0], _AT_FDCWD, paths[1], _RENAME_EXCHANGE)
    elif hasattr(libc, "renamex_np"):
        failed = libc.renamex_np(paths[0], paths[1], _RENAME_SWAP)
    else:
        return False
    if not failed:
        return True
    error = ctypes.get_errno()
    if error in _NO_EXCHANGE:
        return False
    raise OSError(error, os.strerror(error), str(first), None, str(second))


def _file_names(folder_name: str, documents: dict[str, object], fmt: Format) -> list[str]:
    if fmt == "xlsx":
        return [f"{folder_name}.xlsx"]
    return [name if fmt == "json" else f"{Path(name).stem}.{fmt}" for name in documents]


def _export_names(folder_name: str, documents: dict[str, object]) -> set[str]:
    """What any export to the folder may have written: it may be replaced by any other."""
    every = {**dict.fromkeys(_ROW_MODELS), **documents}
    return {name for fmt in FORMATS for name in _file_names(folder_name, every, fmt)}  # type: ignore[arg-type]


# Each writes the documents into the staging folder under their names (_file_names).
def _write_json(staging: Path, names: list[str], documents: dict[str, object]) -> None:
    for name, value in zip(names, documents.values()):
        text = json.dumps(_json(value), ensure_ascii=False, indent=2) + "\n"
        (staging / name).write_text(text, encoding="utf-8")


def _write_csv(staging: Path, names: list[str], documents: dict[str, object]) -> None:
    # utf-8-sig: the byte order mark is how a spreadsheet knows the file is UTF-8.
    for file_name, (name, value) in zip(names, documents.items()):
        with (staging / file_name).open("w", encoding="utf-8-sig", newline="") as file:
            csv.writer(file).writerows([_csv_cell(cell) for cell in row] for row in _table(name, value))


def _write_xlsx(staging: Path, names: list[str], documents: dict[str, object]) -> None:
    # Imported here: openpyxl takes a second or two to import, and only this export needs it.
    from openpyxl import Workbook
    from openpyxl.styles import Font

    workbook = Workbook()
    workbook.remove(workbook.active)
    for name, value in documents.items():
        sheet = workbook.create_sheet(Path(name).stem)
        for row in _table(name, value):
            sheet.append([_xlsx_text(cell) if isinstance(cell, str) else cell for cell in row])
        for cell in sheet[1]:
            cell.font = Font(bold=True)
        for row in sheet.iter_rows():
            for cell in row:
                if isinstance(cell.value, str):
                    cell.data_type = "s"  # never a formula or an error value, whatever the text
                    if cell.value.startswith(_FORMULA_STARTS):
                        cell.quotePrefix = True  # and it stays text when someone edits it
        sheet.freeze_panes = "A2"
    workbook.save(staging / names[0])


_WRITERS: dict[str, Callable[[Path, list[str], dict[str, object]], None]] = {
    "json": _write_json, "csv": _write_csv, "xlsx": _write_xlsx}


def _table(name: str, value: object) -> list[list[Cell]]:
    """The payload as a header and a row per entity (the domain context: one row)."""
    header = _columns(_ROW_MODELS[name])
    entities = [value] if isinstance(value, BaseModel) else value
    rows = [_flat(entity.model_dump(mode="json")) for entity in entities]  # type: ignore[union-attr]
    return [list(header), *([_cell(row.get(column)) for column in header] for row in rows)]


def _columns(models: Sequence[type[BaseModel]]) -> list[str]:
    """The models' fields in order, a nested model's as `field.subfield`."""
    columns: list[str] = []
    for model in models:
        for name, field in model.model_fields.items():
            nested = field.annotation
            if isinstance(nested, type) and issubclass(nested, BaseModel):
                names = [f"{name}.{sub}" for sub in nested.model_fields]
            else:
                names = [name]
            columns += [column for column in names if column not in columns]
    return columns


def _flat(row: dict[str, object]) -> dict[str, object]:
    flat: dict[str, object] = {}
    for name, value in row.items():
        if isinstance(value, dict):
            flat.update({f"{name}.{sub}": item for sub, item in value.items()})
        else:
            flat[name] = value
    return flat


def _cell(value: object) -> Cell:
    if isinstance(value, list):
        return _LIST_SEPARATOR.join(_item_text(item) for item in value)
    return value  # type: ignore[return-value]


def _item_text(item: object) -> str:
    """A list item as text: an object is its first value, the others named after it."""
    if not isinstance(item, dict):
        return str(item)
    (_, head), *rest = item.items()
    details = ", ".join(f"{name}: {value}" for name, value in rest if value is not None)
    return f"{head} ({details})" if details else str(head)


def _csv_cell(cell: Cell) -> str:
    if cell is None:
        return ""
    if isinstance(cell, bool):
        return "true" if cell else "false"
    if isinstance(cell, str) and cell.startswith(_FORMULA_STARTS):
        return "'" + cell
    return str(cell)


def _xlsx_text(text: str) -> str:
    return _NOT_IN_XML.sub(lambda match: f"_x{ord(match.group()):04X}_", text)


def write_index(store: Store, root: Path, doc_ids: Iterable[str], fmt: Format, approved: bool = False) -> Path:
    """`root/index.json` naming each exported document (its folder already in place, so the
    index never names a folder that is not there): merged with the index there, written beside
    it and renamed into place in one step."""
    path = root / INDEX_FILE
    documents = _read_index(path)
    exported_at = datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")
    for doc_id in doc_ids:
        source = latest_source(store, doc_id)
        documents[doc_id] = {
            "files": sorted(f"{doc_id}/{file.name}" for file in (root / doc_id).iterdir()),
            "title": document_title(store, doc_id),
            "revision": source[1] if source else None,
            "source_file": source[0].path.name if source else None,
            "format": fmt,
            "approved_only": approved,
            "exported_at": exported_at,
        }
    _remove_leftovers(path)
    staging = path.with_name(f".{path.name}{_WRITING}{secrets.token_hex(6)}")
    index = {"documents": dict(sorted(documents.items()))}
    staging.write_text(json.dumps(index, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    os.replace(staging, path)
    return path


def check_index(root: Path) -> None:
    """Refuses, before anything is written, a root whose index.json is not an export's."""
    _read_index(root / INDEX_FILE)


def _read_index(path: Path) -> dict[str, object]:
    if not path.exists():
        return {}
    try:
        documents = json.loads(path.read_text(encoding="utf-8"))["documents"]
    except (ValueError, KeyError, TypeError):
        documents = None
    if not isinstance(documents, dict):
        raise ExportError(f"{path} is not an export's index; export to a new folder or remove it")
    return documents


def _refuse_foreign(target: Path, names: set[str]) -> None:
    """Replacing a folder removes what it held: only an earlier export (`names`, or nothing) may go."""
    if target.is_symlink() or (target.exists() and not target.is_dir()):
        raise ExportError(f"{target} is not a folder; export to a folder of its own")
    if Path.cwd().is_relative_to(target):
        raise ExportError(f"{target} holds the current folder; export to a folder of its own")
    if target.is_dir():
        foreign = sorted(path.name for path in target.iterdir() if path.name not in names)
        if foreign:
            raise ExportError(f"{target} holds {len(foreign)} files that are not an export's "
                              f"({', '.join(foreign[:3])}); export to a new folder or over an earlier export")


def _remove_leftovers(target: Path) -> None:
    """What exports killed before their rename left beside the target (a folder, or the index)."""
    for marker in (_WRITING, _REPLACED):
        for leftover in target.parent.glob(f".{glob.escape(target.name)}{marker}*"):
            if leftover.is_dir():
                shutil.rmtree(leftover, ignore_errors=True)
            else:
                leftover.unlink(missing_ok=True)
