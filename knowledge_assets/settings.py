"""Settings read from the environment when they are needed, never at import time.

One home holds a project's state: `KNOWLEDGE_HOME` (default `.knowledge/` at the project
root) contains the DuckDB store, `knowledge.duckdb`, and the Dagster instance's storage, so
the data and the runs that made it cannot drift apart. The project root is found from the
project itself (this package's checkout, else the nearest folder above the working directory
whose pyproject.toml names this project), never taken to be the working directory, so a
command started from a subdirectory uses the same home.

`KNOWLEDGE_DB` (the store) and `DAGSTER_HOME` (the instance) stay explicit overrides, for
scripts and tests that want a private store or instance.

`KNOWLEDGE_STORE` chooses the store: unset, the DuckDB file above; a URL of a registered store
backend, such as `postgresql://USER@HOST:PORT/DB`, the shared store several machines write
(store/backends.py says which settings are URLs of a backend: this module, below the store,
cannot know them). Files derived from a shared store (the review pages' image cache) live in
the knowledge home.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

DATABASE_FILE = "knowledge.duckdb"
HOME_FOLDER = ".knowledge"
_PROJECT_NAME = 'name = "knowledge-assets"'


def _is_project_root(folder: Path) -> bool:
    pyproject = folder / "pyproject.toml"
    return pyproject.is_file() and _PROJECT_NAME in pyproject.read_text(encoding="utf-8")


def project_root() -> Path:
    """The checkout this package runs from (an editable install), else the nearest folder at
    or above the working directory holding this project's pyproject.toml, else the working
    directory (an installed package used outside any checkout)."""
    checkout = Path(__file__).resolve().parents[1]
    if _is_project_root(checkout):
        return checkout
    here = Path.cwd().resolve()
    return next((folder for folder in (here, *here.parents) if _is_project_root(folder)), here)


def knowledge_home() -> Path:
    """`KNOWLEDGE_HOME`, else `.knowledge/` at the project root; always absolute."""
    explicit = os.environ.get("KNOWLEDGE_HOME")
    return Path(explicit).resolve() if explicit else project_root() / HOME_FOLDER


def database_path() -> Path:
    """`KNOWLEDGE_DB`, else `<home>/knowledge.duckdb`."""
    explicit = os.environ.get("KNOWLEDGE_DB")
    return Path(explicit).resolve() if explicit else knowledge_home() / DATABASE_FILE


def store_setting() -> str:
    """`KNOWLEDGE_STORE` when set, else the DuckDB file `database_path()`."""
    return os.environ.get("KNOWLEDGE_STORE", "").strip() or str(database_path())


def dagster_home() -> Path:
    """`DAGSTER_HOME`, else the knowledge home: where the Dagster instance keeps its storage."""
    explicit = os.environ.get("DAGSTER_HOME")
    return Path(explicit).resolve() if explicit else knowledge_home()


def store_folder() -> tuple[Path, str]:
    """The folder the DuckDB file is written in and the setting that names it (a shared store is
    in no folder: the caller asks `store.backends.is_shared_store` first)."""
    return database_path().parent, "KNOWLEDGE_DB" if os.environ.get("KNOWLEDGE_DB") else "KNOWLEDGE_HOME"


def instance_folder() -> tuple[Path, str]:
    """The folder the Dagster instance keeps its storage in and the setting that names it."""
    return dagster_home(), "DAGSTER_HOME" if os.environ.get("DAGSTER_HOME") else "KNOWLEDGE_HOME"


def cannot_write(folder: Path) -> str | None:
    """Why no file can be written in `folder`, in a few words (a parent that is a file, no
    permission); None when one can. Nothing is created: a missing folder is judged by the
    nearest folder above it that exists, where the command would create it; the probe is a
    file without a name where the system allows one, so nobody else ever sees it."""
    existing = folder
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        return "it is a file, not a folder" if existing == folder else f"{existing} is a file, not a folder"
    try:
        with tempfile.TemporaryFile(dir=existing):
            return None
    except OSError as exc:
        return exc.strerror or str(exc)


def split_home_warning() -> str | None:
    """A note when the overrides put the store and the instance in different homes: the UI
    then lists materialisations whose rows live in another file. For the DuckDB file: a shared
    store is in no home (the caller asks `store.backends.is_shared_store` first)."""
    store_home, instance_home = database_path().parent, dagster_home()
    if store_home == instance_home:
        return None
    return (f"note: the store ({database_path()}) and the Dagster instance ({instance_home}) are in different "
            "homes (KNOWLEDGE_DB / DAGSTER_HOME); the UI of that instance shows runs whose rows are in that store")


def inbox_path() -> Path:
    """`KNOWLEDGE_INBOX`, else `inbox/` at the project root: where the sensor looks."""
    explicit = os.environ.get("KNOWLEDGE_INBOX")
    return Path(explicit) if explicit else project_root() / "inbox"


DEFINITION_SCORER_SETTING = "KNOWLEDGE_DEFINITION_SCORER"


def definition_scorer_override() -> Path | None:
    """`KNOWLEDGE_DEFINITION_SCORER`: a scorer file to use in place of the committed one (the
    leave-one-out evaluation runs each document with the scorer trained without it)."""
    explicit = os.environ.get(DEFINITION_SCORER_SETTING, "").strip()
    return Path(explicit).resolve() if explicit else None
