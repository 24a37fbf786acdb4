"""The doctor: ``autofix --run CMD``.

Runs the user's command for a few optimizer steps under the verifier's
recorder with evidence collection (:mod:`autofix.doctor.evidence`), re-runs it
with the expensive instruments (anomaly mode, saved-tensor hooks, graph tags)
when it failed, maps the evidence to rules and lines in the user's files
(:mod:`autofix.doctor.diagnose`), merges it with the static findings on the
same files, and builds fixes where the static rules were silent
(:mod:`autofix.doctor.fixes`). The checklist of the article this project
started from, automated: one backward per loss, sum the losses, zero_grad
placement, in-place ops in forward, detach carried state, retain_graph.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

from autofix.types import FileResult, Finding, Options

__all__ = ["DoctorReport", "diagnose_command"]

#: Optimizer steps a doctor run makes unless ``--max-steps`` says otherwise.
DEFAULT_STEPS = 5


@dataclass
class DoctorReport:
    """What the run showed, besides the findings."""

    #: completed | stopped | failed | timeout | no-record
    status: str
    steps: int
    #: A one-paragraph account for the user (how the run ended; the traceback tail of an unrelated failure).
    summary: str
    #: Per-file results: static findings with runtime evidence merged in, and the doctor's own.
    results: List[FileResult] = field(default_factory=list)
    #: Findings the doctor made from runtime evidence alone (no static rule reported the spot).
    runtime_only: int = 0
    diagnoses: List[Any] = field(default_factory=list)


def diagnose_command(
    command: str,
    root: str,
    paths: Sequence[str],
    files: Sequence[str],
    options: Options,
    settings: Any,
    static: Sequence[FileResult],
) -> DoctorReport:
    """Run ``command`` in a copy of ``root``; ``files`` are the user's Python files, ``static`` their results."""
    from autofix.doctor import diagnose as dx
    from autofix.doctor.run import run_once, traceback_frames

    roots = [os.path.abspath(p) for p in paths] or [os.path.abspath(root)]
    first = run_once(command, root, roots, settings)
    run = first.run
    evidence = first.evidence
    step_count = run.step_count
    diagnoses: List[dx.Diagnosis] = []
    summary = ""
    message = (run.exception or {}).get("message", "")
    if run.status == "failed" and run.failure in ("graph-freed", "inplace"):
        failing_step = int((first.failure or {}).get("step", step_count))
        focus = {"kind": run.failure, "from_step": max(0, failing_step - 1)}
        second = run_once(command, root, roots, settings, focus=focus, label="doctor-focus")
        failure = second.failure or first.failure or {}
        backwards = (second.evidence or evidence).get("backwards") or []
        failing = backwards[failure["backward"]] if "backward" in failure and failure["backward"] < len(backwards) else None
        step = failing_step + 1
        if run.failure == "graph-freed":
            diagnoses = dx.graph_freed(failure, failing, step, message)
        else:
            records = [r for r in (second.evidence.get("inplace") or []) if r.get("site")]
            sites = traceback_frames((run.exception or {}).get("traceback", ""), roots)
            diagnoses = dx.carried_inplace(failure, failing, step, message) or dx.inplace(failure, records, sites, step, message)
        summary = f"the run failed at step {step}: {run.describe_failure()}"
        if not diagnoses:
            summary += "; the doctor could not map it to a line in your files:\n" + _tail(run)
    elif run.status in ("failed", "timeout", "no-record"):
        summary = run.describe_failure().splitlines()[0]
        if run.status == "failed":
            summary = f"the command failed for a reason no rule explains (no finding made): {summary}"
        results = sorted([*static, *_unrelated(run, roots, command, traceback_frames)], key=lambda r: r.path)
        return DoctorReport(run.status, step_count, summary, results, 0)
    else:
        diagnoses = _completed(run, evidence)
        summary = f"the run completed {step_count} optimizer step(s)" + ("" if diagnoses else "; no runtime problem observed")
    results, runtime_only = merge(diagnoses, static, files, options)
    return DoctorReport(run.status, step_count, summary, results, runtime_only, diagnoses)


def _completed(run: Any, evidence: Dict[str, Any]) -> List[Any]:
    from autofix.doctor import diagnose as dx
    from autofix.verify.compare import Comparer

    from autofix.verify.compare import grows

    diagnoses = list(dx.leaks(evidence.get("holders") or [], backward_grows=grows(run.graph_sizes())))
    diagnoses += dx.retained_shares(evidence)
    broken = Comparer(device=run.device).invariant(run)
    if broken is not None:
        diagnoses += dx.invariant(evidence, broken.step, broken.describe())
    diagnoses += _unused_retains(evidence)
    return diagnoses


