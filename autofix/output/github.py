"""``--format github``: GitHub Actions workflow commands, one line per annotation.

https://docs.github.com/actions/reference/workflow-commands-for-github-actions
"""

from __future__ import annotations

from typing import TextIO

from autofix.report import PASSING_VERDICTS, Outcome, severity
from autofix.types import Finding


def emit(outcome: Outcome, out: TextIO, err: TextIO, *, color: bool = False) -> None:
    for finding in outcome.findings:
        out.write(annotation(finding) + "\n")
    for result in outcome.errors:
        out.write(f"::error file={_property(result.path)},title=autofix::{_data(result.error or '')}\n")
    for result in outcome.results:
        for warning in result.warnings:
            line, message = warning.split(": ", 1)
            out.write(f"::warning file={_property(result.path)},line={line},title=autofix::{_data(message)}\n")
    for result in outcome.results:
        verification = result.verification
        if verification is None:
            continue
        level = "notice" if verification.verdict in PASSING_VERDICTS else "error"
        message = f"verification {verification.verdict}: {verification.detail}".rstrip(": ")
        out.write(f"::{level} file={_property(result.path)},title=autofix verify::{_data(message)}\n")


def annotation(finding: Finding) -> str:
    props = ",".join(
        [
            f"file={_property(finding.path)}",
            f"line={finding.line}",
            f"col={finding.column}",
            f"endLine={finding.end_line}",
            f"endColumn={finding.end_column}",
            f"title={_property(f'{finding.code} {finding.name}')}",
        ]
    )
    return f"::{severity(finding.code)} {props}::{_data(finding.full_message)}"


# The runner splits on these characters, so they are percent-encoded
# (toolkit/packages/core/src/command.ts: escapeData / escapeProperty).
def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")
