"""Starts verification runs as separate processes, with a timeout that kills all of each run.

Script runs go through the warm :mod:`~autofix.verify.zygote` where ``fork`` is
available (Linux), else through a fresh ``python -m autofix.verify.bootstrap``.
Command runs (``--verify-cmd``) are a shell in their own session, recorded by
the ``_site/sitecustomize.py`` hook.

Isolation: helpers start with ``-P`` (Python 3.11+: nothing is imported from
the folder they start in) in a private folder only this user can enter, so
that modules another user drops in the system temp folder are never imported.
On Linux every run is under a child subreaper (the helper, or ``zygote
--reap`` for fresh processes): a process that leaves the run's session with
``os.setsid()`` is still killed when the run ends or times out.

Environment: runs get autofix's whole environment plus ``PYTHONHASHSEED=0``,
``CUBLAS_WORKSPACE_CONFIG`` (unless set), ``PYTHONPATH`` with autofix's own
folder (and ``_site/`` for command runs) in front of the user's entries, and
``AUTOFIX_VERIFY_CONFIG`` for command runs. With ``env_clean`` only the
variables in :data:`ENV_ALLOWLIST` (and those prefixed as in
:data:`ENV_ALLOWLIST_PREFIXES`) are passed on, plus autofix's own.
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
from typing import IO, Any, Dict, List, Optional, Sequence, Tuple, Union

import autofix

_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(autofix.__file__)))
_SITE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_site")
_REAPER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "zygote.py")
#: Set to 0 to start every run as a fresh interpreter (no fork).
ZYGOTE_ENV = "AUTOFIX_VERIFY_ZYGOTE"
#: ``-P``: no unsafe path (the start folder) first on ``sys.path``; Python 3.11+.
_SAFE_PATH = ["-P"] if sys.version_info >= (3, 11) else []
#: What ``--env-clean`` passes on to user code (besides autofix's own variables).
ENV_ALLOWLIST = frozenset({
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TERM", "TZ", "TMPDIR",
    "PYTHONPATH", "VIRTUAL_ENV", "CONDA_PREFIX", "LD_LIBRARY_PATH",
    "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS",
})
ENV_ALLOWLIST_PREFIXES = ("LC_", "CUDA_", "NVIDIA_", "CUBLAS_", "CUDNN_")
#: Bytes of a run's output kept in memory: its tail, for reports.
OUTPUT_TAIL_BYTES = 64 * 1024


@dataclass
class RunOutcome:
    record_path: str
    timed_out: bool
    returncode: Optional[int]
    output_path: str
    seconds: float

    def output(self, limit: int = 4000) -> str:
        """The last ``limit`` characters the run printed; only the file's tail is read."""
        try:
            with open(self.output_path, "rb") as handle:
                handle.seek(0, os.SEEK_END)
                size = handle.tell()
                handle.seek(max(0, size - min(OUTPUT_TAIL_BYTES, 4 * limit)))
                data = handle.read()
        except OSError:
            return ""
        return data.decode("utf-8", errors="replace")[-limit:]


def run_environment(extra_path: Sequence[str] = (), clean: bool = False) -> Dict[str, str]:
    """The environment of a run (see the module's docstring); ``clean``: the allowlist only."""
    if clean:
        env = {
            k: v for k, v in os.environ.items()
            if k in ENV_ALLOWLIST or k.startswith(ENV_ALLOWLIST_PREFIXES) or k == ZYGOTE_ENV
        }
    else:
        env = dict(os.environ)
    env["PYTHONHASHSEED"] = "0"
    env.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    paths = [*extra_path, _PACKAGE_ROOT]
    if env.get("PYTHONPATH"):
        paths.append(env["PYTHONPATH"])
    env["PYTHONPATH"] = os.pathsep.join(paths)
    return env


def private_folder() -> str:
    """A folder only this user can enter, made once per process: the helpers' start folder."""
    global _private
    if _private is None or not os.path.isdir(_private):
        _private = tempfile.mkdtemp(prefix="autofix-helper-")  # mode 0700
        atexit.register(shutil.rmtree, _private, True)
    return _private


