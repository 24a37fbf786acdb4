"""AF103's screen: can the in-place analysis report anything in this module?

Part of the syntactic screens (:mod:`autofix.analysis.screen`), run on
Python's own parse tree before any LibCST parse. It mirrors the necessary
conditions of an event of :mod:`autofix.analysis.inplace`, and never more.

AF103 needs an in-place write in a scope its analysis walks (a ``forward``
method, a function or script calling ``backward()``, or a helper reachable
from one by a call), outside initialisation code (``__init__``,
``reset_parameters`` …), ``autograd.Function`` (``ctx`` first) and functions
taking an ``inplace`` flag. The write must be one the analysis judges
(``name.op_(…)``, also at the end of a chain; ``torch.op_(name)`` /
``F.op(name, inplace=True)``; ``self.m(name)`` with ``self.m`` built with
``inplace=True``; ``name op= …`` and ``name[…] = …`` on a name that may hold
a tensor), and its target must be something the analysis can report: an
argument, a leaf (``requires_grad=True``, ``nn.Parameter``, or the write
reads its ``.grad``), a view or the base of one, an alias, the output of an
op that saves its output (``sigmoid``, ``softmax``, ``self.act`` built from
``nn.Sigmoid``), or a value that may require grad and that an op saving its
inputs (``*``, ``@``, ``pow``, ``self.fc(x)`` …) took before the write.
``x += 1`` on a counter, or ``index_add_`` into a fresh ``torch.zeros``,
passes none of these.

``tests/test_screens.py`` holds it to that against the full analysis.
"""

from __future__ import annotations

import ast
from typing import Dict, Iterator, List, NamedTuple, Optional, Set, Tuple, Union

from autofix.analysis.inplace import (
    LIBRARIES,
    FACTORIES,
    FRESH_METHODS,
    INIT_NAME,
    NON_TENSOR_BUILTINS,
    SAVES_INPUT,
    SAVES_PARTNER,
    VIEW_METHODS,
)
from autofix.model.inplace_ops import (
    FUNCTIONAL_INPLACE_FUNCTIONS,
    FUNCTIONAL_INPLACE_PARAMETER,
    INPLACE_METHODS,
    INPLACE_MODULES,
    TORCH_INPLACE_FUNCTIONS,
)
from autofix.analysis.screen import nodes_of
from autofix.model.summaries import dotted as _dotted
from autofix.model.vocabulary import OUTPUT_SAVING_MODULES, SAVES_OUTPUT

FunctionAst = Union[ast.FunctionDef, ast.AsyncFunctionDef]

_TORCH_INPLACE = frozenset(TORCH_INPLACE_FUNCTIONS) | frozenset(FUNCTIONAL_INPLACE_FUNCTIONS)
_MODULE_NAMES = frozenset({"torch", "F", "nn", "np", "math"})


def may_have_inplace_events(tree: ast.Module) -> bool:
    """False when the in-place analysis cannot report anything in ``tree``."""
    index = _Index(tree)
    seen: Set[int] = set()
    if any(_last_name(call.func) in index.backward_names for call in index.nodes.calls):
        queue = [(cls, scope) for cls, scope in index.scopes() if index.summary(scope, cls).root]
    else:
        # No backward() anywhere (a model file): only forwards start the analysis, and
        # the scopes nothing reaches from one need no look at all.
        queue = [
            (cls, scope)
            for cls, scope in index.scopes()
            if cls is not None and not isinstance(scope, ast.Module) and scope.name == "forward" and not _excluded(scope)
        ]
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


class _Site(NamedTuple):
    """One binding of a name, as the analysis' ``_Binding`` would see it (over-approximated)."""

    #: may hold a tensor (``op=`` and ``[…] =`` are judged only on tensors)
    tensor: bool
    #: may be reported by itself: an argument, a leaf, a view, an alias, a saved output
    risky: bool
    #: may require grad (then a save before the write makes it reportable)
    gradful: bool


