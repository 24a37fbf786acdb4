"""Naming helpers: dotted names of expressions and the calls that matter to autograd."""

from __future__ import annotations

from typing import Dict, Iterator, Optional, Sequence, Tuple

import libcst as cst


def dotted_name(node: cst.BaseExpression) -> Optional[str]:
    """``self.opt.zero_grad`` for an attribute chain of plain names, else ``None``."""
    parts = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if isinstance(node, cst.Name):
        parts.append(node.value)
        return ".".join(reversed(parts))
    return None


def method_call(node: cst.CSTNode) -> Optional[tuple]:
    """``(receiver, method_name)`` when ``node`` is a call ``receiver.method(...)``."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        return node.func.value, node.func.attr.value
    return None


def keyword(call: cst.Call, name: str) -> Optional[cst.Arg]:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg
    return None


def is_true(node: Optional[cst.BaseExpression]) -> bool:
    return isinstance(node, cst.Name) and node.value == "True"


def walk_local(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """``node`` and its descendants in source order, not entering nested functions, lambdas or classes."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        for child in reversed(children(current)):
            if isinstance(child, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
                continue
            stack.append(child)


def iter_calls(node: cst.CSTNode) -> Iterator[cst.Call]:
    """Every call inside ``node`` (not descending into nested functions, lambdas or classes)."""
    for current in walk_local(node):
        if isinstance(current, cst.Call):
            yield current


# LibCST computes ``CSTNode.children`` by running a visitor on every access;
# analyses walk the same subtrees many times, so the answer is memoised (nodes
# are immutable). The entry keeps the node alive, so its id cannot be reused.
_CHILDREN: Dict[int, Tuple[cst.CSTNode, Sequence[cst.CSTNode]]] = {}


def children(node: cst.CSTNode) -> Sequence[cst.CSTNode]:
    """``node.children`` (source order), memoised until :func:`forget_children`."""
    hit = _CHILDREN.get(id(node))
    if hit is not None and hit[0] is node:
        return hit[1]
    found = node.children
    _CHILDREN[id(node)] = (node, found)
    return found


def forget_children() -> None:
    """Drop the memo (the engine calls this between modules)."""
    _CHILDREN.clear()
