"""Facts for AF103 and AF107: which code runs under autograd, and what each tensor name holds there.

Read from Python's :mod:`ast` (the program model's parse tree), so the engine
runs the whole analysis as the rules' screen, before any LibCST parse: a file
is parsed with LibCST only when an in-place write comes out of it, and the
rule then finds the LibCST node of each write (:func:`autofix.analysis.inplace_nodes`).

Each function that runs under autograd is walked once, statement by
statement in source order, keeping for every local name a small
``_Binding``: is it the caller's argument, a leaf that requires grad, a
freshly created tensor, a view or plain alias of another name, and has
autograd saved it for backward. Every in-place operation met on the way is
judged against the binding of its target and comes out as an
:class:`InplaceEvent` when autograd (or the caller) can observe it.

The walk is deliberately simple (no branch merging: the last binding in
source order wins; loop bodies are read twice) and errs towards silence: an
unknown value is never assumed to be saved, a tensor or to require grad.
What a module attribute's output is, and what a helper of another project
file writes, are the program model's answers (:mod:`autofix.model`).
"""

from __future__ import annotations

import ast
import builtins
import itertools
import re
from dataclasses import dataclass, field, replace
from typing import Callable, Dict, FrozenSet, Iterable, Iterator, List, Optional, Set, Tuple, Union

from autofix.model.configured import input_only_padded
from autofix.model.inplace_ops import (
    FUNCTIONAL_INPLACE_FUNCTIONS,
    FUNCTIONAL_INPLACE_PARAMETER,
    INPLACE_METHODS,
    INPLACE_MODULES,
    TORCH_INPLACE_FUNCTIONS,
)
from autofix.model.nodes import nodes_of
from autofix.model.project import ModuleModel
from autofix.model.vocabulary import (
    ACCUMULATING_METHODS,
    BACKWARD_CALLS,
    DIFFERENTIATING_CALLS,
    FACTORIES,
    FRESH_METHODS,
    GRAD_DISABLING_CONTEXTS,
    FIRST_OUTPUT_SAVING_MODULES,
    INIT_NAME,
    LIBRARIES,
    MULTI_VIEW_OPS,
    NON_TENSOR_BUILTINS,
    NO_HISTORY_METHODS,
    NO_HISTORY_TORCH_FUNCTIONS,
    PYTHON_VALUE_FUNCTIONS,
    OUTPUT_SAVING_MODULES,
    SAVES_INPUT,
    SAVES_OUTPUT,
    SAVES_PARTNER,
    TENSOR_METHODS,
    VIEW_METHODS,
)
from autofix.model.returned import stored_names, tests_training
from autofix.model.summaries import constructed_names, dotted, function_header, is_true, keyword_value
from autofix.model.uses import NO_GRAD, instances_called_without_grad

#: ``nn`` modules with weights: they save their input whether or not it requires grad.
PARAMETRIC_MODULES = frozenset(
    {
        "Linear", "Bilinear", "LazyLinear", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
        "ConvTranspose3d", "LazyConv1d", "LazyConv2d", "LazyConv3d", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d",
        "SyncBatchNorm", "LayerNorm", "GroupNorm", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d",
        "RMSNorm", "LSTM", "GRU", "RNN", "LSTMCell", "GRUCell", "RNNCell", "MultiheadAttention", "PReLU",
        "Embedding", "EmbeddingBag",
    }
)
#: ``nn`` modules that neither save their input nor return a new alias of it worth tracking.
QUIET_MODULES = frozenset(
    {"Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout", "Identity",
     "Flatten", "Unflatten", "Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d", "PixelShuffle",
     "PixelUnshuffle", "ChannelShuffle"}
)
#: Methods that may hand back the receiver itself (``x.float()`` when x is float):
#: their result is a new value or the same object, so it is neither trusted as
#: fresh nor tracked as an alias.
NON_TENSOR_METHODS = frozenset(
    {"item", "tolist", "size", "dim", "numel", "numpy", "data_ptr", "stride", "element_size", "nelement",
     "is_contiguous", "any_", "get_device", "__len__", "backward", "register_hook", "retain_grad"}
)
_NON_TENSOR_ANNOTATION = re.compile(r"^(int|float|bool|str|bytes|List|list|Tuple|tuple|Dict|dict|Sequence|Iterable|Mapping|Callable)\b")
_MODULE_METHODS = frozenset({"parameters", "named_parameters", "train", "eval", "state_dict", "modules", "children"})
_EXCLUDED_BASE = re.compile(r"(^|\.)(Optimizer|Function|InplaceFunction|LRScheduler|_LRScheduler)$")
#: Loss modules whose backward reads their inputs (cross-entropy saves only its own log-softmax).
_INPUT_SAVING_LOSSES = frozenset(
    {"MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "BCELoss", "BCEWithLogitsLoss", "KLDivLoss", "NLLLoss",
     "CosineEmbeddingLoss", "GaussianNLLLoss", "PoissonNLLLoss"}
)
#: Methods that store their arguments in the receiver (a container, a queue …).
_STORING_METHODS = frozenset({"append", "extend", "insert", "add", "update", "setdefault", "put"})

FunctionAst = Union[ast.FunctionDef, ast.AsyncFunctionDef]
ScopeNode = Union[FunctionAst, ast.Module]
#: Reasons of a write that only the caller observes: autograd itself does not object.
CALLER_REASONS = frozenset({"argument", "argument-view"})
#: What autograd objects to: nothing of it when grad mode is off.
AUTOGRAD_REASONS = frozenset({"leaf", "saved", "view", "multi-view"})
#: Names of every call ``_inplace_ops`` can take for an in-place write (methods and functions).
_INPLACE_CALL_NAMES = (
    frozenset(INPLACE_METHODS)
    | frozenset(TORCH_INPLACE_FUNCTIONS)
    | frozenset(FUNCTIONAL_INPLACE_FUNCTIONS)
    | frozenset(FUNCTIONAL_INPLACE_PARAMETER)
)
_BUILTINS = frozenset(dir(builtins))
#: Calls that back-propagate through what they are given (besides ``backward``).
_DIFFERENTIATING = DIFFERENTIATING_CALLS | {"hessian", "vjp", "jvp", "hvp", "vhp"}
#: Builtins that change what they are given or run code.
_CHANGING_BUILTINS = frozenset({"setattr", "delattr", "exec", "eval", "vars", "globals", "locals", "__import__"})


def _call_name(func: ast.expr) -> Optional[str]:
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
#: ``torch.nn`` modules that hold other modules, which may be the project's
_CONTAINER_MODULES = frozenset({"Sequential", "ModuleList", "ModuleDict"})
_NEW_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_SMALL_STATEMENTS = (
    ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.Return, ast.Raise, ast.Assert, ast.Delete, ast.Pass,
    ast.Break, ast.Continue, ast.Global, ast.Nonlocal, ast.Import, ast.ImportFrom,
)


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class InplaceEvent:
    """One in-place write that autograd or the caller can observe."""

    #: The operation: a ``Call``, an ``AugAssign`` or an ``Assign`` to a subscript.
    node: ast.AST
    #: The statement holding it: a simple statement, or the ``if``/``while`` whose test holds it.
    statement: ast.stmt
    #: ``method`` (``x.relu_()``), ``function`` (``torch.relu_(x)``), ``functional``
    #: (``F.relu(x, inplace=True)``), ``module`` (``self.act(x)`` built with
    #: ``inplace=True``), ``call`` (a helper writing its argument), ``augassign``, ``setitem`` or
    #: ``slice`` (an in-place method on a slice of the name: ``x[:, i].add_(y)``).
    form: str
    target: str
    #: What autograd objects to: ``leaf``, ``saved``, ``view`` (of a saved tensor or a
    #: leaf) or ``alias`` (read afterwards); or what only the caller observes
    #: (:data:`CALLER_REASONS`): ``argument``, ``argument-view``.
    reason: str
    #: Words for the message (which op saved the value, whose argument …).
    detail: str
    #: Someone outside this name sees the write (caller, alias, container, global).
    visible: bool
    #: The target name is read later in the function before being rebound.
    read_after: bool
    #: Plain aliases of the target read after the write (they see the new value).
    aliases_read: Tuple[str, ...] = ()
    #: For ``x[mask] = v``: ``x.masked_fill(mask, v)`` is exact (a mask computed from ``x``, a scalar).
    masked_fill: bool = False
    #: Autograd has no objection here: only the caller sees its tensor change (AF107, not AF103).
    caller_only: bool = False
    #: Only a backward through the write raises (it changed a tensor autograd saved, or a view of
    #: one); a write to a leaf, or to a view ``chunk`` returned, raises at once in grad mode.
    backward: bool = False

    @property
    def line(self) -> int:
        return self.node.lineno  # type: ignore[attr-defined,no-any-return]


@dataclass
class _Binding:
    kind: str  # param | leaf | fresh | value | attr
    tensor: bool
    grad: bool
    ident: int
    view_of: Optional[int] = None
    saved: Optional[str] = None
    escaped: bool = False
    via: Optional[str] = None  # for views: the base name
    mask_of: Optional[int] = None  # a boolean mask computed elementwise from this ident
    #: ``self.<attr>`` whose call produced the value: what saved its output is asked of the
    #: program model only when a write or a save needs ``saved`` (it may read other files)
    output_of: Optional[str] = None
    #: one of the views a multi-view op (``chunk``, ``split``, ``unbind``) returned: the op's name
    multi_view: Optional[str] = None
    #: ... and whether that op's receiver has a name (the write would reach a tensor read elsewhere)
    multi_view_of_name: bool = False
    #: the unit at which autograd saved it (or the module call whose output it is)
    saved_at: Optional[int] = None


@dataclass
class _Unit:
    """A simple statement (or a compound statement's header) in source order."""

    node: ast.AST
    #: the statement the unit belongs to (itself, or the ``if``/``while`` of a test)
    statement: ast.stmt
    quiet: bool  # under no_grad, or guarded by an ``inplace`` flag
    #: the branches of ``if`` statements outside loops the unit sits in: (id of the ``if``, 0 body / 1 else)
    branches: Tuple[Tuple[int, int], ...] = ()


@dataclass
class _Scope:
    node: ScopeNode
    cls: Optional[ast.ClassDef]
    #: parameter name -> is a tensor (True), may be one (None), is not (False)
    params: Dict[str, Optional[bool]] = field(default_factory=dict)
    caller_visible: bool = False
    #: the arguments may require grad (a forward's, or a helper's called from one)
    grad: bool = False
    #: reached as a helper called from a walked scope (not a forward or a training step of its own)
    by_call: bool = False
    #: parameters every call of this file hands a value that requires no grad
    graph_free: FrozenSet[str] = frozenset()


# --------------------------------------------------------------------------- entry points


def inplace_events(
    tree: ast.Module, model: Callable[[], ModuleModel], caller_only: Optional[bool]
) -> List[InplaceEvent]:
    """The in-place writes AF103 (``caller_only`` False) or AF107 (True) reports in ``tree``; both
    kinds, in the order the walk finds them, for None.

    The analysis runs once per tree and is kept on it. Asked for AF103's events only, it leaves
    out the writes only a caller observes: telling whether a project function writes an argument
    the caller got is the costly part of the walk, and AF107 is opt-in. Asked for AF107's, it
    finds both kinds, which AF103 then reuses.

    ``model`` gives the program model of the module; it is asked only when a write
    depends on another file or on what a module attribute's output is.
    """
    complete = caller_only is not False
    kept: Optional[Tuple[bool, List[InplaceEvent]]] = getattr(tree, "_autofix_inplace_events", None)
    if kept is None or (complete and not kept[0]):
        kept = (complete, _Analysis(tree, model, caller_only=complete).run())
        tree._autofix_inplace_events = kept  # type: ignore[attr-defined]
    return [event for event in kept[1] if caller_only is None or event.caller_only is caller_only]


def _assigned(target: ast.AST) -> Iterator[ast.AST]:
    """``target`` and, for a tuple or list target, each name it binds."""
    yield target
    if isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _assigned(element.value if isinstance(element, ast.Starred) else element)


