"""Facts for AF103: which code runs under autograd, and what each tensor name holds there.

LibCST has no data flow, so each function that runs under autograd is walked
once, statement by statement in source order, keeping for every local name a
small :class:`Binding`: is it the caller's argument, a leaf that requires
grad, a freshly created tensor, a view or plain alias of another name, and has
autograd saved it for backward. Every in-place operation met on the way is
judged against the binding of its target and comes out as an
:class:`InplaceEvent` when autograd (or the caller) can observe it.

The walk is deliberately simple (no branch merging: the last binding in
source order wins; loops are read once) and errs towards silence: an unknown
value is never assumed to be saved, a tensor or to require grad.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field, replace
from typing import Dict, Iterable, Iterator, List, Optional, Set, Tuple, Union

import libcst as cst

from autofix.model.inplace_ops import (
    FUNCTIONAL_INPLACE_FUNCTIONS,
    FUNCTIONAL_INPLACE_PARAMETER,
    INPLACE_METHODS,
    INPLACE_MODULES,
    TORCH_INPLACE_FUNCTIONS,
)
from autofix.analysis.index import module_index
from autofix.analysis.steps import class_summary
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
from autofix.analysis.names import children as _children, dotted_name, keyword, walk_local as _walk
from autofix.analysis.training import (
    disables_grad,
    grad_disabled_nodes,
    import_aliases,
    is_backward_call,
    optimizer_facts,
    qualified_names,
)
from autofix.context import RuleContext

# What autograd saves for backward (SAVES_INPUT, SAVES_PARTNER, SAVES_OUTPUT) is the
# model's vocabulary (autofix/model/vocabulary.py); the modules below are this analysis' own.

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
_MODULE_BASE = re.compile(r"(^|\.)(Module|Sequential|ModuleList|ModuleDict)$|Module$|Model$|Net$|Layer$|Block$|Loss$")
_MODULE_METHODS = frozenset({"parameters", "named_parameters", "train", "eval", "state_dict", "modules", "children"})
_EXCLUDED_BASE = re.compile(r"(^|\.)(Optimizer|Function|InplaceFunction|LRScheduler|_LRScheduler)$")
#: Loss modules whose backward reads their inputs (cross-entropy saves only its own log-softmax).
_INPUT_SAVING_LOSSES = frozenset(
    {"MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "BCELoss", "BCEWithLogitsLoss", "KLDivLoss", "NLLLoss",
     "CosineEmbeddingLoss", "GaussianNLLLoss", "PoissonNLLLoss"}
)

FunctionNode = Union[cst.FunctionDef, cst.Module]
#: Reasons of a write that only the caller observes: autograd itself does not object.
CALLER_REASONS = frozenset({"argument", "argument-view"})
#: Names of every call ``_inplace_ops`` can take for an in-place write (methods and functions).
_INPLACE_CALL_NAMES = (
    frozenset(INPLACE_METHODS)
    | frozenset(TORCH_INPLACE_FUNCTIONS)
    | frozenset(FUNCTIONAL_INPLACE_FUNCTIONS)
    | frozenset(FUNCTIONAL_INPLACE_PARAMETER)
)


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class InplaceEvent:
    """One in-place write that autograd or the caller can observe."""

    #: The operation: a ``Call``, an ``AugAssign`` or an ``Assign`` to a subscript.
    node: cst.CSTNode
    #: ``method`` (``x.relu_()``), ``function`` (``torch.relu_(x)``), ``functional``
    #: (``F.relu(x, inplace=True)``), ``module`` (``self.act(x)`` built with
    #: ``inplace=True``), ``augassign`` or ``setitem``.
    form: str
    target: str
    #: What autograd objects to: ``leaf``, ``saved``, ``view`` (of a saved tensor or a
    #: leaf) or ``alias`` (read afterwards); or what only the caller observes
    #: (:data:`CALLER_REASONS`): ``argument``, ``argument-view``.
    reason: str
    #: Words for the message (which op saved the value, whose argument …).
    detail: str
    #: The small statement holding the operation, and its line.
    small: Optional[cst.BaseSmallStatement]
    line: Optional[cst.SimpleStatementLine]
    #: Someone outside this name sees the write (caller, alias, container, global).
    visible: bool
    #: The target name is read later in the function before being rebound.
    read_after: bool
    #: Plain aliases of the target read after the write (they see the new value).
    aliases_read: Tuple[str, ...] = ()
    #: For ``x[mask] = v``: (mask, v) when ``x.masked_fill(mask, v)`` is exact.
    masked_fill: Optional[Tuple[cst.BaseExpression, cst.BaseExpression]] = None
    #: Autograd has no objection here: only the caller sees its tensor change (AF107, not AF103).
    caller_only: bool = False


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


@dataclass
class _Unit:
    """A small statement (or a compound statement's header) in source order."""

    node: cst.CSTNode
    line: Optional[cst.SimpleStatementLine]
    quiet: bool  # under no_grad, or guarded by an ``inplace`` flag


@dataclass
class _Scope:
    node: FunctionNode
    cls: Optional[cst.ClassDef]
    #: parameter name -> is a tensor (True), may be one (None), is not (False)
    params: Dict[str, Optional[bool]] = field(default_factory=dict)
    caller_visible: bool = False
    #: the arguments may require grad (a forward's, or a helper's called from one)
    grad: bool = False


# --------------------------------------------------------------------------- entry point


def inplace_events(context: RuleContext) -> List[InplaceEvent]:
    return context.fact("af103_inplace_events", lambda: _Analysis(context).run())


def torch_alias(module: cst.Module) -> Optional[str]:
    """The name ``import torch`` is bound to at module level, if any."""
    for stmt in module.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Import):
                    for alias in small.names:
                        if isinstance(alias.name, cst.Name) and alias.name.value == "torch":
                            return alias.asname.name.value if alias.asname else "torch"  # type: ignore[union-attr]
    return None


# --------------------------------------------------------------------------- discovery


