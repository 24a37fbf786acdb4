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
"""

from __future__ import annotations

from typing import Dict, List, Mapping, Optional

import libcst as cst
from libcst.metadata import CodePosition, CodeRange, MetadataWrapper, PositionProvider

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
