"""One walk over a module that every module-wide fact is read from.

Running a LibCST visitor over a large module costs about as much as parsing
it, and four analyses each ran their own (imports, optimizers, ``no_grad``
regions, the in-place analysis' definitions). This walk reads the nodes once,
through :func:`autofix.analysis.names.children`, and files what they need.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set, Tuple, Union

import libcst as cst

from autofix.analysis.names import children
from autofix.context import RuleContext


@dataclass
class ModuleIndex:
    imports: List[Union[cst.Import, cst.ImportFrom]] = field(default_factory=list)
    #: every ``a = b`` with the innermost class around it (any depth)
    assigns: List[Tuple[cst.Assign, Optional[cst.ClassDef]]] = field(default_factory=list)
    calls: List[cst.Call] = field(default_factory=list)
    withs: List[cst.With] = field(default_factory=list)
    #: every ``def`` with the innermost class around it (any depth)
    functions: List[Tuple[cst.FunctionDef, Optional[cst.ClassDef]]] = field(default_factory=list)
    classes: List[cst.ClassDef] = field(default_factory=list)
    #: every name spelled inside a ``def`` (reads, writes, attributes' names alike)
    names_in_functions: Set[str] = field(default_factory=set)
    #: id of a ``def`` (or of the module) → the calls of its own code, in source order: its
    #: body (the module's statements) without nested defs, lambdas and classes
    own_calls: Dict[int, List[cst.Call]] = field(default_factory=dict)
    #: ids of the defs (or the module) whose own code holds ``x op= …`` or ``x[…] = …``
    own_item_writes: Set[int] = field(default_factory=set)

    def calls_of(self, scope: cst.CSTNode) -> List[cst.Call]:
        return self.own_calls.get(id(scope), [])


def module_index(context: RuleContext) -> ModuleIndex:
    return context.fact("module_index", lambda: index_module(context.module))


def index_module(module: cst.Module) -> ModuleIndex:
    index = ModuleIndex()
    classes: List[cst.ClassDef] = []
    depth = 0
    # (node, leaving, the scope the node belongs to): a def or a class is pushed
    # again to be left after its children.
    stack: List[Tuple[cst.CSTNode, bool, Optional[cst.CSTNode]]] = [(module, False, None)]
    while stack:
        node, leaving, owner = stack.pop()
        kind = type(node)
        if leaving:
            if kind is cst.ClassDef:
                classes.pop()
            else:
                depth -= 1
            continue
        if kind is cst.Name:
            if depth:
                index.names_in_functions.add(node.value)  # type: ignore[attr-defined]
            continue
        inner = owner
        if kind is cst.Call:
            index.calls.append(node)  # type: ignore[arg-type]
            if owner is not None:
                index.own_calls[id(owner)].append(node)  # type: ignore[arg-type]
        elif kind is cst.Assign:
            index.assigns.append((node, classes[-1] if classes else None))  # type: ignore[arg-type]
            if owner is not None and any(isinstance(t.target, cst.Subscript) for t in node.targets):  # type: ignore[attr-defined]
                index.own_item_writes.add(id(owner))
        elif kind is cst.AugAssign:
            if owner is not None:
                index.own_item_writes.add(id(owner))
        elif kind is cst.With:
            index.withs.append(node)  # type: ignore[arg-type]
        elif kind is cst.Import or kind is cst.ImportFrom:
            index.imports.append(node)  # type: ignore[arg-type]
        elif kind is cst.Module:
            index.own_calls[id(node)] = []
            inner = node
        elif kind is cst.FunctionDef:
            index.functions.append((node, classes[-1] if classes else None))  # type: ignore[arg-type]
            depth += 1
            stack.append((node, True, None))
            index.own_calls[id(node)] = []
            # Only the body is the def's own code; decorators and defaults belong to no scope.
            stack.extend((child, False, node if child is node.body else None) for child in reversed(children(node)))  # type: ignore[attr-defined]
            continue
        elif kind is cst.ClassDef:
            index.classes.append(node)  # type: ignore[arg-type]
            classes.append(node)  # type: ignore[arg-type]
            stack.append((node, True, None))
            inner = None
        elif kind is cst.Lambda:
            inner = None
        stack.extend((child, False, inner) for child in reversed(children(node)))
    return index
