"""In-place writes, per function, and what each written name may be at the write.

The facts AF103 and AF107 judge a write by, read from Python's :mod:`ast`
alone (no project: a name imported from another project file may be
anything). Recorded on each :class:`~autofix.model.summaries.FunctionSummary`
as ``inplace_writes``; AF103's screen (:mod:`autofix.analysis.inplace_screen`)
is a query over them, and LibCST's full analysis (:mod:`autofix.analysis.inplace`)
reports a subset of the writes that have facts.

Every fact is a *may*: it over-approximates what the full analysis can
prove, never the reverse, so a write without a fact is one neither rule can
report. A scope's facts read its code in source order (the last binding
before a write is the one judged); in a loop, a binding or a save further
down the body also reaches the write (the next iteration sees it).
"""

from __future__ import annotations

import ast
import dataclasses
from dataclasses import dataclass
from typing import Callable, Dict, FrozenSet, Iterator, List, NamedTuple, Optional, Set, Tuple, Union

from autofix.model.inplace_ops import (
    FUNCTIONAL_INPLACE_FUNCTIONS,
    FUNCTIONAL_INPLACE_PARAMETER,
    INPLACE_METHODS,
    INPLACE_MODULES,
    TORCH_INPLACE_FUNCTIONS,
)
from autofix.model.nodes import nodes_of
from autofix.model.vocabulary import (
    FACTORIES,
    FRESH_METHODS,
    INIT_NAME,
    LIBRARIES,
    NON_TENSOR_BUILTINS,
    OUTPUT_SAVING_MODULES,
    SAVES_INPUT,
    SAVES_OUTPUT,
    SAVES_PARTNER,
    VIEW_METHODS,
)

FunctionAst = Union[ast.FunctionDef, ast.AsyncFunctionDef]
Scope = Union[FunctionAst, ast.Module]

# ---- what a written name may be (``InplaceWrite.facts``)

#: a parameter that may hold the caller's tensor (what only the caller observes: AF107)
ARGUMENT = "argument"
#: requires grad itself: ``requires_grad=True``, ``nn.Parameter``, or the write reads its ``.grad``
LEAF = "leaf"
#: a view of another name (``x[0]``, ``x.view(...)``): the write reaches its base
VIEW = "view"
#: bound to another name (``y = x``): the write reaches that name too
ALIAS = "alias"
#: another name is bound to it or to a view of it: that name sees the write
SHARED = "shared"
#: the output of an op or module whose backward reads its output (``sigmoid``, ``nn.ReLU``, a block ending in one)
SAVED_OUTPUT = "saved-output"
#: an op whose backward reads its inputs (``*``, ``pow``, ``self.fc(x)``) took it before the write
SAVED_INPUT = "saved-input"

#: what autograd itself may object to (AF103)
AUTOGRAD_FACTS: FrozenSet[str] = frozenset({LEAF, VIEW, ALIAS, SHARED, SAVED_OUTPUT, SAVED_INPUT})
#: what may make the write reach a tensor the caller passed in (AF107)
CALLER_FACTS: FrozenSet[str] = frozenset({ARGUMENT, VIEW, ALIAS})


@dataclass(frozen=True)
class InplaceWrite:
    """One spelling of an in-place write, and what its target may be there."""

    #: the written name
    target: str
    #: ``method`` (``x.relu_()``), ``function`` (``torch.relu_(x)``, ``F.relu(x, inplace=True)``),
    #: ``module`` (``self.act(x)`` built with ``inplace=True``), ``augassign``, ``setitem``, or
    #: ``call`` (a helper of another project file, which may write its argument)
    form: str
    #: 1-based line and 0-based column of the write
    line: int
    col: int
    #: the facts above that may hold of ``target`` at the write (empty: nothing to report)
    facts: FrozenSet[str]
    #: for a call of this file's functions, methods or module classes (``helper(h)``, ``self.block(h)``):
    #: the indices of the scopes it may run, each writing one of its arguments in place
    via: Tuple[int, ...] = ()


@dataclass(frozen=True)
class ScopeWrites:
    """One function, method or module body: whether autograd code starts there, what it calls, its writes."""

    #: the model's qualname (``Net.forward``, ``<module>``)
    qualname: str
    line: int
    #: a method named ``forward`` (of any class)
    forward: bool
    #: calls ``backward`` (also ``from torch.autograd import backward``)
    calls_backward: bool
    #: initialisation code, ``autograd.Function`` code (``ctx`` first) or taking an ``inplace`` flag
    excluded: bool
    #: indices (in :func:`module_writes`' list) of the functions and ``self`` methods of this file it calls
    callees: Tuple[int, ...]
    writes: Tuple[InplaceWrite, ...]


#: For a call of a helper of another project file: the positions of the arguments it writes in
#: place (the program model's answer, empty when it writes none), or None when that is not known.
HelperWrites = Callable[[ast.Call], Optional[FrozenSet[int]]]