_RISKY = _Site(True, True, True)
Position = Tuple[int, int]


class _Summary:
    """What one walk over a scope's own code (not nested defs) finds."""

    def __init__(self, index: "_Index", scope: Scope, cls: Optional[ast.ClassDef]) -> None:
        self.calls_backward = False
        self.callees: List[Tuple[Optional[ast.ClassDef], FunctionAst]] = []
        #: name → (where the analysis applies it, binding): it reads the scope in source
        #: order and the last binding before a write is the one it judges
        sites: Dict[str, List[Tuple[Position, _Site]]] = {}
        #: names others are bound to (``y = x``) or views are taken of (``x[0]``, ``x.view(…)``)
        shared: Set[str] = set()
        #: name → where an op that saves its inputs first took it
        saved_at: Dict[str, Position] = {}
        if not isinstance(scope, ast.Module):
            for name, site in _parameter_sites(scope, cls):
                sites[name] = [((0, 0), site)]
        # (write, target, judged only when the target holds a tensor)
        writes: List[Tuple[ast.AST, str, bool]] = []
        #: (start, end) of every loop: the analysis walks a loop body twice, so a save
        #: anywhere in a loop around a write may come before it
        loops: List[Tuple[Position, Position]] = []
        for node in index.nodes.local.get(id(scope), ()):
            kind = type(node)
            if kind is ast.For or kind is ast.AsyncFor or kind is ast.While:
                loops.append(((node.lineno, node.col_offset), (node.end_lineno or 0, node.end_col_offset or 0)))  # type: ignore[attr-defined]
            if kind is ast.BinOp or kind is ast.Call:
                where = (node.lineno, node.col_offset)  # type: ignore[attr-defined]
                for name in _saved_inputs(node, index):
                    if where < saved_at.get(name, _NEVER):
                        saved_at[name] = where
            if kind is ast.Call:
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
                writes.extend((node, target, False) for target in _call_targets(node, index))  # type: ignore[arg-type]
            elif kind is ast.AugAssign:
                target = node.target  # type: ignore[attr-defined]
                if isinstance(target, ast.Name):
                    writes.append((node, target.id, True))
                elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                    writes.append((node, target.value.id, True))
            elif kind is ast.Assign or kind is ast.AnnAssign:
                value = node.value  # type: ignore[attr-defined]
                targets = node.targets if kind is ast.Assign else [node.target]  # type: ignore[attr-defined]
                for target in targets:
                    if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                        writes.append((node, target.value.id, True))
                if value is not None:
                    # Bound once the whole statement is judged: ``x = x.mul_(2)`` is judged on the old x.
                    end = (node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]
                    for target in targets:
                        for name, site in _assignment_sites(target, value, index, shared):
                            sites.setdefault(name, []).append((end, site))
            elif kind is ast.NamedExpr:
                # Bound at the end of its statement, which this walk does not track: take the worst.
                start = (node.lineno, node.col_offset)  # type: ignore[attr-defined]
                sites.setdefault(node.target.id, []).append((start, _RISKY))  # type: ignore[attr-defined]
                _assignment_sites(node.target, node.value, index, shared)  # type: ignore[attr-defined]
            elif kind is ast.For or kind is ast.AsyncFor:
                # Bound at the loop's header, before its body: plain values (a parameter when
                # iterating ``.parameters()``, a leaf only if the write reads its ``.grad``).
                iterated = node.iter  # type: ignore[attr-defined]
                leafy = isinstance(iterated, ast.Call) and _last_name(iterated.func) == "parameters"
                start = (node.lineno, node.col_offset)  # type: ignore[attr-defined]
                for name in _stored_names(node.target):  # type: ignore[attr-defined]
                    sites.setdefault(name, []).append((start, _Site(leafy, False, False)))
            elif kind is ast.With or kind is ast.AsyncWith:
                start = (node.lineno, node.col_offset)  # type: ignore[attr-defined]
                for item in node.items:  # type: ignore[attr-defined]
                    for name in _stored_names(item.optional_vars) if item.optional_vars is not None else ():
                        sites.setdefault(name, []).append((start, _Site(False, False, False)))

        def reportable(node: ast.AST, target: str, needs_tensor: bool) -> bool:
            if target == "self":
                return False
            if _reads_grad_of(node, target):
                return True  # a leaf, whatever it is bound to: ``p -= lr * p.grad``
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
            return any(
                (site.risky or target in shared or ((site.gradful or site.tensor) and saved_at.get(target, _NEVER) < horizon))
                for site in seen
                if site.tensor or not needs_tensor
            )

        #: an in-place write the analysis could report: on a name that may be an argument, a
        #: leaf, a view, an alias or a value requiring grad saved before the write (and a
        #: tensor, for ``op=`` and ``[…] =``), or reading the target's ``.grad`` (``p -= lr * p.grad``)
        self.writes = any(reportable(*write) for write in writes)
        if isinstance(scope, ast.Module):
            self.root = self.calls_backward
        else:
            self.root = not _excluded(scope) and (
                self.calls_backward or (cls is not None and scope.name == "forward")
            )


