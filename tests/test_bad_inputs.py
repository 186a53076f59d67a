"""A bad input fails only itself (docs/decisions.md D83): a file or folder that cannot be read,
a path that does not exist, a named folder with nothing in it, an export `run --out` cannot
write; each is one line naming the path and the cause, the rest of the run goes on, and the
exit status says something was lost. A home that cannot be written is one line, not a traceback.

Permissions are real here: root passes chmod 000, so as root the command runs under setpriv
without the two capabilities that let it (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH), which binds
root to the permission bits as any user is bound."""

import os
import shutil
import subprocess
from contextlib import contextmanager
from pathlib import Path

import duckdb
import pytest

from tests.conftest import SAMPLE_MARKDOWN
from tests.support.command_process import COMMAND, cli_env, cli_process

_BOUND_BY_PERMISSIONS = ["--bounding-set", "-dac_override,-dac_read_search"]


def _bound_by_permissions() -> list[str]:
    """The prefix under which chmod binds the command: none for a user, setpriv for root."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root, which chmod does not stop, without setpriv (util-linux) to drop the "
                    "capabilities that let it past")
    if subprocess.run([setpriv, *_BOUND_BY_PERMISSIONS, "true"], capture_output=True).returncode != 0:
        pytest.skip("running as root, which chmod does not stop, and not allowed to drop the capabilities "
                    "that let it past (no CAP_SETPCAP)")
    return [setpriv, *_BOUND_BY_PERMISSIONS]


def _bound_process(args, root: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """The command in a fresh process bound by permissions, in `root/home` (cli_env) unless `env`."""
    return subprocess.run([*_bound_by_permissions(), *COMMAND, *args], cwd=root, env=env or cli_env(root),
                          capture_output=True, text=True, timeout=300)


@contextmanager
def _mode(path: Path, mode: int):
    """`path` with `mode` inside, as it was after, so that the temporary folder can be removed."""
    before = path.stat().st_mode
    path.chmod(mode)
    try:
        yield path
    finally:
        path.chmod(before)


def _keyed_markdown(folder: Path, name: str, doc_id: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(SAMPLE_MARKDOWN, folder / name)
    (folder / f"{name}.meta.json").write_text(f'{{"doc_id": "{doc_id}"}}', encoding="utf-8")
    return folder / name


def _parsed(home: Path) -> set[str]:
    con = duckdb.connect(str(home / "knowledge.duckdb"), read_only=True)
    return {doc_id for (doc_id,) in con.execute("SELECT DISTINCT doc_id FROM parsed_chunks").fetchall()}


def test_unreadable_files_and_folders_a_missing_path_and_an_empty_folder_fail_alone(tmp_path):
    docs = tmp_path / "docs"
    _keyed_markdown(docs, "kpi.md", "kpi-ok")
    _keyed_markdown(docs / "sub", "inner.md", "kpi-inner")
    shutil.copyfile(SAMPLE_MARKDOWN, docs / "locked.md")
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / ".hidden.md").write_text("# hidden\n", encoding="utf-8")
    missing = tmp_path / "missing.md"

    with _mode(docs / "locked.md", 0o000), _mode(docs / "sub", 0o000):
        result = _bound_process(["run", str(docs), str(tmp_path / "empty"), str(missing)], tmp_path)

    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    assert [line for line in result.stdout.splitlines() if line.startswith("FAILED")] == [
        f"FAILED  {docs / 'sub'}: cannot read the folder (Permission denied)",
        f"FAILED  {tmp_path / 'empty'}: no documents in this folder",
        f"FAILED  {docs / 'locked.md'}: cannot read the file (Permission denied)",
        f"FAILED  {missing}: no such file",
    ]
    assert any(line.startswith("ok      kpi-ok  kpi.md") for line in result.stdout.splitlines())
    assert result.stderr.strip().splitlines() == ["2 of 3 documents failed; 2 folders gave no documents"]
    assert _parsed(tmp_path / "home") == {"kpi-ok"}


def test_a_folder_that_holds_no_document_is_named_and_the_run_exits_1(tmp_path):
    empty = tmp_path / "empty"
    (empty / "deeper").mkdir(parents=True)
    (empty / "notes.md.meta.json").write_text('{"doc_id": "x"}', encoding="utf-8")
    looks_like_a_document = tmp_path / "report.md"
    looks_like_a_document.mkdir()

    result = cli_process(["run", str(empty), str(looks_like_a_document)], tmp_path, tmp_path)

    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stdout.splitlines() == [f"FAILED  {empty}: no documents in this folder",
                                          f"FAILED  {looks_like_a_document}: no documents in this folder"]
    assert result.stderr.splitlines() == ["2 folders gave no documents"]


def test_a_home_under_a_file_is_one_line_and_exit_1(tmp_path, monkeypatch, capsys):
    from knowledge_assets.command import main

    for setting in ("KNOWLEDGE_DB", "DAGSTER_HOME", "KNOWLEDGE_STORE"):
        monkeypatch.delenv(setting, raising=False)
    (tmp_path / "file.txt").write_text("not a folder\n", encoding="utf-8")
    home = tmp_path / "file.txt" / "home"
    monkeypatch.setenv("KNOWLEDGE_HOME", str(home))

    for argv in (["run", str(SAMPLE_MARKDOWN)], ["ingest", str(SAMPLE_MARKDOWN)], ["documents"]):
        assert main(argv) == 1, argv
        out, err = capsys.readouterr()
        assert out == "" and err == (f"error: {home}: cannot write there ({tmp_path / 'file.txt'} is a file, "
                                     "not a folder); set KNOWLEDGE_HOME to a folder you can write\n"), argv


def test_a_home_without_write_permission_is_one_line_and_exit_1(tmp_path):
    readonly = tmp_path / "readonly"
    readonly.mkdir()
    home_only = {k: v for k, v in cli_env(tmp_path).items() if k not in ("KNOWLEDGE_DB", "DAGSTER_HOME")}

    with _mode(readonly, 0o555):
        result = _bound_process(["run", str(SAMPLE_MARKDOWN)], tmp_path,
                                {**home_only, "KNOWLEDGE_HOME": str(readonly / "home")})

    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr == (f"error: {readonly / 'home'}: cannot write there (Permission denied); "
                             "set KNOWLEDGE_HOME to a folder you can write\n")


def test_run_out_exports_every_document_it_can_and_names_each_refusal(tmp_path):
    docs = tmp_path / "docs"
    _keyed_markdown(docs, "a.md", "kpi-0")
    _keyed_markdown(docs, "c.md", "kpi-1")
    out = tmp_path / "out"
    (out / "kpi-0").mkdir(parents=True)
    (out / "kpi-0" / "notes.txt").write_text("mine\n", encoding="utf-8")

    result = cli_process(["run", str(docs), "--out", str(out)], tmp_path, tmp_path)

    assert result.returncode == 1, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    first = next(n for n, line in enumerate(lines) if line.startswith("ok      kpi-0  a.md"))
    assert lines[first + 1] == (f"NOT EXPORTED  {out / 'kpi-0'} holds 1 files that are not an export's (notes.txt); "
                                "export to a new folder or over an earlier export")
    assert lines[first + 2].startswith("ok      kpi-1  c.md")
    assert [p.name for p in (out / "kpi-0").iterdir()] == ["notes.txt"]
    assert len(list((out / "kpi-1").iterdir())) == 7
    assert result.stderr.strip().splitlines() == ["1 of 2 exports refused"]


def test_run_out_into_a_folder_it_cannot_write_is_refused_before_anything_runs(tmp_path, monkeypatch, capsys):
    from knowledge_assets.command import main

    monkeypatch.setenv("KNOWLEDGE_DB", str(tmp_path / "home" / "knowledge.duckdb"))
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "home"))
    (tmp_path / "file.txt").write_text("not a folder\n", encoding="utf-8")
    out = tmp_path / "file.txt" / "out"

    assert main(["run", str(SAMPLE_MARKDOWN), "--out", str(out)]) == 1
    printed, err = capsys.readouterr()
    assert printed == "" and err == (f"error: {out}: cannot write there ({tmp_path / 'file.txt'} is a file, not a "
                                     "folder); export to a folder you can write\n")
    assert not (tmp_path / "home" / "dagster.yaml").exists()
