"""A warm helper process: imports torch once, then forks one child per run.

Importing torch costs a second or two per process; every verification needs
two or three runs. Forking right after the import, before any torch operation
(no thread pool, no CUDA context yet), is safe, and each child starts with
torch already loaded. Protocol on stdin/stdout, one JSON line each way:

    -> {"config": PATH, "cwd": DIR, "output": FILE}
    <- {"pid": N}                 once the child runs (its own session: killpg(N))
    <- {"status": S}              when it ended (os.waitpid status)

No process of a run outlives it. The helper is a child subreaper (Linux
``PR_SET_CHILD_SUBREAPER``): a process of the run that leaves its session
(``os.setsid()``) and loses its parent becomes the helper's child instead of
init's, and is killed, with everything below it, before the status is sent.
``python -m autofix.verify.zygote --reap -- ARGV...`` gives a command run
started without the helper the same guarantee.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from typing import Any, Dict, List, NoReturn, Optional

_PR_SET_CHILD_SUBREAPER = 36


def become_subreaper() -> bool:
    """Adopt the orphans of every descendant (Linux); False where that is not possible."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def _children() -> List[int]:
    """Our children, from /proc (adopted orphans included)."""
    me = str(os.getpid())
    found = []
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[1].decode() == me:  # fields: state, ppid, ...
            found.append(int(name))
    return found


def kill_descendants() -> None:
    """SIGKILL every descendant and reap it; an orphan that pops up is adopted, then killed too."""
    while True:
        for pid in _children():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return
        except InterruptedError:
            continue


def _child(request: Dict[str, Any]) -> NoReturn:
    os.setsid()
    out = os.open(request["output"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(out, 1)
    os.dup2(out, 2)
    os.chdir(request["cwd"])
    code = 3
    try:
        sys.stdin = open(0, closefd=False)
        sys.stdout = open(1, "w", buffering=1, closefd=False)
        sys.stderr = open(2, "w", buffering=1, closefd=False)
        from autofix.verify import bootstrap

        with open(request["config"], encoding="utf-8") as handle:
            config = json.load(handle)
        code = bootstrap.run_script(config)
    except BaseException:  # noqa: BLE001  (a failed child reports, then exits)
        import traceback

        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def _private_path() -> None:
    # Nothing importable from the folder the helper started in, even where -P is missing.
    here = os.getcwd()
    sys.path[:] = [p for p in sys.path if p not in ("", here)]


def serve() -> None:
    _private_path()
    become_subreaper()
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    # Importing torch once, here, is the point of the helper. Every optimizer's __init__ imports torch._dynamo (~1.7 s); pay it once here.
    # Still a single OS thread afterwards, so forking stays safe.
    import torch  # noqa: F401
    import torch._dynamo  # noqa: F401
    import torch._inductor.config  # noqa: F401

    import autofix.verify.bootstrap
    import autofix.verify.recorder  # noqa: F401

    reply = sys.stdout
    print(json.dumps({"ready": True}), file=reply, flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            _child(request)
        print(json.dumps({"pid": pid}), file=reply, flush=True)
        _, status = os.waitpid(pid, 0)
        kill_descendants()  # whatever the run left behind, in its session or not
        print(json.dumps({"status": status}), file=reply, flush=True)


def reap(argv: List[str]) -> int:
    """Run ``argv`` as a subreaper; on exit or SIGTERM, kill everything it left. Returns its exit code."""
    _private_path()
    become_subreaper()
    child: Optional[subprocess.Popen] = None

    def stop(signum: int, frame: object) -> None:
        kill_descendants()
        os._exit(128 + signum)

    signal.signal(signal.SIGTERM, stop)
    child = subprocess.Popen(argv)
    code = child.wait()
    kill_descendants()
    return code if code >= 0 else 128 - code


def main(argv: Optional[List[str]] = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:2] == ["--reap", "--"]:
        return reap(args[2:])
    serve()
    return 0


if __name__ == "__main__":
    sys.exit(main())
