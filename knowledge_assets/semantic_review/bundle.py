"""The bundle: each document's source bytes, its gold and its reference records, frozen before
any output exists, with the obligations derived from the gold.

    <bundle>/bundle.json                                    cases, digests, obligations
    <bundle>/sources/<caseId>/<file name>                   the document, byte for byte
    <bundle>/gold/<caseId>.json                             the gold, byte for byte
    <bundle>/references/<caseId>/<record file>              reference records, byte for byte
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path, PurePosixPath

from knowledge_assets.ingest.document_error import DocumentError
from knowledge_assets.ingest.documents import discover, identify
from knowledge_assets.semantic_review.canonical import pretty_bytes, read_document, read_json, sha256_hex
from knowledge_assets.semantic_review.obligations import gold_obligations
from knowledge_assets.semantic_review.outputs import EvidenceWriter
from knowledge_assets.semantic_review.references import RECORDS, validate_record
from knowledge_assets.semantic_review.refusal import Refusal
from knowledge_assets.semantic_review.timestamps import format_time
from knowledge_assets.semantic_review.vocabulary import BUNDLE_FORMAT, SPLITS

BUNDLE_FILE = "bundle.json"
CAPTURES_FILE = "captures.json"


@dataclass(frozen=True)
class FrozenFile:
    relative: str
    data: bytes

    def entry(self) -> dict:
        return {"path": self.relative, "sha256": sha256_hex(self.data), "bytes": len(self.data)}


def _freeze_case(path: Path, gold_dir: Path) -> tuple[dict, list[FrozenFile]]:
    try:
        source = identify(path)
    except DocumentError as exc:
        raise Refusal(str(exc)) from None
    case_id = source.doc_id
    gold_path = gold_dir / f"{case_id}.json"
    if not gold_path.is_file():
        raise Refusal(f"{path}: no gold for {case_id} (expected {gold_path}); every case needs predeclared obligations")
    gold_raw, gold = read_json(gold_path, "gold")
    obligations = gold_obligations(gold, gold_path, case_id)
    split = gold.get("split", "development")
    if split not in SPLITS:
        raise Refusal(f"gold {gold_path}: split must be one of {', '.join(SPLITS)}, not {split!r}")
    files = [
        FrozenFile(f"sources/{case_id}/{path.name}", path.read_bytes()),
        FrozenFile(f"gold/{case_id}.json", gold_raw),
    ]
    references: dict[str, dict | None] = {}
    for record, (suffix, _role) in RECORDS.items():
        record_path = gold_dir / f"{case_id}{suffix}"
        if not record_path.is_file():
            references[record] = None
            continue
        raw, data = read_json(record_path, "reference record")
        validate_record(data, record_path, record, case_id, sha256_hex(gold_raw))
        frozen = FrozenFile(f"references/{case_id}/{record_path.name}", raw)
        files.append(frozen)
        references[record] = frozen.entry()
    case = {
        "caseId": case_id,
        "split": split,
        "source": files[0].entry(),
        "gold": files[1].entry(),
        "references": references,
        "obligations": obligations,
    }
    return case, files


def build_bundle(documents: Path, gold_dir: Path, output: Path, now: datetime) -> dict:
    """Reads and validates everything first, so bad input writes nothing."""
    if not documents.is_dir():
        raise Refusal(f"documents {documents}: not a directory")
    if not gold_dir.is_dir():
        raise Refusal(f"gold {gold_dir}: not a directory")
    paths = discover([documents])
    if not paths:
        raise Refusal(f"documents {documents}: no documents found")
    cases, frozen = [], []
    for path in paths:
        case, files = _freeze_case(path, gold_dir)
        if any(c["caseId"] == case["caseId"] for c in cases):
            raise Refusal(f"{path}: doc_id {case['caseId']} is already taken by another document")
        cases.append(case)
        frozen.extend(files)
    document = {"format": BUNDLE_FORMAT, "createdAt": format_time(now), "cases": cases}
    writer = EvidenceWriter(output)
    writer.create()
    for file in frozen:
        writer.write_bytes(file.relative, file.data)
    raw = pretty_bytes(document)
    writer.write_bytes(BUNDLE_FILE, raw)
    return {"bundleDigest": sha256_hex(raw), "cases": [c["caseId"] for c in cases]}


@dataclass(frozen=True)
class Bundle:
    root: Path
    raw: bytes
    digest: str
    cases: dict[str, dict]

    def path(self, entry: dict) -> Path:
        return self.root / entry["path"]

    def read(self, entry: dict) -> bytes:
        return self.path(entry).read_bytes()


def _verify_entry(root: Path, entry: object, where: str) -> None:
    if (not isinstance(entry, dict) or not isinstance(entry.get("path"), str)
            or not isinstance(entry.get("sha256"), str)):
        raise Refusal(f"{where}: expected {{path, sha256}}")
    relative = PurePosixPath(entry["path"])
    if relative.is_absolute() or ".." in relative.parts:
        raise Refusal(f"{where}: path {entry['path']!r} leaves the bundle")
    path = root / relative
    if path.is_symlink() or not path.is_file():
        raise Refusal(f"{where}: {path} is missing")
    if sha256_hex(path.read_bytes()) != entry["sha256"]:
        raise Refusal(f"{where}: {path} no longer matches its frozen sha256 {entry['sha256']}")


def load_bundle(root: Path) -> Bundle:
    """The bundle, with every frozen file checked against its digest."""
    if not root.is_dir():
        raise Refusal(f"bundle {root}: not a directory")
    raw, document = read_document(root / BUNDLE_FILE, "bundle", BUNDLE_FORMAT)
    if not isinstance(document.get("cases"), list):
        raise Refusal(f"bundle {root / BUNDLE_FILE}: cases must be a list")
    cases: dict[str, dict] = {}
    for case in document["cases"]:
        case_id = case.get("caseId") if isinstance(case, dict) else None
        if not isinstance(case_id, str) or case_id in cases:
            raise Refusal(f"bundle {root / BUNDLE_FILE}: a case without a unique caseId")
        where = f"bundle {root}: case {case_id}"
        _verify_entry(root, case.get("source"), f"{where}: source")
        _verify_entry(root, case.get("gold"), f"{where}: gold")
        for record in RECORDS:
            if case.get("references", {}).get(record) is not None:
                _verify_entry(root, case["references"][record], f"{where}: {record}")
        cases[case_id] = case
    return Bundle(root.resolve(), raw, sha256_hex(raw), cases)


def holds_captures(root: Path) -> Path | None:
    """A bundle that already holds captures has had its outputs seen: no plan may follow."""
    return next(iter(sorted(root.rglob(CAPTURES_FILE))), None)
