"""Positions of nodes, computed only for the top-level statements that hold them.

LibCST's ``PositionProvider`` generates the code of the whole module while
recording where every node lands: on a large file with one finding that
codegen is the most expensive step left. Top-level statements start at column
0 and tile the file, so a node's position is its position within its
top-level statement, generated alone, shifted by the line that statement
starts on. That line comes from Python's own parse tree (its first token,
less the comment and blank lines LibCST attaches in front of it), and is
checked against the file's text: when the generated statement is not exactly
the text at that line, the whole module falls back to ``PositionProvider``.

A node inside an indented block (a method of a 1,000-line trainer class, a
line of a long ``main()``) is placed the same way one level further down: the
innermost statement of a block that holds it is generated alone, and its lines
must be the file's lines, each less the block's indentation. Where they are
not (a string spanning lines, a continuation line that is not indented), the
top-level statement is used.
"""

from __future__ import annotations

from typing import Dict, List, Mapping, Optional, Set, Tuple

import libcst as cst
from libcst.metadata import CodePosition, CodeRange, MetadataWrapper, PositionProvider

try:
    from libcst._nodes.internal import CodegenState
except ImportError:  # pragma: no cover - a LibCST that moved it: top-level statements only
    CodegenState = None  # type: ignore[assignment,misc]

from autofix.analysis.names import children
from autofix.analysis.screen import parse_python