def module_writes(tree: ast.Module, helpers: Optional[HelperWrites] = None) -> "ModuleWrites":
    """The in-place facts of ``tree``'s scopes, each read on first demand (kept on the tree).

    Without ``helpers`` a call of a helper imported from the project may write any argument it is
    passed; with them (the screen, when it knows the project) only those the helper does write.
    """
    attribute = "_autofix_writes" if helpers is None else "_autofix_writes_in_project"
    found = getattr(tree, attribute, None)
    if found is None:
        found = ModuleWrites(tree, helpers)
        setattr(tree, attribute, found)
    return found


# --------------------------------------------------------------------------- reading one module


class _Site(NamedTuple):
    """One binding of a name, over-approximated."""

    #: may hold a tensor (``op=`` and ``[…] =`` are judged only on tensors)
    tensor: bool
    #: what the value may be by itself (ARGUMENT, LEAF, VIEW, ALIAS, SAVED_OUTPUT)
    facts: FrozenSet[str]
    #: may require grad (then a save before the write makes it reportable)
    gradful: bool


Position = Tuple[int, int]
_NEVER = (1 << 30, 0)
_MODULE_NAMES = frozenset({"torch", "F", "nn", "np", "math"})
_TORCH_INPLACE = frozenset(TORCH_INPLACE_FUNCTIONS) | frozenset(FUNCTIONAL_INPLACE_FUNCTIONS)
_SAVES_OPERANDS = SAVES_PARTNER | SAVES_INPUT | {"linear", "conv1d", "conv2d", "conv3d", "conv_transpose2d"}
#: ``x.new_zeros(...)``: fresh, and never requiring grad whatever ``x`` is.
_NEW_TENSOR_METHODS = frozenset(m for m in FRESH_METHODS if m.startswith("new_"))
# What is never taken for a tensor: literals, containers, attributes (never judged
# at all), ``a if c else b``, ``len(...)`` and friends.
_NEVER_TENSOR = (
    ast.Constant, ast.JoinedStr, ast.List, ast.Tuple, ast.Dict, ast.Set, ast.ListComp, ast.SetComp, ast.DictComp,
    ast.GeneratorExp, ast.Lambda, ast.IfExp, ast.BoolOp, ast.Attribute, ast.Await, ast.Yield, ast.YieldFrom,
    ast.NamedExpr,
)
_NOTHING: FrozenSet[str] = frozenset()