_private: Optional[str] = None


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
        self.clean_env = False
        self.lock = threading.Lock()

    def spawn(self, clean_env: bool = False) -> None:
        """Start the helper without waiting for it (it imports torch while the caller does too)."""
        with self.lock:
            if _use_zygote() and (self.process is None or self.process.poll() is not None):
                self._spawn(clean_env)

    def _start(self, clean_env: bool) -> Tuple[subprocess.Popen, _LineReader]:
        if self.process is None or self.process.poll() is not None or self.reader is None or self.clean_env != clean_env:
            self.close()
            self._spawn(clean_env)
        assert self.process is not None and self.reader is not None
        if not self.ready and self.reader.readline(120.0) is None:
            self.close()
            raise RuntimeError("verification helper did not start")
        self.ready = True
        return self.process, self.reader

    def _spawn(self, clean_env: bool = False) -> None:
        self.ready = False
        self.clean_env = clean_env
        process = subprocess.Popen(
            [sys.executable, *_SAFE_PATH, "-m", "autofix.verify.zygote"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=private_folder(),
            env=run_environment(clean=clean_env),
        )
        assert process.stdout is not None
        self.process = process
        self.reader = _LineReader(process.stdout.fileno())

    def run(self, config_path: str, cwd: str, output: str, timeout: float, clean_env: bool = False) -> Tuple[int, bool]:
        with self.lock:
            process, reader = self._start(clean_env)
            assert process.stdin is not None
            request = {"config": config_path, "cwd": cwd, "output": output}
            process.stdin.write((json.dumps(request) + "\n").encode())
            process.stdin.flush()
            pid = json.loads(_required(reader.readline(60.0)))["pid"]
            line = reader.readline(timeout)
            timed_out = line is None
            if timed_out:
                _kill_group(pid)
                line = reader.readline(60.0)
            status = json.loads(_required(line))["status"]
            _kill_group(pid)  # leftovers the script started in the background
            return os.waitstatus_to_exitcode(status) if hasattr(os, "waitstatus_to_exitcode") else status >> 8, timed_out

    def close(self) -> None:
        if self.process is not None:
            try:
                if self.process.stdin is not None:
                    self.process.stdin.close()
                self.process.wait(5)
            except Exception:  # noqa: BLE001  (closing must not fail)
                self.process.kill()
            self.process = None
            self.reader = None


def _required(line: Optional[bytes]) -> bytes:
    if line is None:
        raise RuntimeError("verification helper stopped answering")
    return line


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
    clean = bool(config.get("env_clean", False))
    returncode: Optional[int] = None
    timed_out = False
    if fork and _use_zygote():
        try:
            returncode, timed_out = _zygote.run(config_path, cwd, output_path, timeout, clean)
        except (EOFError, RuntimeError, OSError, ValueError):
            # The helper itself died (not the script): run this one the slow way.
            _zygote.close()
    if returncode is None:
        with open(output_path, "wb") as log:
            # The bootstrap puts the script's own folder first on sys.path, as `python script.py` would.
            returncode, timed_out = _popen_wait(
                [sys.executable, *_SAFE_PATH, "-m", "autofix.verify.bootstrap", config_path],
                cwd,
                log,
                run_environment(clean=clean),
                timeout,
            )
    return RunOutcome(config["record"], timed_out, returncode, output_path, time.monotonic() - started)


def python_script_command(command: str, cwd: str) -> Optional[List[str]]:
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
    env = run_environment((_SITE,), clean=bool(config.get("env_clean", False)))
    env[CONFIG_ENV] = config_path
    started = time.monotonic()
    with open(output_path, "wb") as log:
        returncode, timed_out = _popen_wait(command, cwd, log, env, timeout, shell=True)
    return RunOutcome(config["record"], timed_out, returncode, output_path, time.monotonic() - started)


def _popen_wait(
    args: Union[str, List[str]], cwd: str, log: IO[bytes], env: Dict[str, str], timeout: float, shell: bool = False
) -> Tuple[int, bool]:
    """Run ``args`` in its own session; kill all of it at the timeout. Returns (exit code, timed out)."""
    argv = ["/bin/sh", "-c", args] if shell and isinstance(args, str) else list(args)
    if _can_reap():
        # The subreaper outlives the command long enough to kill whatever it left, setsid or not.
        # Run as a plain script (stdlib only, no autofix import) with -S: no site hooks in
        # the reaper itself, the _site/ recorder is for the command's Python.
        argv = [sys.executable, "-S", *_SAFE_PATH, _REAPER, "--reap", "--", *argv]
    process = subprocess.Popen(
        argv,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
        start_new_session=True,
    )
    try:
        returncode = process.wait(timeout)
    except subprocess.TimeoutExpired:
        if _can_reap():
            process.terminate()  # the subreaper kills every process of the run, then exits
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                pass
        _kill_group(process.pid)
        return process.wait(), True
    _kill_group(process.pid)  # leftovers the command started in the background
    return returncode, False


def _can_reap() -> bool:
    return sys.platform.startswith("linux")