def torch_alias(tree: ast.Module) -> Optional[str]:
    """The name ``import torch`` is bound to at module level, if any."""
    for stmt in tree.body:
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.name == "torch":
                    return alias.asname or "torch"
    return None


# --------------------------------------------------------------------------- reading the tree


#: node type -> the fields that may hold child expressions or statements, in source order
_CHILD_FIELDS: Dict[type, Tuple[str, ...]] = {ast.IfExp: ("body", "test", "orelse")}


def _fields(node: ast.AST) -> List[ast.AST]:
    """The child expressions and statements of ``node`` in source order (no contexts or operators)."""
    kind = type(node)
    if kind is ast.Dict:
        found: List[ast.AST] = []
        for key, value in zip(node.keys, node.values):  # type: ignore[attr-defined]
            if key is not None:
                found.append(key)
            found.append(value)
        return found
    names = _CHILD_FIELDS.get(kind)
    if names is None:
        names = _CHILD_FIELDS[kind] = tuple(n for n in kind._fields if n not in ("ctx", "op", "ops"))
    found = []
    for name in names:
        value = getattr(node, name, None)
        if isinstance(value, list):
            found.extend(child for child in value if isinstance(child, ast.AST))
        elif isinstance(value, ast.AST):
            found.append(value)
    return found


def _walk(node: ast.AST) -> List[ast.AST]:
    """``node`` and its descendants in source order, not entering nested functions, lambdas or classes."""
    found: List[ast.AST] = []
    stack = [node]
    while stack:
        current = stack.pop()
        found.append(current)
        children = _fields(current)
        for child in reversed(children):
            if not isinstance(child, _NEW_SCOPES):
                stack.append(child)
    return found


def _positional(call: ast.Call) -> List[ast.expr]:
    return [a for a in call.args if not isinstance(a, ast.Starred)]


class _Module:
    """What the analysis reads off the whole module once: imports, definitions, constructors."""

    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self.nodes = nodes_of(tree)
        self.aliases: Dict[str, str] = {}
        for node in self.nodes.imports:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname is not None:
                        self.aliases[alias.asname] = alias.name
                    else:
                        head = alias.name.split(".", 1)[0]
                        self.aliases[head] = head
            elif not node.level and node.module is not None:
                for alias in node.names:
                    if alias.name != "*":
                        self.aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        #: every ``def`` with the innermost class around it, every ``a = b`` likewise, every class
        self.functions: List[Tuple[FunctionAst, Optional[ast.ClassDef]]] = []
        self.assigns: List[Tuple[ast.Assign, Optional[ast.ClassDef]]] = []
        self.classes: List[ast.ClassDef] = []
        #: class -> its qualname as the program model spells it (the chain of enclosing defs and classes)
        self.qualnames: Dict[int, str] = {}
        stack: List[Tuple[ast.stmt, Optional[ast.ClassDef], str]] = [(s, None, "") for s in reversed(tree.body)]
        while stack:
            stmt, cls, prefix = stack.pop()
            kind = type(stmt)
            if kind is ast.Assign:
                self.assigns.append((stmt, cls))  # type: ignore[arg-type]
                continue
            if kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
                self.functions.append((stmt, cls))  # type: ignore[arg-type]
                prefix = prefix + stmt.name + "."  # type: ignore[attr-defined]
            elif kind is ast.ClassDef:
                self.classes.append(stmt)  # type: ignore[arg-type]
                self.qualnames[id(stmt)] = prefix + stmt.name  # type: ignore[attr-defined]
                prefix = prefix + stmt.name + "."  # type: ignore[attr-defined]
                cls = stmt  # type: ignore[assignment]
            inner = [s for block in _blocks(stmt) for s in block]
            stack.extend((s, cls, prefix) for s in reversed(inner))
        self._methods: Optional[Dict[str, Set[str]]] = None
        self._names_in_functions: Optional[Set[str]] = None

    def qualified_names(self, node: ast.AST) -> Set[str]:
        """Qualified names of an expression through the module's imports (``th.optim.Adam`` →
        ``torch.optim.Adam``, ``nn.ReLU`` → ``torch.nn.ReLU``). Rebinding an imported name is not followed."""
        name = dotted(node)
        if name is None:
            return set()
        head, _, rest = name.partition(".")
        if head in self.aliases:
            target = self.aliases[head]
            return {f"{target}.{rest}" if rest else target}
        if head in _BUILTINS and not rest:
            return {f"builtins.{head}"}
        return {name}

    def is_backward_call(self, call: ast.Call) -> bool:
        """``x.backward(...)``, ``self.manual_backward(loss)`` or ``torch.autograd.backward(...)``."""
        func = call.func
        if isinstance(func, ast.Attribute):
            # a qualified ``torch.autograd.backward`` ends in ``backward``, one of BACKWARD_CALLS
            return func.attr in BACKWARD_CALLS
        return isinstance(func, ast.Name) and "torch.autograd.backward" in self.qualified_names(func)

    def disables_grad(self, item: ast.expr) -> bool:
        """A ``with`` item or decorator that turns autograd off (``torch.no_grad()`` …)."""
        call = item if isinstance(item, ast.Call) else None
        func = call.func if call is not None else item
        names = self.qualified_names(func) | {dotted(func) or ""}
        if any(n.endswith(tuple(GRAD_DISABLING_CONTEXTS)) for n in names):
            return True
        if call is not None and any(n.endswith("set_grad_enabled") for n in names):
            first = [*call.args, *(k.value for k in call.keywords)][:1]
            return bool(first) and isinstance(first[0], ast.Constant) and first[0].value is False
        return False

    def methods_called_on(self, name: str) -> Set[str]:
        """The methods called on ``name`` anywhere in the module (``model.parameters()`` …)."""
        if self._methods is None:
            self._methods = {}
            for call in self.nodes.calls:
                if isinstance(call.func, ast.Attribute):
                    receiver = dotted(call.func.value)
                    if receiver:
                        self._methods.setdefault(receiver, set()).add(call.func.attr)
        return self._methods.get(name, set())

    def names_in_functions(self) -> Set[str]:
        """Every name spelled inside a ``def`` (reads, writes, attributes' and arguments' names alike)."""
        if self._names_in_functions is None:
            found: Set[str] = set()
            for func, _ in self.functions:
                found.add(func.name)
                for node in ast.walk(func):
                    kind = type(node)
                    if kind is ast.Name:
                        found.add(node.id)  # type: ignore[attr-defined]
                    elif kind is ast.Attribute:
                        found.add(node.attr)  # type: ignore[attr-defined]
                    elif kind is ast.keyword and node.arg:  # type: ignore[attr-defined]
                        found.add(node.arg)  # type: ignore[attr-defined]
                    elif kind is ast.arg:
                        found.add(node.arg)  # type: ignore[attr-defined]
                    elif kind is ast.FunctionDef or kind is ast.AsyncFunctionDef or kind is ast.ClassDef:
                        found.add(node.name)  # type: ignore[attr-defined]
                    elif kind is ast.Global or kind is ast.Nonlocal:
                        found.update(node.names)  # type: ignore[attr-defined]
                    elif kind is ast.alias:
                        found.update(node.name.split("."))  # type: ignore[attr-defined]
                        if node.asname:  # type: ignore[attr-defined]
                            found.add(node.asname)  # type: ignore[attr-defined]
                    elif kind is ast.ExceptHandler and node.name:  # type: ignore[attr-defined]
                        found.add(node.name)  # type: ignore[attr-defined]
            self._names_in_functions = found
        return self._names_in_functions

    def own_nodes(self, scope: ScopeNode) -> List[ast.AST]:
        """The nodes of a def's body (the module's statements), not of nested defs, lambdas and classes."""
        return self.nodes.local.get(id(scope), [])


def _blocks(stmt: ast.AST) -> Iterator[List[ast.stmt]]:
    for name in ("body", "orelse", "finalbody"):
        block = getattr(stmt, name, None)
        if isinstance(block, list):
            yield block
    for handler in getattr(stmt, "handlers", ()):
        yield handler.body
    for case in getattr(stmt, "cases", ()):
        yield case.body


# --------------------------------------------------------------------------- discovery


