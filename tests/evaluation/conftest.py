"""Both sample documents materialised once, offline, for the tests that read a real store; and
the development corpus with its own scorer, for the tests that compare with them."""

import importlib.util
import os
from pathlib import Path

import pytest

from tests.conftest import PROJECT_ROOT
from tests.support.materialised import materialised_samples


@pytest.fixture(scope="package")
def offline_samples(tmp_path_factory):
    with pytest.MonkeyPatch.context() as env, materialised_samples(tmp_path_factory.mktemp("offline"), env) as samples:
        yield samples


def corpus_path() -> Path:
    """KNOWLEDGE_CORPUS, else the development corpus beside the project: <root>/../shared/corpus."""
    return Path(os.environ.get("KNOWLEDGE_CORPUS") or PROJECT_ROOT.parent / "shared" / "corpus").resolve()


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    path = corpus_path()
    if not (path / "score.py").is_file() or not (path / "gold").is_dir():
        pytest.skip(f"corpus not found at {path} (set KNOWLEDGE_CORPUS)")
    return path


@pytest.fixture(scope="session")
def score_py(corpus_dir):
    """The corpus's own score.py, loaded from its file: the reference the package's port must agree with."""
    spec = importlib.util.spec_from_file_location("corpus_score_py", corpus_dir / "score.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
