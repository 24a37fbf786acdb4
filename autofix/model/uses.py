"""How the project uses a module class: is every call of its instances made without autograd?

A module's ``forward`` may do something autograd would reject on a backward
through it (``boxes[:, 0] = boxes[:, 0].clamp(min=0)``: clamp saved the view
the write changes), while the project only ever runs it to post-process
detections: under ``torch.no_grad()``, or in the inference branch of a
model's ``if self.training:``. Whether a backward can reach it is a fact of
the project, not of the file that defines the class.

The question is asked rarely (for a write that would otherwise be reported),
so it is answered by a plain search: the Python files under the project root
whose text spells the class's name are parsed, and every mention of the name
there must be understood. A mention is one of

* the class's own definition, an import of it by its own name, ``super(Name,
  self)``, ``isinstance(x, Name)``, a string in ``__all__``, prose in a string;
* ``v = Name(...)`` or ``self.attr = Name(...)``: an instance, each use of
  which must be a call (``v(...)``, ``self.attr(...)``) made directly in a
  context that does not differentiate: the body of ``with torch.no_grad()``
  or ``torch.inference_mode()``, a function decorated with them, or the
  inference branch of ``if self.training:`` (``if not self.training:``).

Anything else (a subclass, an instance passed on, stored or returned, a
registry keyed by the name, a second class of that name, an alias) makes the
answer unknown. Only calls made directly in such a context count: a function
that is merely reached from one (``postprocess(..., clip, ...)`` called under
``no_grad``) is not followed.
"""

from __future__ import annotations

import ast
import hashlib
import re
import threading
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from autofix.model.callers import clear_index, python_files
from autofix.model.project import ModuleModel, Project
from autofix.model.returned import tests_training
from autofix.model.summaries import dotted
from autofix.model.vocabulary import GRAD_DISABLING_CONTEXTS

#: every call runs with autograd off
NO_GRAD = "no_grad"
#: every call runs with autograd off or in an inference branch (``else`` of ``if self.training:``):
#: grad mode may be on there, but nothing back-propagates through it
INFERENCE = "inference"

_lock = threading.Lock()
#: (path, sha1 of its text) → its parse, for the few files that spell a searched name
_TREES: Dict[Tuple[str, str], Optional[ast.Module]] = {}
#: how many parses are kept (a language server runs for hours)
_MAX_TREES = 64


def clear_uses() -> None:
    """Forget the file lists and parses (tests)."""
    clear_index()
    with _lock:
        _TREES.clear()


def _search_root(project: Project, path: Path) -> Path:
    """The project root, or the folder the file's package is imported from when that lies higher
    (a repository with no marker: the root found is the package folder, its users sit above it)."""
    importable = project.module_name(path)[1].resolve()
    return importable if importable in project.root.parents else project.root


def _parse(path: Path, data: bytes) -> Optional[ast.Module]:
    key = (str(path), hashlib.sha1(data).hexdigest())
    with _lock:
        if key in _TREES:
            return _TREES[key]
    from autofix.analysis.screen import parse_python

    tree = parse_python(data)
    with _lock:
        if len(_TREES) >= _MAX_TREES:
            _TREES.clear()
        _TREES[key] = tree
    return tree


def instances_called_without_grad(model: ModuleModel, cls: ast.ClassDef, home: ast.Module) -> Optional[str]:
    """:data:`NO_GRAD` when every use of the module class ``cls`` (defined at the top level of
    ``home``, the tree of ``model``'s file) in its project is a call of an instance made under
    ``torch.no_grad()``; :data:`INFERENCE` when some are made in an inference branch instead; None
    when a use may differentiate, a mention is not understood, or no use is found."""
    project, path = model.project, model.path
    if project is None or path is None or cls not in home.body:
        return None
    name = cls.name
    levels = _Mentions(home, name, cls).levels()
    if levels is None:
        return None  # the home file alone says no: no other file is read
    files = python_files(_search_root(project, path))
    if files is None:
        return None
    spelled = re.compile(rb"\b" + re.escape(name.encode()) + rb"\b")
    for file in files:
        if file == path:
            continue
        data = project.bytes_of(file)
        if data is None or spelled.search(data) is None:
            continue
        project.consult(file)
        tree = _parse(file, data)
        found = None if tree is None else _Mentions(tree, name, None).levels()
        if found is None:
            return None
        levels.extend(found)
    if not levels:
        return None
    return INFERENCE if INFERENCE in levels else NO_GRAD


def _disables_grad(expr: ast.expr) -> bool:
    """``torch.no_grad()``, ``torch.inference_mode()``, ``torch.set_grad_enabled(False)`` (as a
    ``with`` item or a decorator, however the module reached torch)."""
    func = expr.func if isinstance(expr, ast.Call) else expr
    last = (dotted(func) or "").rsplit(".", 1)[-1]
    if last in GRAD_DISABLING_CONTEXTS:
        return True
    if last == "set_grad_enabled" and isinstance(expr, ast.Call) and len(expr.args) == 1 and not expr.keywords:
        first = expr.args[0]
        return isinstance(first, ast.Constant) and first.value is False
    return False


_DEFINITIONS = (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.Module)


