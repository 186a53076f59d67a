"""The project's one home: found from the project, not the working directory; the store and the
instance together in it unless an explicit override splits them."""

import os
import subprocess
import sys

from knowledge_assets import settings
from tests.conftest import PROJECT_ROOT

_OVERRIDES = ("KNOWLEDGE_HOME", "KNOWLEDGE_DB", "DAGSTER_HOME", "KNOWLEDGE_INBOX")


def _clean(monkeypatch):
    for name in _OVERRIDES:
        monkeypatch.delenv(name, raising=False)


def test_from_a_subdirectory_the_home_is_at_the_project_root(monkeypatch):
    _clean(monkeypatch)
    monkeypatch.chdir(PROJECT_ROOT / "eval_assets" / "documents")
    assert settings.project_root() == PROJECT_ROOT
    assert settings.database_path() == PROJECT_ROOT / ".knowledge" / "knowledge.duckdb"
    assert settings.dagster_home() == PROJECT_ROOT / ".knowledge"
    assert settings.inbox_path() == PROJECT_ROOT / "inbox"
    assert settings.split_home_warning() is None


def test_knowledge_home_moves_the_store_and_the_instance_together(monkeypatch, tmp_path):
    _clean(monkeypatch)
    monkeypatch.setenv("KNOWLEDGE_HOME", str(tmp_path / "home"))
    assert settings.database_path() == tmp_path / "home" / "knowledge.duckdb"
    assert settings.dagster_home() == tmp_path / "home"
    assert settings.split_home_warning() is None


def test_an_override_that_splits_the_store_from_the_instance_is_named(monkeypatch, tmp_path):
    _clean(monkeypatch)
    monkeypatch.setenv("KNOWLEDGE_DB", str(tmp_path / "other.duckdb"))
    warning = settings.split_home_warning()
    assert warning and str(tmp_path / "other.duckdb") in warning and str(PROJECT_ROOT / ".knowledge") in warning


def test_an_installed_copy_used_outside_a_checkout_finds_the_project_above_the_working_directory(tmp_path):
    project = tmp_path / "project"
    (project / "docs" / "deep").mkdir(parents=True)
    (project / "pyproject.toml").write_text('[project]\nname = "knowledge-assets"\n', encoding="utf-8")
    # A copy of the package outside any checkout, imported from a subdirectory of another project.
    package = tmp_path / "site" / "knowledge_assets"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    source = (PROJECT_ROOT / "knowledge_assets" / "settings.py").read_text("utf-8")
    (package / "settings.py").write_text(source, "utf-8")
    env = {k: v for k, v in os.environ.items() if k not in _OVERRIDES} | {"PYTHONPATH": str(tmp_path / "site")}
    shown = subprocess.run(
        [sys.executable, "-c", "from knowledge_assets.settings import knowledge_home; print(knowledge_home())"],
        cwd=project / "docs" / "deep", env=env, capture_output=True, text=True, check=True,
    ).stdout.strip()
    assert shown == str(project / ".knowledge")
