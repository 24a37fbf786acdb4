"""Syntactic screens: can a rule fire on this module at all?

The rules' analyses walk LibCST trees, and LibCST's parser is about ten times
slower than Python's own. After the text pre-filter (each rule's trigger
words), the engine parses a file with :mod:`ast` and asks each remaining rule
whether its necessary conditions hold; only files that pass some rule's
screen are parsed with LibCST. A screen may pass a module the rule then finds
nothing in, never the reverse: ``tests/test_screens.py`` checks each screen
against the full rules on the corpus, generated programs and real code.

* :func:`calls_backward`: AF101 and AF104 look at statements holding a call
  named ``backward`` (``loss.backward()``, ``accelerator.backward(loss)``,
  ``torch.autograd.backward(...)``).
* :func:`may_backpropagate`: AF102 and AF105 follow graphs into a
  ``backward()``, ``torch.autograd.grad`` or ``jacobian`` call, imported
  under any name.
* :func:`may_have_inplace_events`: AF103 needs an in-place write in a scope
  its analysis walks (a ``forward`` method, a function or script calling
  ``backward()``, or a helper reachable from one by a call), outside
  initialisation code (``__init__``, ``reset_parameters`` …),
  ``autograd.Function`` (``ctx`` first) and functions taking an ``inplace``
  flag; the write must be one the analysis judges (``name.op_(…)``, also at
  the end of a chain; ``torch.op_(name)`` / ``F.op(name, inplace=True)``;
  ``self.m(name)`` with ``self.m`` built with ``inplace=True``; ``name op= …``;
  ``name[…] = …``) on a name the scope binds, or reading the target's ``.grad``.
"""

from __future__ import annotations

import ast
import re
from typing import Dict, FrozenSet, Iterator, List, Optional, Set, Tuple, Union

from autofix.analysis.inplace_ops import (
    FUNCTIONAL_INPLACE_FUNCTIONS,
    FUNCTIONAL_INPLACE_PARAMETER,
    INPLACE_METHODS,
    INPLACE_MODULES,
    TORCH_INPLACE_FUNCTIONS,
)

FunctionAst = Union[ast.FunctionDef, ast.AsyncFunctionDef]

# Same words as the analysis' own exclusions (autofix.analysis.inplace._INIT_NAME).
_INIT_NAME = re.compile(r"init|reset|(^|_)load|from_pretrained|^_?fill|^_?copy", re.IGNORECASE)
_TORCH_INPLACE = frozenset(TORCH_INPLACE_FUNCTIONS) | frozenset(FUNCTIONAL_INPLACE_FUNCTIONS)
_MODULE_NAMES = frozenset({"torch", "F", "nn", "np", "math"})
_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


# --------------------------------------------------------------------------- backward


_BACKWARD = frozenset({"backward"})
_BACKPROPAGATE = frozenset({"backward", "grad", "jacobian"})


def calls_backward(tree: ast.Module) -> bool:
    """A call named ``backward`` anywhere (what AF101/AF104's ``backward_holders`` look for)."""
    return _calls_named(tree, _BACKWARD, aliases=False)


def may_backpropagate(tree: ast.Module) -> bool:
    """A call to ``backward``, ``grad`` or ``jacobian``, under any imported alias."""
    return _calls_named(tree, _BACKPROPAGATE, aliases=True)


def _calls_named(tree: ast.Module, names: FrozenSet[str], aliases: bool) -> bool:
    wanted = set(names)
    if aliases:
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                wanted.update(a.asname for a in node.names if a.asname and a.name in names)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
            if name in wanted:
                return True
    return False


# --------------------------------------------------------------------------- in-place writes


def may_have_inplace_events(tree: ast.Module) -> bool:
    """False when the in-place analysis cannot report anything in ``tree``."""
    index = _Index(tree)
    seen: Set[int] = set()
    queue = [(cls, scope) for cls, scope in index.scopes() if index.summary(scope, cls).root]
    while queue:
        cls, scope = queue.pop()
        if id(scope) in seen:
            continue
        seen.add(id(scope))
        summary = index.summary(scope, cls)
        if summary.writes:
            return True
        queue.extend((callee_cls, callee) for callee_cls, callee in summary.callees if not _excluded(callee))
    return False


# --------------------------------------------------------------------------- the module's defs

Scope = Union[FunctionAst, ast.Module]