class _Mentions:
    """Every mention of a class name in one module, judged."""

    def __init__(self, tree: ast.Module, name: str, own: Optional[ast.ClassDef]) -> None:
        self.tree = tree
        self.name = name
        self.own = own
        self.parents: Dict[int, ast.AST] = {}
        for node in ast.walk(tree):
            for child in ast.iter_child_nodes(node):
                self.parents[id(child)] = node

    def levels(self) -> Optional[List[str]]:
        """The context of each call of an instance; None when a mention is not understood or a call
        may differentiate."""
        levels: List[str] = []
        for node in ast.walk(self.tree):
            if isinstance(node, _DEFINITIONS) and node.name == self.name and node is not self.own:
                return None  # another class or function of the name: which one a use builds is not told
            if isinstance(node, ast.alias) and self.name in (node.name, node.asname, node.name.rsplit(".", 1)[-1]):
                if node.name.rsplit(".", 1)[-1] != self.name or node.asname not in (None, self.name):
                    return None  # imported under another name
                continue
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and self.name in node.value:
                if node.value.strip().rsplit(".", 1)[-1] == self.name and not self._in_all(node):
                    return None  # a registry, ``getattr(module, "Name")``
                continue
            if isinstance(node, ast.Name) and node.id == self.name or isinstance(node, ast.Attribute) and node.attr == self.name:
                if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
                    continue  # ``self.Name``: an attribute of that spelling, judged where it is bound
                found = self._mention(node)
                if found is None:
                    return None
                levels.extend(found)
        return levels

    def _in_all(self, node: ast.AST) -> bool:
        parent = self.parents.get(id(node))
        if isinstance(parent, (ast.List, ast.Tuple)):
            parent = self.parents.get(id(parent))
        return isinstance(parent, (ast.Assign, ast.AugAssign)) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in getattr(parent, "targets", [getattr(parent, "target", None)])
        )

    def _mention(self, node: ast.expr) -> Optional[List[str]]:
        parent = self.parents.get(id(node))
        if isinstance(parent, ast.Attribute):
            return None  # ``Name.attr``: a class attribute or method used directly
        if isinstance(parent, ast.Call):
            func = parent.func
            if node in parent.args and isinstance(func, ast.Name):
                if func.id == "super" and parent.args[0] is node:
                    return []
                if func.id in ("isinstance", "issubclass") and len(parent.args) == 2 and parent.args[1] is node:
                    return []
            if func is node:
                return self._instance(parent)
        return None

    def _instance(self, call: ast.Call) -> Optional[List[str]]:
        """``v = Name(...)`` or ``self.attr = Name(...)``: the contexts every use of it is called in."""
        assign = self.parents.get(id(call))
        if not isinstance(assign, ast.Assign) or assign.value is not call or len(assign.targets) != 1:
            return None
        target = assign.targets[0]
        uses: List[ast.expr] = []
        if isinstance(target, ast.Name):
            scope = self._scope(assign)
            if isinstance(scope, ast.ClassDef):
                return None  # a class attribute: read as ``self.<name>``
            # A module-level instance may be read by any function of the file.
            area = self.tree if isinstance(scope, ast.Module) else scope
            uses.extend(n for n in ast.walk(area) if isinstance(n, ast.Name) and n.id == target.id and n is not target)
        elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
            for n in ast.walk(self.tree):
                if isinstance(n, ast.Attribute) and n.attr == target.attr and n is not target:
                    if not (isinstance(n.value, ast.Name) and n.value.id == "self"):
                        return None  # ``model.attr``: reached from outside the class
                    uses.append(n)
        else:
            return None
        levels: List[str] = []
        for use in uses:
            if isinstance(getattr(use, "ctx", None), ast.Store):
                continue  # rebound: a later read is judged as a use all the same
            parent = self.parents.get(id(use))
            if not isinstance(parent, ast.Call) or parent.func is not use:
                return None  # passed on, stored, returned, an attribute read
            level = self._context(parent)
            if level is None:
                return None
            levels.append(level)
        return levels

    def _scope(self, node: ast.AST) -> ast.AST:
        current = self.parents.get(id(node))
        while current is not None and not isinstance(current, _SCOPES):
            current = self.parents.get(id(current))
        return current if current is not None else self.tree

    def _context(self, node: ast.AST) -> Optional[str]:
        """:data:`NO_GRAD` or :data:`INFERENCE` for a call made directly under no_grad or in an
        inference branch (the innermost function's own statements and decorators); None otherwise."""
        found: Optional[str] = None
        child: ast.AST = node
        current = self.parents.get(id(node))
        while current is not None:
            if isinstance(current, (ast.With, ast.AsyncWith)) and child in current.body:
                if any(_disables_grad(item.context_expr) for item in current.items):
                    return NO_GRAD
            elif isinstance(current, ast.If):
                training = tests_training(current.test)
                if (training is True and child in current.orelse) or (training is False and child in current.body):
                    found = INFERENCE
            elif isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef)):
                return NO_GRAD if any(_disables_grad(d) for d in current.decorator_list) else found
            elif isinstance(current, (ast.Lambda, ast.ClassDef)):
                return found
            child = current
            current = self.parents.get(id(current))
        return found