class ModuleWrites:
    """A module's scopes (its methods, functions and own body) and, read on demand, their in-place facts."""

    def __init__(self, tree: ast.Module, helpers: Optional[HelperWrites] = None) -> None:
        self.tree = tree
        self.helpers = helpers
        self.nodes = nodes = nodes_of(tree)
        self.functions: Dict[str, FunctionAst] = {}
        #: (id of class, method name) -> method
        self.methods: Dict[Tuple[int, str], FunctionAst] = {}
        #: (scope, its class, its qualname) in the order of :func:`module_writes`' list
        self.scopes: List[Tuple[Scope, Optional[ast.ClassDef], str]] = []
        #: ``self.attr`` bound to an ``nn`` module built with ``inplace`` (in any class)
        self.inplace_modules: Set[str] = set()
        #: what ``from torch.autograd import backward [as …]`` binds
        self.backward_names: Set[str] = {"backward"}
        self.imported: Set[str] = set()
        #: ``from m import a as b``: b → a
        self.imported_as: Dict[str, str] = {}
        #: names imported from anything but torch and the usual libraries (the project's own)
        self.project_names: Set[str] = set()
        self.torch_modules: Set[str] = {"torch"}
        self.torch_factories: Set[str] = set()
        #: ``a.b`` assigned anywhere (then ``a.b(...)`` may be a module built here)
        self.assigned_attributes: Set[str] = set()
        #: last names of what is bound to an object built here (``self.fc = nn.Linear(...)``): modules
        self.module_names: Set[str] = set()
        #: last names of what is bound to a module or callable that may save its output
        self.output_saving: Set[str] = set()
        self.project_bases = False

        qualnames: Dict[int, str] = {}
        for stmt in tree.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.functions[stmt.name] = stmt
        for cls in nodes.classes:
            for stmt in cls.body:
                if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    self.methods[(id(cls), stmt.name)] = stmt
                    qualnames[id(stmt)] = f"{cls.name}.{stmt.name}"
                    self.scopes.append((stmt, cls, qualnames[id(stmt)]))
        for func in self.functions.values():
            self.scopes.append((func, None, func.name))
        self.scopes.append((tree, None, "<module>"))
        self._read_imports()
        self._read_assignments()
        self.index = {id(scope): i for i, (scope, _, _) in enumerate(self.scopes)}
        #: class name -> the scopes of its ``forward`` (what ``self.block(x)`` runs, ``self.block = Block()``)
        self.forwards: Dict[str, List[int]] = {}
        for i, (scope, owner, _) in enumerate(self.scopes):
            if owner is not None and isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) and scope.name == "forward":
                self.forwards.setdefault(owner.name, []).append(i)
        self._headers: Dict[int, Tuple[bool, bool, bool, Tuple[int, ...]]] = {}
        #: last names of every call that may write in place: in-place ops, this file's functions,
        #: methods and module-holding names, modules built with ``inplace``
        self.write_names: Set[str] = (
            set(INPLACE_METHODS) | _TORCH_INPLACE | set(FUNCTIONAL_INPLACE_PARAMETER) | set(self.functions)
            | {name for _, name in self.methods} | set(self.built) | self.inplace_modules
        )
        self._raws: Dict[int, ScopeWrites] = {}
        self._scopes: Dict[int, ScopeWrites] = {}
        self._writers: Dict[int, bool] = {}

    def _read_imports(self) -> None:
        project_modules: Set[str] = set()
        for node in self.nodes.imports:
            if isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    bound = alias.asname or alias.name
                    self.imported.add(bound)
                    if node.level or (node.module or "").split(".")[0] not in LIBRARIES:
                        self.project_names.add(bound)
                    if alias.asname:
                        self.imported_as[alias.asname] = alias.name
                    if node.module == "torch" and not node.level and alias.name in FACTORIES:
                        self.torch_factories.add(bound)
                    if alias.name == "backward":
                        self.backward_names.add(bound)
            else:
                self.imported.update(alias.asname or alias.name.split(".")[0] for alias in node.names)
                self.torch_modules.update(alias.asname for alias in node.names if alias.name == "torch" and alias.asname)
                project_modules.update(
                    alias.asname or alias.name.split(".")[0]
                    for alias in node.names
                    if alias.name.split(".")[0] not in LIBRARIES
                )
        self.project_modules = project_modules
        self.project_bases = any(
            (_dotted(base) or "").split(".")[0] in self.project_names | project_modules
            for cls in self.nodes.classes
            for base in cls.bases
        )

    def _read_assignments(self) -> None:
        local_classes = {cls.name for cls in self.nodes.classes}
        #: last name of a target -> the classes of this file it is built from (``self.block = Block()``)
        self.built: Dict[str, Set[str]] = {}
        for assign in self.nodes.assigns:
            value = assign.value
            ctor = _last_name(value.func) if isinstance(value, ast.Call) else None
            # An activation, or what may end in one (an ``nn.Sequential``, a class of this
            # file or of the project), or a configurable op (``self.f = torch.sigmoid``).
            saves_output = (
                ctor in OUTPUT_SAVING_MODULES
                or ctor == "Sequential"
                or ctor in local_classes
                or (isinstance(value, ast.Call) and _head(value.func) in self.project_names | self.project_modules)
                or isinstance(value, (ast.Name, ast.Attribute, ast.IfExp))
            )
            for target in assign.targets:
                last = (_dotted(target) or "").rsplit(".", 1)[-1]
                if ctor and ctor[:1].isupper():
                    self.module_names.add(last)
                if isinstance(target, ast.Attribute):
                    self.assigned_attributes.add(_dotted(target) or "")
                if saves_output:
                    self.output_saving.add(last)
                if ctor in local_classes:
                    self.built.setdefault(last, set()).add(ctor)  # type: ignore[arg-type]
                if _is_self_attr(target) and _builds_inplace_module(value):
                    self.inplace_modules.add(target.attr)  # type: ignore[attr-defined]
        self.assigned_attribute_names = {name.rsplit(".", 1)[-1] for name in self.assigned_attributes}

    def all(self) -> List[ScopeWrites]:
        """Every scope, in order: methods, module functions, the module body."""
        return [self.scope(i) for i in range(len(self.scopes))]

    def reachable(self) -> Iterator[ScopeWrites]:
        """The scopes AF103's analysis walks: forwards and code calling ``backward()``, and what they call.

        Without a ``backward()`` in the file (a model file) only forwards start it. Read lazily,
        so that a question answered by the first scopes reads no more.
        """
        if any(_last_name(call.func) in self.backward_names for call in self.nodes.calls):
            queue = [i for i in range(len(self.scopes)) if self._is_root(i)]
        else:
            queue = [i for i, (scope, cls, _) in enumerate(self.scopes) if cls is not None and self._is_forward(scope)]
        queue.reverse()
        seen: Set[int] = set()
        while queue:
            index = queue.pop()
            if index in seen:
                continue
            seen.add(index)
            yield self.scope(index)
            queue.extend(i for i in self._header(index)[3] if not self._header(i)[2])

    def _is_root(self, index: int) -> bool:
        forward, calls_backward, excluded, _ = self._header(index)
        return not excluded and (forward or calls_backward)

    @staticmethod
    def _is_forward(scope: Scope) -> bool:
        return not isinstance(scope, ast.Module) and scope.name == "forward" and not _excluded(scope)

    def scope(self, index: int) -> ScopeWrites:
        """The facts of scope ``index``, keeping only calls of this file's code that does write its arguments."""
        found = self._scopes.get(index)
        if found is None:
            raw = self._raw(index)
            writes = tuple(w for w in raw.writes if not w.via or any(self._writes_argument(i) for i in w.via))
            found = self._scopes[index] = dataclasses.replace(raw, writes=writes)
        return found

    def _writes_argument(self, index: int) -> bool:
        """Does scope ``index`` write in place what its caller passed in (directly or through such a call)?"""
        if index in self._writers:
            return self._writers[index]
        self._writers[index] = True  # recursion: assume it does (a screen must not miss a write)
        raw = self._raw(index)
        found = not raw.excluded and any(
            write.facts & CALLER_FACTS and (not write.via or any(self._writes_argument(i) for i in write.via))
            for write in raw.writes
        )
        self._writers[index] = found
        return found

    def _header(self, index: int) -> Tuple[bool, bool, bool, Tuple[int, ...]]:
        """(a forward, calls ``backward``, excluded, the scopes of this file it calls): a cheap look at its calls."""
        found = self._headers.get(index)
        if found is None:
            scope, cls, _ = self.scopes[index]
            calls_backward = False
            callees: List[int] = []
            for node in self.nodes.local.get(id(scope), ()):
                if type(node) is not ast.Call:
                    continue
                func = node.func  # type: ignore[attr-defined]
                if isinstance(func, ast.Attribute):
                    if func.attr == "backward":
                        calls_backward = True
                    elif cls is not None and _is_self_attr(func):
                        method = self.methods.get((id(cls), func.attr))
                        if method is not None:
                            callees.append(self.index[id(method)])
                elif isinstance(func, ast.Name):
                    if func.id in self.backward_names:
                        calls_backward = True
                    elif func.id in self.functions:
                        callees.append(self.index[id(self.functions[func.id])])
            if isinstance(scope, ast.Module):
                found = (False, calls_backward, False, tuple(callees))
            else:
                found = (cls is not None and scope.name == "forward", calls_backward, _excluded(scope), tuple(callees))
            self._headers[index] = found
        return found

    def returned(self, index: int) -> Tuple[str, ...]:
        """What produced each value scope ``index`` returns (see :func:`returned_outputs`)."""
        scope, _, _ = self.scopes[index]
        if isinstance(scope, ast.Module):
            return ()
        return returned_outputs(scope, _torch_names(self.nodes.imports))

    def _raw(self, index: int) -> ScopeWrites:
        found = self._raws.get(index)
        if found is None:
            scope, cls, qualname = self.scopes[index]
            found = self._raws[index] = self._scope(index, scope, cls, qualname)
        return found

    # ---- one scope

    def _scope(self, position: int, scope: Scope, cls: Optional[ast.ClassDef], qualname: str) -> ScopeWrites:
        forward, calls_backward, excluded, callees = self._header(position)
        line = 1 if isinstance(scope, ast.Module) else scope.lineno
        if not any(self._spells_write(node) for node in self.nodes.local.get(id(scope), ())):
            # Most scopes write nothing in place: no need to follow their bindings.
            return ScopeWrites(qualname, line, forward, calls_backward, excluded, callees, ())
        #: name → (where the binding applies, binding), in any order
        sites: Dict[str, List[Tuple[Position, _Site]]] = {}
        #: names others are bound to (``y = x``) or views are taken of (``x[0]``, ``x.view(…)``)
        shared: Set[str] = set()
        #: name → where an op that saves its inputs first took it
        saved_at: Dict[str, Position] = {}
        if not isinstance(scope, ast.Module):
            for name, site in _parameter_sites(scope, cls):
                sites[name] = [((0, 0), site)]
        # (write, target, form, judged only when the target holds a tensor, the local code a call runs)
        writes: List[Tuple[ast.AST, str, str, bool, Tuple[int, ...]]] = []
        #: (start, end) of every loop: a save or binding anywhere in a loop around a write may come before it
        loops: List[Tuple[Position, Position]] = []
        #: names whose ``.grad`` the scope reads (a write reading it proves a leaf)
        grads: Set[str] = set()
        for node in self.nodes.local.get(id(scope), ()):
            kind = type(node)
            if kind is ast.Attribute and node.attr == "grad" and isinstance(node.value, ast.Name):  # type: ignore[attr-defined]
                grads.add(node.value.id)  # type: ignore[attr-defined]
            if kind is ast.For or kind is ast.AsyncFor or kind is ast.While:
                loops.append(((node.lineno, node.col_offset), (node.end_lineno or 0, node.end_col_offset or 0)))  # type: ignore[attr-defined]
            if kind is ast.BinOp or kind is ast.Call:
                where = (node.lineno, node.col_offset)  # type: ignore[attr-defined]
                for name in self._saved_inputs(node):
                    if where < saved_at.get(name, _NEVER):
                        saved_at[name] = where
            if kind is ast.Call:
                writes.extend((node, target, form, False, ()) for target, form in self._call_targets(node))  # type: ignore[arg-type]
                runs = self._local_callees(node, cls)  # type: ignore[arg-type]
                if runs:
                    args = node.args  # type: ignore[attr-defined]
                    names = [a.id for a in args if isinstance(a, ast.Name)]
                    names += [k.value.id for k in node.keywords if isinstance(k.value, ast.Name)]  # type: ignore[attr-defined]
                    writes.extend((node, name, "call", False, runs) for name in names)
            elif kind is ast.AugAssign:
                target = node.target  # type: ignore[attr-defined]
                if isinstance(target, ast.Name):
                    writes.append((node, target.id, "augassign", True, ()))
                elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                    writes.append((node, target.value.id, "setitem", True, ()))
            elif kind is ast.Assign or kind is ast.AnnAssign:
                value = node.value  # type: ignore[attr-defined]
                targets = node.targets if kind is ast.Assign else [node.target]  # type: ignore[attr-defined]
                for target in targets:
                    if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                        writes.append((node, target.value.id, "setitem", True, ()))
                if value is not None:
                    # Bound once the whole statement is judged: ``x = x.mul_(2)`` is judged on the old x.
                    end = (node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]
                    for target in targets:
                        for name, site in self._assignment_sites(target, value, shared):
                            sites.setdefault(name, []).append((end, site))
            elif kind is ast.NamedExpr:
                # Bound at the end of its statement, which this walk does not track: take the worst.
                start = (node.lineno, node.col_offset)  # type: ignore[attr-defined]
                sites.setdefault(node.target.id, []).append((start, _ANYTHING))  # type: ignore[attr-defined]
                self._assignment_sites(node.target, node.value, shared)  # type: ignore[attr-defined]
            elif kind is ast.For or kind is ast.AsyncFor:
                # Bound at the loop's header: plain values (a parameter when iterating
                # ``.parameters()``, a leaf only if the write reads its ``.grad``).
                iterated = node.iter  # type: ignore[attr-defined]
                leafy = isinstance(iterated, ast.Call) and _last_name(iterated.func) == "parameters"
                start = (node.lineno, node.col_offset)  # type: ignore[attr-defined]
                for name in _stored_names(node.target):  # type: ignore[attr-defined]
                    sites.setdefault(name, []).append((start, _Site(leafy, _NOTHING, False)))
            elif kind is ast.With or kind is ast.AsyncWith:
                start = (node.lineno, node.col_offset)  # type: ignore[attr-defined]
                for item in node.items:  # type: ignore[attr-defined]
                    for name in _stored_names(item.optional_vars) if item.optional_vars is not None else ():
                        sites.setdefault(name, []).append((start, _Site(False, _NOTHING, False)))

        found = tuple(
            InplaceWrite(
                target, form, node.lineno, node.col_offset,  # type: ignore[attr-defined]
                _facts(node, target, needs_tensor, sites, shared, saved_at, loops, target in grads), via,
            )
            for node, target, form, needs_tensor, via in writes
            if target != "self"
        )
        return ScopeWrites(qualname, line, forward, calls_backward, excluded, callees, found)

    def _spells_write(self, node: ast.AST) -> bool:
        """Might ``node`` be one of the writes ``_scope`` collects (a superset, by names only)?"""
        kind = type(node)
        if kind is ast.AugAssign:
            return True
        if kind is ast.Assign:
            return any(isinstance(t, ast.Subscript) for t in node.targets)  # type: ignore[attr-defined]
        if kind is ast.AnnAssign:
            return isinstance(node.target, ast.Subscript)  # type: ignore[attr-defined]
        if kind is not ast.Call:
            return False
        func = node.func  # type: ignore[attr-defined]
        last = _last_name(func)
        return (
            last in self.write_names
            or (isinstance(func, ast.Name) and self.imported_as.get(func.id) in self.write_names)
            or _head(func) in self.project_names
            or _head(func) in self.project_modules
        )

    def _local_callees(self, call: ast.Call, cls: Optional[ast.ClassDef]) -> Tuple[int, ...]:
        """The scopes of this file a call may run: a function, a ``self`` method, a module class's ``forward``."""
        func = call.func
        if isinstance(func, ast.Name) and func.id in self.functions:
            return (self.index[id(self.functions[func.id])],)
        if cls is not None and _is_self_attr(func):
            method = self.methods.get((id(cls), func.attr))  # type: ignore[attr-defined]
            if method is not None:
                return (self.index[id(method)],)
        last = _last_name(func)
        return tuple(i for name in self.built.get(last or "", ()) for i in self.forwards.get(name, ()))

    # ---- bindings

    def _assignment_sites(self, target: ast.AST, value: ast.expr, shared: Set[str]) -> Iterator[Tuple[str, _Site]]:
        """What ``target = value`` binds; records the names it shares."""
        names = _stored_names(target)
        source = value
        while isinstance(source, ast.Call) and isinstance(source.func, ast.Attribute) and source.func.attr in INPLACE_METHODS:
            source = source.func.value  # ``y = x.relu_()`` is ``x`` itself
        alias = isinstance(source, ast.Name)
        if alias:
            shared.add(source.id)  # type: ignore[attr-defined]
        base = _view_base(value)
        if base is not None:
            shared.add(base)  # what autograd saves of the view ``x[0]`` or ``x.view(...)``, it saves of x
        tensor = not self._never_tensor(value)
        gradful = tensor and not self._grad_free(value)
        # Unpacked names are plain values: never a view, a leaf or a saved output.
        facts = self._value_facts(value) if isinstance(target, ast.Name) else _NOTHING
        if alias:
            facts = facts | {ALIAS}
        site = _Site(tensor or alias, facts, gradful or alias)
        return ((name, site) for name in names)

    def _value_facts(self, value: ast.expr) -> FrozenSet[str]:
        """A leaf, a view, or an output autograd saves: what a value may be by itself."""
        if _view_base(value) is not None:
            return frozenset({VIEW})
        if not isinstance(value, ast.Call):
            return _NOTHING
        if any(k.arg == "requires_grad" for k in value.keywords):
            # ``torch.zeros(..., requires_grad=True)``; the analysis takes a leaf only from that keyword
            # spelled out, never from ``**kwargs`` (``self.loss_function(logits, labels, **kwargs)``)
            return frozenset({LEAF})
        func = value.func
        last = _last_name(func)
        if last == "Parameter":
            return frozenset({LEAF})
        if last in SAVES_OUTPUT:
            return frozenset({SAVED_OUTPUT})
        if isinstance(func, ast.Attribute):
            if func.attr in self.output_saving:
                return frozenset({SAVED_OUTPUT})  # ``self.act(x)`` with ``self.act = nn.Sigmoid()``
            # Set by a base class in another project file: the program model knows what it saves.
            if _is_self_attr(func) and self.project_bases and func.attr not in self.assigned_attribute_names:
                return frozenset({SAVED_OUTPUT})
        return _NOTHING

    def _saved_inputs(self, node: ast.AST) -> Iterator[str]:
        """Names an operation may save for backward.

        Operands of ``*``, ``@``, ``/`` and ``**``; the operands of a call to an op
        whose backward reads its inputs (``mul``, ``pow``, ``log``, ``linear`` …);
        the arguments of a module built in this file (``self.fc(x)``).
        """
        if isinstance(node, ast.BinOp):
            if isinstance(node.op, (ast.Mult, ast.MatMult, ast.Div)):
                operands = [node.left, node.right]
            elif isinstance(node.op, ast.Pow):
                operands = [node.left]
            else:
                return
            yield from (o.id for o in operands if isinstance(o, ast.Name))
        elif isinstance(node, ast.Call):
            func = node.func
            last = _last_name(func)
            if last in _SAVES_OPERANDS:
                if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
                    yield func.value.id
            elif last not in self.module_names:
                return
            yield from (a.id for a in node.args if isinstance(a, ast.Name))

    def _never_tensor(self, expr: ast.expr) -> bool:
        if isinstance(expr, _NEVER_TENSOR):
            return True
        if isinstance(expr, ast.Subscript):
            return not isinstance(expr.value, ast.Name)
        if isinstance(expr, ast.BinOp):
            return self._never_tensor(expr.left) and self._never_tensor(expr.right)
        if isinstance(expr, ast.UnaryOp):
            return self._never_tensor(expr.operand)
        if isinstance(expr, ast.Compare):
            return not isinstance(expr.left, ast.Name)
        if isinstance(expr, ast.Call):
            func = expr.func
            # ``from torch import max`` would make ``max(...)`` a tensor: imported names are not builtins.
            return isinstance(func, ast.Name) and func.id in NON_TENSOR_BUILTINS and func.id not in self.imported
        return False

    def _grad_free(self, value: ast.expr) -> bool:
        """A new tensor that does not require grad: ``torch.zeros(...)``, ``x.new_ones(...)``."""
        if not isinstance(value, ast.Call) or any(k.arg in ("requires_grad", None) for k in value.keywords):
            return False
        func = value.func
        if isinstance(func, ast.Name):
            return func.id in self.torch_factories
        if not isinstance(func, ast.Attribute) or _dotted(func) in self.assigned_attributes:
            return False
        receiver = func.value
        if isinstance(receiver, ast.Name) and receiver.id in self.torch_modules:
            return func.attr in FACTORIES
        if isinstance(receiver, ast.Name) and (receiver.id in ("self", "F") or receiver.id in self.imported):
            return False
        return func.attr in _NEW_TENSOR_METHODS

    # ---- writes

    def _call_targets(self, call: ast.Call) -> Iterator[Tuple[str, str]]:
        """(name, form) of what ``call`` may write in place."""
        func = call.func
        if _head(func) in self.project_names | self.project_modules and not (
            isinstance(func, ast.Attribute) and func.attr in INPLACE_METHODS
        ):
            # a helper of another project file (``helper(x)``, ``utils.helper(x)``) may write any argument,
            # unless the program model says which it does
            written = self.helpers(call) if self.helpers is not None else None
            yield from (
                (arg.id, "call")
                for position, arg in enumerate(call.args)
                if isinstance(arg, ast.Name) and (written is None or position in written)
            )
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
                yield receiver.id, "method"
        first = call.args[0] if call.args else None
        if not isinstance(first, ast.Name):
            return
        last = _last_name(func)
        if isinstance(func, ast.Name):
            last = self.imported_as.get(func.id, func.id)  # ``from torch.nn.functional import relu as act``
        if last in _TORCH_INPLACE:
            yield first.id, "function"
        elif last in FUNCTIONAL_INPLACE_PARAMETER and _may_request_inplace(call, FUNCTIONAL_INPLACE_PARAMETER[last]):
            yield first.id, "function"
        elif isinstance(func, ast.Attribute) and _is_self_attr(func) and len(call.args) == 1 and func.attr in self.inplace_modules:
            yield first.id, "module"


