"""Where evidence is written (docs/semantic_review.md §5): a new absolute directory outside the
repository with an existing parent; symlinks resolving into the repository and overwrites are
refused. Directories are 0700 and files 0600, and nothing that already exists is modified."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from knowledge_assets.semantic_review.canonical import pretty_bytes
from knowledge_assets.semantic_review.refusal import Refusal

REPOSITORY = Path(__file__).resolve().parents[2]
DIRECTORY_MODE = 0o700
FILE_MODE = 0o600


def _within(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def checked_output(raw: str, *, not_inside: Sequence[Path] = ()) -> Path:
    """The output directory, refused unless it is new (absent, or an empty real directory)."""
    path = Path(raw)
    if not path.is_absolute():
        raise Refusal(f"output {raw}: must be an absolute path")
    if not path.name:
        raise Refusal(f"output {raw}: names no directory")
    if path.is_symlink():
        raise Refusal(f"output {raw}: is a symlink; give the real new directory")
    if not path.parent.is_dir():
        raise Refusal(f"output {raw}: parent directory {path.parent} does not exist")
    resolved = path.parent.resolve() / path.name
    if _within(resolved, REPOSITORY):
        raise Refusal(f"output {raw}: resolves to {resolved}, inside the repository {REPOSITORY}")
    for other in not_inside:
        if _within(resolved, other.resolve()):
            raise Refusal(f"output {raw}: resolves to {resolved}, inside {other}, which must stay unchanged")
    if path.exists() and (not path.is_dir() or any(path.iterdir())):
        raise Refusal(f"output {raw}: already exists and is not an empty directory; evidence is never overwritten")
    return resolved


class EvidenceWriter:
    """Creates files that did not exist (O_EXCL), with explicit modes whatever the umask."""

    def __init__(self, root: Path):
        self.root = root

    def create(self) -> None:
        self.root.mkdir(mode=DIRECTORY_MODE, exist_ok=True)
        os.chmod(self.root, DIRECTORY_MODE)

    def directory(self, relative: str) -> Path:
        path = self.root
        for part in Path(relative).parts:
            path = path / part
            if not path.is_dir():
                path.mkdir(mode=DIRECTORY_MODE)
                os.chmod(path, DIRECTORY_MODE)
        return path

    def write_bytes(self, relative: str, data: bytes) -> Path:
        path = self.directory(str(Path(relative).parent)) / Path(relative).name
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
        with os.fdopen(descriptor, "wb") as handle:
            os.fchmod(handle.fileno(), FILE_MODE)
            handle.write(data)
        return path

    def write_json(self, relative: str, value: object) -> Path:
        return self.write_bytes(relative, pretty_bytes(value))


def seal(root: Path) -> None:
    """Applies the evidence modes to what other code (DuckDB, Dagster) created under `root`."""
    for current, directories, files in os.walk(root):
        os.chmod(current, DIRECTORY_MODE)
        for name in files:
            path = Path(current) / name
            if not path.is_symlink():
                os.chmod(path, FILE_MODE)
        directories[:] = [d for d in directories if not (Path(current) / d).is_symlink()]
