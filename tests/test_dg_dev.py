"""`dg dev` started as the README starts it says nothing misleading: no temporary directory for
storage (DAGSTER_HOME names the folder of the project's dagster.yaml, whose storage is the
home's), no virtual-environment mismatch (`.venv/bin/dg` is the project's own dg). It runs in a
copy of the project's configuration, its package and environment linked, so the project's own
instance is never touched."""

import os
import re
import shutil
import subprocess
import time

from tests.conftest import PROJECT_ROOT
from tests.support.processes import stop_group
from tests.ui.servers import free_port

SERVING = "Serving dagster-webserver"
STARTUP_DEADLINE_S = 120.0


def _readme_command() -> str:
    """The README's `dg dev` line, its comment left out."""
    readme = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")
    [line] = [line for line in readme.splitlines() if re.search(r"\bdg dev\b", line) and "#" in line
              and not line.startswith("`")][:1]
    return line.split("#")[0].strip()


def test_dg_dev_run_the_readme_way_announces_no_temporary_storage_and_no_venv_mismatch(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    for name in ("pyproject.toml", "dagster.yaml", "workspace.yaml"):
        shutil.copy(PROJECT_ROOT / name, project / name)
    for name in (".venv", "knowledge_assets", "prompts"):
        (project / name).symlink_to(PROJECT_ROOT / name)
    env = {key: value for key, value in os.environ.items() if key not in ("VIRTUAL_ENV", "DAGSTER_HOME")}
    env |= {"KNOWLEDGE_HOME": str(project / ".knowledge"), "KNOWLEDGE_INBOX": str(project / "inbox")}
    log = tmp_path / "dg-dev.log"
    with log.open("w", encoding="utf-8") as out:
        process = subprocess.Popen(["bash", "-c", f"{_readme_command()} --port {free_port()}"], cwd=project,
                                   env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            deadline = time.monotonic() + STARTUP_DEADLINE_S
            while SERVING not in log.read_text(encoding="utf-8") and process.poll() is None:
                assert time.monotonic() < deadline, log.read_text(encoding="utf-8")[-3000:]
                time.sleep(0.5)
        finally:
            stop_group(process)
    output = log.read_text(encoding="utf-8")
    assert SERVING in output, output[-3000:]
    assert "Using temporary directory" not in output and "does not match the virtual environment" not in output
    assert "Found a dagster instance configuration" not in output
    assert not list(project.glob(".tmp_dagster_home_*"))
