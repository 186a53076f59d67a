"""What the offline path imports: the `openai` SDK only when the model backend is used, numpy
only when the store writes many rows and pandas never (D106), psycopg only when a PostgreSQL
store connects (D63)."""

import subprocess
import sys

from tests.conftest import PROJECT_ROOT


def _modules_after(code: str) -> set[str]:
    result = subprocess.run([sys.executable, "-c", code + "\nimport sys\nprint('\\n'.join(sys.modules))"],
                            cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return set(result.stdout.split())


def test_loading_the_definitions_imports_neither_openai_nor_pandas():
    modules = _modules_after("import knowledge_assets.definitions")
    assert "openai" not in modules
    assert "pandas" not in modules
    assert "numpy" not in modules


def test_a_large_write_imports_numpy_and_never_pandas(tmp_path):
    # 45 MiB held for the rest of a run, and imported mid-run across a long document's heap (D106).
    modules = _modules_after(
        "from knowledge_assets.store.backends import open_store\n"
        f"store = open_store({str(tmp_path / 'k.duckdb')!r})\n"
        "rows = [{'doc_id': 'A', 'page': n, 'page_no': n + 1, 'text': f'page {n}'} for n in range(500)]\n"
        "store.replace_partition('A', {'parsed_pages': rows})\n"
        "assert store.fetch('SELECT count(*) AS n FROM parsed_pages')[0]['n'] == 500"
    )
    assert "numpy" in modules
    assert "pandas" not in modules


def test_an_offline_extractor_does_not_import_openai():
    modules = _modules_after(
        "from knowledge_assets.llm.extractor import Extractor\n"
        "from knowledge_assets.llm.model_settings import resolve_settings\n"
        "import os; os.environ['KNOWLEDGE_LLM_BACKEND'] = 'offline'\n"
        "Extractor.from_settings(resolve_settings())"
    )
    assert "openai" not in modules


def test_the_model_backend_still_imports_openai_when_used():
    modules = _modules_after(
        "import os; os.environ.update(KNOWLEDGE_LLM_BACKEND='openai', OPENAI_API_KEY='sk-test-lazy', "
        "KNOWLEDGE_LLM_MODEL='m')\n"
        "from knowledge_assets.llm.extractor import Extractor\n"
        "from knowledge_assets.llm.model_settings import resolve_settings\n"
        "Extractor.from_settings(resolve_settings())"
    )
    assert "openai" in modules


def test_a_duckdb_store_opened_through_the_backends_registry_does_not_import_psycopg(tmp_path):
    # The registry imports every backend's module: each must leave its driver to the connect.
    modules = _modules_after(
        "from knowledge_assets.store.backends import open_store\n"
        f"open_store({str(tmp_path / 'k.duckdb')!r}).fetch('SELECT 1')"
    )
    assert "knowledge_assets.store.postgres" in modules
    assert "psycopg" not in modules


def test_the_postgresql_backend_does_not_import_duckdb():
    # The helpers both backends share live below both (store/rows.py), not in the DuckDB one.
    modules = _modules_after("import knowledge_assets.store.postgres")
    assert "knowledge_assets.store.database" not in modules
    assert "duckdb" not in modules
