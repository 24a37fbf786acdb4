"""One file: bytes → parse → rules → fixes → bytes.

The engine never reads or writes files, never prints and knows nothing of
click; :func:`check_source` is a pure function of its arguments and never
raises for bad input: problems come back as ``FileResult.error``.
"""

from __future__ import annotations

import ast
import dataclasses
import difflib
import re
import sys
import warnings
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple, Type

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from autofix import suppression, syntax
from autofix.analysis.names import children
from autofix.analysis.screen import parse_python, set_origin
from autofix.context import FIND_PROJECT, RuleContext
from autofix.diff import common_ends, match_line_endings, unified_diff
from autofix.rule import Fix, InsertAfter, InsertBefore, Remove, Replace, Report, Rule
from autofix.types import FileResult, Finding, FixInfo, Options, TextEdit

#: ``# autofix: ignore`` / ``# autofix: ignore[AF101,AF104]`` (shared with the language server).
SUPPRESSION = suppression.SUPPRESSION


class RuleCrash(Exception):
    """A rule raised while checking; the message names the rule."""


# --------------------------------------------------------------------------- entry points


def check_source(
    source: bytes,
    path: str,
    rules: Sequence[Type[Rule]],
    options: Optional[Options] = None,
    project: Any = FIND_PROJECT,
) -> FileResult:
    """Lint ``source`` with ``rules``; with ``options.fix``, also fix it to a fixpoint.

    ``project`` (an :class:`autofix.model.project.Project`) is what names
    imported from other files resolve through; by default it is found from
    ``path`` when a rule first asks (None: the file stands alone).
    """
    options = options if options is not None else Options()
    if b"\x00" in source:
        return FileResult(path, source, source, error="file contains a NUL byte (binary file?)")
    active, tree = _screen(source, rules, path, project)
    if not active:
        return FileResult(path, source, source, skipped_by_prefilter=True)

    module, error = parse(source)
    if module is None:
        return FileResult(path, source, source, error=error)

    result = _check_module(source, module, path, active, options, project, tree)
    warnings = _suppression_warnings(_text(source, module))
    return dataclasses.replace(result, warnings=warnings) if warnings else result


def _suppression_warnings(code: str) -> Tuple[str, ...]:
    if "autofix" not in code and "noqa" not in code.lower():
        return ()
    from autofix import registry

    known = [rule.CODE for rule in registry.all_rules()]
    return tuple(f"{line}: {message}" for line, message in suppression.unknown_codes(code, known))


def _check_module(
    source: bytes,
    module: cst.Module,
    path: str,
    active: Sequence[Type[Rule]],
    options: Options,
    project: Any = FIND_PROJECT,
    tree: Optional[ast.Module] = None,
) -> FileResult:
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    try:
        reports, context = _lint(wrapper, active, path, _text(source, module), project, tree)
    except RecursionError:
        return FileResult(path, source, source, error=TOO_DEEP_TO_ANALYSE)
    except Exception as exc:  # a rule crashed: report it for this file, keep the run going
        return FileResult(path, source, source, error=f"internal error in autofix: {_describe(exc)}")
    if not reports:
        return FileResult(path, source, source)
    positions = context.metadata(PositionProvider)
    text: Optional[_ModuleText] = None  # built on the first fix: most files have none
    findings = []
    for report in reports:
        fix_info = None
        if report.fix is not None:
            text = text or _ModuleText(wrapper.module, _text(source, module))
            fix_info = _render_fix(wrapper.module, positions, report.fix, text, path)
        findings.append(_finding(path, report, positions, fix_info))
    findings.sort(key=lambda f: (f.line, f.column, f.code))

    fixed = source
    applied: Tuple[str, ...] = ()
    if options.fix:
        try:
            fixed, applied = _fix_to_fixpoint(wrapper, positions, reports, active, path, options, text, context.project_setting)
            if not applied:
                # Nothing changed: hand back the input itself, not LibCST's
                # regeneration of it (which can differ in rare whitespace).
                fixed = source
        except RecursionError:
            return FileResult(path, source, source, tuple(findings), error=TOO_DEEP_TO_ANALYSE)
        except Exception as exc:
            return FileResult(
                path,
                source,
                source,
                tuple(findings),
                error=f"internal error while fixing (file left unchanged): {_describe(exc)}",
            )
    return FileResult(path, source, fixed, tuple(findings), applied_codes=applied)


def _describe(exc: Exception) -> str:
    return str(exc) if isinstance(exc, RuleCrash) else f"{type(exc).__name__}: {exc}"


