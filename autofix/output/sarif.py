"""``--format sarif``: SARIF 2.1.0 as GitHub code scanning accepts it.

Rules carry their ``--explain`` text as help; results carry regions (1-based
lines and columns) and, where the finding has one, its fix as replacements.
Per-file problems become tool execution notifications.
"""

from __future__ import annotations

import json
import os
from pathlib import PurePath
from typing import Any, Dict, List, TextIO
from urllib.parse import quote

import autofix
from autofix import registry
from autofix.output.json import evidence_entry, verification_entry
from autofix.report import Outcome, decode, severity
from autofix.types import FileResult, Finding, TextEdit

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
VERSION = "2.1.0"


def emit(outcome: Outcome, out: TextIO, err: TextIO, *, color: bool = False) -> None:
    json.dump(document(outcome), out, indent=2, ensure_ascii=False)
    out.write("\n")


def document(outcome: Outcome) -> Dict[str, Any]:
    rules = registry.all_rules()
    index = {rule.CODE: i for i, rule in enumerate(rules)}
    results = []
    for result in outcome.results:
        lines = decode(result.source).splitlines(keepends=True) if result.source is not None else []
        for finding in result.findings:
            results.append(_result(finding, result, lines, index))
    notifications = [
        {
            "level": "error",
            "message": {"text": result.error},
            "locations": [{"physicalLocation": {"artifactLocation": _artifact(result.path)}}],
        }
        for result in outcome.errors
    ]
    return {
        "$schema": SCHEMA,
        "version": VERSION,
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "autofix",
                        "version": autofix.__version__,
                        "semanticVersion": autofix.__version__,
                        "rules": [_rule(rule) for rule in rules],
                    }
                },
                "invocations": [
                    {
                        "executionSuccessful": not any(r.internal_error for r in outcome.results),
                        "toolExecutionNotifications": notifications,
                    }
                ],
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }


def _rule(rule) -> Dict[str, Any]:
    doc = rule.documentation()
    fixes = [a.value for a in rule.fix_applicabilities()]
    return {
        "id": rule.CODE,
        "name": rule.NAME,
        "shortDescription": {"text": rule.SUMMARY},
        "fullDescription": {"text": rule.SUMMARY},
        "help": {"text": doc or rule.SUMMARY, "markdown": doc or rule.SUMMARY},
        "defaultConfiguration": {"level": severity(rule.CODE)},
        "properties": {
            "tags": ["correctness", "pytorch", "autograd"],
            "precision": "high",
            "problem.severity": severity(rule.CODE),
            "fixes": fixes,
        },
    }


def _result(finding: Finding, file: FileResult, lines: List[str], index: Dict[str, int]) -> Dict[str, Any]:
    entry: Dict[str, Any] = {
        "ruleId": finding.code,
        "level": severity(finding.code),
        "message": {"text": finding.full_message},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": _artifact(finding.path),
                    "region": {
                        "startLine": finding.line,
                        "startColumn": finding.column,
                        "endLine": finding.end_line,
                        "endColumn": finding.end_column,
                    },
                }
            }
        ],
    }
    if finding.code in index:
        entry["ruleIndex"] = index[finding.code]
    if finding.evidence is not None:
        entry["relatedLocations"] = [
            {
                "id": number,
                "physicalLocation": {"artifactLocation": _artifact(r.path), "region": {"startLine": r.line}},
                "message": {"text": "runtime evidence"},
            }
            for number, r in enumerate(finding.evidence.related)
        ]
    if finding.fix is not None:
        entry["fixes"] = [
            {
                "description": {"text": f"{finding.fix.title} ({finding.fix.applicability.value} fix)"},
                "artifactChanges": [
                    {
                        "artifactLocation": _artifact(finding.path),
                        "replacements": [_replacement(edit, lines) for edit in finding.fix.edits],
                    }
                ],
            }
        ]
    properties: Dict[str, Any] = {"name": finding.name}
    if finding.fix is not None:
        properties["applicability"] = finding.fix.applicability.value
    elif finding.no_fix_reason is not None:
        properties["noFix"] = finding.no_fix_reason
    if file.verification is not None:
        properties["verification"] = verification_entry(file.verification)
    if finding.evidence is not None:
        properties["evidence"] = evidence_entry(finding)
    entry["properties"] = properties
    return entry


def _replacement(edit: TextEdit, lines: List[str]) -> Dict[str, Any]:
    replacement: Dict[str, Any] = {
        "deletedRegion": _region(edit.start_line, edit.start_column, edit.end_line, edit.end_column, lines)
    }
    if edit.new_text:
        replacement["insertedContent"] = {"text": edit.new_text}
    return replacement


def _region(start_line: int, start_col: int, end_line: int, end_col: int, lines: List[str]) -> Dict[str, int]:
    # TextEdit columns are 0-based and its end may be "line after the last";
    # SARIF wants 1-based columns inside the file, so clamp to the end of the text.
    def clamp(line: int, col: int):
        if lines and line > len(lines):
            return len(lines), len(lines[-1].rstrip("\r\n")) + 1
        return line, col + 1

    start = clamp(start_line, start_col)
    end = clamp(end_line, end_col)
    return {"startLine": start[0], "startColumn": start[1], "endLine": end[0], "endColumn": end[1]}


def _artifact(path: str) -> Dict[str, Any]:
    if os.path.isabs(path):
        return {"uri": PurePath(path).as_uri()}
    # Relative to the working directory; GitHub resolves it against the repository root.
    return {"uri": quote(PurePath(path).as_posix())}