def _parameter_sites(func: FunctionAst, cls: Optional[ast.ClassDef]) -> Iterator[Tuple[str, _Site]]:
    """Parameters, as the analysis binds them (its ``_tensor_param``).

    A parameter it does not take for a tensor is neither the caller's tensor
    nor one requiring grad for it; every other one may be either.
    """
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
        yield arg.arg, _Site(tensor, maybe, maybe)


def _mentions_tensor(annotation: ast.expr) -> bool:
    for node in ast.walk(annotation):
        if isinstance(node, ast.Name) and "Tensor" in node.id:
            return True
        if isinstance(node, ast.Attribute) and "Tensor" in node.attr:
            return True
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and "Tensor" in node.value:
            return True
    return False


# What the analysis' ``_value`` never takes for a tensor: literals, containers,
# attributes (never judged at all), ``a if c else b``, ``len(...)`` and friends.
_NEVER_TENSOR = (
    ast.Constant, ast.JoinedStr, ast.List, ast.Tuple, ast.Dict, ast.Set, ast.ListComp, ast.SetComp, ast.DictComp,
    ast.GeneratorExp, ast.Lambda, ast.IfExp, ast.BoolOp, ast.Attribute, ast.Await, ast.Yield, ast.YieldFrom,
    ast.NamedExpr,
)


_NEVER = (1 << 30, 0)
_SAVES_OPERANDS = SAVES_PARTNER | SAVES_INPUT | {"linear", "conv1d", "conv2d", "conv3d", "conv_transpose2d"}
#: ``x.new_zeros(...)``: fresh, and never requiring grad whatever ``x`` is.
_NEW_TENSOR_METHODS = frozenset(m for m in FRESH_METHODS if m.startswith("new_"))


def _never_tensor(expr: ast.expr, index: "_Index") -> bool:
    if isinstance(expr, _NEVER_TENSOR):
        return True
    if isinstance(expr, ast.Subscript):
        return not isinstance(expr.value, ast.Name)
    if isinstance(expr, ast.BinOp):
        return _never_tensor(expr.left, index) and _never_tensor(expr.right, index)
    if isinstance(expr, ast.UnaryOp):
        return _never_tensor(expr.operand, index)
    if isinstance(expr, ast.Compare):
        return not isinstance(expr.left, ast.Name)
    if isinstance(expr, ast.Call):
        func = expr.func
        # ``from torch import max`` would make ``max(...)`` a tensor: imported names are not builtins.
        return isinstance(func, ast.Name) and func.id in NON_TENSOR_BUILTINS and func.id not in index.imported
    return False