_ANYTHING = _Site(True, frozenset({ARGUMENT, LEAF, VIEW, ALIAS, SAVED_OUTPUT}), True)


def _facts(
    node: ast.AST,
    target: str,
    needs_tensor: bool,
    sites: Dict[str, List[Tuple[Position, _Site]]],
    shared: Set[str],
    saved_at: Dict[str, Position],
    loops: List[Tuple[Position, Position]],
    grad_read: bool,
) -> FrozenSet[str]:
    """What ``target`` may be at the write ``node`` (``grad_read``: the scope reads ``target.grad``)."""
    facts: Set[str] = set()
    if grad_read and _reads_grad_of(node, target):
        facts.add(LEAF)  # whatever it is bound to: ``p -= lr * p.grad``
    where = (node.lineno, node.col_offset)  # type: ignore[attr-defined]
    around = [(start, end) for start, end in loops if start <= where <= end]
    # The binding the write sees: the last one before it, or, in a loop, one further
    # down the body (the next iteration writes into what the previous one bound:
    # ``b[i] = b[i] + 1; b = torch.sigmoid(b)``).
    seen: List[_Site] = []
    for applied, site in sorted(sites.get(target, ()), key=lambda s: s[0]):
        if applied < where:
            seen[:1] = [site]
        elif any(start <= applied <= end for start, end in around):
            seen.append(site)
    # saved before the write, or anywhere in a loop around it (a fresh tensor
    # saved for another operand's gradient counts too: ``b * w``)
    horizon = max([where] + [end for _, end in around])
    saved = saved_at.get(target, _NEVER) < horizon
    for site in seen:
        if needs_tensor and not site.tensor:
            continue
        facts.update(site.facts)
        if target in shared:
            facts.add(SHARED)
        if saved and (site.gradful or site.tensor):
            facts.add(SAVED_INPUT)
    return frozenset(facts)


