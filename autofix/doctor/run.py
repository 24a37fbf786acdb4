"""Run the user's command under the recorder, with evidence, in a private copy of the project.

The same machinery as ``--verify-cmd`` (:mod:`autofix.verify.session` and
:mod:`~autofix.verify.launcher`): a fresh copy of the project per run, a
``python script.py`` command forked from the warm helper, anything else run
as a shell command whose first Python process is recorded. File names in the
evidence are mapped back from the copy to the project.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence

from autofix.verify import launcher
from autofix.verify.compare import Run, load_run
from autofix.verify.session import _config, _copy_tree, _may_fork
from autofix.verify.settings import VerifySettings


@dataclass
class DoctorRun:
    """One run of the command: the verifier's record plus the doctor's evidence."""

    run: Run
    evidence: Dict[str, Any] = field(default_factory=dict)

    @property
    def failure(self) -> Optional[Dict[str, Any]]:
        return self.evidence.get("failure")


def run_once(
    command: str,
    root: str,
    paths: Sequence[str],
    settings: VerifySettings,
    focus: Optional[Dict[str, Any]] = None,
    label: str = "doctor",
) -> DoctorRun:
    """Run ``command`` once in a copy of ``root``; ``paths`` are the user's files (under ``root``)."""
    root = os.path.abspath(root)
    with tempfile.TemporaryDirectory(prefix="autofix-doctor-") as tmp:
        workdir = os.path.join(tmp, label)
        tree = os.path.join(workdir, "tree")
        _copy_tree(root, tree)
        config = _config(settings, os.path.join(workdir, "record.pt"), None)
        config["doctor"] = {
            "roots": [_into(os.path.abspath(p), root, tree) for p in paths] or [tree],
            "focus": focus,
            "holder_steps": settings.live_graph_steps,
            "record_steps": settings.record_steps,
        }
        fork = _may_fork(settings.device)
        script = launcher.python_script_command(command, tree) if fork else None
        if script is not None:
            config.update(script=os.path.join(tree, script[0]), args=script[1:], extra_path=[])
            outcome = launcher.run_script(config, workdir, settings.timeout, cwd=tree)
            run = load_run(outcome, label)
        else:
            outcome = launcher.run_command(command, config, workdir, tree, settings.timeout)
            run = load_run(outcome, label, command_mode=True)
        evidence = _load_evidence(outcome.record_path)
        run.output = run.output.replace(tree, root)
        if run.exception:
            run.exception = {k: v.replace(tree, root) for k, v in run.exception.items()}
        return DoctorRun(run, _map_files(evidence, tree, root))


def _load_evidence(path: str) -> Dict[str, Any]:
    if not os.path.exists(path):
        return {}
    import torch

    record = torch.load(path, weights_only=True)
    evidence = record.get("evidence")
    return evidence if isinstance(evidence, dict) else {}


def _into(path: str, root: str, tree: str) -> str:
    relative = os.path.relpath(path, root)
    return tree if relative == os.curdir else os.path.join(tree, relative)


def _map_files(value: Any, tree: str, root: str) -> Any:
    """Every file name under the private copy, as the same file in the project."""
    if isinstance(value, dict):
        return {k: _map_files(v, tree, root) for k, v in value.items()}
    if isinstance(value, list):
        return [_map_files(v, tree, root) for v in value]
    if isinstance(value, str) and (value == tree or value.startswith(tree + os.sep)):
        return root + value[len(tree):]
    return value


def traceback_frames(text: str, roots: Sequence[str]) -> List[Dict[str, Any]]:
    """The frames of a formatted traceback that lie under ``roots``, innermost first."""
    import re

    found = []
    for match in re.finditer(r'File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<function>\S+)', text):
        filename = os.path.abspath(match.group("file"))
        if "site-packages" in filename:
            continue
        if any(filename == r or filename.startswith(r.rstrip(os.sep) + os.sep) for r in roots):
            found.append({"file": filename, "line": int(match.group("line")), "function": match.group("function")})
    return list(reversed(found))
