"""The tree passes ruff (lint and import order, pyproject's [tool.ruff]): the linter runs with the tests."""

import importlib.util
import subprocess
import sys

import pytest

from tests.conftest import PROJECT_ROOT

LINTED = ["knowledge_assets", "tests", "bench"]


@pytest.mark.skipif(
    importlib.util.find_spec("ruff") is None,
    reason="ruff is not installed (it is a dev dependency: pip install -e '.[dev]')",
)
def test_the_tree_passes_ruff():
    # Run from the project root so ruff reads pyproject.toml's [tool.ruff], not a default.
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", *LINTED],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, f"ruff found:\n{result.stdout}{result.stderr}"
