"""A warm helper process: imports torch once, then forks one child per run.

Importing torch costs a second or two per process; every verification needs
two or three runs. Forking right after the import, before any torch operation
(no thread pool, no CUDA context yet), is safe, and each child starts with
torch already loaded. Protocol on stdin/stdout, one JSON line each way:

    -> {"config": PATH, "cwd": DIR, "output": FILE}
    <- {"pid": N}                 once the child runs (its own session: killpg(N))
    <- {"status": S}              when it ended (os.waitpid status)
"""

from __future__ import annotations

import json
import os
import sys


def _child(request) -> None:
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


def serve() -> None:
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
        print(json.dumps({"status": status}), file=reply, flush=True)


if __name__ == "__main__":
    serve()
