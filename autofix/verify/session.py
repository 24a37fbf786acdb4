"""One verification: set up private working copies, run original / patched / reference, judge."""

from __future__ import annotations

import difflib
import os
import shutil
import tempfile
from typing import Callable, Dict, Iterable, List, Optional, Set, Tuple

from autofix.types import Expectation, Verification
from autofix.verify import launcher
from autofix.verify.compare import Run, load_run
from autofix.verify.settings import VerifySettings
from autofix.verify.verdict import ACCEPTED, decide

# Not copied into the temporary trees of --verify-cmd: history and caches.
_SKIP = {".git", ".hg", ".svn", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".tox", "node_modules"}


def expectations(codes: Iterable[str]) -> Set[Expectation]:
    from autofix import registry

    found = set()
    for code in codes:
        try:
            found.add(registry.get_rule(code).EXPECTATION)
        except registry.UnknownRuleError:
            continue
    return found


def _may_fork(device: str) -> bool:
    """Whether runs may fork from the warm helper: CPU only (CUDA cannot cross a fork safely)."""
    import torch

    return device == "cpu" or (device == "auto" and not torch.cuda.is_available())


def _device_unavailable(device: str) -> Optional[Verification]:
    import torch

    if device == "cuda" and not torch.cuda.is_available():
        return Verification("inconclusive", 0, None, "--device cuda was asked for, but CUDA is not available here")
    return None


def _config(settings: VerifySettings, record: str, reference: Optional[str]) -> Dict:
    """``reference``: the failure kind a reference run works around (graph-freed, inplace)."""
    return {
        "record": record,
        "device": settings.device,
        "max_steps": settings.max_steps,
        "record_steps": settings.record_steps,
        "live_graph_steps": settings.live_graph_steps,
        "record_bytes": settings.record_bytes,
        "retain_graph": reference == "graph-freed",
        "clone_saved": reference == "inplace",
        "seed": settings.seed,
        "env_clean": getattr(settings, "env_clean", False),
    }


def _judge(runner: Callable[[str, Optional[str]], Run], codes: Tuple[str, ...], settings: VerifySettings, sources: Dict[str, Tuple[bytes, bytes]]) -> Verification:
    original = runner("original", None)
    patched = runner("patched", None)
    # The gradients the author meant: the original again, with the failure's cause neutralised.
    kind = original.failure if original.failure in ("graph-freed", "inplace") else None
    reference = runner("reference", kind) if kind else None
    counter = {"n": 0}

    def rerun(run: Run) -> Run:
        counter["n"] += 1
        return runner(f"{run.label}-again{counter['n']}", kind if run.label == "reference" else None)

    verification = decide(original, patched, expectations(codes), settings, reference, rerun)
    if verification.verdict not in ACCEPTED:
        verification = _with_report(verification, original, patched, sources)
    return verification


def _with_report(verification: Verification, original: Run, patched: Run, sources: Dict[str, Tuple[bytes, bytes]]) -> Verification:
    """Keep the diff and both runs' output in a file that outlives the temp dirs ("this diff might be helpful")."""
    handle, path = tempfile.mkstemp(prefix="autofix-verify-", suffix=".log")
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        out.write(f"verdict: {verification.verdict}\n{verification.detail}\n")
        for name, (before, after) in sources.items():
            old = before.decode("utf-8", "replace").splitlines(keepends=True)
            new = after.decode("utf-8", "replace").splitlines(keepends=True)
            out.write("\n" + "".join(difflib.unified_diff(old, new, f"a/{name}", f"b/{name}")))
        for run in (original, patched):
            out.write(f"\n===== {run.label} run: {run.status} ({run.seconds:.1f}s)\n")
            if run.exception:
                out.write(run.exception.get("traceback", "") + "\n")
            out.write(run.output)
    return Verification(verification.verdict, verification.steps_compared, verification.max_abs_diff,
                        f"{verification.detail}; full report: {path}")