class _Analysis:
    def __init__(self, context: RuleContext) -> None:
        self.context = context
        self.module = context.module
        self.torch = torch_alias(self.module)
        self.disabled = grad_disabled_nodes(context)
        self.functions: Dict[str, cst.FunctionDef] = {}
        self.methods: Dict[Tuple[cst.ClassDef, str], cst.FunctionDef] = {}
        self.owner: Dict[cst.FunctionDef, Optional[cst.ClassDef]] = {}
        self.module_ctor: Dict[str, str] = {}  # dotted target -> constructor's last name
        self.classes: Dict[str, cst.ClassDef] = {}
        self.inplace_modules: Set[str] = set()  # dotted targets bound to nn.X(inplace=True)
        #: (class, ``self.<attr>``) -> what the model says saved that module's output
        self._outputs: Dict[Tuple[int, str], Optional[str]] = {}
        self.parameters: Set[str] = set()  # dotted targets bound to nn.Parameter(...)
        self.global_reads: Set[str] = set()
        self.class_names: Set[str] = set()
        self.mutating: Dict[cst.FunctionDef, Dict[str, int]] = {}
        #: helpers called somewhere with an argument that requires grad (a loss on model outputs)
        self.grad_callees: Set[cst.FunctionDef] = set()
        self.ids = itertools.count()
        self._writes_memo: Dict[FunctionNode, bool] = {}
        # Each statement is searched several times (writes, saves, escapes, backward calls).
        self._local: Dict[int, List[cst.CSTNode]] = {}
        self._calls: Dict[int, List[cst.Call]] = {}

    def local(self, node: cst.CSTNode) -> List[cst.CSTNode]:
        """``walk_local(node)``, memoised for the analysis (the tree is immutable)."""
        found = self._local.get(id(node))
        if found is None:
            found = self._local[id(node)] = list(_walk(node))
        return found

    def calls(self, node: cst.CSTNode) -> List[cst.Call]:
        """The calls in ``node``, innermost first (``f(g(x))`` yields ``g`` before ``f``)."""
        found = self._calls.get(id(node))
        if found is None:
            found = self._calls[id(node)] = [n for n in reversed(self.local(node)) if isinstance(n, cst.Call)]
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
            events.extend(walker.walk())
            for callee in walker.grad_callees:
                self.grad_callees.add(callee)
        return events

    def _may_write(self, scope: _Scope) -> bool:
        """Does the scope's own code, or a helper it calls (transitively), spell an in-place write?"""
        found = self._writes_memo.get(scope.node)
        if found is None:
            self._writes_memo[scope.node] = False  # recursion guard
            index = module_index(self.context)
            found = id(scope.node) in index.own_item_writes or any(
                self._spells_inplace_call(call) for call in index.calls_of(scope.node)
            )
            if not found:
                found = any(
                    self._may_write(_Scope(callee, self.owner.get(callee))) for callee in self._callees(scope)
                )
            self._writes_memo[scope.node] = found
        return found

    def _spells_inplace_call(self, call: cst.Call) -> bool:
        """A call ``_inplace_ops`` may take for a write (a superset: names only)."""
        func = call.func
        if isinstance(func, cst.Attribute):
            name = func.attr.value
            if isinstance(func.value, cst.Name) and func.value.value == "self" and name in self._inplace_attrs:
                return True
        elif isinstance(func, cst.Name):
            name = func.value
        else:
            return False
        if name in _INPLACE_CALL_NAMES:
            return True
        if (dotted_name(func) or "").split(".")[0] in import_aliases(self.context) and any(
            q.split(".")[0] not in LIBRARIES and "." in q for q in qualified_names(self.context, func)
        ):
            return True  # ``helper(x)``, ``utils.helper(x)`` from the project: the program model knows what it writes
        # ``from torch.nn.functional import relu as r``: the name is an alias.
        return any(q.rsplit(".", 1)[-1] in _INPLACE_CALL_NAMES for q in qualified_names(self.context, func))

    # Every def, every ``x = Ctor(...)`` in the module, every global read from a def.
    def _index(self) -> None:
        index = module_index(self.context)
        self._inplace_attrs: Set[str] = set()
        self.class_names.update(cls.name.value for cls in index.classes)
        self.classes.update((cls.name.value, cls) for cls in index.classes)
        self.global_reads = index.names_in_functions
        for node, cls in index.functions:
            if cls is not None and node in cls.body.body:
                self.methods[(cls, node.name.value)] = node
                self.owner[node] = cls
            elif node in self.module.body:
                self.functions[node.name.value] = node
                self.owner[node] = None
        for assign, cls in index.assigns:
            if not isinstance(assign.value, cst.Call):
                continue
            ctor = dotted_name(assign.value.func) or ""
            last = ctor.rsplit(".", 1)[-1]
            if not last[:1].isupper():
                continue
            for target in assign.targets:
                name = dotted_name(target.target)
                if not name:
                    continue
                if name.startswith("self.") and cls is not None:
                    # self.act means a different module in every class.
                    name = f"{cls.name.value}.{name}"
                self.module_ctor[name] = last
                if last == "Parameter":
                    self.parameters.add(name)
                if last in INPLACE_MODULES and _inplace_requested(assign.value, INPLACE_MODULES[last]):
                    self.inplace_modules.add(name)
                    self._inplace_attrs.add(name.rsplit(".", 1)[-1])

    def _excluded(self, func: cst.FunctionDef) -> bool:
        if INIT_NAME.search(func.name.value):
            return True
        if any(disables_grad(self.context, d.decorator) for d in func.decorators):
            return True
        names = [p.name.value for p in _all_params(func)]
        if "inplace" in names:
            return True  # the caller chose in-place explicitly
        if names[:1] == ["ctx"]:
            return True  # autograd.Function.forward/backward run without grad recording
        cls = self.owner.get(func)
        return cls is not None and self._excluded_class(cls)

    def _excluded_class(self, cls: cst.ClassDef) -> bool:
        for base in cls.bases:
            names = qualified_names(self.context, base.value) | {dotted_name(base.value) or ""}
            if any(_EXCLUDED_BASE.search(n) for n in names):
                return True
        return False

    def _scopes(self) -> Iterator[_Scope]:
        # A forward's arguments belong to whoever called the module; a training
        # step's arguments are a model, a loader, an optimizer.
        roots: List[_Scope] = []
        for (cls, name), func in self.methods.items():
            if name == "forward" and not self._excluded(func):
                roots.append(self._scope(func, cls, caller_visible=True, grad=True))
        for func in list(self.functions.values()) + list(self.methods.values()):
            if not self._excluded(func) and func.name.value != "forward" and _has_backward(self.context, func):
                roots.append(self._scope(func, self.owner.get(func), caller_visible=False, grad=False))
        if _has_backward(self.context, self.module):
            roots.append(_Scope(self.module, None))
        seen: Set[FunctionNode] = set()
        queue = list(roots)
        while queue:
            scope = queue.pop(0)
            if scope.node in seen:
                continue
            seen.add(scope.node)
            yield scope
            # Helpers called from autograd code run under autograd too. Their
            # writes to their own arguments are judged where they are called.
            for callee in self._callees(scope):
                if callee not in seen and not self._excluded(callee):
                    grad = scope.grad or callee in self.grad_callees
                    queue.append(self._scope(callee, self.owner.get(callee), caller_visible=False, grad=grad))

    def module_output(self, cls: Optional[cst.ClassDef], dotted: str) -> Optional[str]:
        """What saved the output of calling ``self.<attr>`` (an activation, a Sequential or block ending
        in one, a configurable op): the program model's :meth:`ModuleModel.module_output`."""
        if cls is None or not dotted.startswith("self.") or dotted.count(".") != 1:
            return None
        key = (id(cls), dotted)
        if key not in self._outputs:
            summary = class_summary(self.context, cls)
            self._outputs[key] = self.context.model.module_output(summary, dotted[len("self."):]) if summary is not None else None
        return self._outputs[key]

    def is_module_name(self, name: str) -> bool:
        """A name used as an ``nn.Module`` somewhere (``model.parameters()``, ``model.train()`` …)."""
        return bool(optimizer_facts(self.context).methods.get(name, set()) & _MODULE_METHODS)

    def mutated_params(self, func: cst.FunctionDef) -> Dict[str, int]:
        """The parameters (name -> position) a helper, or a module's forward, writes to in place."""
        if func in self.mutating:
            return self.mutating[func]
        self.mutating[func] = {}  # recursion guard
        if self._excluded(func):
            return {}
        scope = self._scope(func, self.owner.get(func), caller_visible=True, grad=True)
        walker = _Walker(self, scope)
        walker.walk()
        positions = {name: i for i, name in enumerate(scope.params)}
        self.mutating[func] = {n: positions[n] for n in walker.param_writes if n in positions}
        return self.mutating[func]

    def _scope(self, func: cst.FunctionDef, cls: Optional[cst.ClassDef], caller_visible: bool, grad: bool) -> _Scope:
        scope = _Scope(func, cls, caller_visible=caller_visible, grad=grad)
        params = _all_params(func)
        if cls is not None and not _is_static(func) and params:
            params = params[1:]
        for i, param in enumerate(params):
            scope.params[param.name.value] = _tensor_param(param, first=(i == 0 and func.name.value == "forward"))
        return scope

    def _callees(self, scope: _Scope) -> Iterator[cst.FunctionDef]:
        # Innermost call first, as the walk meets them (``f(g(x))``: g, then f),
        # statement by statement for the module.
        if isinstance(scope.node, cst.Module):
            top = [s for s in scope.node.body if not isinstance(s, (cst.FunctionDef, cst.ClassDef))]
            calls: Iterable[cst.Call] = (c for s in top for c in _calls(s))
        else:
            calls = reversed(module_index(self.context).calls_of(scope.node))
        for call in calls:
            func = call.func
            if isinstance(func, cst.Name) and func.value in self.functions:
                yield self.functions[func.value]
            elif (
                scope.cls is not None
                and isinstance(func, cst.Attribute)
                and isinstance(func.value, cst.Name)
                and func.value.value == "self"
                and (scope.cls, func.attr.value) in self.methods
            ):
                yield self.methods[(scope.cls, func.attr.value)]
            else:
                forward = self.module_forward(call, scope.cls)
                if forward is not None:
                    yield forward

    def module_forward(self, call: cst.Call, cls: Optional[cst.ClassDef]) -> Optional[cst.FunctionDef]:
        """The ``forward`` that runs for ``self.block(x)`` or ``block(x)``, the module's class being of this file."""
        dotted = dotted_name(call.func)
        if dotted is None:
            return None
        key = f"{cls.name.value}.{dotted}" if dotted.startswith("self.") and cls is not None else dotted
        ctor = self.module_ctor.get(key)
        owner = self.classes.get(ctor) if ctor is not None else None
        return self.methods.get((owner, "forward")) if owner is not None else None