def rules_that_may_fire(source: bytes, rules: Sequence[Type[Rule]]) -> List[Type[Rule]]:
    """The rules that may fire on ``source``: its text has their trigger words, Python's parse tree passes their screens."""
    return _screen(source, rules)[0]


def _screen(
    source: bytes, rules: Sequence[Type[Rule]], path: Optional[str] = None, project: Any = None
) -> Tuple[List[Type[Rule]], Optional[ast.Module]]:
    """:func:`rules_that_may_fire`, and Python's parse tree when the screens made one: the program
    model summarises the module from it (with the facts the screens already read) instead of parsing again.

    With ``path``, a screen may ask the program model about the names the file imports from
    ``project`` (as :func:`check_source` takes it).
    """
    text = source.decode("latin-1")
    active = [r for r in rules if r.may_fire(text)]
    tree = None
    if any(r.screens() for r in active):
        tree = parse_python(source)
        if tree is not None:
            if path is not None:
                set_origin(tree, path, project, source)
            else:
                set_origin(tree, "<string>", None, source)
            active = [r for r in active if r.may_fire_in(tree)]
    return active, tree


def parse(source: bytes) -> Tuple[Optional[cst.Module], Optional[str]]:
    """Parse bytes (PEP 263 cookie and BOM aware) or say why not."""
    too_deep = nesting_problem(source)
    if too_deep is not None:
        return None, too_deep
    try:
        return cst.parse_module(source), None
    except cst.ParserSyntaxError as exc:
        # Python's own message and caret; LibCST's only where Python parses the file.
        message = str(exc).splitlines()[0] if str(exc) else "invalid syntax"
        detail = getattr(exc, "message", None) or message
        own = syntax.python_error(source)
        return None, own or f"syntax error at {exc.raw_line}:{exc.raw_column + 1}: {detail.strip()}"
    except (UnicodeDecodeError, LookupError, SyntaxError) as exc:
        return None, f"cannot decode file: {exc}"
    except RecursionError:
        return None, TOO_DEEP_TO_ANALYSE
    except Exception as exc:  # LibCST raises a few other types on exotic input
        return None, f"cannot parse file: {type(exc).__name__}: {exc}"


#: Deeper code is reported instead of parsed. LibCST's native parser crashes
#: (SIGSEGV) on a few thousand nested brackets, its parse time grows with the
#: square of an operator chain's length (2.6 s for a 1,000-term sum), and the
#: analyses recurse once or more per level. CPython itself refuses 200 nested brackets.
MAX_NESTING = 500
TOO_DEEP = f"file is too deeply nested to check (more than {MAX_NESTING} levels of nesting)"
#: What a file that still exhausts Python's recursion limit gets.
TOO_DEEP_TO_ANALYSE = "file is too deeply nested to check (Python's recursion limit)"
#: A file is measured exactly only when a cheap scan of its bytes finds a
#: bracket nesting or a logical line this long: a level costs at least one byte.
_SUSPICIOUS_BRACKETS = 50
_SUSPICIOUS_LINE = 2000
_BRACKET_OR_NEWLINE = re.compile(rb"[][(){}\n]")
#: Python frames an analysis may use per level of nesting (measured: under 3), with room to spare.
_FRAMES_PER_LEVEL = 6


def nesting_problem(source: bytes) -> Optional[str]:
    """Why ``source`` is too deep to hand to LibCST, or None.

    Accepting a file also raises the recursion limit enough for the analyses
    to walk it as deep as it may be.
    """
    brackets, line = _naive_nesting(source)
    if brackets <= _SUSPICIOUS_BRACKETS and line <= _SUSPICIOUS_LINE:
        # Not measured: a level costs at least a byte of its logical line, and
        # Python allows 100 levels of indentation (two levels each).
        _allow_recursion(line + 200)
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(source)
    except (RecursionError, MemoryError):
        return TOO_DEEP
    except SyntaxError as exc:
        if "too many nested" in str(exc.msg) or "too complex" in str(exc.msg) or brackets > 200:
            return TOO_DEEP
        _allow_recursion(min(line, MAX_NESTING) + 200)
        return None  # LibCST parses it or reports the syntax error itself
    except (ValueError, UnicodeDecodeError, LookupError):
        return None  # decoding problems: LibCST says what they are
    depth = _depth(tree, MAX_NESTING)
    if depth > MAX_NESTING:
        return TOO_DEEP
    _allow_recursion(depth)
    return None


def _allow_recursion(levels: int) -> None:
    needed = levels * _FRAMES_PER_LEVEL + 1000
    if sys.getrecursionlimit() < needed:
        sys.setrecursionlimit(needed)


