"""Which class the elements of a local container are, where a method is called on one (ast only).

``meters = {}`` at the start of an epoch, then, in the loop, ``if k not in meters:
meters[k] = AverageMeter()`` and ``meters[k].update(loss)``: the container starts
empty and everything put into it is an ``AverageMeter``, so ``meters[k].update``
runs ``AverageMeter.update``, whatever the key. Written for the receiver of each
such call, so that a later rebinding of the name to something else
(``meters = {k: m.avg for k, m in meters.items()}`` after the loop) does not hide
what the call sees.

A receiver ``d[k]`` of ``d[k].m(...)`` gets the constructor ``E`` when

* every store into the container by key in the function is ``d[k] = E(...)``
  (or ``d[k] = d.get(k, E())``, ``d[k] = d[j]``), a ``d.setdefault(k, E())``
  counts as one, and no other way fills it (``d.update(x)``, ``d[k] += v``,
  ``d.setdefault(k, v)``, ``d |= x``);
* the name is bound, on every way to the call, by one assignment of a fresh
  container: empty (``{}``, ``dict()``, ``OrderedDict()``) or whose elements are
  built by ``E`` (``{k: E() for k in ks}``, ``defaultdict(E)``). That assignment is
  the nearest one before the call in a statement list holding the call, and
  the statement of that list holding the call binds the name nowhere (a loop's
  later rebinding could reach the call round the loop otherwise);
* between that assignment and the call the name is used only to read the
  container, store ``E`` objects in it by key, or call methods on its elements:
  not handed to a call that may fill it, nor aliased;
* it is not a parameter, nor declared ``global``/``nonlocal``, nor named in a
  nested function or class (which could fill a module-level container).
"""

from __future__ import annotations

import ast
from typing import Callable, Dict, List, Optional, Set, Tuple

from autofix.model.nodes import dotted

#: methods of a dict that do not put a value of their own choosing into it
_READS = frozenset({"get", "keys", "values", "items", "copy", "pop", "popitem", "clear", "__contains__", "__getitem__"})
#: builtins that only read a container handed to them
_READING_BUILTINS = frozenset({"len", "print", "str", "repr", "list", "sorted", "iter", "enumerate", "tuple", "bool"})
_EMPTY_CONSTRUCTORS = frozenset({"dict", "OrderedDict"})
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_BLOCK_FIELDS = ("body", "orelse", "finalbody")


def element_receivers(
    function: ast.FunctionDef | ast.AsyncFunctionDef, params: Set[str],
    qualify: Callable[[str], str], element_of: Callable[[ast.expr], Optional[str]],
) -> Dict[Tuple[int, int], str]:
    """Position ``(line, column)`` of each receiver ``d[k]`` of a method call ``d[k].m(...)`` in
    ``function`` → the qualified constructor every element of ``d`` was built by there (see the
    module's docstring). ``element_of`` gives the constructor of a container's elements from the
    expression that builds it (``{k: E() ...}``, ``defaultdict(E)``), qualified."""
    parents: Dict[int, ast.AST] = {}
    receivers: List[ast.Subscript] = []
    stack: List[ast.AST] = [function]
    nested: List[ast.AST] = []
    while stack:
        node = stack.pop()
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
            if isinstance(child, _SCOPES):
                nested.append(child)
                continue
            stack.append(child)
        if (
            isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Subscript) and isinstance(node.func.value.value, ast.Name)
        ):
            receivers.append(node.func.value)
    if not receivers:
        return {}
    reader = _Reader(function, params, parents, nested, qualify, element_of)
    found: Dict[Tuple[int, int], str] = {}
    for receiver in receivers:
        constructor = reader.constructor_at(receiver)
        if constructor is not None:
            found[(receiver.lineno, receiver.col_offset)] = constructor
    return found


