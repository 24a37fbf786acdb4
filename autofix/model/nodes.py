"""Every node of a module in one pass, filed by what the screens and the model's fact readers ask of it.

Kept on the tree (:func:`nodes_of`), so the syntactic screens
(:mod:`autofix.analysis.screen`) and AF103's analysis (:mod:`autofix.analysis.inplace`)
share one walk.
"""

from __future__ import annotations

import ast
from typing import Dict, List, Optional, Tuple, Union


class ModuleNodes:
    """Every node of a module in one pass, filed by what the screens ask of it."""

    def __init__(self, tree: ast.Module) -> None:
        self.calls: List[ast.Call] = []
        self.imports: List[Union[ast.Import, ast.ImportFrom]] = []
        self.assigns: List[ast.Assign] = []
        self.classes: List[ast.ClassDef] = []
        self.functions: List[Union[ast.FunctionDef, ast.AsyncFunctionDef]] = []
        #: each def's (and the module's) own nodes: its body, not nested defs, classes or lambdas
        self.local: Dict[int, List[ast.AST]] = {id(tree): []}
        #: how often the module spells each plain name, and (keyed ``.attr``) each attribute
        self.mentions: Dict[str, int] = {}
        mentions = self.mentions
        # (node, the list of the scope it belongs to, None outside any walked scope)
        stack: List[Tuple[ast.AST, Optional[List[ast.AST]]]] = [(tree, None)]
        while stack:
            node, owner = stack.pop()
            kind = type(node)
            if kind is ast.Call:
                self.calls.append(node)  # type: ignore[arg-type]
            elif kind is ast.Assign:
                self.assigns.append(node)  # type: ignore[arg-type]
            elif kind is ast.Import or kind is ast.ImportFrom:
                self.imports.append(node)  # type: ignore[arg-type]
            elif kind is ast.ClassDef:
                self.classes.append(node)  # type: ignore[arg-type]
            elif kind is ast.Name:
                mentions[node.id] = mentions.get(node.id, 0) + 1  # type: ignore[attr-defined]
            elif kind is ast.Attribute:
                key = "." + node.attr  # type: ignore[attr-defined]
                mentions[key] = mentions.get(key, 0) + 1
            if kind is ast.Module:
                inner: Optional[List[ast.AST]] = self.local[id(node)]
            elif kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
                # Its body is its own; decorators, defaults and annotations belong to no walked scope.
                self.functions.append(node)  # type: ignore[arg-type]
                body = self.local[id(node)] = []
                outside = [getattr(node, f, None) for f in node._fields if f != "body"]
                stack.extend((child, None) for child in _flatten(outside))
                stack.extend((child, body) for child in reversed(node.body))  # type: ignore[attr-defined]
                continue
            elif kind is ast.ClassDef or kind is ast.Lambda:
                inner = None
            else:
                inner = owner
                if owner is not None:
                    owner.append(node)
            for name in node._fields:
                value = getattr(node, name, None)
                if isinstance(value, list):
                    for child in reversed(value):
                        if isinstance(child, ast.AST):
                            stack.append((child, inner))
                elif isinstance(value, ast.AST):
                    stack.append((value, inner))


def _flatten(values: List[object]) -> List[ast.AST]:
    found: List[ast.AST] = []
    for value in values:
        if isinstance(value, ast.AST):
            found.append(value)
        elif isinstance(value, list):
            found.extend(v for v in value if isinstance(v, ast.AST))
    return found


def nodes_of(tree: ast.Module) -> ModuleNodes:
    """The one pass over ``tree`` (made once, kept on the tree)."""
    found = getattr(tree, "_autofix_nodes", None)
    if found is None:
        found = ModuleNodes(tree)
        tree._autofix_nodes = found  # type: ignore[attr-defined]
    return found


def dotted(node: ast.AST) -> Optional[str]:
    """``self.opt.step`` for an attribute chain of plain names, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None
