"""Human output: ``path:line:col: AF101 [*] message`` lines, diffs and a summary.

Report mode writes findings and summary to stdout. With ``--diff`` stdout
carries only the diffs (so it can be piped to ``patch``) and everything else
goes to stderr; ``--write`` keeps stdout empty.
"""

from __future__ import annotations

from typing import List, TextIO

from autofix.diff import colorize
from autofix.report import Mode, Outcome
from autofix.types import FileResult, Finding, Verification


class _Style:
    def __init__(self, color: bool) -> None:
        self.color = color

    def __call__(self, text: str, code: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if self.color else text

    def path(self, text: str) -> str:
        return self(text, "1")

    def code(self, text: str) -> str:
        return self(text, "1;31")

    def marker(self, text: str) -> str:
        return self(text, "36")

    def good(self, text: str) -> str:
        return self(text, "32")

    def bad(self, text: str) -> str:
        return self(text, "31")


def emit(outcome: Outcome, out: TextIO, err: TextIO, *, color: bool = False) -> None:
    style = _Style(color)
    report = out if outcome.mode is Mode.CHECK else err
    if outcome.mode is Mode.DIFF:
        for result in outcome.changed:
            diff = outcome.diff(result)
            out.write(colorize(diff) if color else diff)
    for finding in outcome.remaining():
        report.write(finding_line(finding, outcome, style) + "\n")
    for result in outcome.errors:
        report.write(f"{style.path(result.path)}: {style.bad('error')}: {result.error}\n")
    for result in outcome.results:
        if result.verification is not None:
            report.write(f"{style.path(result.path)}: {verification_text(result.verification, style)}\n")
    for path, reason in outcome.held_back:
        report.write(f"{style.path(path)}: not written: {reason}\n")
    if not outcome.quiet:
        for line in summary(outcome):
            report.write(line + "\n")


def finding_line(finding: Finding, outcome: Outcome, style: _Style = _Style(False)) -> str:
    marker = style.marker("[*] ") if outcome.will_fix(finding) else ""
    where = style.path(f"{finding.path}:{finding.line}:{finding.column}:")
    return f"{where} {style.code(finding.code)} {marker}{finding.full_message}"


def verification_text(verification: Verification, style: _Style = _Style(False)) -> str:
    from autofix.report import PASSING_VERDICTS

    paint = style.good if verification.verdict in PASSING_VERDICTS else style.bad
    facts = [f"{verification.steps_compared} steps compared"]
    if verification.max_abs_diff is not None:
        facts.append(f"max abs diff {verification.max_abs_diff:.3g}")
    text = f"verification {paint(verification.verdict)} ({', '.join(facts)})"
    if verification.detail:
        text += f": {verification.detail}"
    return text


def summary(outcome: Outcome) -> List[str]:
    lines: List[str] = []
    findings = outcome.findings
    files_with = len({f.path for f in findings})
    per_rule = ", ".join(f"{code}: {n}" for code, n in outcome.counts_by_rule())
    hidden = sum(1 for f in findings if outcome.hidden(f))
    remaining = outcome.remaining()

    if outcome.mode is Mode.CHECK:
        if findings:
            lines.append(f"Found {_n(len(findings), 'finding')} in {_n(files_with, 'file')} ({per_rule}).")
            fixable = sum(1 for f in findings if outcome.will_fix(f))
            if fixable:
                lines.append(f"[*] {fixable} fixable with --write (review them first with --diff).")
        else:
            lines.append("No findings.")
    else:
        fixed = len(findings) - len(remaining)
        verb = "Fixed" if outcome.mode is Mode.WRITE else "Would fix"
        if findings:
            lines.append(f"Found {_n(len(findings), 'finding')} in {_n(files_with, 'file')} ({per_rule}).")
        if fixed or outcome.applied:
            lines.append(f"{verb} {_n(fixed, 'finding')}: {outcome.diff_stats()}.")
        if remaining:
            lines.append(f"{_n(len(remaining), 'finding')} left without an applied fix (listed above).")
        if not findings:
            lines.append("No findings; nothing to fix.")
    if hidden:
        noun = "hidden fix can" if hidden == 1 else "hidden fixes can"
        lines.append(f"({hidden} {noun} be enabled with --unsafe-fixes)")
    if outcome.mode is Mode.WRITE and outcome.written and not outcome.stdin:
        lines.append(f"Wrote {_n(len(outcome.written), 'file')}.")
    if outcome.held_back:
        lines.append(
            f"Left {_n(len(outcome.held_back), 'changed file')} unwritten: verification did not pass "
            "(--force writes them anyway)."
        )
    failed = outcome.failed_verifications
    if failed:
        lines.append(f"Verification did not pass for {_n(len(failed), 'file')}.")
    lines.append(_scan_line(outcome.results, outcome))
    return lines


def _scan_line(results: List[FileResult], outcome: Outcome) -> str:
    parts = [f"{outcome.skipped_by_prefilter} skipped by the pre-filter", f"{outcome.parsed} parsed"]
    if outcome.errors:
        parts.append(f"{len(outcome.errors)} with errors")
    return f"Checked {_n(len(results), 'file')}: {', '.join(parts)}."


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"
