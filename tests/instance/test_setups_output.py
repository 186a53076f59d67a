"""A run's output does not depend on the Dagster instance it is recorded in: the samples through
`knowledge-assets run FOLDER --out` in a fresh process, once in the project's home
(KNOWLEDGE_HOME alone: the home's dagster.yaml, the held event log) and once with a DAGSTER_HOME
of the user's own that holds no dagster.yaml (Dagster's stock SQLite storage), give the same
contract files, ids included, byte for byte; the run's records beside them (usage.json's model
calls, index.json's documents) differ only in what is timed: a call's latency, the export's
time (docs/decisions.md D93)."""

import json
import os
import subprocess
from pathlib import Path

from tests.conftest import SAMPLE_DOCUMENTS
from tests.support.command_process import COMMAND

# The files that hold a time, and the field that holds it: each call's, each document's.
TIMED = {"usage.json": "latency_s", "index.json": "exported_at"}


def _untimed(name: str, content: bytes) -> object:
    field = TIMED[Path(name).name]
    found = json.loads(content)
    if Path(name).name == "index.json":
        return {doc_id: {k: v for k, v in entry.items() if k != field} for doc_id, entry in found["documents"].items()}
    return [{k: v for k, v in call.items() if k != field} for call in found]


def _exported_files(root: Path, own_dagster_home: bool) -> dict[str, bytes]:
    """Each exported file, by its path under --out (`<doc_id>/<file>`, `index.json`), as bytes."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "KNOWLEDGE_", "DAGSTER_"))}
    env |= {"KNOWLEDGE_HOME": str(root / "home"), "KNOWLEDGE_LLM_BACKEND": "offline"}
    if own_dagster_home:
        (root / "dagster").mkdir(parents=True)
        env["DAGSTER_HOME"] = str(root / "dagster")
    out = root / "out"
    done = subprocess.run([*COMMAND, "run", str(SAMPLE_DOCUMENTS), "--out", str(out)], cwd=root.parent, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return {str(path.relative_to(out)): path.read_bytes() for path in sorted(out.rglob("*")) if path.is_file()}


def test_the_contract_files_are_the_same_in_the_projects_home_and_in_a_users_own_dagster_home(tmp_path):
    project = _exported_files(tmp_path / "project", own_dagster_home=False)
    own = _exported_files(tmp_path / "own", own_dagster_home=True)

    # The two setups are what they say: the home's instance names the held log; the user's own
    # DAGSTER_HOME has Dagster's defaults, its storage there, and the home got no dagster.yaml.
    assert "HeldSqliteStorage" in (tmp_path / "project" / "home" / "dagster.yaml").read_text(encoding="utf-8")
    assert (tmp_path / "project" / "home" / "history" / "runs.db").is_file()
    assert not (tmp_path / "own" / "home" / "dagster.yaml").exists()
    assert not (tmp_path / "own" / "dagster" / "dagster.yaml").exists()
    assert (tmp_path / "own" / "dagster" / "history" / "runs.db").is_file()

    assert sorted(project) == sorted(own)
    for name, content in project.items():
        if Path(name).name in TIMED:
            assert _untimed(name, own[name]) == _untimed(name, content), name
        else:
            assert own[name] == content, f"{name} differs between the project's home and a user's own DAGSTER_HOME"
    # Not vacuous: both samples, each with its contract files, and entries with their ids.
    doc_ids = {"SKT-MNT-KPI-002", "SKT-STD-PRM-001"}
    assert {name.split("/")[0] for name in project if "/" in name} == doc_ids, sorted(project)
    for doc_id in doc_ids:
        assert json.loads(project[f"{doc_id}/glossary.json"]), doc_id
        assert all(entry["term_id"].startswith("t_") for entry in json.loads(project[f"{doc_id}/glossary.json"]))
        assert _untimed("usage.json", project[f"{doc_id}/usage.json"]), doc_id