def _naive_nesting(source: bytes) -> Tuple[int, int]:
    """Bracket depth and longest logical line, counting brackets in strings and comments too.

    An upper bound for ordinary files, only used to decide whether to measure exactly.
    """
    depth = deepest = 0
    line_start = longest = 0
    for match in _BRACKET_OR_NEWLINE.finditer(source):
        char = match.group()
        if char == b"\n":
            if depth == 0:
                longest = max(longest, match.start() - line_start)
                line_start = match.start()
        elif char in b"([{":
            depth += 1
            deepest = max(deepest, depth)
        elif depth:
            depth -= 1
    return deepest, max(longest, len(source) - line_start)


def _depth(tree: ast.AST, limit: int) -> int:
    """The nesting depth of ``tree``, iteratively; stops counting past ``limit``."""
    deepest = 0
    stack: List[Tuple[ast.AST, int]] = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > deepest:
            deepest = depth
            if deepest > limit:
                break
        depth += 1
        stack.extend((child, depth) for child in ast.iter_child_nodes(node))
    return deepest


# --------------------------------------------------------------------------- linting


def _lint(
    wrapper: MetadataWrapper,
    rules: Sequence[Type[Rule]],
    path: str,
    code: str,
    project: Any = FIND_PROJECT,
    tree: Optional[ast.Module] = None,
) -> Tuple[List[Report], RuleContext]:
    """Run ``rules``; ``code`` is the module's text (generating it again costs a full codegen), ``tree``
    Python's parse of it when the screens made one."""
    context = RuleContext(wrapper, path, code, project, tree=tree)
    reports: List[Report] = []
    for rule_cls in rules:
        rule = rule_cls(context)
        try:
            rule.check()
        except RecursionError:
            raise
        except Exception as exc:
            # Name the rule: "internal error" alone leaves a bug report nowhere to start.
            raise RuleCrash(f"{rule_cls.CODE} crashed: {type(exc).__name__}: {exc}") from exc
        reports.extend(rule.reports)
    if not reports:
        return reports, context
    comments = suppression.Suppressions(code)
    if not comments:
        return reports, context
    positions = context.metadata(PositionProvider)
    return [r for r in reports if not _suppressed(r, comments, positions)], context


def _suppressed(report: Report, comments: suppression.Suppressions, positions) -> bool:
    """A suppression on any line of the finding's statement, or on a line of another anchor of it."""
    start = positions[report.node].start.line
    lines = set(comments.statement_lines(start))
    lines.update(range(start, positions[report.end_node or report.node].end.line + 1))
    for anchor in report.anchors:
        lines.update(comments.statement_lines(positions[anchor].start.line))
    return comments.silences(report.code, sorted(lines))


def _finding(path: str, report: Report, positions, fix: Optional[FixInfo]) -> Finding:
    start = positions[report.node].start
    end = positions[report.end_node or report.node].end
    return Finding(
        path=path,
        code=report.code,
        name=report.name,
        message=report.message,
        line=start.line,
        column=start.column + 1,
        end_line=end.line,
        end_column=end.column + 1,
        fix=fix,
    )


def _allowed(report: Report, options: Options) -> bool:
    return report.fix is not None and options.may_fix(report.code, report.fix.applicability)


# --------------------------------------------------------------------------- fixing


def _fix_to_fixpoint(
    wrapper: MetadataWrapper,
    positions,
    reports: List[Report],
    rules: Sequence[Type[Rule]],
    path: str,
    options: Options,
    text: Optional["_ModuleText"] = None,
    project: Any = FIND_PROJECT,
) -> Tuple[bytes, Tuple[str, ...]]:
    original = wrapper.module
    applied: Set[str] = set()
    module = original
    data = b""
    for _ in range(options.max_passes):
        fixes = [(r.code, r.fix) for r in reports if r.fix is not None and _allowed(r, options)]
        if not fixes:
            break
        new_module, codes = apply_fixes(module, positions, fixes)
        if not codes:
            break
        applied.update(codes)
        # Re-parse so that positions and metadata describe the new text exactly.
        if text is not None and module is original:
            # Untouched top-level statements keep the text already generated for them.
            data = text.code_of(new_module).encode(new_module.encoding)
        else:
            data = new_module.bytes
        module = cst.parse_module(data)
        wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        # A rule whose screens fail on the fixed text cannot fire on it (the screens are sound).
        rules, tree = _screen(data, rules, path, project)
        reports, context = _lint(wrapper, rules, path, _text(data, module), project, tree)
        positions = context.metadata(PositionProvider)
    else:
        if any(_allowed(r, options) for r in reports):
            raise RuntimeError(f"fixes did not converge after {options.max_passes} passes")
    if module is original:
        return b"", ()  # nothing applied: the caller hands back the input itself
    code = _text(data, module)
    _check_compiles(code, path, original)
    matched = match_line_endings(text.code if text is not None else original.code, code)
    if matched is not code:
        data = (("\ufeff" if data.startswith(b"\xef\xbb\xbf") else "") + matched).encode(module.encoding)
    return data, tuple(sorted(applied))


