"""Both sample documents materialised once, offline, for the tests that read a real store."""

import pytest

from tests.support.materialised import materialised_samples


@pytest.fixture(scope="package")
def offline_samples(tmp_path_factory):
    with pytest.MonkeyPatch.context() as env, materialised_samples(tmp_path_factory.mktemp("offline"), env) as samples:
        yield samples
