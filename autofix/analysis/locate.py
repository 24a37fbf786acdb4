"""The LibCST node of a node of Python's parse tree, for analyses that run on :mod:`ast`.

An analysis that reads Python's parse tree (cheap, and made by the engine's
screens anyway) hands its rule ast nodes; the rule reports and fixes LibCST
nodes. The two trees have the same statements in the same order, LibCST only
grouping the simple statements of one line (``a = 1; b = 2``) into a
``SimpleStatementLine``, so statements are paired by walking both blocks in
step, with no positions (ast columns count UTF-8 bytes, LibCST's characters).
Inside a statement, the calls of both trees in source order are the same calls.
"""

from __future__ import annotations

import ast
from typing import Dict, List, Optional, Sequence, Tuple, Union

import libcst as cst

from autofix.analysis.names import children

#: ast statement type -> the LibCST type of the same statement
_SAME = {
    ast.Assign: cst.Assign, ast.AugAssign: cst.AugAssign, ast.AnnAssign: cst.AnnAssign, ast.Expr: cst.Expr,
    ast.Return: cst.Return, ast.Raise: cst.Raise, ast.Assert: cst.Assert, ast.Delete: cst.Del, ast.Pass: cst.Pass,
    ast.Break: cst.Break, ast.Continue: cst.Continue, ast.Global: cst.Global, ast.Nonlocal: cst.Nonlocal,
    ast.Import: cst.Import, ast.ImportFrom: cst.ImportFrom, ast.FunctionDef: cst.FunctionDef,
    ast.AsyncFunctionDef: cst.FunctionDef, ast.ClassDef: cst.ClassDef, ast.If: cst.If, ast.For: cst.For,
    ast.AsyncFor: cst.For, ast.While: cst.While, ast.With: cst.With, ast.AsyncWith: cst.With, ast.Try: cst.Try,
    ast.Match: cst.Match,
}
if hasattr(ast, "TryStar"):
    _SAME[ast.TryStar] = cst.TryStar

#: id of an ast statement -> (its LibCST statement, the ``SimpleStatementLine`` holding it, if one does)
Statements = Dict[int, Tuple[cst.CSTNode, Optional[cst.SimpleStatementLine]]]


def pair_statements(tree: ast.Module, module: cst.Module) -> Statements:
    """Every statement of ``tree`` with the LibCST statement it is (a block that does not line up is left out)."""
    found: Statements = {}
    _pair_block(tree.body, module.body, found)
    return found


def _pair_block(
    stmts: List[ast.stmt], block: Union[Sequence[cst.BaseStatement], cst.BaseSuite], found: Statements
) -> None:
    if isinstance(block, cst.IndentedBlock):
        block = block.body
    if isinstance(block, cst.SimpleStatementSuite):
        pairs: List[Tuple[cst.CSTNode, Optional[cst.SimpleStatementLine]]] = [(s, None) for s in block.body]
    else:
        pairs = []
        for stmt in block:  # type: ignore[union-attr]
            if isinstance(stmt, cst.SimpleStatementLine):
                pairs.extend((small, stmt) for small in stmt.body)
            else:
                pairs.append((stmt, None))
    if len(pairs) != len(stmts) or any(type(c) is not _SAME.get(type(a)) for a, (c, _) in zip(stmts, pairs)):
        return  # LibCST read the block differently: leave it unpaired rather than guess
    for a, (c, line) in zip(stmts, pairs):
        found[id(a)] = (c, line)
        _pair_inner(a, c, found)


def _pair_inner(a: ast.stmt, c: cst.CSTNode, found: Statements) -> None:
    if isinstance(a, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.With, ast.AsyncWith)):
        _pair_block(a.body, c.body, found)  # type: ignore[attr-defined]
    elif isinstance(a, (ast.If, ast.For, ast.AsyncFor, ast.While)):
        _pair_block(a.body, c.body, found)  # type: ignore[attr-defined]
        orelse = c.orelse  # type: ignore[attr-defined]
        if isinstance(orelse, cst.If):
            _pair_block(a.orelse, [orelse], found)
        elif orelse is not None:
            _pair_block(a.orelse, orelse.body, found)
    elif isinstance(a, ast.Try) or type(a).__name__ == "TryStar":
        _pair_block(a.body, c.body, found)  # type: ignore[attr-defined]
        for handler, cst_handler in zip(a.handlers, c.handlers):  # type: ignore[attr-defined]
            _pair_block(handler.body, cst_handler.body, found)
        if c.orelse is not None:  # type: ignore[attr-defined]
            _pair_block(a.orelse, c.orelse.body, found)  # type: ignore[attr-defined]
        if c.finalbody is not None:  # type: ignore[attr-defined]
            _pair_block(a.finalbody, c.finalbody.body, found)  # type: ignore[attr-defined]
    elif isinstance(a, ast.Match):
        for case, cst_case in zip(a.cases, c.cases):  # type: ignore[attr-defined]
            _pair_block(case.body, cst_case.body, found)


def same_call(region: ast.AST, call: ast.Call, cst_region: cst.CSTNode) -> Optional[cst.Call]:
    """The LibCST call in ``cst_region`` that is ``call`` of ``region`` (the same code, in both trees)."""
    calls = sorted(
        (n for n in ast.walk(region) if isinstance(n, ast.Call)),
        key=lambda n: (n.lineno, n.col_offset, -(n.end_lineno or 0), -(n.end_col_offset or 0)),
    )
    cst_calls: List[cst.Call] = []
    stack: List[cst.CSTNode] = [cst_region]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Call):
            cst_calls.append(node)
        stack.extend(reversed(children(node)))
    if len(calls) != len(cst_calls):
        return None
    for index, candidate in enumerate(calls):
        if candidate is call:
            return cst_calls[index]
    return None