def _unused_retains(evidence: Dict[str, Any]) -> List[Any]:
    """AF106 (retain-graph): reported once that rule is registered; until then the evidence waits here."""
    from autofix import registry
    from autofix.doctor import diagnose as dx
    from autofix.types import Evidence

    try:
        registry.get_rule("AF106")
    except registry.UnknownRuleError:
        return []
    found = []
    for record, step in dx.unused_retains(evidence):
        site = record["site"]
        said = f"in step {step} the backward at {dx._where(site)} kept its graph (retain_graph=True) and no later backward of the step used it"
        found.append(dx.Diagnosis(
            "AF106", site["file"], int(site["line"]),
            "retain_graph=True keeps a graph nothing re-uses (no fix: drop retain_graph=True)",
            Evidence("runtime", step, said, dx._related(site)),
        ))
    return found


def _tail(run: Any, lines: int = 12) -> str:
    """The traceback without library frames (the user's lines and the error), at most ``lines`` lines."""
    text = (run.exception or {}).get("traceback") or run.output or ""
    kept: List[str] = []
    library = False
    for line in text.rstrip().splitlines():
        if line.lstrip().startswith('File "'):
            library = "site-packages" in line or "dist-packages" in line
        elif not line.startswith(" "):
            library = False
        if not library:
            kept.append(line)
    return "\n".join(kept[-lines:])


def _unrelated(run: Any, roots: List[str], command: str, frames: Any) -> List[FileResult]:
    sites = frames((run.exception or {}).get("traceback", ""), roots)
    path = os.path.relpath(sites[0]["file"]) if sites else command
    what = run.describe_failure()
    if run.status == "failed":
        what = f"the run failed for a reason no rule explains (no finding): {what}\n{_tail(run)}"
    return [FileResult(path, None, None, error=what)]


# --------------------------------------------------------------------------- merging


def merge(diagnoses: List[Any], static: Sequence[FileResult], files: Sequence[str], options: Options) -> Tuple[List[FileResult], int]:
    """Static results with the evidence attached; a guided check of each file the static rules missed a spot in."""
    from autofix import api, engine
    from autofix.doctor.fixes import guided_rule

    by_path = {os.path.abspath(r.path): r for r in static}
    known = {os.path.abspath(f) for f in files}
    results = {os.path.abspath(r.path): r for r in static}
    attach: Dict[str, List[Tuple[Any, Optional[Finding]]]] = {}
    for diagnosis in diagnoses:
        path = os.path.abspath(diagnosis.path)
        if diagnosis.code not in {rule.CODE for rule in api.rules_for(options, diagnosis.path)}:
            continue  # --select / --ignore / per-file ignores apply to runtime findings too
        result = by_path.get(path)
        match = _matching(diagnosis, result.findings if result else ())
        if match is not None and match.fix is None and diagnosis.guided is not None:
            match = None  # the static rule could not prove the value's type; the run did: guide the fix
        attach.setdefault(path, []).append((diagnosis, match))
    runtime_only = 0
    for path, items in attach.items():
        result = results.get(path)
        if result is None and path not in known:
            continue  # outside PATHS: no fix goes there, and the evidence already names it
        unmatched = [d for d, m in items if m is None]
        runtime_only += len(unmatched)
        if unmatched:
            source = result.source if result is not None and result.source is not None else _read(path)
            if source is None:
                continue
            shown = result.path if result is not None else os.path.relpath(path)
            rules = [*api.rules_for(options, shown), guided_rule(unmatched)]
            result = engine.check_source(source, shown, rules, options)
        assert result is not None
        findings = []
        guided_spots = {(f.code, f.line) for f in result.findings if f.fix is not None}
        for finding in result.findings:
            if finding.fix is None and (finding.code, finding.line) in guided_spots:
                continue  # the static report of a spot the guided fix now covers
            evidence = _evidence_for(finding, items)
            findings.append(dataclasses.replace(finding, evidence=evidence) if evidence else finding)
        results[path] = dataclasses.replace(result, findings=tuple(findings))
    ordered = sorted(results.values(), key=lambda r: r.path)
    return ordered, runtime_only


def _read(path: str) -> Optional[bytes]:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError:
        return None


def _matching(diagnosis: Any, findings: Sequence[Finding]) -> Optional[Finding]:
    """The static finding on the same spot: same rule, and the diagnosis's line or names."""
    lines = {diagnosis.line, *diagnosis.lines}
    same_rule = [finding for finding in findings if finding.code == diagnosis.code]
    for finding in same_rule:
        if any(finding.line <= line <= finding.end_line for line in lines):
            return finding
        if any(f"`{name}`" in finding.message for name in diagnosis.names):
            return finding
    if not diagnosis.names and len(same_rule) == 1:
        # The run proved the rule's failure in this file but could not name the
        # value (state held in a dict or a tuple on a module): the one static
        # finding of that rule here is the spot, and it says which value it is.
        return same_rule[0]
    return None


def _evidence_for(finding: Finding, items: List[Tuple[Any, Optional[Finding]]]) -> Any:
    for diagnosis, match in items:
        if match is not None and match.code == finding.code and match.line == finding.line and match.column == finding.column:
            return diagnosis.evidence
        if match is None and finding.code == diagnosis.code and finding.line == diagnosis.line:
            return diagnosis.evidence
    return None
