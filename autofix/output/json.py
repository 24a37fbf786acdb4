"""``--format json``: one document, exactly DESIGN.md's schema (version 1)."""

from __future__ import annotations

import json
from typing import Any, Dict, Optional, TextIO

from autofix.report import Outcome
from autofix.types import FileResult, Finding, Verification

VERSION = 1


def emit(outcome: Outcome, out: TextIO, err: TextIO, *, color: bool = False) -> None:
    json.dump(document(outcome), out, indent=2, ensure_ascii=False)
    out.write("\n")


def document(outcome: Outcome) -> Dict[str, Any]:
    return {
        "version": VERSION,
        "files": [file_entry(r) for r in outcome.results],
        "findings": [finding_entry(f) for r in outcome.results for f in r.findings],
    }


def file_entry(result: FileResult) -> Dict[str, Any]:
    return {
        "path": result.path,
        "changed": result.changed,
        "error": result.error,
        "verification": verification_entry(result.verification),
    }


def verification_entry(verification: Optional[Verification]) -> Optional[Dict[str, Any]]:
    if verification is None:
        return None
    return {
        "verdict": verification.verdict,
        "steps_compared": verification.steps_compared,
        "max_abs_diff": verification.max_abs_diff,
        "detail": verification.detail,
    }


def finding_entry(finding: Finding) -> Dict[str, Any]:
    fix = None
    if finding.fix is not None:
        fix = {"applicability": finding.fix.applicability.value, "diff": finding.fix.diff}
    return {
        "path": finding.path,
        "code": finding.code,
        "name": finding.name,
        "message": finding.message,
        "line": finding.line,
        "column": finding.column,
        "end_line": finding.end_line,
        "end_column": finding.end_column,
        "fix": fix,
        "evidence": evidence_entry(finding),
    }


def evidence_entry(finding: Finding) -> Optional[Dict[str, Any]]:
    evidence = finding.evidence
    if evidence is None:
        return None
    return {
        "kind": evidence.kind,
        "step": evidence.step,
        "message": evidence.message,
        "related": [{"path": r.path, "line": r.line} for r in evidence.related],
    }
