"""One run's outcome and its exit code, shared by every output format.

Modelled on black's ``WriteBack`` + ``Report``: the mode comes from
``--diff``/``--write``, and the exit code is defined here and nowhere else:

* 0 — clean: no finding, no change, no per-file problem; after ``--write``
  (as in ruff), also when every finding was fixed and written;
* 1 — findings, proposed changes (``--diff``), findings ``--write`` left
  unfixed, changes made when ``exit_non_zero_on_fix`` is set, per-file problems
  (syntax error, undecodable, unreadable, unwritable) or a verification that
  did not pass;
* 2 — an internal error (a crash inside autofix); usage errors exit 2 in the CLI.

``exit_zero`` (``--exit-zero``) turns every 1 into 0; internal errors still exit 2.
"""

from __future__ import annotations

import dataclasses
import enum
import io
import tokenize
from collections import Counter
from dataclasses import dataclass, field
from typing import Dict, List, Sequence, Tuple

from autofix.diff import DiffStats, diff_stats, unified_diff
from autofix.types import PASSING_VERDICTS, Applicability, FileResult, Finding, Options

#: Verdicts after which ``--write`` writes a file (others need ``--force``).


#: Rules whose mistake raises at run time (``Trying to backward through the graph a
#: second time``, an in-place modification error): their findings are errors.
#: The others (wrong gradients, leaks, needless ``retain_graph``, the opt-in
#: AF107) are silent, so they are warnings. One severity per rule, the same in
#: SARIF, GitHub annotations and the editor.
ERROR_RULES = ("AF101", "AF102", "AF103")


def severity(code: str) -> str:
    """``"error"`` or ``"warning"``: the one severity of a rule's findings in every format."""
    return "error" if code in ERROR_RULES else "warning"


class Mode(enum.Enum):
    CHECK = "check"
    DIFF = "diff"
    WRITE = "write"

    @classmethod
    def from_flags(cls, diff: bool, write: bool) -> "Mode":
        return cls.WRITE if write else cls.DIFF if diff else cls.CHECK


@dataclass
class Outcome:
    """Everything the output formats need to know about a finished run."""

    mode: Mode
    results: List[FileResult]
    options: Options = Options()
    #: Paths written by ``--write``.
    written: Tuple[str, ...] = ()
    #: (path, reason) for changed files ``--write`` left alone (failed verification).
    held_back: Tuple[Tuple[str, str], ...] = ()
    #: ``--quiet``: no summary in human output.
    quiet: bool = False
    #: ``--stdin-filename``: "written" means printed on stdout.
    stdin: bool = False
    #: ``--exit-zero``: findings and per-file problems do not fail the run.
    exit_zero: bool = False
    #: ``--exit-non-zero-on-fix``: ``--write`` exits 1 when it changed a file.
    exit_non_zero_on_fix: bool = False
    #: ``--output-format full``: a code frame and the fix's title under each finding.
    full: bool = False
    #: ``--statistics``: counts per rule instead of the findings.
    statistics: bool = False
    #: ``--show-fixes``: list the fixes applied or proposed, per file.
    show_fixes: bool = False
    _diffs: Dict[str, str] = field(default_factory=dict, repr=False)

    # ----------------------------------------------------------------- findings

    @property
    def findings(self) -> List[Finding]:
        return [f for r in self.results for f in r.findings]

    def will_fix(self, finding: Finding) -> bool:
        """The finding has a fix that the current settings apply (the ``[*]`` marker)."""
        fix = finding.fix
        return fix is not None and self.options.for_path(finding.path).may_fix(finding.code, fix.applicability)

    def hidden(self, finding: Finding) -> bool:
        """An unsafe fix left out because ``--unsafe-fixes`` is off."""
        fix = finding.fix
        if fix is None or fix.applicability is Applicability.SAFE or self.will_fix(finding):
            return False
        return dataclasses.replace(self.options.for_path(finding.path), unsafe_fixes=True).may_fix(
            finding.code, fix.applicability
        )

    def fixed(self, result: FileResult, finding: Finding) -> bool:
        """The finding is cured by the output (``--write``: by what was written)."""
        if self.mode is Mode.WRITE and result.path not in self.written:
            return False
        return result.changed and self.will_fix(finding) and finding.code in result.applied_codes

    def remaining(self) -> List[Finding]:
        """Findings the fixed output does not cure (all of them in report mode)."""
        if self.mode is Mode.CHECK:
            return self.findings
        return [f for r in self.results for f in r.findings if not self.fixed(r, f)]

    def counts_by_rule(self) -> List[Tuple[str, int]]:
        return sorted(Counter(f.code for f in self.findings).items())

    # ----------------------------------------------------------------- files

    @property
    def changed(self) -> List[FileResult]:
        return [r for r in self.results if r.changed]

    @property
    def errors(self) -> List[FileResult]:
        return [r for r in self.results if r.error is not None]

    @property
    def failed_verifications(self) -> List[FileResult]:
        return [
            r
            for r in self.results
            if r.verification is not None and r.verification.verdict not in PASSING_VERDICTS
        ]

    @property
    def skipped_by_prefilter(self) -> int:
        return sum(1 for r in self.results if r.skipped_by_prefilter)

    @property
    def parsed(self) -> int:
        return sum(
            1 for r in self.results
            if (r.source is not None or r.source_dropped) and not r.skipped_by_prefilter and r.error is None
        )

    def diff(self, result: FileResult) -> str:
        """The file's whole diff (empty when unchanged), rendered once."""
        if result.path not in self._diffs:
            self._diffs[result.path] = file_diff(result)
        return self._diffs[result.path]

    @property
    def applied(self) -> List[FileResult]:
        """Changed files whose change reached the output (``--write``: was written)."""
        if self.mode is Mode.WRITE:
            return [r for r in self.changed if r.path in self.written]
        return self.changed

    def diff_stats(self) -> DiffStats:
        total = DiffStats()
        for result in self.applied:
            total = total + diff_stats(self.diff(result))
        return total

    # ----------------------------------------------------------------- exit code

    @property
    def return_code(self) -> int:
        if any(r.internal_error for r in self.results):
            return 2
        if self.exit_zero:
            return 0
        if self.errors or self.failed_verifications or self.held_back:
            return 1
        if self.mode is Mode.WRITE:
            if self.remaining() or any(r.path not in self.written for r in self.changed):
                return 1
            return 1 if self.exit_non_zero_on_fix and self.applied else 0
        return 1 if self.findings or self.changed else 0


def file_diff(result: FileResult) -> str:
    """Unified diff of a result's source and fixed bytes, decoded as LibCST decodes them."""
    if not result.changed:
        return ""
    assert result.source is not None and result.fixed is not None
    return unified_diff(decode(result.source), decode(result.fixed), result.path)


def decode(data: bytes) -> str:
    """Text of Python source bytes: BOM and PEP 263 cookie honoured, undecodable bytes replaced."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:
        encoding = "utf-8"
    try:
        return data.decode(encoding)
    except (LookupError, UnicodeDecodeError):
        return data.decode("utf-8", errors="replace")


def sort_results(results: Sequence[FileResult]) -> List[FileResult]:
    return sorted(results, key=lambda r: r.path)