def _text(data: bytes, module: cst.Module) -> str:
    """``module.code`` without generating it: the text ``module`` was parsed from."""
    text = data.decode(module.encoding)
    return text[1:] if text.startswith("\ufeff") else text


def _check_compiles(code: str, path: str, original: cst.Module) -> None:
    """Raise when the fixed ``code`` does not compile but the ``original`` did.

    This interpreter may be older than the syntax LibCST accepts (PEP 695 on
    3.11): when the original does not compile here either, there is nothing to compare.
    """
    try:
        compile(code, path, "exec", dont_inherit=True)
    except SyntaxError as exc:
        try:
            compile(original.code, path, "exec", dont_inherit=True)
        except SyntaxError:
            return
        raise RuntimeError(f"fixed source does not compile: {exc}") from exc


def _span(positions, node: cst.CSTNode) -> CodeRange:
    return positions[node]


def _overlaps(a: CodeRange, b: CodeRange) -> bool:
    a0, a1 = (a.start.line, a.start.column), (a.end.line, a.end.column)
    b0, b1 = (b.start.line, b.start.column), (b.end.line, b.end.column)
    return a0 < b1 and b0 < a1 or a0 == b0


def apply_fixes(
    module: cst.Module,
    positions,
    fixes: Sequence[Tuple[str, Fix]],
    parents: Optional[Dict[int, cst.CSTNode]] = None,
) -> Tuple[cst.Module, List[str]]:
    """Apply every fix whose edits do not overlap an earlier one; return the codes applied.

    Overlapping fixes are left for the next pass of the fixpoint loop.
    ``parents`` is ``module``'s :func:`parent_map` when the caller has it.
    """
    taken: List[CodeRange] = []
    plan = _Plan()
    codes: List[str] = []
    for code, fix in fixes:
        spans = [_span(positions, edit.node) for edit in fix.edits]
        if any(_overlaps(s, t) for s in spans for t in taken):
            continue
        taken.extend(spans)
        plan.add(fix)
        codes.append(code)
    if not codes:
        return module, []
    applier = _Applier(plan, _ancestors(module, plan.targets(), parents))
    new_module = module.visit(applier)
    if applier.applied < plan.size:
        # A target sat where a parent's position does not cover it (rare
        # LibCST position quirks): redo the walk without pruning.
        new_module = module.visit(_Applier(plan))
    return new_module, codes


class _Plan:
    def __init__(self) -> None:
        self.size = 0
        self.replace: Dict[cst.CSTNode, cst.CSTNode] = {}
        self.before: Dict[cst.CSTNode, List[cst.BaseStatement]] = {}
        self.after: Dict[cst.CSTNode, List[cst.BaseStatement]] = {}
        self.remove: Set[cst.CSTNode] = set()

    def targets(self) -> List[cst.CSTNode]:
        return [*self.replace, *self.before, *self.after, *self.remove]

    def add(self, fix: Fix) -> None:
        for edit in fix.edits:
            self.size += 1
            if isinstance(edit, Replace):
                self.replace[edit.node] = edit.replacement
            elif isinstance(edit, InsertBefore):
                self.before.setdefault(edit.node, []).extend(edit.statements)
            elif isinstance(edit, InsertAfter):
                self.after.setdefault(edit.node, []).extend(edit.statements)
            elif isinstance(edit, Remove):
                self.remove.add(edit.node)
            else:  # pragma: no cover - the Edit union is closed
                raise TypeError(edit)


def parent_map(module: cst.Module) -> Dict[int, cst.CSTNode]:
    """The parent of each code-carrying node of ``module``, by the child's id."""
    parents: Dict[int, cst.CSTNode] = {}
    stack: List[cst.CSTNode] = [module]
    while stack:
        parent = stack.pop()
        for child in children(parent):
            parents[id(child)] = parent
            stack.append(child)
    return parents