class LazyPositions(Mapping[cst.CSTNode, CodeRange]):
    """``node → CodeRange`` for ``module``, equal to ``PositionProvider``'s, computed on demand."""

    def __init__(self, module: cst.Module, code: str) -> None:
        self.module = module
        self.code = code
        self._statement_of: Optional[Dict[int, int]] = None
        self._done: Dict[int, Mapping[cst.CSTNode, CodeRange]] = {}
        self._offsets: Optional[List[int]] = None
        self._full: Optional[Mapping[cst.CSTNode, CodeRange]] = None
        self._lines = code.splitlines(keepends=True)
        #: per top-level statement: its blocks' statements by node id, and where each starts
        self._layouts: Dict[int, Optional[_Layout]] = {}
        #: per statement of a block (by id): its positions, first line (0-based) and indentation width
        self._inner: Dict[int, Optional[Tuple[Mapping[cst.CSTNode, CodeRange], int, int]]] = {}

    # Mapping protocol: lookups by node; iteration and length need everything.
    def __getitem__(self, node: cst.CSTNode) -> CodeRange:
        found = self.get(node)
        if found is None:
            raise KeyError(node)
        return found

    def get(self, node: cst.CSTNode, default: Optional[CodeRange] = None) -> Optional[CodeRange]:  # type: ignore[override]
        if self._full is not None:
            return self._full.get(node, default)
        index = self._statements().get(id(node))
        if index is None:
            return self._everything().get(node, default)
        inner = self._inner_get(index, node)
        if inner is not None:
            return inner
        if self._full is not None:
            return self._full.get(node, default)
        relative = self._done.get(index)
        if relative is None:
            relative = self._statement_positions(index)
            if relative is None:
                return self._everything().get(node, default)
        span = relative.get(node)
        if span is None:
            return default
        shift = self._offsets[index]  # type: ignore[index]
        return CodeRange(
            CodePosition(span.start.line + shift, span.start.column),
            CodePosition(span.end.line + shift, span.end.column),
        )

    def __iter__(self):
        return iter(self._everything())

    def __len__(self) -> int:
        return len(self._everything())

    # ---- the pieces

    def _everything(self) -> Mapping[cst.CSTNode, CodeRange]:
        if self._full is None:
            self._full = MetadataWrapper(self.module, unsafe_skip_copy=True).resolve(PositionProvider)
        return self._full

    def _statements(self) -> Dict[int, int]:
        """id of every node below a top-level statement → that statement's index."""
        if self._statement_of is None:
            owner: Dict[int, int] = {}
            for index, statement in enumerate(self.module.body):
                stack: List[cst.CSTNode] = [statement]
                while stack:
                    node = stack.pop()
                    owner[id(node)] = index
                    stack.extend(children(node))
            self._statement_of = owner
        return self._statement_of

    def _statement_positions(self, index: int) -> Optional[Mapping[cst.CSTNode, CodeRange]]:
        offsets = self._first_lines()
        if offsets is None:
            return None
        statement = self.module.body[index]
        alone = self.module.with_changes(body=[statement], header=[], footer=[], has_trailing_newline=True)
        text = alone.code
        lines = self._lines
        start = offsets[index]
        if "".join(lines[start : start + text.count("\n")]) != text:
            self._offsets = None
            self._full = self._everything()  # the anchor was wrong: trust nothing partial
            return None
        relative = MetadataWrapper(alone, unsafe_skip_copy=True).resolve(PositionProvider)
        self._done[index] = relative
        return relative

    def _inner_get(self, index: int, node: cst.CSTNode) -> Optional[CodeRange]:
        """The position of ``node`` from the innermost block statement holding it, or None (use the top level)."""
        if index not in self._layouts:
            self._layouts[index] = self._layout(index)
        layout = self._layouts[index]
        if layout is None:
            return None
        owner = layout.owner.get(id(node))
        if owner is None:
            return None
        key = id(owner)
        if key not in self._inner:
            self._inner[key] = self._owner_positions(owner, layout)
        found = self._inner[key]
        if found is None:
            return None
        relative, first, width = found
        span = relative.get(node)
        if span is None:
            return None
        return CodeRange(
            CodePosition(span.start.line + first, span.start.column + width),
            CodePosition(span.end.line + first, span.end.column + width),
        )

    def _layout(self, index: int) -> Optional["_Layout"]:
        """Where each statement of an indented block of top-level statement ``index`` starts (one plain codegen)."""
        offsets = self._first_lines()
        if offsets is None or CodegenState is None:
            return None
        statement = self.module.body[index]
        owner: Dict[int, cst.CSTNode] = {}
        stack: List[Tuple[cst.CSTNode, Optional[cst.CSTNode]]] = [(statement, None)]
        while stack:
            node, holder = stack.pop()
            if holder is not None:
                owner[id(node)] = holder
            if isinstance(node, cst.IndentedBlock):
                stack.extend((child, child) for child in node.body)
            else:
                stack.extend((child, holder) for child in children(node))
        if not owner:
            return None
        alone = self.module.with_changes(body=[statement], header=[], footer=[], has_trailing_newline=True)
        state = _StartRecorder(alone, {id(o) for o in owner.values()})
        alone._codegen(state)
        text = "".join(state.tokens)
        start = offsets[index]
        if "".join(self._lines[start : start + text.count("\n")]) != text:
            return None  # the top-level path finds the anchor wrong and falls back
        # token index → lines generated before it
        lines_before: Dict[int, int] = {}
        wanted = sorted({at for at, _ in state.starts.values()})
        count = 0
        position = 0
        for at in wanted:
            count += sum(token.count("\n") for token in state.tokens[position:at])
            position = at
            lines_before[at] = count
        starts = {key: (start + lines_before[at], indent) for key, (at, indent) in state.starts.items()}
        return _Layout(owner, starts)

    def _owner_positions(
        self, owner: cst.CSTNode, layout: "_Layout"
    ) -> Optional[Tuple[Mapping[cst.CSTNode, CodeRange], int, int]]:
        """Positions within block statement ``owner`` generated alone, if its lines are the file's less its indentation."""
        where = layout.starts.get(id(owner))
        if where is None:
            return None
        first, indent = where
        alone = self.module.with_changes(body=[owner], header=[], footer=[], has_trailing_newline=True)
        text = alone.code
        lines = self._lines
        for number, line in enumerate(text.splitlines(keepends=True), start=first):
            actual = lines[number] if number < len(lines) else None
            if actual != indent + line and not (actual is not None and not actual.strip() and not line.strip()):
                return None
        return MetadataWrapper(alone, unsafe_skip_copy=True).resolve(PositionProvider), first, len(indent)

    def _first_lines(self) -> Optional[List[int]]:
        """For each top-level statement, how many lines of the file come before it."""
        if self._offsets is None:
            tree = parse_python(self.code)
            if tree is None:
                return None
            flat = tree.body
            offsets: List[int] = []
            position = 0
            for statement in self.module.body:
                if position >= len(flat):
                    return None
                first = flat[position]
                position += len(statement.body) if isinstance(statement, cst.SimpleStatementLine) else 1
                line = first.lineno
                leading = len(statement.leading_lines)
                decorators = getattr(first, "decorator_list", None)
                if decorators:
                    line = decorators[0].lineno
                    leading += len(statement.decorators[0].leading_lines)  # type: ignore[union-attr]
                offsets.append(line - 1 - leading)
            if position != len(flat):
                return None
            self._offsets = offsets
        return self._offsets


class _Layout:
    """A top-level statement's block statements: which one holds each node, and where each starts."""

    __slots__ = ("owner", "starts")

    def __init__(self, owner: Dict[int, cst.CSTNode], starts: Dict[int, Tuple[int, str]]) -> None:
        #: id of a node → the innermost statement of an indented block that holds it
        self.owner = owner
        #: id of such a statement → (0-based file line its text starts on, its indentation)
        self.starts = starts


if CodegenState is not None:

    class _StartRecorder(CodegenState):  # type: ignore[misc,valid-type]
        """A plain codegen that notes, for chosen nodes, the token they start at and the indentation then."""

        def __init__(self, module: cst.Module, wanted: Set[int]) -> None:
            super().__init__(default_indent=module.default_indent, default_newline=module.default_newline)
            self.wanted = wanted
            self.starts: Dict[int, Tuple[int, str]] = {}

        def before_codegen(self, node: cst.CSTNode) -> None:
            if id(node) in self.wanted:
                self.starts[id(node)] = (len(self.tokens), "".join(self.indent_tokens))
