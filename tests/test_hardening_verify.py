"""A verifier that cannot be hijacked and leaves nothing behind (issue 14, items 10-14).

Before the hardening work: the helper started with ``python -m`` in the system
temp folder (a ``json.py`` dropped there was imported), ``--verify-cmd``
crashed on any project with ``.venv``/``venv``/``env``/``.env`` and linked
``env/`` packages into the run, a child that called ``os.setsid()`` outlived
the timeout, a run's whole log was read to keep its tail, and every variable
of autofix's environment reached user code with no way to hold them back.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from autofix.verify import launcher, session

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="subreaper and /proc are Linux's")


@pytest.fixture
def fresh_helper():
    """A helper started for this test, and none left running after it."""
    launcher._zygote.close()
    launcher._private = None
    yield launcher._zygote
    launcher._zygote.close()
    launcher._private = None


def config(tmp_path: Path, script: Path) -> dict:
    return {"record": str(tmp_path / "record.pt"), "device": "cpu", "max_steps": 2, "script": str(script), "args": []}


# --------------------------------------------------------------------------- 10. hijacking


@linux_only
def test_modules_in_the_system_temp_folder_are_never_imported(tmp_path, monkeypatch, fresh_helper):
    pytest.importorskip("torch")
    shared = tmp_path / "shared-tmp"
    shared.mkdir()
    marker = tmp_path / "hijacked"
    for name in ("json", "torch"):
        (shared / f"{name}.py").write_text(f"open({str(marker)!r}, 'a').write('{name} ')\n")
    monkeypatch.setattr(tempfile, "tempdir", str(shared))
    workdir = tmp_path / "run"
    workdir.mkdir()
    script = workdir / "train.py"
    script.write_text("import json, torch\nprint('ran', json.dumps(1), torch.__name__)\n")
    outcome = launcher.run_script(config(workdir, script), str(workdir), timeout=240)
    assert outcome.returncode == 0, outcome.output()
    assert "ran 1 torch" in outcome.output()
    assert not marker.exists(), marker.read_text()
    helper_folder = Path(launcher.private_folder())
    assert helper_folder.stat().st_mode & 0o077 == 0


# --------------------------------------------------------------------------- 11. copying the project


def test_project_copy_with_virtualenvs_and_an_env_package(tmp_path):
    root = tmp_path / "project"
    (root / ".venv" / "bin").mkdir(parents=True)
    (root / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (root / "venv").mkdir()
    (root / "venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (root / "env").mkdir()
    (root / "env" / "__init__.py").write_text("SETTING = 1\n")
    (root / ".env").write_text("KEY=value\n")
    (root / "train.py").write_text("import env\n")
    (root / "data").mkdir()
    os.symlink(root / "data", root / "data_link")  # absolute, into the project
    target = tmp_path / "copy"
    session._copy_tree(str(root), str(target))
    assert (target / ".venv").is_symlink() and (target / "venv").is_symlink()
    assert not (target / "env").is_symlink() and (target / "env" / "__init__.py").read_text() == "SETTING = 1\n"
    assert (target / ".env").read_text() == "KEY=value\n" and not (target / ".env").is_symlink()
    (target / "env" / "__init__.py").write_text("SETTING = 2\n")
    (target / "data_link" / "written.txt").write_text("checkpoint")
    assert (root / "env" / "__init__.py").read_text() == "SETTING = 1\n"
    assert not (root / "data" / "written.txt").exists()
    assert (target / "data" / "written.txt").exists()


# --------------------------------------------------------------------------- 12. escaping the timeout

ESCAPE = """\
import os, sys, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        with open(sys.argv[1], "w") as handle:
            handle.write(str(os.getpid()))
        time.sleep(600)
    os._exit(0)
time.sleep(600)
"""


def _gone(pid_file: Path) -> bool:
    for _ in range(100):
        if pid_file.exists() and pid_file.read_text():
            break
        time.sleep(0.05)
    pid = int(pid_file.read_text())
    time.sleep(0.3)
    try:
        with open(f"/proc/{pid}/stat") as handle:
            state = handle.read().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return True
    if state == "Z":
        return True
    os.kill(pid, 9)  # do not leave it behind even when the test fails
    return False


@linux_only
def test_a_command_child_that_leaves_the_session_does_not_survive_the_timeout(tmp_path):
    (tmp_path / "escape.py").write_text(ESCAPE)
    with open(tmp_path / "log", "wb") as log:
        code, timed_out = launcher._popen_wait(
            f"{sys.executable} escape.py {tmp_path / 'pid'}", str(tmp_path), log, launcher.run_environment(), 3, shell=True
        )
    assert timed_out
    assert _gone(tmp_path / "pid")


@linux_only
def test_a_script_child_that_leaves_the_session_does_not_survive_the_timeout(tmp_path, fresh_helper):
    pytest.importorskip("torch")
    script = tmp_path / "escape.py"
    script.write_text(ESCAPE)
    cfg = config(tmp_path, script)
    cfg["args"] = [str(tmp_path / "pid")]
    outcome = launcher.run_script(cfg, str(tmp_path), timeout=60)
    assert outcome.timed_out
    assert _gone(tmp_path / "pid")


# --------------------------------------------------------------------------- 13. bounded output


@linux_only
def test_the_tail_of_a_huge_log_is_read_without_reading_it_all(tmp_path):
    log = tmp_path / "run.log"
    with open(log, "wb") as handle:
        chunk = b"x" * 1023 + b"\n"
        for _ in range(96 * 1024):  # 96 MiB
            handle.write(chunk)
        handle.write(b"the end\n")
    # VmHWM, not ru_maxrss: Linux carries ru_maxrss over from the parent across fork and exec.
    probe = textwrap.dedent(f"""
        from autofix.verify.launcher import RunOutcome

        def peak_kib():
            with open("/proc/self/status") as status:
                return int(next(line for line in status if line.startswith("VmHWM:")).split()[1])

        before = peak_kib()
        tail = RunOutcome("r", False, 0, {str(log)!r}, 0.0).output()
        after = peak_kib()
        assert tail.endswith("the end\\n"), tail[-20:]
        print((after - before) // 1024)
    """)
    grown_mib = int(subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout)
    assert grown_mib < 16


# --------------------------------------------------------------------------- 14. environment


def test_env_clean_passes_only_the_allowlist(tmp_path, monkeypatch):
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "hunter2")
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0")
    full = launcher.run_environment()
    assert full["AWS_SECRET_ACCESS_KEY"] == "hunter2"
    clean = launcher.run_environment(clean=True)
    assert "AWS_SECRET_ACCESS_KEY" not in clean
    assert clean["LC_ALL"] == "C.UTF-8" and clean["CUDA_VISIBLE_DEVICES"] == "0"
    assert clean["PATH"] == os.environ["PATH"] and clean["PYTHONHASHSEED"] == "0"
    workdir = tmp_path / "work"
    workdir.mkdir()
    cfg = {"record": str(workdir / "record.pt"), "env_clean": True}
    outcome = launcher.run_command("env", cfg, str(workdir), str(workdir), timeout=60)
    printed = outcome.output(limit=100_000)
    assert "AWS_SECRET_ACCESS_KEY" not in printed and "LC_ALL=C.UTF-8" in printed
    cfg["env_clean"] = False
    assert "AWS_SECRET_ACCESS_KEY=hunter2" in launcher.run_command("env", cfg, str(workdir), str(workdir), 60).output(limit=100_000)


def test_env_clean_is_a_cli_option():
    from click.testing import CliRunner

    from autofix.cli import cli

    assert "--env-clean" in CliRunner().invoke(cli, ["--help"]).output
