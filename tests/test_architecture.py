"""The layers hold as contracts (pyproject.toml [tool.importlinter], docs/decisions.md D44, D100):
only the Dagster packages import dagster, the stage packages never import them, the wiring never
imports run control, the check never imports what it checks, the store never imports what it
stores, review never imports the extractors, and no module imports a layer above its own. The
second test shows each contract failing on a copy of the package with one wrong import added, so
a passing run means something."""

import os
import shutil
import subprocess
import sys

from importlinter.cli import lint_imports

from tests.conftest import PROJECT_ROOT

# (module file, the wrong import added to it, the contract it breaks, the import as reported)
WRONG_IMPORTS = [
    ("verify/spans.py", "import knowledge_assets.extract.rules",
     "verify never imports extract: the check never imports the code it checks",
     "knowledge_assets.verify.spans -> knowledge_assets.extract.rules"),
    ("store/database.py", "import knowledge_assets.ingest.parse",
     "store never imports ingest or terms: storage stays below what it stores",
     "knowledge_assets.store.database -> knowledge_assets.ingest.parse"),
    ("review/status.py", "import knowledge_assets.extract.formulas",
     "review never imports extract: it reads the store, not the extractors",
     "knowledge_assets.review.status -> knowledge_assets.extract.formulas"),
    ("llm/response_cache.py", "import knowledge_assets.defs.partitions",
     "Stage packages never import the Dagster wiring, its entry point, run control or the instance",
     "knowledge_assets.llm.response_cache -> knowledge_assets.defs.partitions"),
    ("defs/sensors.py", "import knowledge_assets.run_control.launch",
     "The wiring never imports run control: the definitions load without the launcher",
     "knowledge_assets.defs.sensors -> knowledge_assets.run_control.launch"),
    ("candidates/model.py", "import knowledge_assets.llm.requests",
     "Layers: a module imports only the layers below its own",
     "knowledge_assets.candidates.model -> knowledge_assets.llm.requests"),
]


def test_import_contracts_hold():
    assert lint_imports(config_filename=str(PROJECT_ROOT / "pyproject.toml"), no_cache=True) == 0


def test_each_contract_fails_on_a_tree_with_one_wrong_import(tmp_path):
    package = tmp_path / "knowledge_assets"
    shutil.copytree(PROJECT_ROOT / "knowledge_assets", package, ignore=shutil.ignore_patterns("__pycache__"))
    for module, line, _, _ in WRONG_IMPORTS:
        with (package / module).open("a", encoding="utf-8") as source:
            source.write(f"\n{line}\n")
    # knowledge_assets is a namespace package, whose portions would merge with the installed
    # one; an __init__.py makes the copy a regular package, which wins outright on the path.
    (package / "__init__.py").write_text("", encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-c",
         "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())",
         str(PROJECT_ROOT / "pyproject.toml"), "--no-cache"],
        cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(tmp_path)}, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    report = " ".join(result.stdout.split())
    for _, _, contract, reported in WRONG_IMPORTS:
        assert f"{contract} BROKEN" in report, (contract, result.stdout)
        assert reported in report, (reported, result.stdout)
