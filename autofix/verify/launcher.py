"""Starts verification runs as separate processes, with a timeout that kills the whole group.

Script runs go through the warm :mod:`~autofix.verify.zygote` where ``fork`` is
available (Linux), else through a fresh ``python -m autofix.verify.bootstrap``.
Command runs (``--verify-cmd``) are a shell in their own session, recorded by
the ``_site/sitecustomize.py`` hook.
"""

from __future__ import annotations

import atexit
import json
import os
import select
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from typing import Any, Dict, Optional

import autofix

_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(autofix.__file__)))
_SITE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_site")
#: Set to 0 to start every run as a fresh interpreter (no fork).
ZYGOTE_ENV = "AUTOFIX_VERIFY_ZYGOTE"


@dataclass
class RunOutcome:
    record_path: str
    timed_out: bool
    returncode: Optional[int]
    output_path: str
    seconds: float

    def output(self, limit: int = 4000) -> str:
        try:
            with open(self.output_path, encoding="utf-8", errors="replace") as handle:
                text = handle.read()
        except OSError:
            return ""
        return text[-limit:]


def run_environment(extra_path: tuple = ()) -> Dict[str, str]:
    env = dict(os.environ)
    env["PYTHONHASHSEED"] = "0"
    env.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    paths = [*extra_path, _PACKAGE_ROOT]
    if env.get("PYTHONPATH"):
        paths.append(env["PYTHONPATH"])
    env["PYTHONPATH"] = os.pathsep.join(paths)
    return env


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class _LineReader:
    """Line reads with a timeout on a pipe (no hidden buffer, so select stays honest)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = b""

    def readline(self, timeout: Optional[float]) -> Optional[bytes]:
        deadline = None if timeout is None else time.monotonic() + timeout
        while b"\n" not in self.buffer:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([self.fd], [], [], left)
            if not ready:
                return None
            chunk = os.read(self.fd, 65536)
            if not chunk:
                raise EOFError("zygote closed its pipe")
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line


class Zygote:
    def __init__(self) -> None:
        self.process: Optional[subprocess.Popen] = None
        self.reader: Optional[_LineReader] = None
        self.ready = False
        self.lock = threading.Lock()

    def spawn(self) -> None:
        """Start the helper without waiting for it (it imports torch while the caller does too)."""
        with self.lock:
            if _use_zygote() and (self.process is None or self.process.poll() is not None):
                self._spawn()

    def _start(self) -> None:
        if self.process is None or self.process.poll() is not None or self.reader is None:
            self._spawn()
        if not self.ready and self.reader.readline(120.0) is None:
            self.close()
            raise RuntimeError("verification helper did not start")
        self.ready = True

    def _spawn(self) -> None:
        self.ready = False
        self.process = subprocess.Popen(
            [sys.executable, "-m", "autofix.verify.zygote"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=tempfile.gettempdir(),
            env=run_environment(),
        )
        self.reader = _LineReader(self.process.stdout.fileno())

    def run(self, config_path: str, cwd: str, output: str, timeout: float):
        with self.lock:
            self._start()
            request = {"config": config_path, "cwd": cwd, "output": output}
            self.process.stdin.write((json.dumps(request) + "\n").encode())
            self.process.stdin.flush()
            pid = json.loads(self.reader.readline(60.0))["pid"]
            line = self.reader.readline(timeout)
            timed_out = line is None
            if timed_out:
                _kill_group(pid)
                line = self.reader.readline(60.0)
            status = json.loads(line)["status"]
            _kill_group(pid)  # leftovers the script started in the background
            return os.waitstatus_to_exitcode(status) if hasattr(os, "waitstatus_to_exitcode") else status >> 8, timed_out

    def close(self) -> None:
        if self.process is not None:
            try:
                self.process.stdin.close()
                self.process.wait(5)
            except Exception:  # noqa: BLE001  (closing must not fail)
                self.process.kill()
            self.process = None


_zygote = Zygote()
atexit.register(_zygote.close)
warm = _zygote.spawn


def _use_zygote() -> bool:
    return hasattr(os, "fork") and sys.platform.startswith("linux") and os.environ.get(ZYGOTE_ENV, "1") != "0"


def run_script(config: Dict[str, Any], workdir: str, timeout: float, fork: bool = True, cwd: Optional[str] = None) -> RunOutcome:
    """Run one script under the bootstrap (in ``cwd``, default ``workdir``); never raises for the script's failures."""
    cwd = cwd or workdir
    config_path = os.path.join(workdir, "autofix-run.json")
    output_path = os.path.join(workdir, "autofix-run.log")
    with open(config_path, "w", encoding="utf-8") as handle:
        json.dump(config, handle)
    started = time.monotonic()
    returncode = None
    if fork and _use_zygote():
        try:
            returncode, timed_out = _zygote.run(config_path, cwd, output_path, timeout)
        except (EOFError, RuntimeError, OSError, ValueError):
            # The helper itself died (not the script): run this one the slow way.
            _zygote.close()
    if returncode is None:
        with open(output_path, "wb") as log:
            returncode, timed_out = _popen_wait(
                [sys.executable, "-m", "autofix.verify.bootstrap", config_path],
                cwd,
                log,
                run_environment(),
                timeout,
            )
    return RunOutcome(config["record"], timed_out, returncode, output_path, time.monotonic() - started)


def python_script_command(command: str, cwd: str) -> Optional[list]:
    """``[script, *args]`` when ``command`` is this very interpreter running a script file.

    Such a command can fork from the warm helper like a ``--verify`` run; any
    other command (a shell pipeline, ``-m``, another interpreter) runs as is.
    """
    try:
        argv = shlex.split(command)
    except ValueError:
        return None
    if len(argv) < 2 or argv[1].startswith("-") or not argv[1].endswith(".py"):
        return None
    executable = argv[0] if os.sep in argv[0] else shutil.which(argv[0])
    if executable is None or os.path.abspath(executable) != os.path.abspath(sys.executable):
        return None
    if not os.path.isfile(os.path.join(cwd, argv[1])):
        return None
    return argv[1:]


def run_command(command: str, config: Dict[str, Any], workdir: str, cwd: str, timeout: float) -> RunOutcome:
    """Run a shell command in ``cwd``; its first Python process is recorded."""
    from autofix.verify.bootstrap import CONFIG_ENV

    config_path = os.path.join(workdir, "autofix-run.json")
    output_path = os.path.join(workdir, "autofix-run.log")
    with open(config_path, "w", encoding="utf-8") as handle:
        json.dump(config, handle)
    env = run_environment((_SITE,))
    env[CONFIG_ENV] = config_path
    started = time.monotonic()
    with open(output_path, "wb") as log:
        returncode, timed_out = _popen_wait(command, cwd, log, env, timeout, shell=True)
    return RunOutcome(config["record"], timed_out, returncode, output_path, time.monotonic() - started)


def _popen_wait(args, cwd, log, env, timeout, shell=False):
    process = subprocess.Popen(
        args,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
        shell=shell,
        start_new_session=True,
    )
    try:
        returncode = process.wait(timeout)
    except subprocess.TimeoutExpired:
        _kill_group(process.pid)
        return process.wait(), True
    _kill_group(process.pid)  # leftovers the command started in the background
    return returncode, False
