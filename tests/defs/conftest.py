"""A real temporary Dagster instance for the wiring tests."""

import dagster as dg
import pytest


@pytest.fixture
def instance(tmp_path):
    (tmp_path / "dagster").mkdir()
    with dg.instance_for_test(temp_dir=str(tmp_path / "dagster")) as instance:
        yield instance