def _parameter_sites(func: FunctionAst, cls: Optional[ast.ClassDef]) -> Iterator[Tuple[str, _Site]]:
    """Parameters: one not taken for a tensor is neither the caller's tensor nor one requiring grad."""
    args = func.args
    positional = [*args.posonlyargs, *args.args]
    defaults = [False] * (len(positional) - len(args.defaults)) + [True] * len(args.defaults)
    params = list(zip(positional, defaults)) + [(a, d is not None) for a, d in zip(args.kwonlyargs, args.kw_defaults)]
    static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in func.decorator_list)
    if cls is not None and not static and params:
        params = params[1:]
    for i, (arg, has_default) in enumerate(params):
        if arg.annotation is not None:
            tensor = _mentions_tensor(arg.annotation)
        else:
            tensor = not has_default and i == 0 and func.name == "forward"
        maybe = tensor or (arg.annotation is None and not has_default)
        yield arg.arg, _Site(tensor, frozenset({ARGUMENT}) if maybe else _NOTHING, maybe)


def _mentions_tensor(annotation: ast.expr) -> bool:
    for node in ast.walk(annotation):
        if isinstance(node, ast.Name) and "Tensor" in node.id:
            return True
        if isinstance(node, ast.Attribute) and "Tensor" in node.attr:
            return True
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and "Tensor" in node.value:
            return True
    return False