def _assignment_sites(
    target: ast.AST, value: ast.expr, index: "_Index", shared: Set[str]
) -> Iterator[Tuple[str, _Site]]:
    """What ``target = value`` binds (the analysis' ``_bind``/``_value``); records shared names."""
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
    tensor = not _never_tensor(value, index)
    gradful = tensor and not _grad_free(value, index)
    # Unpacked names are plain values to the analysis: never a view, a leaf or a saved output.
    risky = alias or (isinstance(target, ast.Name) and _special_value(value, index))
    site = _Site(tensor or alias, risky, gradful or alias)
    return ((name, site) for name in names)


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


def _special_value(value: ast.expr, index: "_Index") -> bool:
    """A leaf, a view, or an output autograd saves (the bindings the analysis can report by themselves)."""
    if _view_base(value) is not None:
        return True  # a view
    if not isinstance(value, ast.Call):
        return False
    if any(k.arg in ("requires_grad", None) for k in value.keywords):
        return True  # ``torch.zeros(..., requires_grad=True)``: a leaf
    func = value.func
    last = _last_name(func)
    if last == "Parameter" or last in SAVES_OUTPUT:
        return True
    if isinstance(func, ast.Attribute):
        if func.attr in index.output_saving_modules:
            return True  # ``self.act(x)`` with ``self.act = nn.Sigmoid()``
        # Set by a base class in another project file: the analysis asks the program model.
        return _is_self_attr(func) and index.project_bases and func.attr not in index.assigned_attribute_names
    return False


