"""Stage logic stays plain Python: only knowledge_assets.defs (and the entry points) import dagster."""

from importlinter.cli import lint_imports


def test_import_contracts_hold():
    assert lint_imports(config_filename="pyproject.toml", no_cache=True) == 0