def _excluded(func: FunctionAst) -> bool:
    """Initialisation code, ``autograd.Function`` code, or a function the caller asks to work in place."""
    if INIT_NAME.search(func.name):
        return True
    args = func.args
    names = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
    return "inplace" in names or names[:1] == ["ctx"]


def _view_base(value: ast.expr) -> Optional[str]:
    """``x`` for ``x[0]``, ``x.view(...)``, ``x.detach()`` …"""
    if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name):
        return value.value.id
    if (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr in VIEW_METHODS
        and isinstance(value.func.value, ast.Name)
    ):
        return value.func.value.id
    return None


def _may_request_inplace(call: ast.Call, position: int) -> bool:
    for kw in call.keywords:
        if kw.arg == "inplace":
            return _is_true(kw.value)
    positional = [a for a in call.args if not isinstance(a, ast.Starred)]
    return len(positional) > position and _is_true(positional[position])


def _builds_inplace_module(value: ast.expr) -> bool:
    if not isinstance(value, ast.Call):
        return False
    last = _last_name(value.func)
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


def _last_name(node: ast.expr) -> Optional[str]:
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None


def _head(node: ast.expr) -> Optional[str]:
    """``utils`` of ``utils.helper`` and of ``helper`` spelled alone (the name a call starts from)."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _dotted(node: ast.AST) -> Optional[str]:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _stored_names(target: ast.AST) -> List[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for e in target.elts for n in _stored_names(e)]
    if isinstance(target, ast.Starred):
        return _stored_names(target.value)
    return []


# --------------------------------------------------------------------------- what a function returns


def forward_outputs(tree: ast.Module) -> Dict[Tuple[str, int], Tuple[str, ...]]:
    """:func:`returned_outputs` of every ``forward`` method (of a class at any depth), by
    ``(qualname, line)`` as :meth:`ModuleWrites.returned` gives them, without reading the module's
    in-place facts (a summary of a file the checked one imports needs only these)."""
    imports: List[Union[ast.Import, ast.ImportFrom]] = []
    forwards: List[Tuple[str, FunctionAst]] = []
    # Imports and classes are statements: only statement lists are walked, never expressions.
    stack: List[ast.AST] = list(tree.body)
    while stack:
        stmt = stack.pop()
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            imports.append(stmt)
        elif isinstance(stmt, ast.ClassDef):
            forwards.extend(
                (f"{stmt.name}.{item.name}", item)
                for item in stmt.body
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == "forward"
            )
        for name in stmt._fields:
            value = getattr(stmt, name, None)
            if isinstance(value, list):
                for child in value:
                    if isinstance(child, ast.stmt):
                        stack.append(child)
                    elif isinstance(child, (ast.ExceptHandler, ast.match_case)):
                        stack.extend(child.body)
    torch_names = _torch_names(imports)
    return {(qualname, func.lineno): returned_outputs(func, torch_names) for qualname, func in forwards}


def _torch_names(imports: List[Union[ast.Import, ast.ImportFrom]]) -> Set[str]:
    """Names an op of torch may be called through: ``torch`` and its aliases, ``F``, and any name
    imported under another name (``from torch import sigmoid as squash``)."""
    names = {"torch", "F"}
    for node in imports:
        if isinstance(node, ast.Import):
            names.update(alias.asname for alias in node.names if alias.name == "torch" and alias.asname)
        else:
            names.update(alias.asname for alias in node.names if alias.asname)
    return names


def returned_outputs(func: FunctionAst, torch_names: Set[str]) -> Tuple[str, ...]:
    """For each ``return`` run under autograd, in source order, what produced the value.

    ``op:<name>`` an op that saves its output (``torch.sigmoid(x)``, ``x.softmax(-1)``);
    ``self:<attr>`` a call of ``self.<attr>`` (a module or configurable op the model resolves);
    ``""`` anything else. Names keep the last value bound to them in source order
    (``x += y`` and ``x.relu_()`` keep it: the tensor is the same); returns under
    ``torch.no_grad()`` or ``if not self.training:`` are left out.
    """
    bound: Dict[str, str] = {}
    found: List[str] = []

    def produced(value: Optional[ast.expr]) -> str:
        while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in INPLACE_METHODS:
            value = value.func.value  # ``x.relu_()`` is x
        if isinstance(value, ast.Name):
            return bound.get(value.id, "")
        if not isinstance(value, ast.Call):
            return ""
        func = value.func
        if isinstance(func, ast.Attribute):
            if _is_self_attr(func):
                return f"self:{func.attr}"
            return f"op:{func.attr}" if func.attr in SAVES_OUTPUT else ""
        if isinstance(func, ast.Name) and func.id in SAVES_OUTPUT and func.id in torch_names:
            return f"op:{func.id}"
        return ""

    def visit(body: List[ast.stmt], quiet: bool) -> None:
        for stmt in body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            if isinstance(stmt, ast.Return):
                if not quiet and stmt.value is not None:
                    found.append(produced(stmt.value))
            elif isinstance(stmt, (ast.Assign, ast.AnnAssign)) and stmt.value is not None:
                what = produced(stmt.value)
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                for target in targets:
                    for name in _stored_names(target):
                        bound[name] = what if isinstance(target, ast.Name) else ""
            elif isinstance(stmt, ast.If):
                training = tests_training(stmt.test)
                visit(stmt.body, quiet or training is False)
                visit(stmt.orelse, quiet or training is True)
            elif isinstance(stmt, (ast.With, ast.AsyncWith)):
                off = any(
                    (_dotted(i.context_expr.func if isinstance(i.context_expr, ast.Call) else i.context_expr) or "")
                    .rsplit(".", 1)[-1] in ("no_grad", "inference_mode")
                    for i in stmt.items
                )
                visit(stmt.body, quiet or off)
            elif isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)):
                if isinstance(stmt, (ast.For, ast.AsyncFor)):
                    for name in _stored_names(stmt.target):
                        bound[name] = ""
                visit(stmt.body, quiet)
                visit(stmt.orelse, quiet)
            elif isinstance(stmt, ast.Try):
                visit(stmt.body, quiet)
                for handler in stmt.handlers:
                    visit(handler.body, quiet)
                visit(stmt.orelse, quiet)
                visit(stmt.finalbody, quiet)

    visit(func.body, False)
    return tuple(found)


def tests_training(test: ast.expr) -> Optional[bool]:
    """True for ``if self.training:``, False for ``if not self.training:``, else None."""
    negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
    if negated:
        test = test.operand  # type: ignore[attr-defined]
    if isinstance(test, ast.Attribute) and test.attr == "training":
        return not negated
    return None