def verify_file(original: bytes, patched: bytes, path: str, applied_codes: Tuple[str, ...], settings: VerifySettings) -> Verification:
    unavailable = _device_unavailable(settings.device)
    if unavailable:
        return unavailable
    name = os.path.basename(path) or "script.py"
    fork = _may_fork(settings.device)
    folder = os.path.dirname(os.path.abspath(path))
    with tempfile.TemporaryDirectory(prefix="autofix-verify-") as tmp:

        def runner(label: str, reference: Optional[str]) -> Run:
            workdir = os.path.join(tmp, label)
            os.makedirs(workdir)
            script = os.path.join(workdir, name)
            with open(script, "wb") as handle:
                handle.write(patched if label.startswith("patched") else original)
            config = _config(settings, os.path.join(workdir, "record.pt"), reference)
            config.update(script=script, args=[], extra_path=[folder])
            outcome = launcher.run_script(config, workdir, settings.timeout, fork=fork)
            return load_run(outcome, label.split("-again")[0])

        return _judge(runner, tuple(applied_codes), settings, {path: (original, patched)})


def _copy_tree(root: str, target: str) -> None:
    """Copy the project at ``root`` to ``target`` so that a run in the copy cannot write into ``root``.

    Virtual environments (a folder holding ``pyvenv.cfg``, whatever its name)
    are linked, not copied, so that ``.venv/bin/python train.py`` still works;
    anything else is copied, ``env/`` or ``venv/`` packages included. A link
    in the project that leads into it is made to lead into the copy instead;
    links out of the project (datasets, checkpoints elsewhere) stay as they are.
    """
    root = os.path.realpath(root)
    virtualenvs = []

    def ignore(folder: str, names: List[str]) -> Set[str]:
        skipped = {n for n in names if n in _SKIP}
        for n in names:
            path = os.path.join(folder, n)
            if n not in skipped and not os.path.islink(path) and os.path.isfile(os.path.join(path, "pyvenv.cfg")):
                virtualenvs.append(os.path.relpath(path, root))
                skipped.add(n)
        return skipped

    shutil.copytree(root, target, symlinks=True, ignore=ignore)
    for relative in virtualenvs:
        os.symlink(os.path.join(root, relative), os.path.join(target, relative))
    for folder, dirs, files in os.walk(target):
        for name in dirs + files:
            path = os.path.join(folder, name)
            relative = os.path.relpath(path, target)
            if not os.path.islink(path) or relative in virtualenvs:
                continue
            destination = os.path.realpath(os.path.join(root, relative))
            if destination == root or destination.startswith(root + os.sep):
                os.unlink(path)
                os.symlink(os.path.join(target, os.path.relpath(destination, root)), path)


def verify_command(root: str, changes: Dict[str, Tuple[bytes, bytes]], command: str, applied_codes: Tuple[str, ...], settings: VerifySettings) -> Verification:
    root = os.path.abspath(root)
    unavailable = _device_unavailable(settings.device)
    if unavailable:
        return unavailable
    fork = _may_fork(settings.device)
    with tempfile.TemporaryDirectory(prefix="autofix-verify-") as tmp:

        def runner(label: str, reference: Optional[str]) -> Run:
            # A fresh tree per run: a checkpoint one run writes must not feed the next.
            workdir = os.path.join(tmp, label)
            tree = os.path.join(workdir, "tree")
            _copy_tree(root, tree)
            side = "patched" if label.startswith("patched") else "original"
            for changed, (before, after) in changes.items():
                relative = os.path.relpath(os.path.abspath(os.path.join(root, changed)), root)
                with open(os.path.join(tree, relative), "wb") as handle:
                    handle.write(after if side == "patched" else before)
            config = _config(settings, os.path.join(workdir, "record.pt"), reference)
            script = launcher.python_script_command(command, tree) if fork else None
            if script is not None:
                config.update(script=os.path.join(tree, script[0]), args=script[1:], extra_path=[])
                outcome = launcher.run_script(config, workdir, settings.timeout, cwd=tree)
                return load_run(outcome, label.split("-again")[0])
            outcome = launcher.run_command(command, config, workdir, tree, settings.timeout)
            return load_run(outcome, label.split("-again")[0], command_mode=True)

        return _judge(runner, tuple(applied_codes), settings, changes)