# --------------------------------------------------------------------------- the walk


class _Walker:
    def __init__(self, analysis: _Analysis, scope: _Scope) -> None:
        self.a = analysis
        self.scope = scope
        self.state: Dict[str, _Binding] = {}
        self.units: List[_Unit] = []
        self.events: List[InplaceEvent] = []
        #: (binding ident, caller_only) already reported
        self.reported: Set[Tuple[int, bool]] = set()
        self.is_module = isinstance(scope.node, cst.Module)
        self.skip_names: Set[str] = set()
        #: the parameters written in place, directly or through an alias (``y = x; y.add_(1)``)
        self.param_writes: Set[str] = set()
        #: a parameter's binding ident -> its name (an alias keeps the ident)
        self.param_idents: Dict[int, str] = {}
        self.grad_callees: Set[cst.FunctionDef] = set()
        self.backward_units: List[int] = []
        #: index of a loop's header unit -> the end (exclusive) of its body's units
        self.loops: Dict[int, int] = {}
        #: (op node, caller_only) already reported: a loop body is walked twice
        self.emitted: Set[Tuple[int, bool]] = set()

    def _key(self, dotted: Optional[str]) -> Optional[str]:
        if dotted is not None and dotted.startswith("self.") and self.scope.cls is not None:
            return f"{self.scope.cls.name.value}.{dotted}"
        return dotted

    def new_id(self) -> int:
        return next(self.a.ids)

    def walk(self) -> List[InplaceEvent]:
        for name, tensor in self.scope.params.items():
            visible = self.scope.caller_visible and tensor is not False
            grad = self.scope.grad and tensor is not False
            self.state[name] = _Binding("param" if visible else "value", bool(tensor), grad, self.new_id())
            self.param_idents[self.state[name].ident] = name
        node = self.scope.node
        if isinstance(node, cst.Module):
            body: List[cst.CSTNode] = [s for s in node.body if not isinstance(s, (cst.FunctionDef, cst.ClassDef))]
        else:
            body = list(node.body.body) if isinstance(node.body, cst.IndentedBlock) else [node.body]
        for stmt in body:
            self._flatten(stmt, quiet=False)
        self.backward_units = [
            i for i, u in enumerate(self.units) if not isinstance(u.node, (cst.For, cst.With)) and self._backward_in(u.node)
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

    def _flatten(self, node: cst.CSTNode, quiet: bool) -> None:
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            return
        if isinstance(node, (cst.Global, cst.Nonlocal)):
            self.skip_names.update(n.name.value for n in node.names)
            return
        if isinstance(node, cst.SimpleStatementLine):
            for small in node.body:
                if isinstance(small, (cst.Global, cst.Nonlocal)):
                    self.skip_names.update(n.name.value for n in small.names)
                self.units.append(_Unit(small, node, quiet))
            return
        if isinstance(node, cst.If):
            self.units.append(_Unit(node.test, None, quiet))
            guarded = quiet or _mentions_inplace(node.test)
            # Inference-only branches (`if not self.training:`) run under no_grad in practice.
            training = _tests_training(node.test)
            self._block(node.body, guarded or training is False)
            if node.orelse is not None:
                if isinstance(node.orelse, cst.If):
                    self._flatten(node.orelse, guarded or training is True)
                else:
                    self._block(node.orelse.body, guarded or training is True)
            return
        if isinstance(node, (cst.For, cst.While)):
            header = node.iter if isinstance(node, cst.For) else node.test
            self.units.append(_Unit(node if isinstance(node, cst.For) else header, None, quiet))
            head = len(self.units) - 1
            self._block(node.body, quiet)
            self.loops[head] = len(self.units)
            if node.orelse is not None:
                self._block(node.orelse.body, quiet)
            return
        if isinstance(node, cst.With):
            off = any(disables_grad(self.a.context, item.item) for item in node.items)
            self.units.append(_Unit(node, None, quiet))
            self._block(node.body, quiet or off or node.body in self.a.disabled)
            return
        if isinstance(node, cst.Try):
            self._block(node.body, quiet)
            for handler in node.handlers:
                self._block(handler.body, quiet)
            if node.orelse is not None:
                self._block(node.orelse.body, quiet)
            if node.finalbody is not None:
                self._block(node.finalbody.body, quiet)
            return
        # match statements and anything newer: leave alone.

    def _block(self, block: cst.BaseSuite, quiet: bool) -> None:
        if isinstance(block, cst.IndentedBlock):
            for stmt in block.body:
                self._flatten(stmt, quiet)
        elif isinstance(block, cst.SimpleStatementSuite):
            for small in block.body:
                self.units.append(_Unit(small, None, quiet))

    # ---- one unit: judge its in-place ops, then record what it saves and binds

    def _step(self, index: int, unit: _Unit) -> None:
        node = unit.node
        if isinstance(node, cst.For):
            self._bind_for(node)
            return
        if isinstance(node, cst.With):
            for item in node.items:
                if item.asname is not None:
                    self._unbind(item.asname.name)
            return
        if not unit.quiet:
            for op in self._inplace_ops(node):
                self._judge(index, unit, *op)
        if self._backward_in(node):
            # backward() has consumed what was saved so far.
            for binding in self.state.values():
                binding.saved = binding.output_of = None
        if not unit.quiet:
            self._record_saves(node)
            for call in self.a.calls(node):
                callee = self._callee(call)
                if callee is not None and self._backward_follows(index) and any(self._grad(a.value) for a in call.args):
                    self.grad_callees.add(callee)
        self._record_escapes(node)
        self._bind(node)

    def _backward_follows(self, index: int) -> bool:
        """Can a backward() still traverse what unit ``index`` does?

        In a forward or its helpers backward runs later, elsewhere. In a training
        step it must come later in the step: metrics computed after
        ``loss.backward()`` build graphs nobody back-propagates.
        """
        return not self.backward_units or self.backward_units[-1] > index

    def _backward_in(self, node: cst.CSTNode) -> bool:
        return any(is_backward_call(self.a.context, call) for call in self.a.calls(node))

    # ---- finding in-place ops

    def _inplace_ops(self, node: cst.CSTNode) -> Iterator[Tuple[cst.CSTNode, str, str]]:
        """(op node, form, target name) for every in-place write in ``node``."""
        if isinstance(node, cst.AugAssign) and isinstance(node.target, cst.Name):
            yield node, "augassign", node.target.value
        if isinstance(node, (cst.AugAssign, cst.Assign)):
            targets = [node.target] if isinstance(node, cst.AugAssign) else [t.target for t in node.targets]
            for target in targets:
                if isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name):
                    yield node, "setitem", target.value.value
        chained: Set[cst.Call] = set()
        guarded: Set[cst.CSTNode] = set()
        for n in self.a.local(node):
            if isinstance(n, cst.IfExp) and _mentions_inplace(n.test):
                guarded.update(self.a.local(n))  # `x.mul_(g) if self.inplace else x * g`
        # Outermost first, so that a chain x.mul_(a).add_(b) is met at its last link.
        for call in [n for n in self.a.local(node) if isinstance(n, cst.Call)]:
            if call in chained or call in guarded:
                continue
            callee = self._callee(call) or self._module_forward(call)
            elsewhere = self._project_writes(call) if callee is None else None
            if elsewhere is not None:
                for position, arg in enumerate(call.args):
                    if not arg.star and arg.keyword is None and isinstance(arg.value, cst.Name) and position in elsewhere:
                        yield call, "call", arg.value.value
                continue
            if callee is not None:
                written = self.a.mutated_params(callee)
                for position, arg in enumerate(call.args):
                    if arg.star or not isinstance(arg.value, cst.Name):
                        continue
                    if (arg.keyword is None and position in written.values()) or (
                        arg.keyword is not None and arg.keyword.value in written
                    ):
                        yield call, "call", arg.value.value
                continue
            func = call.func
            if (
                isinstance(func, cst.Attribute)
                and func.attr.value in INPLACE_METHODS
                and not (isinstance(func.value, cst.Name) and self._is_module_name(func.value.value))
            ):
                receiver = func.value
                # x.mul_(a).add_(b): one chain of writes to x, judged once.
                while (
                    isinstance(receiver, cst.Call)
                    and isinstance(receiver.func, cst.Attribute)
                    and receiver.func.attr.value in INPLACE_METHODS
                ):
                    chained.add(receiver)
                    receiver = receiver.func.value
                if isinstance(receiver, cst.Name):
                    yield call, "method", receiver.value
                continue
            qname = self._torch_name(func)
            first = call.args[0].value if call.args else None
            if qname is None or not isinstance(first, cst.Name):
                if (
                    isinstance(func, cst.Attribute)
                    and isinstance(func.value, cst.Name)
                    and func.value.value == "self"
                    and self._key(dotted_name(func)) in self.a.inplace_modules
                    and len(call.args) == 1
                    and isinstance(first, cst.Name)
                ):
                    yield call, "module", first.value
                continue
            receiver_name = first.value
            space, _, name = qname.rpartition(".")
            if space == "torch" and name in TORCH_INPLACE_FUNCTIONS:
                yield call, "function", receiver_name
            elif space == "torch.nn.functional" and name in FUNCTIONAL_INPLACE_FUNCTIONS:
                yield call, "function", receiver_name
            elif space == "torch.nn.functional" and name in FUNCTIONAL_INPLACE_PARAMETER:
                if _inplace_requested(call, FUNCTIONAL_INPLACE_PARAMETER[name]):
                    yield call, "functional", receiver_name

    def _callee(self, call: cst.Call) -> Optional[cst.FunctionDef]:
        func = call.func
        if isinstance(func, cst.Name):
            return self.a.functions.get(func.value)
        if (
            self.scope.cls is not None
            and isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.value.value == "self"
        ):
            return self.a.methods.get((self.scope.cls, func.attr.value))
        return None

    def _project_writes(self, call: cst.Call) -> Optional[Set[int]]:
        """Positions of the arguments a function of another project module writes in place
        (the program model's ``inplace_params``); None when the callee is not one."""
        spelled = dotted_name(call.func)
        if spelled is None or spelled.startswith("self.") and self.scope.cls is None:
            return None
        model = self.a.context.model
        node = self.scope.node
        if isinstance(node, cst.Module):
            qualname = "<module>"
        else:
            qualname = f"{self.scope.cls.name.value}.{node.name.value}" if self.scope.cls is not None else node.name.value
        caller = model.function(qualname)
        if caller is None:
            return None
        written = model.call_writes(model.callee(caller, spelled), caller.module)
        return set(written) if written else None

    def _module_forward(self, call: cst.Call) -> Optional[cst.FunctionDef]:
        return self.a.module_forward(call, self.scope.cls)

    def _is_module_name(self, name: str) -> bool:
        return name in ("torch", "F", "nn", "np", "math") or name == self.a.torch

    def _torch_name(self, func: cst.BaseExpression) -> Optional[str]:
        for name in qualified_names(self.a.context, func):
            if name.startswith("torch."):
                return name
        dotted = dotted_name(func) or ""
        if dotted.startswith("F."):
            return "torch.nn.functional." + dotted[2:]
        return None

    # ---- judging one write

    def _judge(self, index: int, unit: _Unit, op: cst.CSTNode, form: str, target: str) -> None:
        if target in self.skip_names or target == "self":
            return
        binding = self.state.get(target)
        if binding is None:
            # Only writes that read their own gradient prove a leaf: p -= lr * p.grad.
            if _reads_grad_of(op, target):
                self._emit(index, unit, op, form, target, "leaf", "it is a leaf tensor that requires grad (its `.grad` is read)", False)
            return
        if form in ("augassign", "setitem") and not binding.tensor:
            return
        if binding.kind == "attr":
            return
        if binding.kind == "param":
            self.param_writes.add(self.param_idents.get(binding.ident, target))
        # What autograd rejects or a later backward reads wrongly comes first; a
        # write only the caller observes is a finding of its own kind.
        judged = self._autograd_reason(index, op, target, binding)
        if judged is None:
            judged = self._caller_reason(index, target, binding)
        if judged is None:
            return
        reason, detail, base = judged
        caller_only = reason in CALLER_REASONS
        if caller_only and form == "call" and isinstance(op, cst.Call) and self._module_forward(op) is not None:
            return  # a forward's write to its argument is reported in that forward

        if (binding.ident, caller_only) in self.reported:
            return
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
            or self._has_views(binding)
            or (self.is_module and target in self.a.global_reads)
        )
        self._emit(index, unit, op, form, target, reason, detail, visible, aliases_read)

    def _autograd_reason(
        self, index: int, op: cst.CSTNode, target: str, binding: _Binding
    ) -> Optional[Tuple[str, str, Optional[_Binding]]]:
        """Why autograd rejects the write, or why a later read of the value is wrong; None when neither."""
        if binding.kind == "leaf" or _reads_grad_of(op, target):
            return "leaf", "it is a leaf tensor that requires grad", None
        # A fresh tensor (``torch.zeros``) autograd saved for another operand's gradient
        # (``b * w``) is checked by backward whether or not it requires grad itself.
        if self._saved(binding) and (binding.grad or binding.kind == "fresh") and self._backward_follows(index):
            return "saved", f"autograd saved it as {binding.saved} for backward", None
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

    def _emit(self, index, unit, op, form, target, reason, detail, visible, aliases_read=()) -> None:
        key = (id(op), reason in CALLER_REASONS)
        if key in self.emitted:
            return
        self.emitted.add(key)
        self.events.append(
            InplaceEvent(
                node=op,
                form=form,
                target=target,
                reason=reason,
                detail=detail,
                small=unit.node if isinstance(unit.node, cst.BaseSmallStatement) else None,
                line=unit.line,
                visible=bool(visible) or reason == "leaf",
                caller_only=reason in CALLER_REASONS,
                read_after=self._read_after(index, target),
                aliases_read=tuple(aliases_read),
                masked_fill=self._masked_fill(op, target) if form == "setitem" else None,
            )
        )

    def _masked_fill(self, op: cst.CSTNode, target: str) -> Optional[Tuple[cst.BaseExpression, cst.BaseExpression]]:
        # masked_fill broadcasts the mask from the right while x[mask] indexes
        # from the left: equal only for a mask of x's own shape and a scalar.
        if not isinstance(op, cst.Assign) or len(op.targets) != 1 or not _scalar(op.value):
            return None
        sub = op.targets[0].target
        if not isinstance(sub, cst.Subscript) or len(sub.slice) != 1 or not isinstance(sub.slice[0].slice, cst.Index):
            return None
        mask = sub.slice[0].slice.value
        binding = self.state.get(target)
        if binding is None:
            return None
        if isinstance(mask, cst.Name) and mask.value in self.state and self.state[mask.value].mask_of == binding.ident:
            return mask, op.value
        if self._value(mask).mask_of == binding.ident:
            return mask, op.value
        return None

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

    def _record_saves(self, node: cst.CSTNode) -> None:
        for expr in self.a.local(node):
            if isinstance(expr, cst.BinaryOperation):
                op = expr.operator
                if isinstance(op, (cst.Multiply, cst.MatrixMultiply)):
                    self._save_partners(expr.left, expr.right, "an input of `*`" if isinstance(op, cst.Multiply) else "an input of `@`")
                elif isinstance(op, cst.Divide):
                    self._save_partners(expr.left, expr.right, "an input of `/`", divide=True)
                elif isinstance(op, cst.Power):
                    self._save_if_grad(expr.left, "the input of `**`")
            elif isinstance(expr, cst.Call):
                self._call_saves(expr)

    def _call_saves(self, call: cst.Call) -> None:
        func = call.func
        args = [a.value for a in call.args if a.keyword is None and a.star == ""]
        name = None
        receiver: Optional[cst.BaseExpression] = None
        qname = self._torch_name(func)
        if qname is not None:
            name = qname.rsplit(".", 1)[-1]
            if name in ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose2d") and args:
                # The weight requires grad: the input is saved unconditionally.
                self._save(args[0], f"the input of `{name}`")
                return
        elif isinstance(func, cst.Attribute):
            receiver = func.value
            name = func.attr.value
            dotted = dotted_name(func)
            ctor = self.a.module_ctor.get(self._key(dotted) or "") if dotted is not None else None
            if dotted is not None and ctor is not None:
                self._module_call_saves(ctor, dotted, args)
                return
            if dotted is not None and dotted.startswith("self.") and dotted.count(".") == 1 and args:
                return  # a submodule built elsewhere: unknown, stay silent
        elif isinstance(func, cst.Name) and func.value in self.a.module_ctor:
            self._module_call_saves(self.a.module_ctor[func.value], func.value, args)
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

    def _module_call_saves(self, ctor: str, dotted: str, args: List[cst.BaseExpression]) -> None:
        if not args or ctor in QUIET_MODULES or ctor in OUTPUT_SAVING_MODULES:
            return
        what = f"the input of `{dotted}` ({ctor})"
        if ctor in PARAMETRIC_MODULES:
            self._save(args[0], what)
        elif ctor.endswith("Loss"):
            if ctor in _INPUT_SAVING_LOSSES or ctor in self.a.class_names:
                for arg in args[:2]:
                    self._save_if_grad(arg, what)
        elif ctor in INPLACE_MODULES or ctor.endswith(("Pool1d", "Pool2d", "Pool3d")):
            self._save_if_grad(args[0], what)
        elif ctor in self.a.class_names or ctor == "Sequential":
            # A model of the user's own: its first layer keeps the input.
            self._save(args[0], f"the input of `{dotted}`")

    def _save_partners(self, left, right, what: str, divide: bool = False) -> None:
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

    def _save_if_grad(self, expr, what: str) -> None:
        if self._grad(expr):
            self._save(expr, what)

    def _save(self, expr, what: str) -> None:
        if isinstance(expr, cst.Name):
            binding = self.state.get(expr.value)
            if binding is not None and binding.tensor and self._saved(binding) is None and binding.kind != "attr":
                binding.saved = what
                if binding.view_of is not None:
                    base = self._base(binding)
                    if base is not None and self._saved(base) is None:
                        base.saved = what + f" (through the view `{expr.value}`)"

    def _grad(self, expr: cst.BaseExpression) -> bool:
        """Does ``expr`` (probably) require grad?"""
        if isinstance(expr, cst.Name):
            binding = self.state.get(expr.value)
            return binding is not None and binding.grad
        if isinstance(expr, cst.Attribute):
            return self._key(dotted_name(expr)) in self.a.parameters
        return self._value(expr).grad

    # ---- escapes: the tensor is stored where the fix cannot follow it

    def _record_escapes(self, node: cst.CSTNode) -> None:
        stored: List[cst.BaseExpression] = []
        if isinstance(node, (cst.Assign, cst.AnnAssign)):
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            if node.value is not None and any(isinstance(t, (cst.Attribute, cst.Subscript)) for t in targets):
                stored.append(node.value)
        for expr in self.a.local(node):
            if isinstance(expr, (cst.List, cst.Tuple, cst.Set, cst.Dict)):
                stored.append(expr)
            elif isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
                if expr.func.attr.value in ("append", "extend", "insert", "add", "update", "setdefault", "put"):
                    stored.extend(a.value for a in expr.args)
            elif isinstance(expr, cst.Yield) and expr.value is not None:
                stored.append(expr.value)  # type: ignore[arg-type]
        for expr in stored:
            for name in _loads(expr):
                binding = self.state.get(name)
                if binding is not None:
                    binding.escaped = True

    # ---- bindings

    def _bind_for(self, node: cst.For) -> None:
        iterated = node.iter
        leafy = isinstance(iterated, cst.Call) and isinstance(iterated.func, cst.Attribute) and iterated.func.attr.value == "parameters"
        for name in _target_names(node.target):
            self.state[name] = _Binding("value", leafy, False, self.new_id())

    def _unbind(self, target: cst.BaseExpression) -> None:
        for name in _target_names(target):
            self.state[name] = _Binding("value", False, False, self.new_id())

    def _bind(self, node: cst.CSTNode) -> None:
        if isinstance(node, cst.Del):
            for name in _target_names(node.target):
                self.state.pop(name, None)
            return
        for expr in self.a.local(node):
            if isinstance(expr, cst.NamedExpr) and isinstance(expr.target, cst.Name):
                self.state[expr.target.value] = self._value(expr.value)
        if isinstance(node, cst.AnnAssign) and node.value is not None:
            targets = [node.target]
            value = node.value
        elif isinstance(node, cst.Assign):
            targets = [t.target for t in node.targets]
            value = node.value
        else:
            return
        for target in targets:
            if isinstance(target, cst.Name):
                self.state[target.value] = self._value(value, name_hint=target.value)
            elif isinstance(target, (cst.Tuple, cst.List)):
                result = self._value(value)
                for name in _target_names(target):
                    self.state[name] = _Binding("value", result.tensor, result.grad, self.new_id())

    def _value(self, expr: cst.BaseExpression, name_hint: Optional[str] = None) -> _Binding:
        """A binding describing what ``expr`` evaluates to."""
        fresh_id = self.new_id()
        if isinstance(expr, cst.Name):
            source = self.state.get(expr.value)
            if source is None:
                return _Binding("value", False, False, fresh_id)
            return replace(source)  # a plain alias: same object
        if isinstance(expr, (cst.Attribute,)):
            parameter = self._key(dotted_name(expr)) in self.a.parameters
            return _Binding("attr", parameter, parameter, fresh_id)
        if isinstance(expr, cst.Subscript):
            base = expr.value
            if isinstance(base, cst.Name) and base.value in self.state:
                source = self.state[base.value]
                if source.tensor and _basic_index(expr):
                    return _Binding("value", True, source.grad, fresh_id, view_of=source.ident, via=base.value)
                return _Binding("value", source.tensor and False, source.grad, fresh_id)
            return _Binding("value", False, False, fresh_id)
        if isinstance(expr, cst.BinaryOperation):
            left, right = self._value(expr.left), self._value(expr.right)
            return _Binding("value", left.tensor or right.tensor, left.grad or right.grad, fresh_id)
        if isinstance(expr, cst.Comparison):
            compared = expr.left
            if (
                isinstance(compared, cst.Name)
                and compared.value in self.state
                and self.state[compared.value].tensor
                and all(_scalar(c.comparator) for c in expr.comparisons)
            ):
                return _Binding("value", True, False, fresh_id, mask_of=self.state[compared.value].ident)
            return _Binding("value", False, False, fresh_id)
        if isinstance(expr, cst.UnaryOperation):
            inner = self._value(expr.expression)
            return _Binding("value", inner.tensor, inner.grad, fresh_id)
        if isinstance(expr, cst.Call):
            return self._call_value(expr, fresh_id)
        return _Binding("value", False, False, fresh_id)

    def _call_value(self, call: cst.Call, fresh_id: int) -> _Binding:
        func = call.func
        args = [a.value for a in call.args if a.keyword is None and a.star == ""]
        arg_grad = any(self._grad(a) for a in args)
        qname = self._torch_name(func)
        if qname is not None:
            space, _, name = qname.rpartition(".")
            if name == "Parameter":
                return _Binding("leaf", True, True, fresh_id)
            if name in FACTORIES and space == "torch":
                requires = keyword(call, "requires_grad")
                if requires is not None and isinstance(requires.value, cst.Name) and requires.value.value == "True":
                    return _Binding("leaf", True, True, fresh_id)
                return _Binding("fresh", True, False, fresh_id)
            saved = f"the output of `{name}`" if name in SAVES_OUTPUT else None
            tensor = not name.startswith(("is_", "numel", "get_")) and space.startswith("torch")
            return _Binding("value", tensor, arg_grad, fresh_id, saved=saved if arg_grad else None)
        if isinstance(func, cst.Attribute):
            name = func.attr.value
            dotted = dotted_name(func)
            ctor = self.a.module_ctor.get(self._key(dotted) or "") if dotted is not None else None
            if dotted is not None and ctor is not None:
                grad = ctor in PARAMETRIC_MODULES or arg_grad or ctor not in QUIET_MODULES
                return _Binding("value", True, grad, fresh_id, output_of=dotted if grad else None)
            if dotted is not None and dotted.startswith("self.") and dotted.count(".") == 1:
                method = (self.scope.cls, name) if self.scope.cls is not None else None
                if method in self.a.methods:
                    return _Binding("value", False, arg_grad, fresh_id)
                # A submodule (its output requires grad) or a configurable op, perhaps set by a base
                # class in another file: the model says whether either saves its output.
                return _Binding("value", True, True, fresh_id, output_of=dotted if arg_grad else None)
            receiver = self._value(func.value) if not isinstance(func.value, cst.Name) else self.state.get(func.value.value)
            if receiver is None or not (receiver.tensor or receiver.grad):
                return _Binding("value", False, False, fresh_id)  # requiring grad implies a tensor
            if name in NON_TENSOR_METHODS:
                return _Binding("value", False, False, fresh_id)
            if name in FRESH_METHODS:
                grad = receiver.grad and name == "clone"
                return _Binding("fresh", True, grad, fresh_id)
            if name in VIEW_METHODS and isinstance(func.value, cst.Name):
                grad = receiver.grad and name != "detach"
                return _Binding("value", True, grad, fresh_id, view_of=receiver.ident, via=func.value.value)
            if name in INPLACE_METHODS:
                return replace(receiver)  # x.relu_() returns x itself
            grad = receiver.grad or arg_grad
            saved = f"the output of `{name}`" if name in SAVES_OUTPUT and grad else None
            return _Binding("value", True, grad, fresh_id, saved=saved)
        if isinstance(func, cst.Name):
            if func.value in NON_TENSOR_BUILTINS:
                return _Binding("value", False, False, fresh_id)
            if func.value in self.a.module_ctor or self.a.is_module_name(func.value):
                return _Binding("value", True, True, fresh_id)  # model(x)
            if func.value[:1].isupper():
                return _Binding("attr", False, False, fresh_id)  # constructing an object
        return _Binding("value", False, arg_grad, fresh_id)


