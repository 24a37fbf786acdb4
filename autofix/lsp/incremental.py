"""Fast re-lint after an edit: lint only the top-level definitions that changed.

A full lint of a 2,000-line module costs seconds (LibCST metadata plus the
flow analyses), far over the ~100 ms an editor wants after a keystroke. Most
edits touch one function, so the module is cut at its top-level ``def`` and
``class`` statements ("units"; found with :mod:`ast`, which is C-fast). Each
unit is linted inside a *view* of the module: the module-level code (imports,
globals: the "context") and the unit itself, in their order, every other unit
left out; positions map back to the buffer line by line (columns are equal).
Results are cached by the unit's text and the context's code, so an edit
re-lints one unit (plus the context when it changed), and unchanged units
are shifted to their new lines. An edit to the context's code (an import, a
global) re-lints every unit: it may change what each of them means.

This is an approximation: rules also use module-wide facts (``zero_grad()``
called in one function for an optimizer stepped in another), which a view
cannot see. The server therefore follows a per-unit lint with an exact
whole-file lint on open, on save and once typing pauses, and that result
wins (:mod:`autofix.lsp.server`).
"""

from __future__ import annotations

import ast
import re
import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, FrozenSet, List, Optional, Set, Tuple

import attrs
from lsprotocol import types
from lsprotocol.converters import get_converter

from autofix.lsp.convert import Document
from autofix.types import FileResult, Finding

#: Seconds between two publications of a long first lint's partial diagnostics.
PROGRESS_S = 0.25
#: Partial diagnostics are published only while this many units are still to lint:
#: a short file is done soon enough to publish once.
PROGRESS_MIN_LEFT = 8

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")
_converter = get_converter()


def split_lines(text: str) -> List[str]:
    """Lines with their terminators, split where Python and LSP split them."""
    return _LINE.findall(text)


