"""Naming helpers: dotted names of expressions and the calls that matter to autograd."""

from __future__ import annotations

from typing import Iterator, Optional

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


def iter_calls(node: cst.CSTNode) -> Iterator[cst.Call]:
    """Every call inside ``node`` (not descending into nested functions, lambdas or classes)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Call):
            yield current
        for child in reversed(current.children):
            if isinstance(child, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
                continue
            stack.append(child)