class _Summary:
    """What one walk over a scope's own code (not nested defs) finds."""

    def __init__(self, index: "_Index", scope: Scope, cls: Optional[ast.ClassDef]) -> None:
        self.calls_backward = False
        self.callees: List[Tuple[Optional[ast.ClassDef], FunctionAst]] = []
        #: in-place writes the analysis could report: on a bound name, or reading the target's ``.grad``
        self.writes = False
        bound: Set[str] = set()
        if not isinstance(scope, ast.Module):
            args = scope.args
            for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg):
                if arg is not None:
                    bound.add(arg.arg)
        writes: List[Tuple[ast.AST, str]] = []
        for node in _walk_local(_scope_body(scope)):
            kind = type(node)
            if kind is ast.Name:
                if isinstance(node.ctx, ast.Store):  # type: ignore[attr-defined]
                    bound.add(node.id)  # type: ignore[attr-defined]
            elif kind is ast.Call:
                func = node.func  # type: ignore[attr-defined]
                if isinstance(func, ast.Attribute):
                    if func.attr == "backward":
                        self.calls_backward = True
                    elif cls is not None and _is_self_attr(func):
                        method = index.methods.get((id(cls), func.attr))
                        if method is not None:
                            self.callees.append((cls, method))
                elif isinstance(func, ast.Name):
                    if func.id in index.backward_names:
                        self.calls_backward = True  # from torch.autograd import backward
                    elif func.id in index.functions:
                        self.callees.append((None, index.functions[func.id]))
                writes.extend((node, target) for target in _call_targets(node, index))  # type: ignore[arg-type]
            elif kind is ast.AugAssign:
                target = node.target  # type: ignore[attr-defined]
                if isinstance(target, ast.Name):
                    writes.append((node, target.id))
                elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                    writes.append((node, target.value.id))
            elif kind is ast.Assign:
                for target in node.targets:  # type: ignore[attr-defined]
                    if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                        writes.append((node, target.value.id))
        self.writes = any(
            target != "self" and (target in bound or _reads_grad_of(node, target)) for node, target in writes
        )
        if isinstance(scope, ast.Module):
            self.root = self.calls_backward
        else:
            self.root = not _excluded(scope) and (
                self.calls_backward or (cls is not None and scope.name == "forward")
            )


class _Index:
    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self.functions: Dict[str, FunctionAst] = {}
        self.methods: Dict[Tuple[int, str], FunctionAst] = {}
        self.classes: List[ast.ClassDef] = []
        #: ``self.attr`` bound to an ``nn`` module built with ``inplace`` (in any class:
        #: the analysis tells classes apart by name, which two classes may share)
        self.inplace_modules: Set[str] = set()
        #: what ``from torch.autograd import backward [as …]`` binds
        self.backward_names: Set[str] = {"backward"}
        self._summaries: Dict[int, _Summary] = {}
        for stmt in tree.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.functions[stmt.name] = stmt
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                self.classes.append(node)
                for stmt in node.body:
                    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        self.methods[(id(node), stmt.name)] = stmt
            elif isinstance(node, ast.Assign) and _builds_inplace_module(node.value):
                for target in node.targets:
                    if _is_self_attr(target):
                        self.inplace_modules.add(target.attr)  # type: ignore[union-attr]
            elif isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    if alias.name == "backward":
                        self.backward_names.add(alias.asname or alias.name)

    def scopes(self) -> Iterator[Tuple[Optional[ast.ClassDef], Scope]]:
        """Every scope the analysis may start from: methods, module functions, the module."""
        for cls in self.classes:
            for stmt in cls.body:
                if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    yield cls, stmt
        for func in self.functions.values():
            yield None, func
        yield None, self.tree

    def summary(self, scope: Scope, cls: Optional[ast.ClassDef]) -> _Summary:
        found = self._summaries.get(id(scope))
        if found is None:
            found = self._summaries[id(scope)] = _Summary(self, scope, cls)
        return found


def _excluded(func: FunctionAst) -> bool:
    if _INIT_NAME.search(func.name):
        return True
    args = func.args
    names = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
    return "inplace" in names or names[:1] == ["ctx"]


def _scope_body(scope: Scope) -> List[ast.stmt]:
    if isinstance(scope, ast.Module):
        return [s for s in scope.body if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    return scope.body


def _walk_local(body: List[ast.stmt]) -> Iterator[ast.AST]:
    """Every node of ``body``, not entering nested functions, classes or lambdas."""
    stack: List[ast.AST] = list(reversed(body))
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, _NESTED):
                stack.append(child)


# --------------------------------------------------------------------------- writes


def _call_targets(call: ast.Call, index: _Index) -> Iterator[str]:
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr in INPLACE_METHODS:
        receiver = func.value
        while (
            isinstance(receiver, ast.Call)
            and isinstance(receiver.func, ast.Attribute)
            and receiver.func.attr in INPLACE_METHODS
        ):
            receiver = receiver.func.value
        # ``th.clamp_(x)`` reads like a method on ``th``: the function case below covers it.
        if isinstance(receiver, ast.Name) and receiver.id not in _MODULE_NAMES:
            yield receiver.id
    first = call.args[0] if call.args else None
    if not isinstance(first, ast.Name):
        return
    last = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    if last in _TORCH_INPLACE:
        yield first.id
    elif last in FUNCTIONAL_INPLACE_PARAMETER and _may_request_inplace(call, FUNCTIONAL_INPLACE_PARAMETER[last]):
        yield first.id
    elif _is_self_attr(func) and len(call.args) == 1 and func.attr in index.inplace_modules:  # type: ignore[union-attr]
        yield first.id


def _may_request_inplace(call: ast.Call, position: int) -> bool:
    for kw in call.keywords:
        if kw.arg == "inplace":
            return _is_true(kw.value)
    positional = [a for a in call.args if not isinstance(a, ast.Starred)]
    return len(positional) > position and _is_true(positional[position])


def _builds_inplace_module(value: ast.expr) -> bool:
    if not isinstance(value, ast.Call):
        return False
    func = value.func
    last = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    return last in INPLACE_MODULES and _may_request_inplace(value, INPLACE_MODULES[last])


def _is_true(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is True


def _is_self_attr(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"


def _reads_grad_of(node: ast.AST, target: str) -> bool:
    return any(
        isinstance(n, ast.Attribute) and n.attr == "grad" and isinstance(n.value, ast.Name) and n.value.id == target
        for n in ast.walk(node)
    )