class _Analysis:
    def __init__(self, tree: ast.Module, model: Callable[[], ModuleModel], caller_only: bool) -> None:
        self.tree = tree
        #: find the writes only a caller observes (AF107's) too
        self.caller_only = caller_only
        self._model_of = model
        self._model: Optional[ModuleModel] = None
        self.m = _Module(tree)
        self.torch = torch_alias(tree)
        self.functions: Dict[str, FunctionAst] = {}
        self.methods: Dict[Tuple[int, str], FunctionAst] = {}
        self.owner: Dict[int, Optional[ast.ClassDef]] = {}
        self.module_ctor: Dict[str, str] = {}  # dotted target -> constructor's last name
        #: dotted target -> every constructor call assigned to it
        self.ctor_calls: Dict[str, List[ast.Call]] = {}
        #: dotted targets bound to a ``torch.nn`` module by qualified name -> its last name
        self.torch_module_ctor: Dict[str, str] = {}
        #: ``Class.self.<attr>`` targets some assignment binds to anything but one ``torch.nn`` layer
        self.other_attrs: Set[str] = set()
        self.classes: Dict[str, ast.ClassDef] = {}
        self.inplace_modules: Set[str] = set()  # dotted targets bound to nn.X(inplace=True)
        self._inplace_attrs: Set[str] = set()
        #: (class, ``self.<attr>``) -> what the model says saved that module's output
        self._outputs: Dict[Tuple[int, str], Optional[str]] = {}
        self.parameters: Set[str] = set()  # dotted targets bound to nn.Parameter(...)
        #: ``Class.self.<attr>`` bound to ``nn.Parameter(t)`` that requires grad (no requires_grad argument)
        self.trainable_parameters: Set[str] = set()
        #: the module sets ``requires_grad`` somewhere (freezing): which parameters require grad is unknown
        self._sets_requires_grad: Optional[bool] = None
        self._library_names: Optional[FrozenSet[str]] = None
        self.class_names: Set[str] = set()
        self.mutating: Dict[int, Dict[str, int]] = {}
        #: helpers called somewhere with an argument that requires grad (a loss on model outputs)
        self.grad_callees: Set[int] = set()
        #: helper -> the calls of it the walks met, and the positions and keywords given grad there
        self.calls_met: Dict[int, Set[int]] = {}
        self.grad_arguments: Dict[int, Set[Union[int, str]]] = {}
        self.ids = itertools.count()
        self._writes_memo: Dict[int, bool] = {}
        # Each statement is searched several times (writes, saves, escapes, backward calls).
        self._local: Dict[int, List[ast.AST]] = {}
        self._constructed: Dict[int, Set[str]] = {}
        self._padded: Dict[str, bool] = {}
        self._calls: Dict[int, List[ast.Call]] = {}
        self._own_calls: Dict[int, List[ast.Call]] = {}
        #: per unit: does it call backward; per (unit, scope): its in-place writes (neither depends on bindings)
        self._backward: Dict[int, bool] = {}
        self._ops: Dict[Tuple[int, int], List[Tuple[ast.AST, str, str]]] = {}
        self._torch_names: Dict[int, Optional[str]] = {}
        #: per (call, scope): the argument positions the project function it runs writes (None: none)
        self._project_written: Dict[Tuple[int, int], Optional[Set[int]]] = {}

    @property
    def model(self) -> ModuleModel:
        if self._model is None:
            self._model = self._model_of()
        return self._model

    def local(self, node: ast.AST) -> List[ast.AST]:
        """``_walk(node)``, memoised for the analysis (the tree is not changed)."""
        found = self._local.get(id(node))
        if found is None:
            found = self._local[id(node)] = _walk(node)
        return found

    def constructed_names(self, node: ast.AST) -> Set[str]:
        """The names ``node``'s own body binds from a call (the model's ``constructed_names``), memoised."""
        found = self._constructed.get(id(node))
        if found is None:
            found = self._constructed[id(node)] = constructed_names(self.local(node))
        return found

    def calls(self, node: ast.AST) -> List[ast.Call]:
        """The calls in ``node``, innermost first (``f(g(x))`` yields ``g`` before ``f``)."""
        found = self._calls.get(id(node))
        if found is None:
            found = self._calls[id(node)] = [n for n in reversed(self.local(node)) if isinstance(n, ast.Call)]
        return found

    def calls_of(self, scope: ScopeNode) -> List[ast.Call]:
        """The calls of a scope's own code, in source order."""
        found = self._own_calls.get(id(scope))
        if found is None:
            found = self._own_calls[id(scope)] = [n for n in self.m.own_nodes(scope) if type(n) is ast.Call]  # type: ignore[misc]
        return found

    def run(self) -> List[InplaceEvent]:
        self._index()
        events: List[InplaceEvent] = []
        for scope in self._scopes():
            if not self._may_write(scope):
                # Nothing in it, or in what it calls, writes in place: no event can come of
                # walking it, and the helpers it passes grad to write nothing either.
                continue
            walker = _Walker(self, scope)
            found = walker.walk()
            if any(not e.caller_only for e in found) and self._forward_of_class(scope):
                found = self._without_unreached(found, scope)
            events.extend(found)
            self.grad_callees.update(walker.grad_callees)
        return events

    def _forward_of_class(self, scope: _Scope) -> bool:
        """A module's own ``forward`` (a class of the module's top level, walked as a root)."""
        return (
            not scope.by_call
            and scope.cls is not None
            and isinstance(scope.node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and scope.node.name == "forward"
        )

    def _without_unreached(self, events: List[InplaceEvent], scope: _Scope) -> List[InplaceEvent]:
        """The events of a module's ``forward`` that some use of the module in its project can
        make matter (:func:`autofix.model.uses.instances_called_without_grad`): none of autograd's
        objections when every instance is called under ``torch.no_grad()``; none that only a later
        backward raises (what autograd saved) when some are called in an inference branch, where
        grad mode may be on but nothing back-propagates. Asked only of a forward with events."""
        assert scope.cls is not None
        used = instances_called_without_grad(self.model, scope.cls, self.tree)
        if used is None:
            return events
        if used == NO_GRAD:
            return [e for e in events if e.caller_only or e.reason not in AUTOGRAD_REASONS]
        return [e for e in events if e.caller_only or not e.backward]

    def _may_write(self, scope: _Scope) -> bool:
        """Does the scope's own code, or a helper it calls (transitively), spell an in-place write?"""
        key = id(scope.node)
        found = self._writes_memo.get(key)
        if found is None:
            self._writes_memo[key] = False  # recursion guard
            found = any(_item_write(n) for n in self.m.own_nodes(scope.node)) or any(
                self._spells_inplace_call(call) for call in self.calls_of(scope.node)
            )
            if not found:
                found = any(
                    self._may_write(_Scope(callee, self.owner.get(id(callee)))) for callee in self._callees(scope)
                )
            self._writes_memo[key] = found
        return found

    def _spells_inplace_call(self, call: ast.Call) -> bool:
        """A call ``_inplace_ops`` may take for a write (a superset: names only)."""
        func = call.func
        if isinstance(func, ast.Attribute):
            name = func.attr
            if isinstance(func.value, ast.Name) and func.value.id == "self" and name in self._inplace_attrs:
                return True
        elif isinstance(func, ast.Name):
            name = func.id
        else:
            return False
        if name in _INPLACE_CALL_NAMES:
            return True
        qualified = self.m.qualified_names(func)
        if (dotted(func) or "").split(".")[0] in self.m.aliases and any(
            q.split(".")[0] not in LIBRARIES and "." in q for q in qualified
        ):
            return True  # ``helper(x)``, ``utils.helper(x)`` from the project: the program model knows what it writes
        # ``from torch.nn.functional import relu as r``: the name is an alias.
        return any(q.rsplit(".", 1)[-1] in _INPLACE_CALL_NAMES for q in qualified)

    # Every def, every ``x = Ctor(...)`` in the module.
    def _index(self) -> None:
        self.class_names.update(cls.name for cls in self.m.classes)
        self.classes.update((cls.name, cls) for cls in self.m.classes)
        for node, cls in self.m.functions:
            if cls is not None and any(s is node for s in cls.body):
                self.methods[(id(cls), node.name)] = node
                self.owner[id(node)] = cls
            elif any(s is node for s in self.tree.body):
                self.functions[node.name] = node
                self.owner[id(node)] = None
        for assign, cls in self.m.assigns:
            layer = isinstance(assign.value, ast.Call) and self._library_layer(assign.value)
            for target in assign.targets:
                for element in _assigned(target):
                    name = dotted(element)
                    if name and name.startswith("self.") and cls is not None and not (layer and element is target):
                        self.other_attrs.add(f"{cls.name}.{name}")
            if not isinstance(assign.value, ast.Call):
                continue
            ctor = dotted(assign.value.func) or ""
            last = ctor.rsplit(".", 1)[-1]
            if not last[:1].isupper():
                continue
            for target in assign.targets:
                name = dotted(target)
                if not name:
                    continue
                if name.startswith("self.") and cls is not None:
                    # self.act means a different module in every class.
                    name = f"{cls.name}.{name}"
                self.module_ctor[name] = last
                self.ctor_calls.setdefault(name, []).append(assign.value)
                if any(q.startswith("torch.nn.") for q in self.m.qualified_names(assign.value.func)):
                    self.torch_module_ctor[name] = last
                if last == "Parameter":
                    self.parameters.add(name)
                    plain = len(assign.value.args) == 1 and not assign.value.keywords
                    if cls is not None and name.startswith(f"{cls.name}.self.") and plain:
                        self.trainable_parameters.add(name)
                if last in INPLACE_MODULES and _inplace_requested(assign.value, INPLACE_MODULES[last]):
                    self.inplace_modules.add(name)
                    self._inplace_attrs.add(name.rsplit(".", 1)[-1])

    def _library_layer(self, call: ast.Call) -> bool:
        """``call`` builds a ``torch.nn`` layer (not a container, whose elements may be the project's)."""
        name = dotted(call.func) or ""
        return name.rsplit(".", 1)[-1] not in _CONTAINER_MODULES and any(
            q.startswith("torch.nn.") for q in self.m.qualified_names(call.func)
        )

    def library_names(self) -> FrozenSet[str]:
        """Names the module binds to a module (``import torch.nn as nn``) or to something of a usual
        library (``from torch.nn import functional as F``): calling them changes none of the names in a scope."""
        if self._library_names is None:
            found: Set[str] = set()
            for stmt in self.tree.body:
                if isinstance(stmt, ast.Import):
                    found.update(a.asname or a.name.split(".", 1)[0] for a in stmt.names)
                elif isinstance(stmt, ast.ImportFrom) and not stmt.level and (stmt.module or "").split(".", 1)[0] in LIBRARIES:
                    found.update(a.asname or a.name for a in stmt.names)
            self._library_names = frozenset(found)
        return self._library_names

    def library_layer(self, key: Optional[str]) -> bool:
        """``Class.self.<attr>`` is bound, in this class, only to ``torch.nn`` layers: calling it runs
        no code of the project (the program model resolves it to the library too, at a cost)."""
        return key is not None and key in self.torch_module_ctor and key not in self.other_attrs

    def trainable_parameter(self, key: Optional[str]) -> bool:
        """Is ``key`` (``Class.self.<attr>``) an ``nn.Parameter`` that surely requires grad?"""
        return key is not None and key in self.trainable_parameters and not self.sets_requires_grad

    @property
    def sets_requires_grad(self) -> bool:
        """The module sets ``requires_grad`` somewhere (freezes or unfreezes): read once, when asked."""
        if self._sets_requires_grad is None:
            self._sets_requires_grad = any(_sets_requires_grad(n) for n in ast.walk(self.tree))
        return self._sets_requires_grad

    def _excluded(self, func: FunctionAst) -> bool:
        if INIT_NAME.search(func.name):
            return True
        if any(self.m.disables_grad(d) for d in func.decorator_list):
            return True
        names = [p.arg for p in _all_params(func)]
        if "inplace" in names:
            return True  # the caller chose in-place explicitly
        if names[:1] == ["ctx"]:
            return True  # autograd.Function.forward/backward run without grad recording
        cls = self.owner.get(id(func))
        return cls is not None and self._excluded_class(cls)

    def _excluded_class(self, cls: ast.ClassDef) -> bool:
        for base in cls.bases:
            names = self.m.qualified_names(base) | {dotted(base) or ""}
            if any(_EXCLUDED_BASE.search(n) for n in names):
                return True
        return False

    def _has_backward(self, node: ScopeNode) -> bool:
        return any(self.m.is_backward_call(c) for c in self.calls_of(node))

    def _scopes(self) -> Iterator[_Scope]:
        # A forward's arguments belong to whoever called the module; a training
        # step's arguments are a model, a loader, an optimizer.
        roots: List[_Scope] = []
        for (_, name), func in self.methods.items():
            if name == "forward" and not self._excluded(func):
                roots.append(self._scope(func, self.owner[id(func)], caller_visible=True, grad=True))
        for func in list(self.functions.values()) + list(self.methods.values()):
            if not self._excluded(func) and func.name != "forward" and self._has_backward(func):
                roots.append(self._scope(func, self.owner.get(id(func)), caller_visible=False, grad=False))
        if self._has_backward(self.tree):
            roots.append(_Scope(self.tree, None))
        seen: Set[int] = set()
        queue = list(roots)
        while queue:
            scope = queue.pop(0)
            if id(scope.node) in seen:
                continue
            seen.add(id(scope.node))
            if scope.by_call:
                # Judged when dequeued: by then the walks of more of its callers have been met.
                scope.graph_free = self._graph_free_params(scope)
            yield scope
            # Helpers called from autograd code run under autograd too. Their
            # writes to their own arguments are judged where they are called.
            for callee in self._callees(scope):
                if id(callee) not in seen and not self._excluded(callee):
                    grad = scope.grad or id(callee) in self.grad_callees
                    callee_scope = self._scope(callee, self.owner.get(id(callee)), caller_visible=False, grad=grad)
                    callee_scope.by_call = True
                    queue.append(callee_scope)

    def meet_call(self, callee: FunctionAst, call: ast.Call, given_grad: Iterable[Union[int, str]]) -> None:
        """A walk met ``call`` of the helper ``callee``, handing grad to the positions and keywords ``given_grad``."""
        self.calls_met.setdefault(id(callee), set()).add(id(call))
        self.grad_arguments.setdefault(id(callee), set()).update(given_grad)

    def _graph_free_params(self, scope: _Scope) -> FrozenSet[str]:
        """The parameters of a helper that no call of it hands a tensor requiring grad, when every
        mention of its name in this file is a call some walk met (none passed on, none unwalked)."""
        func = scope.node
        if isinstance(func, ast.Module) or func.name == "forward":
            return frozenset()
        met = self.calls_met.get(id(func), set())
        if not met or len(met) != self._mentions(func.name, method=scope.cls is not None):
            return frozenset()
        given = self.grad_arguments.get(id(func), set())
        if "*" in given:
            return frozenset()
        params = [p for p, _ in _params_with_defaults(func)]
        if scope.cls is not None and not _is_static(func) and params:
            params = params[1:]
        return frozenset(p.arg for i, p in enumerate(params) if i not in given and p.arg not in given)

    def _mentions(self, name: str, method: bool) -> int:
        """How often the file spells ``name``: as a plain name, or (a method) as any attribute."""
        return self.m.nodes.mentions.get("." + name if method else name, 0)

    def module_output(self, cls: Optional[ast.ClassDef], spelled: str) -> Optional[str]:
        """What saved the output of calling ``self.<attr>`` (an activation, a Sequential or block ending
        in one, a configurable op): the program model's :meth:`ModuleModel.module_output`."""
        if cls is None or not spelled.startswith("self.") or spelled.count(".") != 1:
            return None
        key = (id(cls), spelled)
        if key not in self._outputs:
            summary = self.model.cls(self.m.qualnames[id(cls)])
            self._outputs[key] = self.model.module_output(summary, spelled[len("self."):]) if summary is not None else None
        return self._outputs[key]

    def input_only_padded(self, key: str) -> bool:
        """The one block built for ``key`` (``self.shortcut`` of a class), configured by its constructor
        call, reads its input only through padding modules (:func:`autofix.model.configured.input_only_padded`)."""
        known = self._padded.get(key)
        if known is None:
            calls = self.ctor_calls.get(key, [])
            cls = self.classes.get(self.module_ctor.get(key, "")) if len(calls) == 1 else None
            known = self._padded[key] = cls is not None and input_only_padded(cls, calls[0])
        return known

    def is_module_name(self, name: str) -> bool:
        """A name used as an ``nn.Module`` somewhere (``model.parameters()``, ``model.train()`` …)."""
        return bool(self.m.methods_called_on(name) & _MODULE_METHODS)

    def mutated_params(self, func: FunctionAst) -> Dict[str, int]:
        """The parameters (name -> position) a helper, or a module's forward, writes to in place."""
        if id(func) in self.mutating:
            return self.mutating[id(func)]
        self.mutating[id(func)] = {}  # recursion guard
        if self._excluded(func):
            return {}
        scope = self._scope(func, self.owner.get(id(func)), caller_visible=True, grad=True)
        walker = _Walker(self, scope, records_writes=True)
        walker.walk()
        positions = {name: i for i, name in enumerate(scope.params)}
        self.mutating[id(func)] = {n: positions[n] for n in walker.param_writes if n in positions}
        return self.mutating[id(func)]

    def _scope(self, func: FunctionAst, cls: Optional[ast.ClassDef], caller_visible: bool, grad: bool) -> _Scope:
        scope = _Scope(func, cls, caller_visible=caller_visible, grad=grad)
        params = _params_with_defaults(func)
        if cls is not None and not _is_static(func) and params:
            params = params[1:]
        for i, (param, has_default) in enumerate(params):
            scope.params[param.arg] = _tensor_param(param, has_default, first=(i == 0 and func.name == "forward"))
        return scope

    def _callees(self, scope: _Scope) -> Iterator[FunctionAst]:
        # Innermost call first, as the walk meets them (``f(g(x))``: g, then f),
        # statement by statement for the module.
        if isinstance(scope.node, ast.Module):
            top = [s for s in scope.node.body if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
            calls: Iterable[ast.Call] = (c for s in top for c in self.calls(s))
        else:
            calls = reversed(self.calls_of(scope.node))
        for call in calls:
            func = call.func
            if isinstance(func, ast.Name) and func.id in self.functions:
                yield self.functions[func.id]
            elif (
                scope.cls is not None
                and isinstance(func, ast.Attribute)
                and isinstance(func.value, ast.Name)
                and func.value.id == "self"
                and (id(scope.cls), func.attr) in self.methods
            ):
                yield self.methods[(id(scope.cls), func.attr)]
            else:
                forward = self.module_forward(call, scope.cls)
                if forward is not None:
                    yield forward

    def module_forward(self, call: ast.Call, cls: Optional[ast.ClassDef]) -> Optional[FunctionAst]:
        """The ``forward`` that runs for ``self.block(x)`` or ``block(x)``, the module's class being of this file."""
        spelled = dotted(call.func)
        if spelled is None:
            return None
        key = f"{cls.name}.{spelled}" if spelled.startswith("self.") and cls is not None else spelled
        ctor = self.module_ctor.get(key)
        owner = self.classes.get(ctor) if ctor is not None else None
        return self.methods.get((id(owner), "forward")) if owner is not None else None


# --------------------------------------------------------------------------- the walk


class _Walker:
    def __init__(self, analysis: _Analysis, scope: _Scope, records_writes: bool = False) -> None:
        self.a = analysis
        self.scope = scope
        self.state: Dict[str, _Binding] = {}
        self.units: List[_Unit] = []
        self.events: List[InplaceEvent] = []
        #: (binding ident, caller_only) already reported
        self.reported: Set[Tuple[int, bool]] = set()
        self.is_module = isinstance(scope.node, ast.Module)
        self.skip_names: Set[str] = set()
        #: the parameters written in place, directly or through an alias (``y = x; y.add_(1)``)
        self.param_writes: Set[str] = set()
        #: the walk is asked which parameters are written (``mutated_params``), not for events: it
        #: neither records what operations save nor judges a write to anything but a parameter
        self.records_writes = records_writes
        #: a parameter's binding ident -> its name (an alias keeps the ident)
        self.param_idents: Dict[int, str] = {}
        self.grad_callees: Set[int] = set()
        self._branch_stack: List[Tuple[int, int]] = []
        self._loop_depth = 0
        self.backward_units: List[int] = []
        #: index of a loop's header unit -> the end (exclusive) of its body's units
        self.loops: Dict[int, int] = {}
        #: (op node, caller_only) already reported: a loop body is walked twice
        self.emitted: Set[Tuple[int, bool]] = set()
        #: binding ident -> every name it was bound to so far (``s = softmax(x); g = s``: both)
        self.ident_names: Dict[int, Set[str]] = {}
        #: name -> the names whose value may depend on it, and the names that leave the step; built
        #: on first need (:meth:`_dataflow`); None inside: the walk cannot follow the scope
        self._flow: Optional[Tuple[Optional[Dict[str, Set[str]]], Set[str]]] = None

    def _key(self, spelled: Optional[str]) -> Optional[str]:
        if spelled is not None and spelled.startswith("self.") and self.scope.cls is not None:
            return f"{self.scope.cls.name}.{spelled}"
        return spelled

    def new_id(self) -> int:
        return next(self.a.ids)

    def walk(self) -> List[InplaceEvent]:
        for name, tensor in self.scope.params.items():
            visible = self.scope.caller_visible and tensor is not False
            grad = self.scope.grad and tensor is not False and name not in self.scope.graph_free
            self.state[name] = _Binding("param" if visible else "value", bool(tensor), grad, self.new_id())
            self.param_idents[self.state[name].ident] = name
        node = self.scope.node
        if isinstance(node, ast.Module):
            body = [s for s in node.body if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
        elif _one_line_body(node):
            body = []  # ``def f(x): return x.relu_()``: a body on the def's own line is not walked
        else:
            body = node.body
        for stmt in body:
            self._flatten(stmt, quiet=False)
        self.backward_units = [
            i for i, u in enumerate(self.units)
            if not isinstance(u.node, (ast.For, ast.AsyncFor, ast.With, ast.AsyncWith)) and self._backward_in(u.node)
        ]
        for index in self._order(0, len(self.units)):
            self._step(index, self.units[index])
        return self.events

    def _order(self, start: int, end: int) -> Iterator[int]:
        """Unit indices in execution order: each loop body twice, so that what one
        iteration saves is seen by the writes of the next (``b[i] = …`` before ``y = b * w``)."""
        index = start
        while index < end:
            yield index
            body = self.loops.get(index)
            if body is None:
                index += 1
                continue
            body_end = body
            yield from self._order(index + 1, body_end)
            yield from self._order(index + 1, body_end)
            index = body_end

    # ---- statements in source order

    def _flatten(self, node: ast.stmt, quiet: bool) -> None:
        if isinstance(node, _SMALL_STATEMENTS):
            if isinstance(node, (ast.Global, ast.Nonlocal)):
                self.skip_names.update(node.names)
            self.units.append(_Unit(node, node, quiet, self._branches()))
            return
        if isinstance(node, ast.If):
            self.units.append(_Unit(node.test, node, quiet, self._branches()))
            guarded = quiet or _mentions_inplace(node.test)
            # Inference-only branches (`if not self.training:`) run under no_grad in practice.
            training = tests_training(node.test)
            self._branch_stack.append((id(node), 0))
            self._block(node.body, guarded or training is False)
            self._branch_stack[-1] = (id(node), 1)
            self._block(node.orelse, guarded or training is True)
            self._branch_stack.pop()
            return
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            self.units.append(_Unit(node if not isinstance(node, ast.While) else node.test, node, quiet, self._branches()))
            head = len(self.units) - 1
            self._loop_depth += 1
            self._block(node.body, quiet)
            self.loops[head] = len(self.units)
            self._block(node.orelse, quiet)
            self._loop_depth -= 1
            return
        if isinstance(node, (ast.With, ast.AsyncWith)):
            off = any(self.a.m.disables_grad(item.context_expr) for item in node.items)
            self.units.append(_Unit(node, node, quiet, self._branches()))
            self._block(node.body, quiet or off)
            return
        if isinstance(node, ast.Try):
            self._block(node.body, quiet)
            for handler in node.handlers:
                self._block(handler.body, quiet)
            self._block(node.orelse, quiet)
            self._block(node.finalbody, quiet)
            return
        # defs, classes, match statements, ``try``/``except*`` and anything newer: left alone.

    def _block(self, block: List[ast.stmt], quiet: bool) -> None:
        for stmt in block:
            self._flatten(stmt, quiet)

    def _branches(self) -> Tuple[Tuple[int, int], ...]:
        # Inside a loop one iteration's branch may hand a tensor to another's: no two units there
        # are told apart by the branches they sit in.
        return () if self._loop_depth else tuple(self._branch_stack)

    def _exclusive(self, first: int, second: int) -> bool:
        """Units ``first`` and ``second`` sit in different branches of one ``if`` chain: no call runs both."""
        taken = dict(self.units[first].branches)
        return any(taken.get(node, branch) != branch for node, branch in self.units[second].branches)

    # ---- one unit: judge its in-place ops, then record what it saves and binds

    def _step(self, index: int, unit: _Unit) -> None:
        node = unit.node
        if isinstance(node, (ast.For, ast.AsyncFor)):
            self._bind_for(node)
            for name in stored_names(node.target) if self.backward_units else ():
                self.ident_names.setdefault(self.state[name].ident, set()).add(name)
            return
        if isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                if item.optional_vars is not None:
                    self._unbind(item.optional_vars)
            return
        if not unit.quiet:
            for op in self._inplace_ops(node):
                self._judge(index, unit, *op)
        if self._backward_in(node):
            # backward() has consumed what was saved so far.
            for binding in self.state.values():
                binding.saved = binding.output_of = None
        for call in self.a.calls(node):
            callee = self._callee(call)
            if callee is None:
                continue
            # Only a helper that writes in place is judged by what its calls hand it.
            if self.a._may_write(_Scope(callee, self.a.owner.get(id(callee)))):
                self.a.meet_call(callee, call, () if unit.quiet else self._given_grad(call))
            if (
                not unit.quiet
                and self._backward_follows(index)
                and any(self._grad(a) for a in [*call.args, *(k.value for k in call.keywords)])
            ):
                self.grad_callees.add(id(callee))
        if not unit.quiet and not self.records_writes:
            self._record_saves(node)  # what was saved matters to the findings only
        self._record_escapes(node)
        self._bind(node)
        if self.backward_units and not self.records_writes:  # only a training step asks (``_reaches_backward``)
            for name in _stores(node) | {e.target.id for e in self.a.local(node) if isinstance(e, ast.NamedExpr) and isinstance(e.target, ast.Name)}:
                bound = self.state.get(name)
                if bound is not None:
                    self.ident_names.setdefault(bound.ident, set()).add(name)
        for binding in self.state.values():
            if binding.saved is None and binding.output_of is None:
                binding.saved_at = None
            elif binding.saved_at is None:
                binding.saved_at = index

    def _given_grad(self, call: ast.Call) -> Set[Union[int, str]]:
        """The positions and keywords of ``call`` given a value that may require grad (``*`` for unpacked ones)."""
        given: Set[Union[int, str]] = set()
        for position, arg in enumerate(call.args):
            if isinstance(arg, ast.Starred):
                given.add("*")
            elif self._grad(arg):
                given.add(position)
        for keyword in call.keywords:
            if keyword.arg is None:
                given.add("*")
            elif self._grad(keyword.value):
                given.add(keyword.arg)
        return given

    def _backward_follows(self, index: int) -> bool:
        """Can a backward() still traverse what unit ``index`` does?

        In a forward or its helpers backward runs later, elsewhere. In a training
        step it must come later in the step: metrics computed after
        ``loss.backward()`` build graphs nobody back-propagates.
        """
        return not self.backward_units or self.backward_units[-1] > index

    def _reaches_backward(self, binding: _Binding, base: Optional[_Binding]) -> bool:
        """May a backward() run through the graph built from the tensor ``binding`` (or its base)?

        Asked in a training step (the scope calls backward) of a write only a backward through
        the op that saved the tensor objects to: that op consumed the tensor or produced it, so its
        output depends on the tensor's value, and a backward reaches it only if its loss does too.
        Names are followed through the scope, flow-insensitively: an assignment makes its targets
        depend on every name in the statement; a call may make its receiver and arguments depend on
        every name it is given. True as soon as a dependent name is read by a backward() statement,
        returned or yielded, is a parameter (``self`` too) or a name not bound in the scope (global,
        closure), or when the scope holds a nested function or class (closures are not followed).
        """
        users, leaves = self._dataflow()
        if users is None:
            return True
        idents = {binding.ident}
        for other in (binding.view_of, base.ident if base is not None else None):
            if other is not None:
                idents.add(other)
        start = {name for name, b in self.state.items() if b.ident in idents or b.view_of in idents}
        for ident in idents:
            start |= self.ident_names.get(ident, set())
        seen = set(start)
        stack = list(start)
        while stack:
            name = stack.pop()
            if name in leaves:
                return True
            for user in users.get(name, ()):
                if user not in seen:
                    seen.add(user)
                    stack.append(user)
        return False

    def _dataflow(self) -> Tuple[Optional[Dict[str, Set[str]]], Set[str]]:
        """(name -> the names that may depend on it, the names through which a value leaves the step
        or reaches a backward()); (None, …) where the scope cannot be followed."""
        if self._flow is not None:
            return self._flow
        node = self.scope.node
        if any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) for n in ast.walk(node) if n is not node):
            self._flow = (None, set())
            return self._flow
        units: List[Tuple[ast.AST, List[str], List[ast.AST]]] = []
        local: Set[str] = set()
        for unit in self.units:
            current = unit.node
            parts: List[ast.AST]
            if isinstance(current, (ast.For, ast.AsyncFor)):
                parts = [current.iter, current.target]
                bound = stored_names(current.target)
            elif isinstance(current, (ast.With, ast.AsyncWith)):
                parts = [p for item in current.items for p in (item.context_expr, item.optional_vars) if p is not None]
                bound = [n for item in current.items if item.optional_vars is not None for n in stored_names(item.optional_vars)]
            else:
                parts = [current]
                bound = []
            inner = [n for part in parts for n in ast.walk(part)]
            local.update(n.id for n in inner if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
            units.append((current, bound, inner))
        users: Dict[str, Set[str]] = {}
        leaves: Set[str] = set(self.skip_names)
        if not isinstance(node, ast.Module):
            leaves.update(a.arg for a in _all_params(node))
        # Names no statement here changes: modules and library names, builtins not rebound here.
        fixed = self.a.library_names() | (_BUILTINS - local)

        def flow(sources: Set[str], targets: Iterable[str]) -> None:
            for target in targets:
                if target in fixed:
                    continue
                for source in sources:
                    if source != target:
                        users.setdefault(source, set()).add(target)

        for index, (current, bound, inner) in enumerate(units):
            names = {n.id for n in inner if isinstance(n, ast.Name)}
            targets: List[str] = list(bound)
            if isinstance(current, ast.Assign):
                targets.extend(r for t in current.targets for r in _roots(t))
            elif isinstance(current, (ast.AugAssign, ast.AnnAssign)):
                targets.extend(_roots(current.target))
            targets.extend(n.target.id for n in inner if isinstance(n, ast.NamedExpr) and isinstance(n.target, ast.Name))
            flow(names, targets)
            for call in inner:
                if not isinstance(call, ast.Call):
                    continue
                # A call may change its receiver and arguments to hold anything it is given
                # (``helper(buf, x)``, ``out.append(x)``), and a project's function or method may
                # run backward() through what it is given (``engine.step(loss)``); a builtin
                # (``print(x)``) does neither, a library's function (``torch.log(x)``) changes
                # only its ``out=`` and, for a name ending in ``_``, its first argument.
                func = call.func
                arguments: List[ast.expr] = [*call.args, *(k.value for k in call.keywords)]
                changed = arguments
                known = False
                if isinstance(func, ast.Name) and func.id in fixed:
                    known = func.id not in _CHANGING_BUILTINS
                    changed = [] if known else arguments
                elif isinstance(func, ast.Attribute):
                    receiver = _roots(func)
                    if receiver and set(receiver) <= fixed:
                        known = True
                        changed = [k.value for k in call.keywords if k.arg == "out"]
                        if func.attr.endswith("_") and call.args:
                            changed.append(call.args[0])
                    known = known or func.attr in ACCUMULATING_METHODS
                if not known:
                    leaves.update(n.id for a in arguments for n in ast.walk(a) if isinstance(n, ast.Name))
                elif _call_name(func) in _DIFFERENTIATING:
                    leaves.update(names)  # ``torch.autograd.grad(penalty, x)``
                given = _roots(func) + [n.id for a in changed for n in ast.walk(a) if isinstance(n, ast.Name)]
                flow({n.id for n in ast.walk(call) if isinstance(n, ast.Name)}, given)
            if index in self.backward_units or any(isinstance(n, (ast.Return, ast.Yield, ast.YieldFrom)) for n in inner):
                leaves.update(names)
        # A name never bound here is a global, a closure's or a builtin: what reaches it leaves the step.
        leaves.update(n for targets in users.values() for n in targets if n not in local)
        self._flow = (users, leaves)
        return self._flow

    def _backward_in(self, node: ast.AST) -> bool:
        found = self.a._backward.get(id(node))
        if found is None:
            found = self.a._backward[id(node)] = any(self.a.m.is_backward_call(call) for call in self.a.calls(node))
        return found

    # ---- finding in-place ops

    def _parameter_attribute(self, expr: ast.AST) -> bool:
        """``self.<attr>`` naming a trainable ``nn.Parameter`` of the class this method belongs to."""
        if not (isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self"):
            return False
        return self.a.trainable_parameter(self._key(dotted(expr)))

    def _inplace_ops(self, node: ast.AST) -> List[Tuple[ast.AST, str, str]]:
        """(op node, form, target name) for every in-place write in ``node``."""
        key = (id(node), id(self.scope.node))
        found = self.a._ops.get(key)
        if found is None:
            found = self.a._ops[key] = list(self._find_inplace_ops(node))
        return found

    def _find_inplace_ops(self, node: ast.AST) -> Iterator[Tuple[ast.AST, str, str]]:
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            yield node, "augassign", node.target.id
        if isinstance(node, ast.AugAssign) and self._parameter_attribute(node.target):
            yield node, "augassign", dotted(node.target) or ""
        if isinstance(node, (ast.AugAssign, ast.Assign)):
            targets = [node.target] if isinstance(node, ast.AugAssign) else node.targets
            for target in targets:
                if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                    yield node, "setitem", target.value.id
        chained: Set[int] = set()
        guarded: Set[int] = set()
        local = self.a.local(node)
        for n in local:
            if isinstance(n, ast.IfExp) and _mentions_inplace(n.test):
                guarded.update(id(g) for g in self.a.local(n))  # `x.mul_(g) if self.inplace else x * g`
        # Outermost first, so that a chain x.mul_(a).add_(b) is met at its last link.
        for call in [n for n in local if isinstance(n, ast.Call)]:
            if id(call) in chained or id(call) in guarded:
                continue
            callee = self._callee(call) or self._module_forward(call)
            # What a project callee writes matters only for a name passed to it, or to tell the
            # call from an in-place op spelled the same way (``meter.add_(x)``, ``ops.relu_(x)``).
            if callee is None and not self._spelled_like_a_write(call):
                # Nothing below takes such a call for a write: only a project function may write
                # the names passed to it. Whether one does is asked in ``_judge``, and only for a
                # name whose binding a write would matter to (resolving the callee is the costly
                # part, and few calls' arguments matter).
                for arg in call.args:
                    if isinstance(arg, ast.Name):
                        yield call, "project-call", arg.id
                continue
            elsewhere = self._project_writes(call) if callee is None else None
            if elsewhere is not None:
                for position, arg in enumerate(call.args):
                    if isinstance(arg, ast.Name) and position in elsewhere:
                        yield call, "call", arg.id
                continue
            if callee is not None:
                written = self.a.mutated_params(callee)
                for position, arg in enumerate(call.args):
                    if isinstance(arg, ast.Name) and position in written.values():
                        yield call, "call", arg.id
                for kw in call.keywords:
                    if kw.arg is not None and isinstance(kw.value, ast.Name) and kw.arg in written:
                        yield call, "call", kw.value.id
                continue
            func = call.func
            if (
                isinstance(func, ast.Attribute)
                and func.attr in INPLACE_METHODS
                and not (isinstance(func.value, ast.Name) and self._is_module_name(func.value.id))
            ):
                receiver = func.value
                # x.mul_(a).add_(b): one chain of writes to x, judged once.
                while (
                    isinstance(receiver, ast.Call)
                    and isinstance(receiver.func, ast.Attribute)
                    and receiver.func.attr in INPLACE_METHODS
                ):
                    chained.add(id(receiver))
                    receiver = receiver.func.value
                if isinstance(receiver, ast.Name):
                    yield call, "method", receiver.id
                elif self._parameter_attribute(receiver):
                    yield call, "method", dotted(receiver) or ""
                elif _slice_of_name(receiver):
                    # ``out[:, :, i].add_(y)``: a view, so the write lands in ``out`` itself.
                    yield call, "slice", receiver.value.id  # type: ignore[attr-defined]
                continue
            qname = self._torch_name(func)
            first = _first_arg(call)
            if qname is None or not isinstance(first, ast.Name):
                if (
                    isinstance(func, ast.Attribute)
                    and isinstance(func.value, ast.Name)
                    and func.value.id == "self"
                    and self._key(dotted(func)) in self.a.inplace_modules
                    and len(call.args) + len(call.keywords) == 1
                    and isinstance(first, ast.Name)
                ):
                    yield call, "module", first.id
                continue
            receiver_name = first.id
            space, _, name = qname.rpartition(".")
            if space == "torch" and name in TORCH_INPLACE_FUNCTIONS:
                yield call, "function", receiver_name
            elif space == "torch.nn.functional" and name in FUNCTIONAL_INPLACE_FUNCTIONS:
                yield call, "function", receiver_name
            elif space == "torch.nn.functional" and name in FUNCTIONAL_INPLACE_PARAMETER:
                if _inplace_requested(call, FUNCTIONAL_INPLACE_PARAMETER[name]):
                    yield call, "functional", receiver_name

    def _spelled_like_a_write(self, call: ast.Call) -> bool:
        """Could the branches below take ``call`` for an in-place write (a superset of what they yield)?"""
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr in INPLACE_METHODS:
            return True
        if not isinstance(_first_arg(call), ast.Name):
            return False
        return self._torch_name(func) is not None or self._key(dotted(func)) in self.a.inplace_modules

    def _callee(self, call: ast.Call) -> Optional[FunctionAst]:
        func = call.func
        if isinstance(func, ast.Name):
            return self.a.functions.get(func.id)
        if (
            self.scope.cls is not None
            and isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id == "self"
        ):
            return self.a.methods.get((id(self.scope.cls), func.attr))
        return None

    def _matters(self, index: int, op: ast.AST, target: str, binding: _Binding) -> bool:
        """Would a write to ``target`` by ``op`` be judged a finding (the checks of ``_judge`` that
        do not depend on whether ``op`` writes at all)?"""
        if binding.saved_at is not None and self._exclusive(binding.saved_at, index):
            return False
        return self._autograd_reason(index, op, target, binding) is not None or (
            self.a.caller_only and self._caller_reason(index, target, binding) is not None
        )

    def _project_writes_name(self, call: ast.AST, name: str) -> bool:
        """Does the project function ``call`` runs write in place an argument ``name`` is passed as?"""
        assert isinstance(call, ast.Call)
        key = (id(call), id(self.scope.node))
        if key in self.a._project_written:
            written = self.a._project_written[key]
        else:
            written = self.a._project_written[key] = self._project_writes(call)
        return written is not None and any(
            isinstance(arg, ast.Name) and arg.id == name and position in written
            for position, arg in enumerate(call.args)
        )

    def _project_writes(self, call: ast.Call) -> Optional[Set[int]]:
        """Positions of the arguments a function of another project module writes in place
        (the program model's ``call_writes``); None when the callee is not one."""
        spelled = dotted(call.func)
        if spelled is None or spelled.startswith("self.") and self.scope.cls is None:
            return None
        if spelled.startswith("self.") and self.a.library_layer(self._key(spelled)):
            return None
        model = self.a.model
        node = self.scope.node
        if isinstance(node, ast.Module):
            caller = model.function("<module>")
            target = model.callee(caller, spelled) if caller is not None else None
        else:
            qualname = f"{self.scope.cls.name}.{node.name}" if self.scope.cls is not None else node.name
            if qualname not in model.summary.functions:
                return None
            header = function_header(node, qualname, self.scope.cls.name if self.scope.cls is not None else None, model.summary.name)
            target = model.callee_of(header, spelled, self.a.constructed_names(node))
        written = model.call_writes(target, model.summary.name)
        return set(written) if written else None

    def _module_forward(self, call: ast.Call) -> Optional[FunctionAst]:
        return self.a.module_forward(call, self.scope.cls)

    def _is_module_name(self, name: str) -> bool:
        return name in ("torch", "F", "nn", "np", "math") or name == self.a.torch

    def _torch_name(self, func: ast.AST) -> Optional[str]:
        key = id(func)
        if key in self.a._torch_names:
            return self.a._torch_names[key]
        found = None
        for name in self.a.m.qualified_names(func):
            if name.startswith("torch."):
                found = name
                break
        else:
            spelled = dotted(func) or ""
            if spelled.startswith("F."):
                found = "torch.nn.functional." + spelled[2:]
        self.a._torch_names[key] = found
        return found

    # ---- judging one write

    def _judge(self, index: int, unit: _Unit, op: ast.AST, form: str, target: str) -> None:
        if target in self.skip_names or target == "self":
            return
        binding = self.state.get(target)
        if self.records_writes and (binding is None or binding.kind != "param"):
            return  # only the parameters written are asked for (see ``records_writes``)
        if form == "project-call":
            # A name handed to a function the project may define (see ``_find_inplace_ops``).
            if binding is not None and binding.kind == "attr":
                return
            if binding is None and not _reads_grad_of(op, target):
                return
            if binding is not None and not self.records_writes and not self._matters(index, op, target, binding):
                return
            if not self._project_writes_name(op, target):
                return
            form = "call"
        if binding is None and target.startswith("self."):
            # ``self.log_std.exp_()`` in a method: autograd refuses any in-place op on a leaf that
            # requires grad while grad mode is on.
            if self._backward_follows(index):
                detail = "it is an `nn.Parameter` of this module, a leaf tensor that requires grad"
                self._emit(index, unit, op, form, target, "leaf", detail, False)
            return
        if binding is None:
            # Only writes that read their own gradient prove a leaf: p -= lr * p.grad.
            if _reads_grad_of(op, target):
                self._emit(index, unit, op, form, target, "leaf", "it is a leaf tensor that requires grad (its `.grad` is read)", False)
            return
        if form in ("augassign", "setitem", "slice") and not binding.tensor:
            return
        if binding.kind == "attr":
            return
        if binding.kind == "param":
            self.param_writes.add(self.param_idents.get(binding.ident, target))
            if self.records_writes:
                return
        if binding.saved_at is not None and self._exclusive(binding.saved_at, index):
            return  # saved in one branch of an ``if`` chain, written in another: never both in one call
        # What autograd rejects or a later backward reads wrongly comes first; a
        # write only the caller observes is a finding of its own kind.
        judged = self._autograd_reason(index, op, target, binding)
        if judged is None and self.a.caller_only:
            judged = self._caller_reason(index, target, binding)
        if judged is None:
            return
        reason, detail, base = judged
        caller_only = reason in CALLER_REASONS
        backward = reason == "saved" or (reason == "view" and base is not None and base.kind != "leaf")
        if caller_only and form == "call" and isinstance(op, ast.Call) and self._module_forward(op) is not None:
            return  # a forward's write to its argument is reported in that forward

        if (binding.ident, caller_only) in self.reported:
            return
        if backward and self.backward_units and not self._reaches_backward(binding, base):
            return  # a training step whose backward() calls never reach the graph built from the tensor
        if base is not None:
            self.reported.add((base.ident, caller_only))
        self.reported.add((binding.ident, caller_only))
        aliases = self._aliases(target, binding)
        aliases_read = tuple(a for a in aliases if self._read_after(index, a))
        visible = (
            binding.kind == "param"
            or binding.escaped
            or bool(aliases)
            or binding.view_of is not None
            or binding.multi_view_of_name
            or self._has_views(binding)
            or (self.is_module and target in self.a.m.names_in_functions())
        )
        self._emit(index, unit, op, form, target, reason, detail, visible, aliases_read, backward)

    def _autograd_reason(
        self, index: int, op: ast.AST, target: str, binding: _Binding
    ) -> Optional[Tuple[str, str, Optional[_Binding]]]:
        """Why autograd rejects the write, or why a later read of the value is wrong; None when neither."""
        if binding.kind == "leaf" or _reads_grad_of(op, target):
            return "leaf", "it is a leaf tensor that requires grad", None
        # A fresh tensor (``torch.zeros``) autograd saved for another operand's gradient
        # (``b * w``) is checked by backward whether or not it requires grad itself.
        if self._saved(binding) and (binding.grad or binding.kind == "fresh") and self._backward_follows(index):
            return "saved", f"autograd saved it as {binding.saved} for backward", None
        if binding.multi_view is not None and binding.grad and self._backward_follows(index):
            return (
                "multi-view",
                f"it is one of the views `{binding.multi_view}` returned, and autograd refuses an in-place write to those",
                None,
            )
        if binding.view_of is not None:
            base = self._base(binding)
            if base is not None and (base.ident, False) not in self.reported:
                if self._saved(base) and base.grad and self._backward_follows(index):
                    return "view", f"it is a view of `{binding.via}`, which autograd saved as {base.saved}", base
                if base.kind == "leaf":
                    return "view", f"it is a view of the leaf tensor `{binding.via}`", base
        aliases_read = [a for a in self._aliases(target, binding) if self._read_after(index, a)]
        # An argument read again under another name is the caller's tensor: its
        # own kind of finding (below), since autograd has no objection.
        if aliases_read and binding.kind != "param":
            names = ", ".join(f"`{a}`" for a in aliases_read)
            return "alias", f"its alias {names} is read afterwards and sees the change", None
        return None

    def _caller_reason(self, index: int, target: str, binding: _Binding) -> Optional[Tuple[str, str, Optional[_Binding]]]:
        """The write reaches a tensor the caller passed in (autograd does not object here)."""
        if binding.kind == "param":
            aliases_read = [a for a in self._aliases(target, binding) if self._read_after(index, a)]
            also = ", and so does " + ", ".join(f"`{a}`" for a in aliases_read) + ", read afterwards" if aliases_read else ""
            return "argument", f"it is an argument: the caller's tensor changes too{also}", None
        if binding.view_of is not None:
            base = self._base(binding)
            if base is not None and base.kind == "param" and (base.ident, True) not in self.reported:
                return "argument-view", f"it is a view of the argument `{binding.via}`: the caller's tensor changes too", base
        return None

    def _emit(
        self,
        index: int,
        unit: _Unit,
        op: ast.AST,
        form: str,
        target: str,
        reason: str,
        detail: str,
        visible: bool,
        aliases_read: Tuple[str, ...] = (),
        backward: bool = False,
    ) -> None:
        key = (id(op), reason in CALLER_REASONS)
        if key in self.emitted:
            return
        self.emitted.add(key)
        self.events.append(
            InplaceEvent(
                node=op,
                statement=unit.statement,
                form=form,
                target=target,
                reason=reason,
                detail=detail,
                visible=bool(visible) or reason == "leaf",
                caller_only=reason in CALLER_REASONS,
                read_after=self._read_after(index, target),
                aliases_read=tuple(aliases_read),
                masked_fill=form == "setitem" and self._masked_fill(op, target),
                backward=backward,
            )
        )

    def _masked_fill(self, op: ast.AST, target: str) -> bool:
        # masked_fill broadcasts the mask from the right while x[mask] indexes
        # from the left: equal only for a mask of x's own shape and a scalar.
        if not isinstance(op, ast.Assign) or len(op.targets) != 1 or not _scalar(op.value):
            return False
        sub = op.targets[0]
        if not isinstance(sub, ast.Subscript) or isinstance(sub.slice, (ast.Tuple, ast.Slice)):
            return False
        mask = sub.slice
        binding = self.state.get(target)
        if binding is None:
            return False
        if isinstance(mask, ast.Name) and mask.id in self.state and self.state[mask.id].mask_of == binding.ident:
            return True
        return self._value(mask).mask_of == binding.ident

    def _base(self, binding: _Binding) -> Optional[_Binding]:
        for other in self.state.values():
            if other.ident == binding.view_of:
                return other
        return None

    def _aliases(self, target: str, binding: _Binding) -> List[str]:
        return sorted(n for n, b in self.state.items() if n != target and b.ident == binding.ident)

    def _has_views(self, binding: _Binding) -> bool:
        return any(b.view_of == binding.ident for b in self.state.values())

    def _read_after(self, index: int, name: str) -> bool:
        for unit in self.units[index + 1:]:
            if name in _loads(unit.node):
                return True
            if name in _stores(unit.node):
                return False
        return False

    # ---- what a statement saves for backward

    def _record_saves(self, node: ast.AST) -> None:
        discarded = self._discarded(node)
        for expr in self.a.local(node):
            if id(expr) in discarded:
                continue
            if isinstance(expr, ast.BinOp):
                op = expr.op
                if isinstance(op, (ast.Mult, ast.MatMult)):
                    self._save_partners(expr.left, expr.right, "an input of `*`" if isinstance(op, ast.Mult) else "an input of `@`")
                elif isinstance(op, ast.Div):
                    self._save_partners(expr.left, expr.right, "an input of `/`", divide=True)
                elif isinstance(op, ast.Pow):
                    self._save_if_grad(expr.left, "the input of `**`")
            elif isinstance(expr, ast.Call):
                self._call_saves(expr)

    def _discarded(self, node: ast.AST) -> Set[int]:
        """The operations in ``node`` whose result only a graph-cutting use reads (``x.norm().item()``,
        ``(a * b > 0)``, ``float(x @ w)``): the result and the graph node that saved its inputs are
        dropped at once, so nothing saved there is ever checked by a backward."""
        found: Set[int] = set()
        for expr in self.a.local(node):  # parents come before their children
            cut: List[ast.AST] = []
            if isinstance(expr, ast.Compare):
                cut = [expr.left, *expr.comparators]
            elif isinstance(expr, ast.Call):
                func = expr.func
                if isinstance(func, ast.Attribute) and func.attr in NO_HISTORY_METHODS:
                    cut = [func.value]
                elif isinstance(func, ast.Name) and func.id in PYTHON_VALUE_FUNCTIONS and not expr.keywords:
                    cut = list(expr.args)
                else:
                    torch_name = self._torch_name(func)
                    last = torch_name.rsplit(".", 1)[-1] if torch_name is not None else ""
                    if last in NO_HISTORY_TORCH_FUNCTIONS:
                        cut = list(expr.args)
            if id(expr) in found:
                # An operand of a dropped operation is dropped with it, unless a name keeps it.
                if isinstance(expr, (ast.BinOp, ast.UnaryOp, ast.BoolOp)):
                    cut = _fields(expr)
                elif isinstance(expr, ast.Call) and not cut:
                    if isinstance(expr.func, ast.Attribute) and expr.func.attr in TENSOR_METHODS:
                        cut = [expr.func.value, *expr.args]
                    elif self._torch_name(expr.func) is not None:
                        cut = list(expr.args)
            found.update(id(c) for c in cut if isinstance(c, (ast.Call, ast.BinOp, ast.UnaryOp, ast.BoolOp)))
        return found

    def _call_saves(self, call: ast.Call) -> None:
        func = call.func
        args = _positional(call)
        name = None
        receiver: Optional[ast.expr] = None
        qname = self._torch_name(func)
        if qname is not None:
            name = qname.rsplit(".", 1)[-1]
            if name in ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose2d") and args:
                # The weight requires grad: the input is saved unconditionally.
                self._save(args[0], f"the input of `{name}`")
                return
        elif isinstance(func, ast.Attribute):
            receiver = func.value
            name = func.attr
            spelled = dotted(func)
            ctor = self.a.module_ctor.get(self._key(spelled) or "") if spelled is not None else None
            if spelled is not None and ctor is not None:
                self._module_call_saves(ctor, spelled, args, self._key(spelled) or "")
                return
            if spelled is not None and spelled.startswith("self.") and spelled.count(".") == 1 and args:
                return  # a submodule built elsewhere: unknown, stay silent
        elif isinstance(func, ast.Name) and func.id in self.a.module_ctor:
            self._module_call_saves(self.a.module_ctor[func.id], func.id, args, func.id)
            return
        if name is None:
            return
        operands = ([receiver] if receiver is not None else []) + args
        if name in SAVES_PARTNER and len(operands) >= 2:
            self._save_partners(operands[0], operands[1], f"an input of `{name}`", divide=name.startswith("div") or name == "true_divide")
        elif name in SAVES_INPUT and operands:
            self._save_if_grad(operands[0], f"the input of `{name}`")
            if name.endswith("loss") or name in ("binary_cross_entropy", "kl_div", "cosine_similarity"):
                for other in operands[1:2]:
                    self._save_if_grad(other, f"an input of `{name}`")

    def _module_call_saves(self, ctor: str, spelled: str, args: List[ast.expr], key: str) -> None:
        if not args or ctor in QUIET_MODULES or ctor in OUTPUT_SAVING_MODULES:
            return
        what = f"the input of `{spelled}` ({ctor})"
        if ctor in PARAMETRIC_MODULES:
            self._save(args[0], what)
        elif ctor.endswith("Loss"):
            if ctor in _INPUT_SAVING_LOSSES or ctor in self.a.class_names:
                for arg in args[:2]:
                    self._save_if_grad(arg, what)
        elif ctor in INPLACE_MODULES or ctor.endswith(("Pool1d", "Pool2d", "Pool3d")):
            self._save_if_grad(args[0], what)
        elif ctor in self.a.class_names or ctor == "Sequential":
            if ctor in self.a.classes and self.a.input_only_padded(key):
                return  # this instance's forward only pads its input: its layers keep the padded copy
            # A model of the user's own: its first layer keeps the input.
            self._save(args[0], f"the input of `{spelled}`")

    def _save_partners(self, left: ast.expr, right: ast.expr, what: str, divide: bool = False) -> None:
        left_grad, right_grad = self._grad(left), self._grad(right)
        if right_grad:
            self._save(left, what)
        if left_grad or (divide and right_grad):
            self._save(right, what)

    def _saved(self, binding: _Binding) -> Optional[str]:
        """What autograd saved the value as, asking the model about a module's output on first need."""
        if binding.saved is None and binding.output_of is not None:
            binding.saved = self.a.module_output(self.scope.cls, binding.output_of)
            binding.output_of = None
        return binding.saved

    def _save_if_grad(self, expr: ast.expr, what: str) -> None:
        if self._grad(expr):
            self._save(expr, what)

    def _save(self, expr: ast.expr, what: str) -> None:
        if _slice_of_name(expr):
            # ``self.conv(out[:, :, i])`` keeps a view of ``out``: a write to ``out`` changes it.
            name = expr.value.id  # type: ignore[attr-defined]
            binding = self.state.get(name)
            if binding is not None and binding.tensor and self._saved(binding) is None and binding.kind != "attr":
                binding.saved = what + f" (through a slice of `{name}`)"
            return
        if isinstance(expr, ast.Name):
            binding = self.state.get(expr.id)
            if binding is not None and binding.tensor and self._saved(binding) is None and binding.kind != "attr":
                binding.saved = what
                if binding.view_of is not None:
                    base = self._base(binding)
                    if base is not None and self._saved(base) is None:
                        base.saved = what + f" (through the view `{expr.id}`)"

    def _grad(self, expr: ast.expr) -> bool:
        """Does ``expr`` (probably) require grad?"""
        if isinstance(expr, ast.Name):
            binding = self.state.get(expr.id)
            return binding is not None and binding.grad
        if isinstance(expr, ast.Attribute):
            return self._key(dotted(expr)) in self.a.parameters
        if isinstance(expr, ast.Starred):
            return self._grad(expr.value)
        return self._value(expr).grad

    # ---- escapes: the tensor is stored where the fix cannot follow it

    def _record_escapes(self, node: ast.AST) -> None:
        stored: List[ast.AST] = []
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if node.value is not None and any(isinstance(t, (ast.Attribute, ast.Subscript)) for t in targets):
                stored.append(node.value)
        local = self.a.local(node)
        # ``x[a, b]`` is a tuple to Python, an index of two elements to the reader.
        indices = {id(n.slice) for n in local if isinstance(n, ast.Subscript)}
        for expr in local:
            if isinstance(expr, (ast.List, ast.Tuple, ast.Set, ast.Dict)):
                if id(expr) not in indices:
                    stored.append(expr)
            elif isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute):
                if expr.func.attr in _STORING_METHODS:
                    stored.extend(expr.args)
                    stored.extend(k.value for k in expr.keywords)
            elif isinstance(expr, (ast.Yield, ast.YieldFrom)) and expr.value is not None:
                stored.append(expr.value)
        for expr in stored:
            for name in _loads(expr):
                binding = self.state.get(name)
                if binding is not None:
                    binding.escaped = True

    # ---- bindings

    def _bind_for(self, node: Union[ast.For, ast.AsyncFor]) -> None:
        iterated = node.iter
        leafy = isinstance(iterated, ast.Call) and isinstance(iterated.func, ast.Attribute) and iterated.func.attr == "parameters"
        for name in stored_names(node.target):
            self.state[name] = _Binding("value", leafy, False, self.new_id())
        # ``for part in x.chunk(3)`` / ``for i, part in enumerate(x.split(2))``: each part is one of the views.
        target = node.target
        if isinstance(iterated, ast.Call) and dotted(iterated.func) == "enumerate" and len(iterated.args) == 1:
            if isinstance(target, ast.Tuple) and len(target.elts) == 2:
                iterated, target = iterated.args[0], target.elts[1]
        if isinstance(target, ast.Name) and isinstance(iterated, ast.Call):
            part = self._multi_view_part(iterated)
            if part is not None:
                self.state[target.id] = part

    def _unbind(self, target: ast.AST) -> None:
        for name in stored_names(target):
            self.state[name] = _Binding("value", False, False, self.new_id())

    def _bind(self, node: ast.AST) -> None:
        if isinstance(node, ast.Delete):
            for target in node.targets:
                for name in stored_names(target):
                    self.state.pop(name, None)
            return
        for expr in self.a.local(node):
            if isinstance(expr, ast.NamedExpr) and isinstance(expr.target, ast.Name):
                self.state[expr.target.id] = self._value(expr.value)
        flagged = _requires_grad_flagged(node)
        if flagged is not None:
            self._make_leaf(flagged)
            return
        targets: List[ast.expr]
        if isinstance(node, ast.AnnAssign) and node.value is not None:
            targets = [node.target]
            value = node.value
        elif isinstance(node, ast.Assign):
            targets = node.targets
            value = node.value
        else:
            return
        for target in targets:
            if isinstance(target, ast.Name):
                self.state[target.id] = self._value(value)
            elif isinstance(target, (ast.Tuple, ast.List)):
                result = self._value(value)
                for name in stored_names(target):
                    self.state[name] = _Binding("value", result.tensor, result.grad, self.new_id())
                self._bind_tuple_elements(target, value)

    def _make_leaf(self, name: str) -> None:
        """``w.requires_grad = True`` / ``w.requires_grad_()`` on a tensor that does not require grad:
        such a tensor is a leaf, so it becomes a leaf that requires grad."""
        binding = self.state.get(name)
        if binding is not None and binding.tensor and not binding.grad and binding.kind != "attr":
            self.state[name] = _Binding("leaf", True, True, binding.ident)

    def _bind_tuple_elements(self, target: Union[ast.Tuple, ast.List], value: ast.expr) -> None:
        """Bind the names of an unpacked call result the model knows element by element."""
        if not isinstance(value, ast.Call):
            return
        for position, element in enumerate(target.elts):
            if isinstance(element, ast.Starred):
                return  # later positions are unknown
            if isinstance(element, ast.Name):
                known = self._element_of(value, position)
                if known is not None:
                    self.state[element.id] = known

    def _element_of(self, call: ast.Call, position: int) -> Optional[_Binding]:
        """What the model knows about element ``position`` of ``call``'s tuple result: the first
        element of a recurrent module's ``(output, hidden)``, which its backward reads; any of the
        views a multi-view op (``x.chunk(2)``) returns, which autograd forbids writing in place."""
        spelled = dotted(call.func)
        ctor = self.a.torch_module_ctor.get(self._key(spelled) or "") if spelled is not None else None
        if ctor in FIRST_OUTPUT_SAVING_MODULES:
            if position != 0:
                return None
            return _Binding("value", True, True, self.new_id(), saved=f"the output of `{spelled}` ({ctor})")
        return self._multi_view_part(call)

    def _multi_view_part(self, call: ast.Call) -> Optional[_Binding]:
        """One of the views ``call`` returns when it is a multi-view op on a tensor that requires grad."""
        split = self._multi_view_call(call)
        if split is None:
            return None
        op, receiver = split
        return _Binding("value", True, True, self.new_id(), multi_view=op, multi_view_of_name=isinstance(receiver, ast.Name))

    def _multi_view_call(self, call: ast.Call) -> Optional[Tuple[str, ast.expr]]:
        """``x.chunk(2)`` / ``torch.split(x, 3)`` on a tensor that requires grad: the op and its tensor."""
        func = call.func
        qname = self._torch_name(func)
        if qname is not None:
            space, _, name = qname.rpartition(".")
            if space == "torch" and name in MULTI_VIEW_OPS and call.args and self._grad(call.args[0]):
                return name, call.args[0]
            return None
        if isinstance(func, ast.Attribute) and func.attr in MULTI_VIEW_OPS and self._grad(func.value):
            return func.attr, func.value
        return None

    def _value(self, expr: ast.AST) -> _Binding:
        """A binding describing what ``expr`` evaluates to."""
        fresh_id = self.new_id()
        if isinstance(expr, ast.Name):
            source = self.state.get(expr.id)
            if source is None:
                return _Binding("value", False, False, fresh_id)
            return replace(source)  # a plain alias: same object
        if isinstance(expr, ast.Attribute):
            parameter = self._key(dotted(expr)) in self.a.parameters
            return _Binding("attr", parameter, parameter, fresh_id)
        if isinstance(expr, ast.Subscript):
            base = expr.value
            index = expr.slice
            if isinstance(base, ast.Call) and isinstance(index, ast.Constant) and type(index.value) is int and index.value >= 0:
                known = self._element_of(base, index.value)  # ``self.lstm(x)[0]``, ``x.chunk(2)[1]``
                if known is not None:
                    return known
            if isinstance(base, ast.Name) and base.id in self.state:
                source = self.state[base.id]
                if source.tensor and _basic_index(expr):
                    return _Binding("value", True, source.grad, fresh_id, view_of=source.ident, via=base.id)
                return _Binding("value", False, source.grad, fresh_id)
            return _Binding("value", False, False, fresh_id)
        if isinstance(expr, ast.BinOp):
            left, right = self._value(expr.left), self._value(expr.right)
            return _Binding("value", left.tensor or right.tensor, left.grad or right.grad, fresh_id)
        if isinstance(expr, ast.Compare):
            compared = expr.left
            if (
                isinstance(compared, ast.Name)
                and compared.id in self.state
                and self.state[compared.id].tensor
                and all(_scalar(c) for c in expr.comparators)
            ):
                return _Binding("value", True, False, fresh_id, mask_of=self.state[compared.id].ident)
            return _Binding("value", False, False, fresh_id)
        if isinstance(expr, ast.UnaryOp):
            inner = self._value(expr.operand)
            return _Binding("value", inner.tensor, inner.grad, fresh_id)
        if isinstance(expr, ast.Call):
            return self._call_value(expr, fresh_id)
        return _Binding("value", False, False, fresh_id)

    def _call_value(self, call: ast.Call, fresh_id: int) -> _Binding:
        func = call.func
        arg_grad = any(self._grad(a) for a in _positional(call))
        qname = self._torch_name(func)
        if qname is not None:
            space, _, name = qname.rpartition(".")
            if name == "Parameter":
                return _Binding("leaf", True, True, fresh_id)
            if name in FACTORIES and space == "torch":
                if is_true(keyword_value(call, "requires_grad")):
                    return _Binding("leaf", True, True, fresh_id)
                return _Binding("fresh", True, False, fresh_id)
            saved = f"the output of `{name}`" if name in SAVES_OUTPUT else None
            tensor = not name.startswith(("is_", "numel", "get_")) and space.startswith("torch")
            return _Binding("value", tensor, arg_grad, fresh_id, saved=saved if arg_grad else None)
        if isinstance(func, ast.Attribute):
            name = func.attr
            spelled = dotted(func)
            ctor = self.a.module_ctor.get(self._key(spelled) or "") if spelled is not None else None
            if spelled is not None and ctor is not None:
                grad = ctor in PARAMETRIC_MODULES or arg_grad or ctor not in QUIET_MODULES
                return _Binding("value", True, grad, fresh_id, output_of=spelled if grad else None)
            if spelled is not None and spelled.startswith("self.") and spelled.count(".") == 1:
                method = (id(self.scope.cls), name) if self.scope.cls is not None else None
                if method in self.a.methods:
                    return _Binding("value", False, arg_grad, fresh_id)
                # A submodule (its output requires grad) or a configurable op, perhaps set by a base
                # class in another file: the model says whether either saves its output.
                return _Binding("value", True, True, fresh_id, output_of=spelled if arg_grad else None)
            receiver = self._value(func.value) if not isinstance(func.value, ast.Name) else self.state.get(func.value.id)
            if receiver is None or not (receiver.tensor or receiver.grad):
                return _Binding("value", False, False, fresh_id)  # requiring grad implies a tensor
            if name in NON_TENSOR_METHODS:
                return _Binding("value", False, False, fresh_id)
            if name in FRESH_METHODS:
                grad = receiver.grad and name == "clone"
                return _Binding("fresh", True, grad, fresh_id)
            if name in VIEW_METHODS and isinstance(func.value, ast.Name):
                grad = receiver.grad and name != "detach"
                return _Binding("value", True, grad, fresh_id, view_of=receiver.ident, via=func.value.id)
            if name in INPLACE_METHODS:
                return replace(receiver)  # x.relu_() returns x itself
            grad = receiver.grad or arg_grad
            saved = f"the output of `{name}`" if name in SAVES_OUTPUT and grad else None
            return _Binding("value", True, grad, fresh_id, saved=saved)
        if isinstance(func, ast.Name):
            if func.id in NON_TENSOR_BUILTINS:
                return _Binding("value", False, False, fresh_id)
            if func.id in self.a.module_ctor or self.a.is_module_name(func.id):
                return _Binding("value", True, True, fresh_id)  # model(x)
            if func.id[:1].isupper():
                return _Binding("attr", False, False, fresh_id)  # constructing an object
        return _Binding("value", False, arg_grad, fresh_id)


# --------------------------------------------------------------------------- helpers


def _all_params(func: FunctionAst) -> List[ast.arg]:
    args = func.args
    return [*args.posonlyargs, *args.args, *args.kwonlyargs]


def _params_with_defaults(func: FunctionAst) -> List[Tuple[ast.arg, bool]]:
    args = func.args
    positional = [*args.posonlyargs, *args.args]
    defaults = [False] * (len(positional) - len(args.defaults)) + [True] * len(args.defaults)
    return list(zip(positional, defaults)) + [(a, d is not None) for a, d in zip(args.kwonlyargs, args.kw_defaults)]


def _is_static(func: FunctionAst) -> bool:
    return any(dotted(d) == "staticmethod" for d in func.decorator_list)


def _one_line_body(func: FunctionAst) -> bool:
    """``def f(x): return x`` (the body on the line the signature ends on)."""
    ends = [func.lineno] + [getattr(n, "end_lineno", None) or 0 for n in ast.walk(func.args)]
    if func.returns is not None:
        ends.append(func.returns.end_lineno or 0)
    return func.body[0].lineno <= max(ends)


def _tensor_param(param: ast.arg, has_default: bool, first: bool) -> Optional[bool]:
    """True: a tensor; None: maybe one (proved only by a tensor method call on it); False: not one."""
    if param.annotation is not None:
        text = ast.unparse(param.annotation)
        return "Tensor" in text and not _NON_TENSOR_ANNOTATION.match(text)
    if has_default:
        return False
    return True if first else None


def _first_arg(call: ast.Call) -> Optional[ast.expr]:
    """The first argument as written (positional or keyword)."""
    if call.args:
        first = call.args[0]
        return first.value if isinstance(first, ast.Starred) else first
    return call.keywords[0].value if call.keywords else None


def _inplace_requested(call: ast.Call, position: int) -> bool:
    value = keyword_value(call, "inplace")
    if value is None:
        positional = call.args
        value = positional[position] if len(positional) > position else None
    return is_true(value)


def _item_write(node: ast.AST) -> bool:
    """``x op= …`` or ``x[…] = …``."""
    kind = type(node)
    return kind is ast.AugAssign or (kind is ast.Assign and any(isinstance(t, ast.Subscript) for t in node.targets))  # type: ignore[attr-defined]


def _scalar(expr: ast.AST) -> bool:
    """A number literal, possibly negated, or ``float("inf")``-style."""
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub):
        expr = expr.operand
    if isinstance(expr, ast.Constant):
        return type(expr.value) in (int, float)
    return (
        isinstance(expr, ast.Call)
        and isinstance(expr.func, ast.Name)
        and expr.func.id == "float"
        and len(expr.args) + len(expr.keywords) == 1
        and len(expr.args) == 1
        and isinstance(expr.args[0], ast.Constant)
        and isinstance(expr.args[0].value, (str, bytes))
    )


def _mentions_inplace(expr: ast.AST) -> bool:
    for n in _walk(expr):
        kind = type(n)
        if kind is ast.Name and "inplace" in n.id.lower():  # type: ignore[attr-defined]
            return True
        if kind is ast.Attribute and "inplace" in n.attr.lower():  # type: ignore[attr-defined]
            return True
        if kind is ast.keyword and n.arg is not None and "inplace" in n.arg.lower():  # type: ignore[attr-defined]
            return True
    return False


def _requires_grad_flagged(node: ast.AST) -> Optional[str]:
    """The name a statement ``name.requires_grad = True`` or ``name.requires_grad_()`` flags."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target = node.targets[0]
        if (
            isinstance(target, ast.Attribute)
            and target.attr == "requires_grad"
            and isinstance(target.value, ast.Name)
            and isinstance(node.value, ast.Constant)
            and node.value.value is True
        ):
            return target.value.id
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        call = node.value
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr == "requires_grad_" and isinstance(func.value, ast.Name):
            plain = not call.args and not call.keywords
            true = len(call.args) == 1 and isinstance(call.args[0], ast.Constant) and call.args[0].value is True
            if plain or true:
                return func.value.id
    return None


def _sets_requires_grad(node: ast.AST) -> bool:
    """``p.requires_grad = …``, ``p.requires_grad_(False)``, ``requires_grad_(flag)``: code that freezes."""
    if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return any(isinstance(t, ast.Attribute) and t.attr == "requires_grad" for t in targets)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "requires_grad_":
        return bool(node.args or node.keywords) and not (
            len(node.args) == 1 and isinstance(node.args[0], ast.Constant) and node.args[0].value is True
        )
    return False


def _reads_grad_of(op: ast.AST, target: str) -> bool:
    return any(
        isinstance(n, ast.Attribute) and n.attr == "grad" and isinstance(n.value, ast.Name) and n.value.id == target
        for n in _walk(op)
    )


def _slice_of_name(expr: ast.AST) -> bool:
    """``x[0]``, ``x[:, i:i + 1]``: a view of the tensor a name holds."""
    return isinstance(expr, ast.Subscript) and isinstance(expr.value, ast.Name) and _basic_index(expr)


def _basic_index(sub: ast.Subscript) -> bool:
    """``x[0]``, ``x[:, 1:]``, ``x[..., None]``: indexing that returns a view."""
    elements = sub.slice.elts if isinstance(sub.slice, ast.Tuple) else [sub.slice]
    for index in elements:
        if isinstance(index, ast.Slice):
            continue
        if isinstance(index, ast.Constant) and (type(index.value) is int or index.value is Ellipsis or index.value is None):
            continue
        return False
    return True


_BUILTINS = frozenset(dir(builtins))


def _roots(target: ast.AST) -> List[str]:
    """The names an assignment target or a call's receiver changes: ``x`` of ``x``, ``x.a[i]``, ``(x, *y)``."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Attribute, ast.Subscript, ast.Starred)):
        return _roots(target.value)
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for element in target.elts for n in _roots(element)]
    if isinstance(target, ast.Call):
        return _roots(target.func)
    return []


