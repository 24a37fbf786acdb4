"""The values that flow between autofix's layers.

Everything here is a frozen dataclass or an enum, picklable, and free of LibCST
nodes, so that results can cross process boundaries (``--jobs``) and reach the
CLI, the language server and the verifier unchanged.
"""

from __future__ import annotations

import dataclasses
import enum
import os
import re
from dataclasses import dataclass, field
from typing import Any, Optional, Tuple


class Applicability(str, enum.Enum):
    """How much a fix can be trusted, in ruff's terms."""

    #: The fix keeps the exact meaning of the code (applied by ``--write``).
    SAFE = "safe"
    #: The fix may change runtime behaviour (applied only with ``--unsafe-fixes``).
    UNSAFE = "unsafe"


class Expectation(str, enum.Enum):
    """What the gradient verifier must observe after a rule's fix."""

    #: Gradients equal the original's, or the original's reference run where it failed.
    IDENTICAL_OR_REPAIRED = "identical-or-repaired"
    #: The original failed (or leaked) and the patched run matches it up to that point.
    REPAIRED = "repaired"
    #: Gradients change where the rule says they must; the rule's invariant holds.
    INTENDED_CHANGE = "intended-change"


@dataclass(frozen=True)
class TextEdit:
    """Replace the text between two positions with ``new_text``.

    Lines are 1-based, columns are 0-based offsets in code points; the end is
    exclusive. Edits of one fix never overlap and are sorted by position.
    """

    start_line: int
    start_column: int
    end_line: int
    end_column: int
    new_text: str


@dataclass(frozen=True)
class FixInfo:
    """A finding's own fix, rendered against the original source."""

    applicability: Applicability
    title: str
    #: Unified diff of this fix alone applied to the original file.
    diff: str
    #: The same change as minimal text edits (used by the language server).
    edits: Tuple[TextEdit, ...]


@dataclass(frozen=True)
class Location:
    """A place in a file (1-based line) that a piece of evidence points at."""

    path: str
    line: int


@dataclass(frozen=True)
class Evidence:
    """What a run of the user's program showed about a finding (``autofix --run``)."""

    #: ``runtime``: observed in a run of the user's command.
    kind: str
    #: The optimizer step (1-based) during which it was observed; 0 before the first step.
    step: int
    #: One clause, e.g. ``step 2 raised "Trying to backward ..."; the graph was freed by the backward at train.py:47``.
    message: str
    related: Tuple[Location, ...] = ()


@dataclass(frozen=True)
class Finding:
    """One reported problem. Lines and columns are 1-based (DESIGN.md)."""

    path: str
    code: str
    name: str
    message: str
    line: int
    column: int
    end_line: int
    end_column: int
    fix: Optional[FixInfo] = None
    #: Runtime evidence from ``autofix --run`` (``None`` for static findings).
    evidence: Optional[Evidence] = None

    @property
    def fixable(self) -> bool:
        return self.fix is not None

    @property
    def full_message(self) -> str:
        """The message with its runtime evidence, before a closing ``(no fix: ...)`` clause."""
        if self.evidence is None:
            return self.message
        clause = f"(at run time: {self.evidence.message})"
        head, marker, tail = self.message.rpartition(" (no fix: ")
        if marker and tail.endswith(")"):
            return f"{head} {clause}{marker}{tail}"
        return f"{self.message} {clause}"

    @property
    def no_fix_reason(self) -> Optional[str]:
        """Why a finding has no fix: the rule's trailing ``(no fix: ...)`` clause, if any."""
        match = NO_FIX.search(self.message)
        return match.group("reason").strip() if match and self.fix is None else None

    @property
    def summary(self) -> str:
        """The message without its ``(no fix: ...)`` clause (formats that show the reason apart)."""
        if self.no_fix_reason is None:
            return self.message
        return NO_FIX.sub("", self.message).rstrip()


#: The clause rules end a message with when they cannot offer a fix (DESIGN.md).
NO_FIX = re.compile(r"\s*\(no fix: (?P<reason>.*)\)\s*$", re.DOTALL)


#: Verdicts under which a fix counts as verified (``--write --verify`` writes it).
PASSING_VERDICTS = frozenset({"identical", "repaired", "intended-change"})


#: How a verdict's detail starts when the patched run fails exactly as the original
#: did (``inconclusive``: not proven, and not caused by the fix).
STILL_FAILS = "still fails: "


@dataclass(frozen=True)
class Verification:
    """The verifier's verdict for one changed file."""

    verdict: str
    steps_compared: int = 0
    max_abs_diff: Optional[float] = None
    detail: str = ""