class _Reader:
    def __init__(
        self, function: ast.AST, params: Set[str], parents: Dict[int, ast.AST], nested: List[ast.AST],
        qualify: Callable[[str], str], element_of: Callable[[ast.expr], Optional[str]],
    ) -> None:
        self.function = function
        self.params = params
        self.parents = parents
        self.nested = nested
        self.qualify = qualify
        self.element_of = element_of
        self._stored: Dict[str, Optional[str]] = {}
        self._closed: Dict[str, bool] = {}

    def constructor_at(self, receiver: ast.Subscript) -> Optional[str]:
        assert isinstance(receiver.value, ast.Name)
        name = receiver.value.id
        if name in self.params or not self._closed_to_others(name):
            return None
        stored = self._stores(name)
        if stored == "":
            return None
        binding, holder = self._binding(name, receiver)
        if binding is None or holder is None:
            return None
        built = self._fresh(binding.value)
        if built is None or (built and stored and built != stored):
            return None
        constructor = built or stored
        if not constructor:
            return None
        if not all(self._reads_only(name, node) for node in self._between(binding, holder)):
            return None
        return constructor

    # -- the whole function -------------------------------------------------------------------

    def _closed_to_others(self, name: str) -> bool:
        """No ``global``/``nonlocal`` declaration of ``name``, and no nested scope naming it."""
        if name not in self._closed:
            closed = True
            for node in ast.walk(self.function):
                if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
                    closed = False
                    break
            for scope in self.nested:
                if any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(scope)):
                    closed = False
                    break
            self._closed[name] = closed
        return self._closed[name]

    def _stores(self, name: str) -> Optional[str]:
        """The one constructor of every value the function stores into ``name`` by key (None: there
        is no such store; ``""``: a store of something else, or another way of filling it)."""
        if name in self._stored:
            return self._stored[name]
        found: Set[Optional[str]] = set()
        for node in ast.walk(self.function):
            if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == name:
                if isinstance(node.ctx, ast.Store):
                    parent = self.parents.get(id(node))
                    if isinstance(parent, ast.Assign) and parent.targets == [node]:
                        found.add(self._element_value(name, parent.value))
                    else:
                        found.add("")  # ``d[k] += v``, ``a = d[k] = v``, ``for d[k] in ...``
            elif (
                isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name) and node.func.value.id == name
                and node.func.attr not in _READS
            ):
                if node.func.attr == "setdefault" and len(node.args) == 2 and not node.keywords:
                    found.add(self._element_value(name, node.args[1]))
                else:
                    found.add("")  # ``d.update(x)``, ``d.setdefault(k)``
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id == name:
                found.add("")  # ``d |= x``
        found.discard(None)
        result = found.pop() if len(found) == 1 else ("" if found else None)
        self._stored[name] = result
        return result

    def _element_value(self, name: str, value: ast.expr) -> Optional[str]:
        """The constructor of an element stored into ``name``: ``E(...)``; ``d.get(k, E())`` and
        ``d.setdefault(k, E())`` (an element already there, or a new ``E``); None for ``d[j]`` (an
        element already there); ``""`` for anything else."""
        if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name) and value.value.id == name:
            return None
        if (
            isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
            and isinstance(value.func.value, ast.Name) and value.func.value.id == name
            and value.func.attr in ("get", "setdefault") and len(value.args) == 2 and not value.keywords
        ):
            value = value.args[1]
        spelled = dotted(value.func) if isinstance(value, ast.Call) else None
        if spelled is None or not spelled.rsplit(".", 1)[-1][:1].isupper():
            return ""
        return self.qualify(spelled)

    # -- the way to the call ------------------------------------------------------------------

    def _binding(self, name: str, receiver: ast.AST) -> Tuple[Optional[ast.Assign], Optional[ast.stmt]]:
        """The assignment of ``name`` every way to ``receiver`` passes last, and the statement of its
        statement list holding ``receiver``; (None, None) when it cannot be told."""
        node: ast.AST = receiver
        while node is not self.function:
            parent = self.parents.get(id(node))
            if parent is None:
                return None, None
            block = next(
                (getattr(parent, f) for f in _BLOCK_FIELDS if isinstance(getattr(parent, f, None), list) and node in getattr(parent, f)),
                None,
            )
            if block is not None:
                assert isinstance(node, ast.stmt)
                for earlier in reversed(block[:block.index(node)]):
                    if _binds(earlier, name):
                        if _binds(node, name):
                            return None, None  # rebound round a loop, or before the call in the same statement
                        if (
                            isinstance(earlier, ast.Assign) and len(earlier.targets) == 1
                            and isinstance(earlier.targets[0], ast.Name) and earlier.targets[0].id == name
                        ):
                            return earlier, node
                        return None, None
            node = parent
        return None, None

    def _fresh(self, value: ast.expr) -> Optional[str]:
        """``""`` for a new empty container, its elements' constructor for one built by a
        constructor, None for anything else (an existing container, a copy of one)."""
        if isinstance(value, ast.Dict) and not value.keys:
            return ""
        if (
            isinstance(value, ast.Call) and not value.args and not value.keywords
            and (dotted(value.func) or "").rsplit(".", 1)[-1] in _EMPTY_CONSTRUCTORS
        ):
            return ""
        if isinstance(value, (ast.Dict, ast.DictComp, ast.Call)):
            return self.element_of(value)
        return None

    def _between(self, binding: ast.stmt, holder: ast.stmt) -> List[ast.Name]:
        """The uses of the bound name in the statements after ``binding`` up to and with ``holder``."""
        parent = self.parents[id(holder)]
        block = next(getattr(parent, f) for f in _BLOCK_FIELDS if isinstance(getattr(parent, f, None), list) and holder in getattr(parent, f))
        statements = block[block.index(binding) + 1:block.index(holder) + 1]
        assert isinstance(binding, ast.Assign) and isinstance(binding.targets[0], ast.Name)
        name = binding.targets[0].id
        return [n for s in statements for n in ast.walk(s) if isinstance(n, ast.Name) and n.id == name]

    def _reads_only(self, name: str, use: ast.Name) -> bool:
        """``use`` of the container reads it, or stores into it by key (those stores are checked
        apart): ``d[k]``, ``d[k].update(v)``, ``d.get(k)``, ``k in d``, ``for k in d``, ``len(d)``."""
        parent = self.parents.get(id(use))
        if isinstance(parent, ast.Subscript) and parent.value is use:
            return True
        if isinstance(parent, ast.Attribute) and parent.value is use:
            grand = self.parents.get(id(parent))
            return isinstance(grand, ast.Call) and grand.func is parent and (parent.attr in _READS or parent.attr == "setdefault")
        if isinstance(parent, ast.Compare):
            return use is not parent.left and all(isinstance(op, (ast.In, ast.NotIn)) for op in parent.ops)
        if isinstance(parent, (ast.For, ast.AsyncFor, ast.comprehension)):
            return parent.iter is use
        if isinstance(parent, ast.Call) and use in parent.args:
            return isinstance(parent.func, ast.Name) and parent.func.id in _READING_BUILTINS
        return False


def _binds(statement: ast.stmt, name: str) -> bool:
    """``statement`` binds ``name`` somewhere (not in a nested scope): an assignment, a loop or
    ``with`` target, ``del name``, an import, a walrus."""
    stack: List[ast.AST] = [statement]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load):
            return True
        if isinstance(node, (ast.Import, ast.ImportFrom)) and any((a.asname or a.name.split(".")[0]) == name for a in node.names):
            return True
        if isinstance(node, ast.ExceptHandler) and node.name == name:
            return True
        if isinstance(node, _SCOPES):
            if getattr(node, "name", None) == name:
                return True
            continue
        stack.extend(ast.iter_child_nodes(node))
    return False