# --------------------------------------------------------------------------- helpers


def _all_params(func: cst.FunctionDef) -> List[cst.Param]:
    p = func.params
    return [*p.posonly_params, *p.params, *p.kwonly_params]


def _is_static(func: cst.FunctionDef) -> bool:
    return any(dotted_name(d.decorator) in ("staticmethod",) for d in func.decorators)


def _tensor_param(param: cst.Param, first: bool) -> Optional[bool]:
    """True: a tensor; None: maybe one (proved only by a tensor method call on it); False: not one."""
    if param.annotation is not None:
        text = cst.Module([]).code_for_node(param.annotation.annotation)
        return "Tensor" in text and not _NON_TENSOR_ANNOTATION.match(text)
    if param.default is not None:
        return False
    return True if first else None


def _inplace_requested(call: cst.Call, position: int) -> bool:
    arg = keyword(call, "inplace")
    if arg is None:
        positional = [a for a in call.args if a.keyword is None]
        arg = positional[position] if len(positional) > position else None
    return arg is not None and isinstance(arg.value, cst.Name) and arg.value.value == "True"


def _scalar(expr: cst.BaseExpression) -> bool:
    """A number literal, possibly negated, or ``float("inf")``-style."""
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        expr = expr.expression
    if isinstance(expr, (cst.Integer, cst.Float)):
        return True
    return (
        isinstance(expr, cst.Call)
        and isinstance(expr.func, cst.Name)
        and expr.func.value == "float"
        and len(expr.args) == 1
        and isinstance(expr.args[0].value, cst.SimpleString)
    )