@dataclass(frozen=True)
class FileResult:
    """Everything autofix learned about one file; never raises, never writes."""

    path: str
    #: The bytes as read (``None`` when the file could not be read, or see ``source_dropped``).
    source: Optional[bytes]
    #: The bytes after applying the fixes that were requested (== source when nothing changed).
    fixed: Optional[bytes]
    findings: Tuple[Finding, ...] = ()
    #: A per-file problem (syntax error, undecodable, unreadable) as text.
    error: Optional[str] = None
    #: True when the text pre-filter showed that no selected rule can fire.
    skipped_by_prefilter: bool = False
    #: Codes of the rules whose fixes produced ``fixed``.
    applied_codes: Tuple[str, ...] = ()
    verification: Optional[Verification] = None
    #: Problems worth a look that are not findings, as ``"LINE: message"`` (an unknown code in a suppression).
    warnings: Tuple[str, ...] = ()
    #: True when the file was read but ``source`` and ``fixed`` were let go (see :meth:`lean`).
    source_dropped: bool = False

    def lean(self) -> "FileResult":
        """This result without the file's bytes when nothing downstream needs them.

        Diffs, writes, verification and code frames need the bytes of files
        with findings or changes only; a many-file run keeps just those, so
        that its memory does not grow with the size of the tree.
        """
        if self.source is None or self.findings or self.changed:
            return self
        return dataclasses.replace(self, source=None, fixed=None, source_dropped=True)

    @property
    def changed(self) -> bool:
        return self.source is not None and self.fixed is not None and self.fixed != self.source

    @property
    def internal_error(self) -> bool:
        """True when ``error`` is autofix's fault (a crash), not the file's (exit code 2)."""
        return self.error is not None and self.error.startswith("internal error")


@dataclass(frozen=True)
class Options:
    """What to check and what to fix; built by the CLI, config or language server."""

    select: Tuple[str, ...] = ("AF",)
    ignore: Tuple[str, ...] = ()
    #: Apply fixes marked unsafe as well as safe ones.
    unsafe_fixes: bool = False
    #: Produce fixed output (``--diff``/``--write``); report-only runs skip the fixpoint.
    fix: bool = True
    #: Upper bound on fix passes before giving up on convergence.
    max_passes: int = 8
    #: Per-path ignores: (glob pattern, codes) pairs from configuration.
    per_path_ignores: Tuple[Tuple[str, Tuple[str, ...]], ...] = field(default_factory=tuple)
    #: Folder the per-path ignore globs are relative to (the config file's folder).
    root: Optional[str] = None
    #: Where results are cached between runs (:mod:`autofix.cache`); ``None``: no cache.
    cache_dir: Optional[str] = None
    #: Codes (or prefixes) whose fixes may be applied; ``None``: every code (``fixable``).
    fixable: Optional[Tuple[str, ...]] = None
    #: Codes (or prefixes) whose fixes are never applied (``unfixable``); they are still reported.
    unfixable: Tuple[str, ...] = ()
    #: (absolute config folder, options) pairs, deepest folder first: a file under
    #: one of them is checked with those options (its nearest ``[tool.autofix]``),
    #: any other file with these. See :meth:`for_path`.
    scoped: Tuple[Tuple[str, "Options"], ...] = ()

    def for_path(self, path: str) -> "Options":
        """The options for ``path``: those of its nearest configuration (as ruff resolves them)."""
        if not self.scoped:
            return self
        absolute = os.path.abspath(path)
        for folder, options in self.scoped:
            if absolute == folder or absolute.startswith(folder.rstrip(os.sep) + os.sep):
                # Run-wide settings, not configuration: they come from the caller.
                if options.cache_dir != self.cache_dir:
                    options = dataclasses.replace(options, cache_dir=self.cache_dir)
                return options
        return self

    def may_fix(self, code: str, applicability: Applicability) -> bool:
        """Whether a fix of this rule and applicability is applied under these options."""
        if applicability is not Applicability.SAFE and not self.unsafe_fixes:
            return False
        if any(code.startswith(prefix) for prefix in self.unfixable):
            return False
        return self.fixable is None or any(code.startswith(prefix) for prefix in self.fixable)


class _FindProject:
    """The default of ``project=`` arguments: find the project around the path when first needed."""

    def __repr__(self) -> str:
        return "FIND_PROJECT"


#: ``project=FIND_PROJECT``: look for the project around the path on first use (None: the file alone).
#: Defined here, not in :mod:`autofix.model`, so that :mod:`autofix.api` can name it without loading the model.
FIND_PROJECT: Any = _FindProject()
