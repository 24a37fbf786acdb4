"""Human output: ``path:line:col: AF101 [*] message`` lines, diffs and a summary.

Report mode writes findings and summary to stdout. With ``--diff`` stdout
carries only the diffs (so it can be piped to ``patch``) and everything else
goes to stderr; ``--write`` keeps stdout empty.
"""

from __future__ import annotations

from collections import Counter
from typing import Dict, List, TextIO

from autofix.diff import colorize
from autofix.report import Mode, Outcome, decode
from autofix.types import NO_FIX, FileResult, Finding, Verification


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

    def dim(self, text: str) -> str:
        return self(text, "2")


def emit(outcome: Outcome, out: TextIO, err: TextIO, *, color: bool = False) -> None:
    style = _Style(color)
    report = out if outcome.mode is Mode.CHECK else err
    if outcome.mode is Mode.DIFF:
        for result in outcome.changed:
            diff = outcome.diff(result)
            out.write(colorize(diff) if color else diff)
    if outcome.statistics:
        for line in statistics(outcome):
            report.write(line + "\n")
    else:
        sources = {r.path: r.source for r in outcome.results}
        for finding in outcome.remaining():
            report.write(finding_line(finding, outcome, style) + "\n")
            if outcome.full:
                report.write(code_frame(finding, sources.get(finding.path), outcome, style))
    if outcome.show_fixes and outcome.mode is not Mode.CHECK:
        for line in shown_fixes(outcome):
            report.write(line + "\n")
    for result in outcome.errors:
        report.write(f"{style.path(result.path)}: {style.bad('error')}: {result.error}\n")
    for result in outcome.results:
        for warning in result.warnings:
            line, message = warning.split(": ", 1)
            report.write(f"{style.path(f'{result.path}:{line}:')} {style.marker('warning')}: {message}\n")
    for result in outcome.results:
        if result.verification is not None:
            report.write(f"{style.path(result.path)}: {verification_text(result.verification, style)}\n")
    for path, reason in outcome.held_back:
        report.write(f"{style.path(path)}: not written: {reason}\n")
    if not outcome.quiet:
        for line in summary(outcome):
            report.write(line + "\n")


_DEFAULT_STYLE = _Style(False)


def finding_line(finding: Finding, outcome: Outcome, style: _Style = _DEFAULT_STYLE) -> str:
    marker = style.marker("[*] ") if outcome.will_fix(finding) else ""
    where = style.path(f"{finding.path}:{finding.line}:{finding.column}:")
    message = finding.full_message
    reason = finding.no_fix_reason
    if reason is not None:
        message = f"{NO_FIX.sub('', message).rstrip()} {style.dim(f'(no fix: {reason})')}"
    return f"{where} {style.code(finding.code)} {marker}{message}"


#: Lines of context above and below a finding in a ``full`` code frame.
FRAME_CONTEXT = 1


def code_frame(finding: Finding, source: "bytes | None", outcome: Outcome, style: _Style = _DEFAULT_STYLE) -> str:
    """ruff's ``full`` output: the finding's lines with a caret underline, then the fix or why there is none."""
    lines = decode(source).splitlines() if source is not None else []
    first = max(1, finding.line - FRAME_CONTEXT)
    last = min(len(lines), finding.end_line + FRAME_CONTEXT)
    width = len(str(last))
    gutter = " " * width
    out = [f"{gutter} |"]
    for number in range(first, last + 1):
        text = lines[number - 1]
        out.append(f"{number:>{width}} | {text}")
        if finding.line <= number <= finding.end_line:
            start = finding.column - 1 if number == finding.line else len(text) - len(text.lstrip())
            end = finding.end_column - 1 if number == finding.end_line else len(text)
            carets = "^" * max(1, end - start)
            label = f" {finding.code}" if number == finding.end_line else ""
            out.append(f"{gutter} | {' ' * start}{style.bad(carets)}{label}")
    out.append(f"{gutter} |")
    if finding.fix is not None:
        state = "" if outcome.will_fix(finding) else f" ({finding.fix.applicability.value}: not applied with these settings)"
        out.append(f"{gutter} = help: {finding.fix.title}{state}")
    elif finding.no_fix_reason is not None:
        out.append(f"{gutter} = no fix: {finding.no_fix_reason}")
    return "\n".join(out) + "\n\n"


def statistics(outcome: Outcome) -> List[str]:
    """``--statistics``: one line per rule: count, code, name and how many the settings fix."""
    counts: Counter = Counter()
    fixable: Counter = Counter()
    names: Dict[str, str] = {}
    for finding in outcome.findings:
        counts[finding.code] += 1
        fixable[finding.code] += outcome.will_fix(finding)
        names[finding.code] = finding.name
    width = max((len(str(n)) for n in counts.values()), default=1)
    lines = []
    for code, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        marker = "[*]" if fixable[code] == count else "[-]" if fixable[code] else "   "
        lines.append(f"{count:>{width}}\t{code}\t{marker} {names[code]}")
    return lines


def shown_fixes(outcome: Outcome) -> List[str]:
    """``--show-fixes``: per file, the rules whose fixes were applied (``--write``) or proposed."""
    lines = []
    for result in outcome.applied:
        fixed = Counter((f.code, f.name) for f in result.findings if outcome.fixed(result, f))
        if not fixed:
            continue
        lines.append(f"{result.path}:")
        lines.extend(f"    {n} × {code} ({name})" for (code, name), n in sorted(fixed.items()))
    verb = "Fixed" if outcome.mode is Mode.WRITE else "Would fix"
    return [f"{verb} in:", *lines] if lines else []


def verification_text(verification: Verification, style: _Style = _DEFAULT_STYLE) -> str:
    from autofix.report import PASSING_VERDICTS

    paint = style.good if verification.verdict in PASSING_VERDICTS else style.bad
    steps = verification.steps_compared
    facts = [f"{_n(steps, 'step')} compared"]
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
    parts = [
        f"{outcome.parsed} analysed",
        f"{outcome.skipped_by_prefilter} with nothing the selected rules look for",
    ]
    if outcome.errors:
        parts.append(f"{len(outcome.errors)} with errors")
    return f"Checked {_n(len(results), 'file')}: {', '.join(parts)}."


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"