def _ancestors(
    module: cst.Module, targets: Sequence[cst.CSTNode], parents: Optional[Dict[int, cst.CSTNode]] = None
) -> Set[int]:
    """ids of ``targets`` and of every node on the way down to them from ``module``."""
    if parents is None:
        parents = parent_map(module)
    keep: Set[int] = {id(module)}
    for target in targets:
        node: Optional[cst.CSTNode] = target
        while node is not None and id(node) not in keep:
            keep.add(id(node))
            node = parents.get(id(node))
    return keep


class _Applier(cst.CSTTransformer):
    """Applies a plan; given ``keep``, it only descends into nodes on the way to a target.

    Skipping untouched subtrees keeps one fix's cost proportional to the depth
    of its edits instead of the size of the file.
    """

    def __init__(self, plan: _Plan, keep: Optional[Set[int]] = None) -> None:
        super().__init__()
        self.plan = plan
        self.keep = keep
        self.applied = 0

    def on_visit(self, node) -> bool:
        return self.keep is None or id(node) in self.keep

    def on_leave(self, original_node, updated_node):
        updated_node = super().on_leave(original_node, updated_node)
        plan = self.plan
        if original_node in plan.remove:
            self.applied += 1
            return cst.RemovalSentinel.REMOVE
        if original_node in plan.replace:
            self.applied += 1
            updated_node = plan.replace[original_node]
        before = plan.before.get(original_node, ())
        after = plan.after.get(original_node, ())
        if before:
            self.applied += 1
        if after:
            self.applied += 1
        if before or after:
            return cst.FlattenSentinel([*before, updated_node, *after])
        return updated_node

    def leave_IndentedBlock(self, original_node, updated_node):
        if not updated_node.body:
            return updated_node.with_changes(body=[cst.SimpleStatementLine([cst.Pass()])])
        return updated_node

    def leave_SimpleStatementLine(self, original_node, updated_node):
        if not updated_node.body:
            return cst.RemovalSentinel.REMOVE
        return updated_node

    def leave_SimpleStatementSuite(self, original_node, updated_node):
        if not updated_node.body:
            return updated_node.with_changes(body=[cst.Pass()])
        return updated_node


class _ModuleText:
    """The code of a module, kept per top-level statement.

    A fix rebuilds only the top-level statements it touches; generating the
    text of the untouched ones again for every finding would make rendering
    per-finding diffs quadratic in the file size.
    """

    def __init__(self, module: cst.Module, code: str) -> None:
        self.module = module
        self.parts = {id(stmt): module.code_for_node(stmt) for stmt in module.body}
        self.header = "".join(module.code_for_node(line) for line in module.header)
        self.footer = "".join(module.code_for_node(line) for line in module.footer)
        #: the module's text as parsed (``module.code`` would generate it all again)
        self.code = code
        self._parents: Optional[Dict[int, cst.CSTNode]] = None

    @property
    def parents(self) -> Dict[int, cst.CSTNode]:
        """:func:`parent_map` of the module, built once for all the fixes rendered against it."""
        if self._parents is None:
            self._parents = parent_map(self.module)
        return self._parents

    def code_of(self, new: cst.Module) -> str:
        old = self.module
        if (
            not old.has_trailing_newline
            or new.has_trailing_newline != old.has_trailing_newline
            or not _same_nodes(new.header, old.header)
            or not _same_nodes(new.footer, old.footer)
        ):
            return new.code
        body = "".join(
            self.parts[id(stmt)] if id(stmt) in self.parts else new.code_for_node(stmt) for stmt in new.body
        )
        return self.header + body + self.footer


def _same_nodes(a: Sequence[cst.CSTNode], b: Sequence[cst.CSTNode]) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


def _render_fix(module: cst.Module, positions, fix: Fix, text: "_ModuleText", path: str) -> FixInfo:
    new_module, _ = apply_fixes(module, positions, [("", fix)], text.parents)
    old_code = text.code
    new_code = match_line_endings(old_code, text.code_of(new_module))
    return FixInfo(
        applicability=fix.applicability,
        title=fix.title,
        diff=unified_diff(old_code, new_code, path),
        edits=text_edits(old_code, new_code),
    )


def text_edits(old: str, new: str) -> Tuple[TextEdit, ...]:
    """Line-granular minimal edits turning ``old`` into ``new``."""
    a = old.splitlines(keepends=True)
    b = new.splitlines(keepends=True)
    # Match only the changed middle: difflib costs far more than linear in its input.
    prefix, suffix = common_ends(a, b)
    a, b = a[prefix : len(a) - suffix], b[prefix : len(b) - suffix]
    edits = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        edits.append(TextEdit(prefix + i1 + 1, 0, prefix + i2 + 1, 0, "".join(b[j1:j2])))
    return tuple(edits)
