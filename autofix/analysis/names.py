"""Naming helpers: dotted names of expressions and the calls that matter to autograd."""

from __future__ import annotations

import dataclasses

from typing import Dict, Iterator, List, Optional, Set, Tuple

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


def walk_local(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """``node`` and its descendants in source order, not entering nested functions, lambdas or classes."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        for child in reversed(children(current)):
            if type(child) in _NEW_SCOPES:
                continue
            stack.append(child)


def iter_calls(node: cst.CSTNode) -> Iterator[cst.Call]:
    """Every call inside ``node`` (not descending into nested functions, lambdas or classes)."""
    for current in walk_local(node):
        if isinstance(current, cst.Call):
            yield current


# LibCST's ``CSTNode.children`` rebuilds the node through a visitor on every
# access (a copy, validation, a visit of every whitespace token): the largest
# single cost of the analyses on big files. Reading the dataclass fields is an
# order of magnitude faster. Whitespace, comments and punctuation are left
# out (no analysis looks at them) and the few node types whose fields are not
# declared in source order get their order spelled out.
_SOURCE_ORDER: Dict[type, Tuple[str, ...]] = {
    cst.FunctionDef: ("decorators", "name", "type_parameters", "params", "returns", "body"),
    cst.ClassDef: ("decorators", "name", "type_parameters", "bases", "keywords", "body"),
    cst.MatchCase: ("pattern", "guard", "body"),
    cst.IfExp: ("body", "test", "orelse"),
    cst.ExceptHandler: ("type", "name", "body"),
    cst.ExceptStarHandler: ("type", "name", "body"),
    cst.Arg: ("keyword", "value"),
    cst.Parameters: ("posonly_params", "params", "star_arg", "kwonly_params", "star_kwarg"),
}
_LAYOUT_FIELDS = frozenset(
    {
        "lpar", "rpar", "comma", "semicolon", "leading_lines", "lines_after_decorators", "trailing_whitespace",
        "header", "footer", "equal", "colon", "dot", "newline", "asynchronous", "star", "relative",
        "lbracket", "rbracket", "lbrace", "rbrace", "first_line", "empty_lines", "default_indent",
        "default_newline", "comment", "first_colon", "second_colon", "last_line", "leading_whitespace",
        "separator", "posonly_ind", "trailing_comma",
    }
)
_FIELDS: Dict[type, Tuple[str, ...]] = {}


def _fields(kind: type) -> Tuple[str, ...]:
    names = _SOURCE_ORDER.get(kind)
    if names is None:
        names = tuple(
            f.name
            for f in dataclasses.fields(kind)
            if f.name not in _LAYOUT_FIELDS and not f.name.startswith("whitespace")
        )
    _FIELDS[kind] = names
    return names


def children(node: cst.CSTNode) -> List[cst.CSTNode]:
    """The child nodes of ``node`` that carry code, in source order (no whitespace, comments or punctuation)."""
    kind = type(node)
    names = _FIELDS.get(kind) or _fields(kind)
    found: List[cst.CSTNode] = []
    for name in names:
        value = getattr(node, name)
        if _is_node(value):
            found.append(value)
        elif isinstance(value, (list, tuple)):
            found.extend(v for v in value if _is_node(v))
    return found


#: Node types that open a scope of their own (LibCST's node classes are final in practice).
_NEW_SCOPES = frozenset({cst.FunctionDef, cst.Lambda, cst.ClassDef})
#: type → is it a CSTNode. ``isinstance`` against CSTNode, an ABC, goes through
#: ``ABCMeta.__instancecheck__``: on a 4,000-line script 8.9 million such checks
#: cost more than a third of the run. Membership depends on the type alone.
_NODE_TYPES: Dict[type, bool] = {}


def _is_node(value: object) -> bool:
    kind = type(value)
    known = _NODE_TYPES.get(kind)
    if known is None:
        known = _NODE_TYPES[kind] = isinstance(value, cst.CSTNode)
    return known


def bound_roots(target: cst.CSTNode) -> Set[str]:
    """The names a binding target rebinds or changes: ``a`` for ``a``, ``a.b``, ``a[i]``; each of a tuple's."""
    if isinstance(target, (cst.Tuple, cst.List)):
        out: Set[str] = set()
        for element in target.elements:
            out |= bound_roots(element.value)
        return out
    if isinstance(target, cst.StarredElement):
        return bound_roots(target.value)
    while isinstance(target, (cst.Attribute, cst.Subscript)):
        target = target.value
    return {target.value} if isinstance(target, cst.Name) else set()