def _tests_training(test: cst.BaseExpression) -> Optional[bool]:
    """True for ``if self.training:``, False for ``if not self.training:``, else None."""
    negated = isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)
    if negated:
        test = test.expression  # type: ignore[attr-defined]
    if isinstance(test, cst.Attribute) and test.attr.value == "training":
        return not negated
    return None


def _mentions_inplace(expr: cst.CSTNode) -> bool:
    return any(isinstance(n, cst.Name) and "inplace" in n.value.lower() for n in _walk(expr))


def _has_backward(context: RuleContext, node: FunctionNode) -> bool:
    return any(is_backward_call(context, c) for c in module_index(context).calls_of(node))


def _reads_grad_of(op: cst.CSTNode, target: str) -> bool:
    return any(
        isinstance(n, cst.Attribute) and n.attr.value == "grad" and isinstance(n.value, cst.Name) and n.value.value == target
        for n in _walk(op)
    )


def _basic_index(sub: cst.Subscript) -> bool:
    """``x[0]``, ``x[:, 1:]``, ``x[..., None]``: indexing that returns a view."""
    for element in sub.slice:
        index = element.slice
        if isinstance(index, cst.Slice):
            continue
        if isinstance(index, cst.Index) and isinstance(index.value, (cst.Integer, cst.Ellipsis)):
            continue
        if isinstance(index, cst.Index) and isinstance(index.value, cst.Name) and index.value.value == "None":
            continue
        return False
    return True