def _stores(node: ast.AST) -> Set[str]:
    if isinstance(node, ast.Assign):
        return {n for t in node.targets for n in stored_names(t)}
    if isinstance(node, ast.AnnAssign) and node.value is not None:
        return set(stored_names(node.target))
    if isinstance(node, (ast.For, ast.AsyncFor)):
        return set(stored_names(node.target))
    return set()


def _loads(node: ast.AST) -> Set[str]:
    """Names read by ``node`` (assignment targets, attribute and keyword names excluded)."""
    skip: Set[int] = set()
    if isinstance(node, ast.Assign):
        skip.update(id(t) for t in node.targets if isinstance(t, (ast.Name, ast.Tuple, ast.List)))
    elif isinstance(node, ast.AnnAssign):
        skip.update((id(node.target), id(node.annotation)))
    roots: List[ast.AST] = [node]
    if isinstance(node, (ast.For, ast.AsyncFor)):
        roots = [node.iter]
    elif isinstance(node, (ast.With, ast.AsyncWith)):
        roots = [item.context_expr for item in node.items]  # the body is walked unit by unit
    names: Set[str] = set()
    stack = roots
    while stack:
        current = stack.pop()
        if id(current) in skip:
            continue
        kind = type(current)
        if kind is ast.Name:
            names.add(current.id)  # type: ignore[attr-defined]
            continue
        if kind is ast.Global or kind is ast.Nonlocal:
            names.update(current.names)  # type: ignore[attr-defined]
        elif kind is ast.Import or kind is ast.ImportFrom:
            if kind is ast.ImportFrom and current.module:  # type: ignore[attr-defined]
                names.add(current.module.split(".", 1)[0])  # type: ignore[attr-defined]
            for alias in current.names:  # type: ignore[attr-defined]
                names.add(alias.name.split(".", 1)[0])
                if alias.asname:
                    names.add(alias.asname)
        stack.extend(c for c in _fields(current) if not isinstance(c, _NEW_SCOPES))
    return names