def _saved_inputs(node: ast.AST, index: "_Index") -> Iterator[str]:
    """Names an operation may save for backward (the analysis' ``_record_saves``).

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
        elif last not in index.module_names:
            return
        yield from (a.id for a in node.args if isinstance(a, ast.Name))


def _grad_free(value: ast.expr, index: "_Index") -> bool:
    """A new tensor that does not require grad: ``torch.zeros(...)``, ``x.new_ones(...)`` (the analysis' "fresh")."""
    if not isinstance(value, ast.Call) or any(k.arg in ("requires_grad", None) for k in value.keywords):
        return False
    func = value.func
    if isinstance(func, ast.Name):
        return func.id in index.torch_factories
    if not isinstance(func, ast.Attribute) or _dotted(func) in index.assigned_attributes:
        return False
    receiver = func.value
    if isinstance(receiver, ast.Name) and receiver.id in index.torch_modules:
        return func.attr in FACTORIES
    if isinstance(receiver, ast.Name) and (receiver.id in ("self", "F") or receiver.id in index.imported):
        return False
    return func.attr in _NEW_TENSOR_METHODS


def _last_name(node: ast.expr) -> Optional[str]:
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None


def _stored_names(target: ast.AST) -> List[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for e in target.elts for n in _stored_names(e)]
    if isinstance(target, ast.Starred):
        return _stored_names(target.value)
    return []


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
        #: every name an import binds
        self.imported: Set[str] = set()
        #: ``from m import a as b``: b → a
        self.imported_as: Dict[str, str] = {}
        #: names from-imported from anything but torch and the usual libraries (a project module)
        self.project_imports: Set[str] = set()
        #: names ``torch`` is imported as, and torch factories imported by name
        self.torch_modules: Set[str] = {"torch"}
        self.torch_factories: Set[str] = set()
        #: ``a.b`` assigned anywhere (the analysis then takes ``a.b(...)`` for a module it built)
        self.assigned_attributes: Set[str] = set()
        #: last names of what is bound to an object built here (``self.fc = nn.Linear(...)``): modules
        self.module_names: Set[str] = set()
        #: last names of what is bound to ``nn.ReLU()``, ``nn.Sigmoid()``, an ``nn.Sequential`` or a
        #: class of this file (modules that may save their output)
        self.output_saving_modules: Set[str] = set()
        #: a class of this module has a base imported from outside the usual libraries (the project)
        self.project_bases = False
        self._summaries: Dict[int, _Summary] = {}
        for stmt in tree.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.functions[stmt.name] = stmt
        self.nodes = nodes = nodes_of(tree)
        for cls in nodes.classes:
            self.classes.append(cls)
            for stmt in cls.body:
                if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    self.methods[(id(cls), stmt.name)] = stmt
        local_classes = {cls.name for cls in nodes.classes}
        for assign in nodes.assigns:
            value = assign.value
            ctor = _last_name(value.func) if isinstance(value, ast.Call) else None
            # The analysis' ``output_saved_by``: an activation, or what may end in one (an
            # ``nn.Sequential``, a class of this file whose forward may return a saved output).
            saves_output = ctor in OUTPUT_SAVING_MODULES or ctor == "Sequential" or ctor in local_classes
            # ``self.f = torch.sigmoid`` (or a parameter defaulting to one): a configurable op.
            saves_output = saves_output or isinstance(value, (ast.Name, ast.Attribute, ast.IfExp))
            for target in assign.targets:
                if ctor and ctor[:1].isupper():
                    self.module_names.add((_dotted(target) or "").rsplit(".", 1)[-1])
                if isinstance(target, ast.Attribute):
                    self.assigned_attributes.add(_dotted(target) or "")
                if saves_output:
                    self.output_saving_modules.add((_dotted(target) or "").rsplit(".", 1)[-1])
                if isinstance(target, ast.Attribute) and _is_self_attr(target) and _builds_inplace_module(value):
                    self.inplace_modules.add(target.attr)
        project_modules: Set[str] = set()
        for node in nodes.imports:
            if isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    self.imported.add(alias.asname or alias.name)
                    if node.level or (node.module or "").split(".")[0] not in LIBRARIES:
                        # may be the project's own: the analysis asks the program model what it writes
                        self.project_imports.add(alias.asname or alias.name)
                    if alias.asname:
                        self.imported_as[alias.asname] = alias.name
                    if node.module == "torch" and not node.level and alias.name in FACTORIES:
                        self.torch_factories.add(alias.asname or alias.name)
                    if alias.name == "backward":
                        self.backward_names.add(alias.asname or alias.name)
            else:
                self.imported.update(alias.asname or alias.name.split(".")[0] for alias in node.names)
                self.torch_modules.update(alias.asname for alias in node.names if alias.name == "torch" and alias.asname)
                project_modules.update(
                    alias.asname or alias.name.split(".")[0] for alias in node.names if alias.name.split(".")[0] not in LIBRARIES
                )
        self.assigned_attribute_names = {name.rsplit(".", 1)[-1] for name in self.assigned_attributes}
        self.project_bases = any(
            (_dotted(base) or "").split(".")[0] in self.project_imports | project_modules
            for cls in self.classes
            for base in cls.bases
        )

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
    if INIT_NAME.search(func.name):
        return True
    args = func.args
    names = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
    return "inplace" in names or names[:1] == ["ctx"]


# --------------------------------------------------------------------------- writes


def _call_targets(call: ast.Call, index: _Index) -> Iterator[str]:
    func = call.func
    if isinstance(func, ast.Name) and func.id in index.project_imports:
        # a helper of another project module may write any argument in place
        yield from (arg.id for arg in call.args if isinstance(arg, ast.Name))
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
    if isinstance(func, ast.Name):
        last = index.imported_as.get(func.id, func.id)  # ``from torch.nn.functional import relu as act``
    if last in _TORCH_INPLACE:
        yield first.id
    elif last in FUNCTIONAL_INPLACE_PARAMETER and _may_request_inplace(call, FUNCTIONAL_INPLACE_PARAMETER[last]):
        yield first.id
    elif isinstance(func, ast.Attribute) and _is_self_attr(func) and len(call.args) == 1 and func.attr in index.inplace_modules:
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