def units(text: str) -> Optional[List[Tuple[int, int]]]:
    """0-based ``[start, end)`` line spans of top-level defs and classes; ``None`` if unparsable."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    spans = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            spans.append((first - 1, node.end_lineno or node.lineno))
    return spans


def _line_of(text: str, offset: int) -> int:
    """0-based line holding ``offset`` (Python's line ends, counted in C)."""
    return text.count("\n", 0, offset) + text.count("\r", 0, offset) - text.count("\r\n", 0, offset)


def _common_prefix(a: str, b: str) -> int:
    low, high = 0, min(len(a), len(b))
    while low < high:  # binary search on C-speed slice comparisons
        mid = (low + high + 1) // 2
        if a[:mid] == b[:mid]:
            low = mid
        else:
            high = mid - 1
    return low


def _common_suffix(a: str, b: str, limit: int) -> int:
    low, high = 0, limit
    while low < high:
        mid = (low + high + 1) // 2
        if a[len(a) - mid :] == b[len(b) - mid :]:
            low = mid
        else:
            high = mid - 1
    return low


def respan(
    old: str, old_starts: List[int], old_spans: List[Tuple[int, int]], new: str
) -> Optional[List[Tuple[int, int]]]:
    """The :func:`units` of ``new`` when it differs from ``old`` inside one unit, else ``None``.

    ``old_starts`` holds the offset of each line of ``old`` and, last, ``len(old)``.
    Parsing only the edited unit saves an :func:`ast.parse` of the whole
    buffer per keystroke. The edited text must still parse as exactly one
    ``def``/``class`` filling its lines; anything else (a new top-level
    statement, an edit across units, a broken unit) returns ``None``.
    """
    if old == new:
        return list(old_spans)
    prefix = _common_prefix(old, new)
    suffix = _common_suffix(old, new, min(len(old), len(new)) - prefix)
    changed_end = len(old) - suffix
    for index, (start, end) in enumerate(old_spans):
        first, after = old_starts[start], old_starts[end]
        # The edit lies inside the unit, short of its final line end.
        if not (first <= prefix and changed_end <= after - 1):
            continue
        delta = len(new) - len(old)
        body = new[first : after + delta]
        try:
            tree = ast.parse(body)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
        if len(tree.body) != 1 or not isinstance(tree.body[0], (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return None
        node = tree.body[0]
        lines = _line_of(body, len(body))
        if min([node.lineno, *(d.lineno for d in node.decorator_list)]) != 1 or node.end_lineno != lines:
            return None
        shift = lines - (end - start)
        return [
            *old_spans[:index],
            (start, start + lines),
            *((s + shift, e + shift) for s, e in old_spans[index + 1 :]),
        ]
    return None


def _remap(diagnostic: types.Diagnostic, line_map: List[int]) -> types.Diagnostic:
    """A diagnostic of a compact view, moved to the lines of the real buffer."""

    def pos(p: types.Position) -> types.Position:
        if p.line < len(line_map):
            return types.Position(line=line_map[p.line], character=p.character)
        return types.Position(line=line_map[-1] + 1, character=0)  # end of the view

    def rng(r: types.Range) -> types.Range:
        # The lines a range covers must be neighbours in the buffer too.
        last = r.end.line if r.end.character > 0 or r.end.line == r.start.line else r.end.line - 1
        last = min(last, len(line_map) - 1)
        first = min(r.start.line, len(line_map) - 1)
        if line_map[last] - line_map[first] != last - first:
            raise NotLocal("a range spans code the view left out")
        return types.Range(start=pos(r.start), end=pos(r.end))

    data = dict(diagnostic.data or {})
    if data.get("fix"):
        fix = dict(data["fix"])
        edits = [_converter.structure(e, types.TextEdit) for e in fix["edits"]]
        fix["edits"] = [_converter.unstructure(types.TextEdit(range=rng(e.range), new_text=e.new_text)) for e in edits]
        data["fix"] = fix
    return attrs.evolve(diagnostic, range=rng(diagnostic.range), data=data)


@dataclass
class _Lint:
    """Diagnostics of one unit (or of the context), lines relative to ``base``."""

    base: int
    diagnostics: List[types.Diagnostic]
    #: False when a fix edits the context: its edits do not move with the unit.
    movable: bool = True


def _shift(diagnostic: types.Diagnostic, delta: int) -> types.Diagnostic:
    if delta == 0:
        return diagnostic

    def pos(p: types.Position) -> types.Position:
        return types.Position(line=p.line + delta, character=p.character)

    def rng(r: types.Range) -> types.Range:
        return types.Range(start=pos(r.start), end=pos(r.end))

    data = dict(diagnostic.data or {})
    if data.get("fix"):
        fix = dict(data["fix"])
        edits = [_converter.structure(e, types.TextEdit) for e in fix["edits"]]
        fix["edits"] = [_converter.unstructure(types.TextEdit(range=rng(e.range), new_text=e.new_text)) for e in edits]
        data["fix"] = fix
    return attrs.evolve(diagnostic, range=rng(diagnostic.range), data=data)


class NotLocal(Exception):
    """A unit's fix reaches into another unit: only a full lint can say what it does."""


class IncrementalLinter:
    """Per-document cache of unit lints. Not thread-safe: one lint at a time."""

    def __init__(self) -> None:
        self._units: Dict[Any, _Lint] = {}
        self._context: Dict[Any, _Lint] = {}
        #: The last segmented text: (text, its lines, line start offsets, unit spans).
        self._last: Optional[Tuple[str, List[str], List[int], List[Tuple[int, int]]]] = None

    def segment(self, text: str) -> Optional[List[Tuple[int, int]]]:
        """:func:`units` of ``text``, re-parsing only the edited unit when it can."""
        lines = split_lines(text)
        spans = respan(self._last[0], self._last[2], self._last[3], text) if self._last else None
        if spans is None:
            spans = units(text)
        if spans is None:
            return None
        starts = [0]
        for line in lines:
            starts.append(starts[-1] + len(line))
        self._last = (text, lines, starts, spans)
        return spans

    def lint(
        self,
        text: str,
        spans: List[Tuple[int, int]],
        key: Any,
        encoding: str,
        run: Callable[[str], FileResult],
        render: Callable[[Finding, Document], types.Diagnostic],
        progress: Optional[Callable[[List[types.Diagnostic]], None]] = None,
    ) -> Optional[List[types.Diagnostic]]:
        """Diagnostics for ``text`` from per-unit lints; ``None``: lint the whole file instead.

        ``spans`` are the text's :func:`units`; ``key`` says what else the
        results depend on (path, options); ``encoding`` is the LSP position
        encoding; ``run`` lints a view's text; ``render`` turns a finding into
        a diagnostic against a document. ``progress``, when given, receives
        the diagnostics of the units linted so far every :data:`PROGRESS_S`
        seconds while at least :data:`PROGRESS_MIN_LEFT` units are still to
        lint: opening a long module lints every unit, which takes seconds, and
        an editor can show the top of the file meanwhile.
        """
        if len(spans) < 2:
            return None
        lines = self._last[1] if self._last and self._last[0] is text else split_lines(text)
        in_unit = frozenset(i for start, end in spans for i in range(start, end))
        context = [i for i in range(len(lines)) if i not in in_unit]
        # What a unit sees of the module: its code lines, not where they sit.
        signature = tuple(
            lines[i].rstrip("\r\n") for i in context if lines[i].strip() and not lines[i].lstrip().startswith("#")
        )
        units_cache: Dict[Any, _Lint] = {}
        context_cache: Dict[Any, _Lint] = {}
        diagnostics: List[types.Diagnostic] = []
        next_progress = time.perf_counter() + PROGRESS_S
        try:
            context_key = (tuple((i, lines[i]) for i in context), key, encoding)
            found = self._context.get(context_key)
            if found is None:
                found = _lint_view(lines, context, frozenset(context), encoding, run, render, 0)
            context_cache[context_key] = found
            diagnostics.extend(found.diagnostics)
            done = 0
            for start, end in spans:
                cache_key = (signature, "".join(lines[start:end]), key, encoding)
                found = self._units.get(cache_key)
                linted = found is None or (not found.movable and found.base != start)
                if linted:
                    own = frozenset(range(start, end))
                    found = _lint_view(lines, sorted(own.union(context)), own, encoding, run, render, start)
                assert found is not None
                units_cache[cache_key] = found
                diagnostics.extend(_shift(d, start - found.base) for d in found.diagnostics)
                done += 1
                left = len(spans) - done
                if linted and progress is not None and left >= PROGRESS_MIN_LEFT and time.perf_counter() >= next_progress:
                    progress(sorted(diagnostics, key=_order))
                    next_progress = time.perf_counter() + PROGRESS_S
        except NotLocal:
            return None
        # Keep only what this version uses: the cache never outgrows one file.
        self._units, self._context = units_cache, context_cache
        diagnostics.sort(key=_order)
        return diagnostics


def _order(diagnostic: types.Diagnostic) -> Tuple[int, int, str]:
    return (diagnostic.range.start.line, diagnostic.range.start.character, str(diagnostic.code))


def _lint_view(
    lines: List[str],
    shown: List[int],
    own: FrozenSet[int],
    encoding: str,
    run: Callable[[str], FileResult],
    render: Callable[[Finding, Document], types.Diagnostic],
    base: int,
) -> _Lint:
    """Lint the ``shown`` lines as one module; keep the findings on ``own`` lines."""
    view = "".join(lines[i] for i in shown)
    if not view.strip():
        return _Lint(base, [])
    result = run(view)
    if result.error:
        raise NotLocal(result.error)
    document = Document(view, encoding)
    kept = []
    movable = True
    for finding in result.findings:
        if shown[finding.line - 1] not in own:
            continue  # the context's findings come from the context's own lint
        diagnostic = _remap(render(finding, document), shown)
        touched = _touched_lines(diagnostic)
        movable = movable and touched <= own
        kept.append(diagnostic)
    return _Lint(base, kept, movable)


def _touched_lines(diagnostic: types.Diagnostic) -> FrozenSet[int]:
    """The lines a diagnostic's fix rewrites (an insertion touches the line it lands on)."""
    fix = diagnostic.data.get("fix") if isinstance(diagnostic.data, dict) else None
    touched: Set[int] = set()
    for edit in fix["edits"] if fix else ():
        start, end = edit["range"]["start"], edit["range"]["end"]
        last = end["line"] if end["character"] > 0 else max(start["line"], end["line"] - 1)
        touched.update(range(start["line"], last + 1))
    return frozenset(touched)