def _calls(node: cst.CSTNode) -> Iterator[cst.Call]:
    """Calls inside ``node``, innermost first (so ``f(g(x))`` yields ``g`` before ``f``)."""
    found = [n for n in _walk(node) if isinstance(n, cst.Call)]
    return reversed(found)


def _target_names(target: cst.CSTNode) -> List[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for e in target.elements for n in _target_names(e.value)]
    if isinstance(target, cst.StarredElement):
        return _target_names(target.value)
    return []


def _stores(node: cst.CSTNode) -> Set[str]:
    if isinstance(node, cst.Assign):
        return {n for t in node.targets for n in _target_names(t.target)}
    if isinstance(node, cst.AnnAssign) and node.value is not None:
        return set(_target_names(node.target))
    if isinstance(node, cst.For):
        return set(_target_names(node.target))
    return set()


def _loads(node: cst.CSTNode) -> Set[str]:
    """Names read by ``node`` (assignment targets, attribute and keyword names excluded)."""
    skip: Set[cst.CSTNode] = set()
    if isinstance(node, cst.Assign):
        skip.update(t.target for t in node.targets if isinstance(t.target, (cst.Name, cst.Tuple, cst.List)))
    elif isinstance(node, cst.AnnAssign):
        skip.update((node.target, node.annotation))
    roots: List[cst.CSTNode] = [node]
    if isinstance(node, cst.For):
        roots = [node.iter]
    elif isinstance(node, cst.With):
        roots = [item.item for item in node.items]  # the body is walked unit by unit
    names: Set[str] = set()
    stack = roots
    while stack:
        current = stack.pop()
        if current in skip:
            continue
        if isinstance(current, cst.Name):
            names.add(current.value)
            continue
        for child in _children(current):
            if isinstance(child, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
                continue
            if isinstance(current, cst.Attribute) and child is current.attr:
                continue
            if isinstance(current, cst.Arg) and child is current.keyword:
                continue
            stack.append(child)
    return names
