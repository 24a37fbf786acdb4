"""Per-module summaries built from Python's :mod:`ast`: imports, functions, classes.

A summary is plain data (no AST nodes are kept), cheap to cache and to pickle.
It records what each function does to the values it touches, in the terms of
:mod:`autofix.model.vocabulary`, so that a rule looking at a call can ask what
the callee does without walking the callee itself.

Everything here is syntactic and local to one module. Whatever needs another
module (a base class defined elsewhere, the return value of an imported
helper) is recorded by qualified name and resolved by
:class:`autofix.model.project.ModuleModel`.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import enum
import re
from dataclasses import dataclass, field
from typing import Dict, FrozenSet, Iterable, Iterator, List, Optional, Set, Tuple, Union

from autofix.model.vocabulary import (
    ACCUMULATING_METHODS,
    BACKWARD_CALLS,
    CUT_ATTRIBUTES,
    CUT_FUNCTIONS,
    CUT_METHODS,
    DETACH_HELPER_NAMES,
    INPLACE_ACTIVATIONS,
    DISPLAY_FUNCTIONS,
    DISPLAY_METHODS,
    KEEP_METHODS,
    DATA_LIBRARIES,
    LIBRARIES,
    MAYBE_TUPLE_RESULT_OPS,
    MODEL_BUILDER_NAMES,
    MODEL_BUILDER_PREFIXES,
    PARAMETER_ATTRIBUTES,
    NN_NON_MODULES,
    NON_TENSOR_METHODS,
    NUMBER_FUNCTIONS,
    NUMBER_METHODS,
    OUTPUT_SAVING_MODULES,
    SAVES_OUTPUT,
    KEEPS_NOTHING,
    SAVING_OPERATORS,
    saves_for_backward,
    SCALER_NAMES,
    TORCH_CUT_FUNCTIONS,
    TENSOR_METHODS,
    VIEW_METHODS,
    TUPLE_RESULT_OPS,
    is_optimizer_constructor,
    MODULE_SELF_METHODS,
    GRAD_DISABLING_CONTEXTS,
)
from autofix.model.frameworks import ACCELERATORS, FABRICS, SYNC_GATED_CONTEXTS
from autofix.model.containers import element_receivers
from autofix.model.nodes import dotted
from autofix.model.self_state import MemberUse, carried_attributes, member_uses, opt_in_branches, reset_attributes
from autofix.model.lazy import LazyTable, Once, SourceTree
from autofix.model.returned import (
    PassThrough,
    returned_outputs,
    torch_names_of,
    forwards_in_every_element,
    returned_element_sources,
    returned_param_sources,
    returned_pass_through,
    returned_unpacked,
    Unpacked,
)

WRAPPERS = ACCELERATORS | FABRICS

FunctionNode = Union[ast.FunctionDef, ast.AsyncFunctionDef]
#: qualname of the summary of a module's own top-level statements
MODULE_BODY = "<module>"


# --------------------------------------------------------------------------- data


class Kind(enum.Enum):
    """What a value is, as far as a summary can tell."""

    #: a tensor carrying an autograd graph (a forward's or a loss's result)
    GRAPH = "graph"
    #: a tensor with no graph (detached, a factory, an integer result)
    TENSOR = "tensor"
    #: a Python number (``.item()``, ``float(x)``, ``math.*``, a literal)
    NUMBER = "number"
    DICT = "dict"
    TUPLE = "tuple"
    LIST = "list"
    NONE = "none"
    #: a string, a bool, a class, a callable: no tensor at all
    OTHER = "other"
    #: a Python number or a tensor with no graph, which of the two is not known (``loss.item() /
    #: args.steps``, ``loss.data[0]``): nothing a fix may touch, nothing that keeps a graph
    PLAIN = "plain"
    UNKNOWN = "unknown"


#: what a value that cannot hold a graph is (a number, ``None``, a fresh or detached tensor)
GRAPHLESS_KINDS = frozenset({Kind.NUMBER, Kind.NONE, Kind.OTHER, Kind.TENSOR, Kind.PLAIN})


@dataclass(frozen=True)
class Target:
    """Who something is done to: ``param`` (a parameter's name), ``self`` (an
    attribute of ``self``), ``local`` (a local or global name), ``expr``
    (anything else, ``name`` is its text when short)."""

    kind: str
    name: str

    def __str__(self) -> str:
        return f"self.{self.name}" if self.kind == "self" else self.name


@dataclass(frozen=True)
class BackwardCall:
    """A backward pass: ``loss.backward()``, ``accelerator.backward(loss)``, ``self.manual_backward(loss)`` …"""

    #: the tensor back-propagated
    tensor: Target
    #: ``None`` for ``t.backward()``; else what ran it: ``manual_backward``,
    #: ``accelerator`` (any ``<x>.backward(loss)``), ``scaler`` (``scaler.scale(l).backward()``),
    #: ``torch.autograd``
    via: Optional[str]
    retain_graph: bool
    line: int


@dataclass(frozen=True)
class StepCall:
    """``opt.step()`` / ``scaler.step(opt)``: ``optimizer`` is the stepped object."""

    optimizer: Target
    #: known to be an optimizer (constructed as one, or a ``scaler.step`` argument),
    #: rather than only named like one
    known: bool
    line: int


@dataclass(frozen=True)
class ZeroGradCall:
    """``x.zero_grad()``: ``target`` is an optimizer or a module (which zeroes its parameters' gradients)."""

    target: Target
    line: int


@dataclass(frozen=True)
class GradHandOver:
    """``for p, sp in zip(local.parameters(), shared.parameters()): sp._grad = p.grad``: a loop that
    makes one model's gradient tensors another model's (the A3C worker's "ensure shared grads").
    The shared model then steps with whatever those tensors hold, so the caller must zero them in
    place (``zero_grad(set_to_none=False)``), not drop them."""

    #: the model whose gradient tensors are handed over: a parameter, ``self.<attr>``, a local, or
    #: ``expr`` (``self.master.model``, ``player.model``)
    local: Target
    #: an ``if`` in the loop breaks, returns or continues (``if sp.grad is not None: return``): the
    #: hand-over is done once, while the shared gradients are unset, not on every call
    conditional: bool
    #: the ``for`` statement's line
    line: int


@dataclass(frozen=True)
class Shape:
    """The structure of a value: a leaf :class:`Kind`, a tuple or list of known length
    (``out, (h, c)`` of an LSTM is ``TUPLE(GRAPH, TUPLE(GRAPH, GRAPH))``), or a dict whose
    values all have one shape (``{'loss': l, 'logits': y}``: ``DICT`` of ``GRAPH``)."""

    kind: Kind
    #: the elements of a ``TUPLE`` or ``LIST`` literal, position by position
    parts: Tuple["Shape", ...] = ()
    #: the shape every value of a ``DICT`` has, or every element of a ``TUPLE`` of unknown
    #: length (``x.chunk(2)``); None: not known
    values: Optional["Shape"] = None


def _arithmetic_kind(kinds: List[Kind]) -> Kind:
    """What arithmetic on operands of these kinds gives: a graph where one operand has one; a
    number from numbers; a tensor from a tensor and operands with no graph; a number or a tensor
    (:attr:`Kind.PLAIN`) from operands with no graph of which none is known to be a tensor."""
    if Kind.GRAPH in kinds:
        return Kind.GRAPH
    if all(k is Kind.NUMBER for k in kinds):
        return Kind.NUMBER
    if Kind.TENSOR in kinds and Kind.UNKNOWN not in kinds:
        return Kind.TENSOR
    if kinds and all(k in GRAPHLESS_KINDS for k in kinds):
        return Kind.PLAIN
    return Kind.UNKNOWN


def _leaf(kind: Kind) -> Shape:
    return Shape(kind)



_GRAPH_SHAPE = Shape(Kind.GRAPH)
_UNKNOWN_SHAPE = Shape(Kind.UNKNOWN)
#: a part unpacked from a value known only to carry a graph (``losses, stats = self.model.forward(x)``
#: of a model the project cannot resolve): it may hold one, but what it is (a tensor, a list, a
#: number) is not known; ``values`` tells it from the bare graph of a tensor
UNPACKED_GRAPH_SHAPE = Shape(Kind.GRAPH, values=_UNKNOWN_SHAPE)
_PYTHON_BUILTINS = frozenset(dir(builtins))
#: methods that compute on the value they are called on and hold no parameters of their own
_TENSOR_VALUE_METHODS = KEEP_METHODS | CUT_METHODS | NUMBER_METHODS
#: methods that put elements into a list (``append`` is the only one whose element the model reads)
LIST_FILLING_METHODS = frozenset({"append", "extend", "insert"})
_PAIR = Shape(Kind.TUPLE, (_GRAPH_SHAPE, _GRAPH_SHAPE))
#: What calling a ``torch.nn`` module returns, by class name (any other layer: one tensor).
NN_OUTPUT_SHAPES: Dict[str, Shape] = {
    "RNN": _PAIR,
    "GRU": _PAIR,
    "LSTM": Shape(Kind.TUPLE, (_GRAPH_SHAPE, _PAIR)),
    "LSTMCell": _PAIR,
    "MultiheadAttention": _PAIR,
    "RNNCell": _GRAPH_SHAPE,
    "GRUCell": _GRAPH_SHAPE,
}


def nn_output_shape(constructor: str) -> Shape:
    """What calling a module built by ``torch.nn.<constructor>`` returns (``Transformer*``: unknown)."""
    last = constructor.rsplit(".", 1)[-1]
    if last in NN_OUTPUT_SHAPES:
        return NN_OUTPUT_SHAPES[last]
    return Shape(Kind.UNKNOWN) if last.startswith("Transformer") else _GRAPH_SHAPE


@dataclass(frozen=True)
class Returns:
    """What a function returns, over all its ``return`` statements."""

    kinds: FrozenSet[Kind]
    #: keys of returned dict literals (``{'loss': l, 'log': …}``)
    dict_keys: FrozenSet[str] = frozenset()
    #: kinds of the elements of returned tuple literals, position by position
    tuple_kinds: Tuple[FrozenSet[Kind], ...] = ()
    #: qualified names of callees whose result is returned as is, or is an operand of returned
    #: arithmetic (``r = recall(p, t); return 2 * r``) (resolved by the project model)
    via_calls: Tuple[str, ...] = ()
    #: the kinds of the returned values that are not such calls (of such arithmetic: its other operands')
    direct: FrozenSet[Kind] = frozenset()
    #: the shape of each returned value (``Shape(NONE)`` for a bare or missing ``return``)
    shapes: FrozenSet[Shape] = frozenset()

    @property
    def only(self) -> Optional[Kind]:
        """The one kind returned, when there is exactly one."""
        return next(iter(self.kinds)) if len(self.kinds) == 1 else None


def may_hold_graph(shape: Shape) -> bool:
    """Some part of the value may carry a graph (it is not all numbers, detached tensors, ``None``)."""
    if shape.kind in (Kind.NUMBER, Kind.NONE, Kind.OTHER, Kind.TENSOR, Kind.PLAIN):
        return False
    if shape.kind in (Kind.TUPLE, Kind.LIST) and shape.parts:
        return any(may_hold_graph(part) for part in shape.parts)
    if shape.kind in (Kind.TUPLE, Kind.LIST) and shape.values is not None:
        return may_hold_graph(shape.values)
    if shape.kind is Kind.DICT and shape.values is not None:
        return may_hold_graph(shape.values)
    return True


def _entries_shape(entries: Iterable[Shape]) -> Optional[Shape]:
    """The one shape for every value of a dict whose values have these shapes: that shape when
    they agree; a graph when each is a tensor, with a graph or without; :attr:`Kind.PLAIN` when
    none can hold a graph (``float(loss)``, ``acc.item()``, a literal number); else None."""
    found = set(entries)
    if len(found) == 1:
        return found.pop()
    if found and all(v.kind in (Kind.GRAPH, Kind.TENSOR) and not v.parts for v in found):
        return _GRAPH_SHAPE
    if found and not any(may_hold_graph(v) for v in found):
        return Shape(Kind.PLAIN)
    return None


def grad_disabling(decorators: Iterable[str]) -> bool:
    """Decorators as spelled that turn autograd off for the whole call (``@torch.no_grad()``,
    ``@torch.inference_mode()``)."""
    return any(d.rsplit(".", 1)[-1] in GRAD_DISABLING_CONTEXTS for d in decorators)


#: one call's arguments as plain names (None: another expression): positional, then ``(keyword, name)``
CallArguments = Tuple[Tuple[Optional[str], ...], Tuple[Tuple[str, Optional[str]], ...]]


def _plain_name(node: ast.expr) -> Optional[str]:
    return node.id if isinstance(node, ast.Name) else None


@dataclass
class FunctionSummary:
    """What one function or method does, read from its own body (nested defs excluded)."""

    name: str
    #: ``func``, ``Class.method``, ``outer.inner``
    qualname: str
    params: Tuple[str, ...]
    line: int
    class_name: Optional[str] = None
    #: dotted name of the module defining it (``""`` when unknown)
    module: str = ""
    #: last line of the ``def`` (its first is :attr:`line`, the ``def`` keyword's line)
    end_line: int = 0
    decorators: Tuple[str, ...] = ()
    backward_calls: List[BackwardCall] = field(default_factory=list)
    steps: List[StepCall] = field(default_factory=list)
    zero_grads: List[ZeroGradCall] = field(default_factory=list)
    #: ``self.<m>(…)`` calls in source order (``self(…)`` is ``__call__``)
    self_calls: List[str] = field(default_factory=list)
    self_reads: Set[str] = field(default_factory=set)
    #: ``self.<a>`` read inside a ``return`` expression itself (``return x @ self.table``)
    returned_self_reads: Set[str] = field(default_factory=set)
    self_writes: Set[str] = field(default_factory=set)
    returns: Returns = Returns(frozenset({Kind.NONE}))
    #: params turned into Python numbers (``.item()``, ``float(p)``, ``p.tolist()``)
    number_params: Set[str] = field(default_factory=set)
    #: param → the ``self`` attributes its graph is accumulated into (``self.sum += val * n``)
    accumulated_params: Dict[str, Set[str]] = field(default_factory=dict)
    #: the ``(param, attr)`` pairs of :attr:`accumulated_params` added only by ``self.<attr>[k] += p``:
    #: the container's element runs its own ``__iadd__`` (:meth:`ModuleModel.iadd_keeps_nothing`)
    added_by_iadd: Set[Tuple[str, str]] = field(default_factory=set)
    #: the ``(param, attr)`` pairs of :attr:`accumulated_params` added any other way
    added_otherwise: Set[Tuple[str, str]] = field(default_factory=set)
    #: ``self`` attributes that params are appended to, element by element (``self.log_probs.append(p)``)
    appended_attrs: Set[str] = field(default_factory=set)
    #: ``self`` attributes a ``return`` hands back whole (``return self.states, self.log_probs``)
    returned_self_attrs: Set[str] = field(default_factory=set)
    #: ``self`` attributes whose entries a ``return`` hands back as they are: a random draw, an index or
    #: a slice, directly or through locals (``batch = random.sample(self.memory, n); return
    #: map(stack, zip(*batch))``, ``return self.memory[-n:]``): a buffer read back by whoever calls it
    sampled_self_attrs: Set[str] = field(default_factory=set)
    #: per length of the returned tuple literals, per position: the params and callees the element
    #: is nothing but (:func:`~autofix.model.returned.returned_pass_through`), None where unknown
    returned_pass_through: Dict[int, Tuple[Optional[PassThrough], ...]] = field(default_factory=dict)
    #: per length of the returned tuple literals, per position: the call the element is one part of,
    #: unpacked (:func:`~autofix.model.returned.returned_unpacked`), None where it is not
    returned_unpacked: Dict[int, Tuple[Optional[Unpacked], ...]] = field(default_factory=dict)
    #: params whose forward every element of every returned tuple surely comes through
    #: (:func:`~autofix.model.returned.forwards_in_every_element`)
    every_element_runs: FrozenSet[str] = frozenset()
    #: per length of the returned tuple literals, per position: the modules run and the ``self``
    #: attributes and globals read that the element's graph may come from when the arguments carry
    #: none, None where unknown (:func:`~autofix.model.returned.returned_element_sources`)
    returned_element_sources: Dict[int, Tuple[Optional[FrozenSet[str]], ...]] = field(default_factory=dict)
    #: the same with the parameters each element reads, and autograd-off code taken as graph-free
    #: (:func:`~autofix.model.returned.returned_param_sources`)
    returned_param_sources: Dict[int, Tuple[Optional[FrozenSet[str]], ...]] = field(default_factory=dict)
    #: params written in place (``p.add_(…)``, ``p[i] = …``, ``p += …``)
    inplace_params: Set[str] = field(default_factory=set)
    #: params detached (``p.detach()``, ``p.data``)
    detached_params: Set[str] = field(default_factory=set)
    #: params detached in place (``p.detach_()``, ``for t in p: t.detach_()``)
    detached_in_place: Set[str] = field(default_factory=set)
    #: params the function reads only detached or converted (``p.detach()``, ``p.data``, ``p.item()``,
    #: ``p is None``) or as an index or slice bound (``x[:, p[i]:p[i] + n]``, through locals that
    #: serve only as such): whatever graph the argument has never reaches what the call builds
    cut_params: Set[str] = field(default_factory=set)
    #: every ``return`` gives a detached value (``h.detach()``, a detach mapped over a structure,
    #: a recursive call, ``None``): a helper like ``repackage_hidden``
    returns_detached: bool = False
    #: what it returns holds no graph of its arguments: every ``return`` gives ``None``, a
    #: ``.detach()``, a call of itself, or a tuple or list of those (a literal, a comprehension,
    #: ``tuple(...)`` of a generator), and the body stores nothing and calls nothing but those and
    #: ``isinstance``/``type``/``len`` (``repackage_hidden``, recursive over tuples)
    detached_copy: bool = False
    #: params whose value as passed is read once, as an argument of the call that the first
    #: statement of the body naming them makes and whose result rebinds them (``memory =
    #: self.repackage_hidden(memory)``, ``out, h = self.core(x, h)``): param → the callee as spelled
    #: in :attr:`calls` and the argument's position among the positional ones or its keyword.
    #: Plain parameters only (not positional-only, keyword-only, ``*args`` or ``**kwargs``)
    handed_on: Dict[str, Tuple[str, Union[int, str]]] = field(default_factory=dict)
    #: params not in :attr:`cut_params` whose every other read is the argument of a call, as given
    #: or an entry of it (``kp = detach_kp(generated["kp"])``): param → those calls, spelled as in
    #: :attr:`calls`, with the argument's position or keyword. Cut when each callee cuts what it
    #: binds or hands back a detached copy (:meth:`ModuleModel.cut_params`)
    cut_if_handed: Dict[str, List[Tuple[str, Union[int, str]]]] = field(default_factory=dict)
    #: params whose graph may outlive the call: returned, yielded, stored on an object or in a
    #: container, or handed to a call that may keep it (not ``torch`` functions, not logging)
    kept_params: Set[str] = field(default_factory=set)
    #: every callee as spelled (``self.model``, ``F.relu``, ``helper``), qualified when imported
    calls: List[str] = field(default_factory=list)
    #: the function holds a ``for`` or ``while`` loop in its own body
    has_loop: bool = False
    #: calls of a plain name (``update(policy, states)``): per callee, each call's arguments, positional
    #: and keyword, as the plain names passed (None: any other expression); calls with ``*``/``**`` left out
    call_arguments: Dict[str, List[CallArguments]] = field(default_factory=dict)
    #: callees called inside a loop body of this function, spelled as in :attr:`calls`
    #: (``self.train_step`` of ``for batch in loader: self.train_step(batch)``)
    looped_calls: Set[str] = field(default_factory=set)
    #: a backward pass is spelled inside a loop body of this function (an epoch of training, not one step)
    looped_backward: bool = False
    #: local name → the qualified callee whose result it was last assigned (``meter = AverageMeter()``)
    local_constructors: Dict[str, str] = field(default_factory=dict)
    #: local name → the qualified constructor of the object its last constructor call was handed
    #: first (``net = DataParallelWithCallback(net, device_ids=ids)`` after ``net = Net()``:
    #: ``Net``); whether that call wraps it is told across files (:meth:`ModuleModel.instance_class`)
    wrapped_constructors: Dict[str, str] = field(default_factory=dict)
    #: local name → the qualified constructor of its elements (``meters = {k: AverageMeter() for k in …}``,
    #: ``defaultdict(AverageMeter)``, ``[Meter() for _ in …]``)
    element_constructors: Dict[str, str] = field(default_factory=dict)
    #: position of a receiver ``d[k]`` of ``d[k].update(v)`` → the qualified constructor of every element
    #: of the local container ``d`` there, filled by key (``d = {}`` … ``d[k] = AverageMeter()``; see
    #: :func:`~autofix.model.containers.element_receivers`)
    element_receivers: Dict[Tuple[int, int], str] = field(default_factory=dict)
    #: line spans ``(first, last)`` of ``with <accelerator>.accumulate(...):`` blocks, where an
    #: optimizer prepared by accelerate steps and zero_grads only on the syncing micro-batch
    sync_gated: List[Tuple[int, int]] = field(default_factory=list)
    #: names bound to what ``<accelerator>.prepare(...)`` returned (their step/zero_grad are sync-gated)
    prepared: Set[str] = field(default_factory=set)
    #: a ``forward``'s returns, in order: what produced each value (``op:sigmoid``, ``self:act``, ``""``);
    #: :meth:`ModuleModel.forward_output` turns them into what saved the module's output
    returned_outputs: Tuple[str, ...] = ()
    #: the ``**kwargs`` parameter, if any (a call's unmatched keywords bind to it)
    var_keyword: Optional[str] = None
    #: the ``*args`` parameter, if any (positional arguments past the others bind to it)
    var_positional: Optional[str] = None
    #: params handed on to a method of an object the instance holds, as ``(param, callee as
    #: spelled, argument position or keyword)``: ``self.meters[k].update(v)`` in a
    #: ``for k, v in kwargs.items()`` gives ``("kwargs", "self.meters[].update", 0)``
    forwarded_params: List[Tuple[str, str, Union[int, str]]] = field(default_factory=list)
    #: every ``return`` gives a local the function back-propagated without ``retain_graph``
    #: (``loss.backward(); ...; return loss``): the caller gets a tensor whose graph is freed
    returns_backpropagated: bool = False
    #: a list it returns was filled with tensors it back-propagated (``losses.append(loss)``)
    returns_backpropagated_list: bool = False
    #: every ``return`` hands back what a method no ``torch.Tensor`` has returns, called on a
    #: local (``return loss.get_loss()`` of a loss object with its own ``backward``): not known
    #: to be a tensor, let alone the graph the function back-propagated
    returns_opaque_call: bool = False
    #: the function computes only on what it is given: a plain function whose code reads no
    #: global but imported modules and builtins, and calls only library functions that hold no
    #: parameters (``torch.*`` but not ``torch.nn`` layers), builtins and tensor methods
    #: (``def to_var(x): return Variable(x.cuda())``). A call of it adds no graph of its own.
    on_arguments_only: bool = False
    #: for a ``forward``: the ``self`` attributes it rebuilds from their value of the previous call
    #: (``out, self.h = self.rnn(x, self.h)``; :mod:`autofix.model.self_state`)
    carried_self: FrozenSet[str] = frozenset()
    #: a forward's ``if`` statements (line, column) that only calls opting in with a flag off by default take
    #: one way, keeping state read nowhere else: True where that way is the body (:func:`opt_in_branches`)
    opt_in_branches: Dict[Tuple[int, int], bool] = field(default_factory=dict)
    #: for a method: its uses of the objects the instance holds, with the ``self`` flags guarding them
    #: (:func:`~autofix.model.self_state.member_uses`; ``self.decoder.init_state(bs)`` under ``if self.use_att:``)
    member_uses: Tuple[MemberUse, ...] = ()
    #: for a method: the ``self`` attributes it assigns a value with no graph on every way through it
    #: (:func:`~autofix.model.self_state.reset_attributes`; ``def reset_mem(self): self.key = None``)
    reset_self: FrozenSet[str] = frozenset()
    #: some ``return`` hands back a parameter as it was given (``return x``, ``return x, y``; never rebound)
    returns_argument: bool = False
    #: every ``return`` is inside a ``with torch.no_grad():`` block of the function's own code
    returns_under_no_grad: bool = False
    #: a factory: every ``return`` hands back an object built by this (qualified) constructor
    #: (``return DualLoss(cfg)``, ``loss_fn = DualLoss(cfg); return loss_fn``)
    returned_constructor: Optional[str] = None
    #: loops of its own body that hand one model's gradient tensors to another model's parameters,
    #: in source order (:class:`GradHandOver`); read with the loops the reader walks anyway
    grad_hand_overs: List[GradHandOver] = field(default_factory=list)

    def in_sync_gated(self, line: int) -> bool:
        """Is ``line`` inside a ``with accelerator.accumulate(...)`` block?"""
        return any(first <= line <= last for first, last in self.sync_gated)

    @property
    def is_method(self) -> bool:
        return self.class_name is not None

    @property
    def calls_backward(self) -> bool:
        return bool(self.backward_calls)

    @property
    def steps_optimizer(self) -> bool:
        return bool(self.steps)

    @property
    def grad_disabled(self) -> bool:
        """Decorated ``@torch.no_grad()`` / ``@torch.inference_mode()``: what it computes carries no
        graph (a tensor it was handed and hands back as is keeps the caller's)."""
        return grad_disabling(self.decorators)

    @property
    def adds_no_graph(self) -> bool:
        """Everything it returns is computed with autograd off: its result holds no graph but that
        of an argument handed back as given (``return x if self.off else self.rms(x)`` under
        ``torch.no_grad()``)."""
        return self.grad_disabled or self.returns_under_no_grad

    @property
    def returns_no_graph(self) -> bool:
        """Grad-disabled and handing back none of its arguments as given: its result holds no graph."""
        return (self.grad_disabled or self.returns_under_no_grad) and not self.returns_argument

    @property
    def calls_zero_grad(self) -> bool:
        return bool(self.zero_grads)


class AttrKind(enum.Enum):
    """What a ``self`` attribute holds."""

    OPTIMIZER = "optimizer"
    SCHEDULER = "scheduler"
    SCALER = "scaler"
    MODULE = "module"
    TENSOR = "tensor"
    PARAMETER = "parameter"
    DICT = "dict"
    LIST = "list"
    NUMBER = "number"
    NONE = "none"
    CALLABLE = "callable"
    OTHER = "other"
    UNKNOWN = "unknown"


@dataclass
class AttributeSummary:
    """One ``self.<name>`` of a class, over every assignment in its methods (``__init__`` first)."""

    name: str
    #: from the first assignment (``__init__``'s when it has one)
    kind: AttrKind
    #: every kind assigned anywhere
    kinds: Set[AttrKind] = field(default_factory=set)
    #: qualified name of the constructor called (``torch.nn.Linear``, ``models.Block``)
    constructor: Optional[str] = None
    #: for an ``nn.Sequential``: the constructor of its last layer, and whether it is an
    #: activation built with ``inplace=True``
    last_layer: Optional[str] = None
    ends_inplace: bool = False
    #: the tensor was made with ``requires_grad=True`` (a leaf autograd tracks)
    requires_grad: bool = False
    #: a buffer registered with ``register_buffer``
    buffer: bool = False
    #: methods that assign it, in class order
    assigned_in: List[str] = field(default_factory=list)
    #: the parameter of the assigning method it came from (``self.act = act``)
    from_param: Optional[str] = None
    #: assigned a value computed with autograd from the object's own parameters
    #: (``self.penalty = self.w.pow(2).sum()``), not under ``torch.no_grad()`` nor detached
    graph_from_params: bool = False
    #: the op whose output a call of it returns and autograd saves for backward (an in-place
    #: write to that output breaks backward): ``nn.Sigmoid()`` → ``sigmoid``, an ``nn.Sequential``
    #: ending in ``nn.ReLU()`` → ``relu``, a configurable ``torch.sigmoid`` (also as a parameter's default)
    saved_output: Optional[str] = None
    #: the constructor of a container's elements (``self.meters = defaultdict(AverageMeter)``)
    element_constructor: Optional[str] = None
    #: it is assigned a container whose elements are not known: neither built empty (``{}``,
    #: ``OrderedDict()``), nor by :attr:`element_constructor`, nor a parameter (restored state)
    elements_unknown: bool = False


@dataclass
class ClassSummary:
    name: str
    qualname: str
    line: int
    #: dotted name of the module defining it (``""`` when unknown)
    module: str
    #: bases, qualified through the module's imports (``torch.nn.Module``, ``lightning.LightningModule``);
    #: a base defined in this module is qualified with this module's name
    bases: Tuple[str, ...]
    #: read on demand (:mod:`autofix.model.lazy`)
    methods: "LazyTable[str, FunctionSummary]" = field(default_factory=LazyTable)
    #: read on demand, from all of the class's methods at once
    attributes: "LazyTable[str, AttributeSummary]" = field(default_factory=LazyTable)
    #: attribute → the constructors of what its methods store into it by key (``self.tracks[k] =
    #: Meter()``, or a local assigned nothing but such calls); None for anything else (set while the
    #: attributes are read)
    element_stores: Dict[str, Set[Optional[str]]] = field(default_factory=dict)
    #: ``self.automatic_optimization = False`` in a method (set while the attributes are read)
    assigns_manual_optimization: bool = False
    #: a property ``automatic_optimization`` returning False
    manual_optimization_property: bool = False
    #: method name → its decorators as spelled (known without reading the method)
    method_decorators: Dict[str, Tuple[str, ...]] = field(default_factory=dict)
    #: methods with a ``with torch.no_grad():`` among their own top-level statements (known without
    #: reading the method): the ones worth reading to tell whether they return under it
    no_grad_blocks: Set[str] = field(default_factory=set)

    @property
    def manual_optimization(self) -> bool:
        """``self.automatic_optimization = False`` somewhere in the class, or a property returning False."""
        if self.manual_optimization_property:
            return True
        len(self.attributes)  # the methods' assignments are read with the attributes
        return self.assigns_manual_optimization


@dataclass
class ModuleSummary:
    """Everything a rule may ask of one module, without its tree."""

    #: dotted module name (``pkg.models.net``), ``""`` when unknown
    name: str
    path: str
    #: local name → qualified name (``nn`` → ``torch.nn``, ``Net`` → ``pkg.models.Net``)
    imports: Dict[str, str] = field(default_factory=dict)
    #: ``from x import *``: modules whose names may be used unqualified
    star_imports: Tuple[str, ...] = ()
    #: the names ``__all__`` lists, None without one (empty where it is not a literal list of strings)
    exported: Optional[FrozenSet[str]] = None
    #: top-level and nested functions, by qualname (read on demand: :mod:`autofix.model.lazy`)
    functions: "LazyTable[str, FunctionSummary]" = field(default_factory=LazyTable)
    classes: Dict[str, ClassSummary] = field(default_factory=dict)
    #: module-level ``name = <call>``: the qualified callee (``trainer = Engine(update)``)
    assigned_calls: Dict[str, str] = field(default_factory=dict)
    #: ``@<x>.on(...)`` / ``Engine(fn)``: functions handed to a framework loop, by qualname
    loop_functions: Set[str] = field(default_factory=set)

    def qualify(self, dotted: str) -> str:
        """``nn.ReLU`` → ``torch.nn.ReLU``; a name defined here → ``<module>.<name>``; else as spelled."""
        head, _, rest = dotted.partition(".")
        if head in self.imports:
            target = self.imports[head]
            return f"{target}.{rest}" if rest else target
        if head in self.classes or head in self.functions:
            return f"{self.name}.{dotted}" if self.name else dotted
        return dotted

    def star_exports(self, name: str) -> bool:
        """``from <this module> import *`` binds ``name``: listed in ``__all__``, or without one a public
        name the module defines or imports (what it binds otherwise is not known here)."""
        if self.exported is not None:
            return name in self.exported
        if name.startswith("_"):
            return False
        return name in self.classes or name in self.functions or name in self.imports


# --------------------------------------------------------------------------- building


def summarize(
    tree: ast.Module, name: str = "", path: str = "", package: Optional[str] = None, source: Optional[bytes] = None
) -> ModuleSummary:
    """Summarise a parsed module. ``package`` resolves relative imports (default: derived from ``name``).

    What is defined where is found at once; each function's and class's summary is read from
    the tree when first asked for (:mod:`autofix.model.lazy`). ``source``: the text ``tree``
    was parsed from, to parse again if the tree has been let go by then.
    """
    summary = ModuleSummary(name, path)
    if package is None:
        package = name.rpartition(".")[0]
    _collect_imports(tree, summary, package)
    held = SourceTree(tree, source)
    held.memo("torch_names", torch_names_of)  # now, while the tree is here (a forward read later needs it)
    decorators: List[str] = []
    for node in tree.body:
        _summarize_definition(node, summary, held, "", None, decorators)
    # The module's own statements (a script's training loop) read like a function's body.
    summary.functions.defer(MODULE_BODY, Once(lambda: _read_module_body(held, summary)))
    for node in tree.body:
        _module_statement(node, summary)
    if "Engine" in summary.imports.values() or any(v.startswith("ignite") for v in summary.imports.values()) or any(
        ".on" in d for d in decorators
    ):
        _loop_wiring(tree, summary)
    return summary


def _read_module_body(held: SourceTree, summary: ModuleSummary) -> FunctionSummary:
    body = ast.FunctionDef(name=MODULE_BODY, args=ast.arguments([], [], None, [], [], None, []), body=held.tree().body,
                           decorator_list=[], returns=None, type_comment=None, lineno=1, col_offset=0)
    return _FunctionReader(body, MODULE_BODY, None, summary).read()


def _read_function(
    held: SourceTree, position: Tuple[int, int], qualname: str, summary: ModuleSummary, cls: Optional[ClassSummary]
) -> FunctionSummary:
    node = held.node(position)
    assert isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    function = _FunctionReader(node, qualname, cls.qualname if cls is not None else None, summary, cls).read()
    if cls is not None and node.name == "forward" and qualname.count(".") == 1:
        # A forward of a module-level class: what produced each value it returns.
        function.returned_outputs = returned_outputs(node, held.memo("torch_names", torch_names_of))
    return function


def _decorator_names(node: FunctionNode) -> Iterator[str]:
    for decorator in node.decorator_list:
        spelled = dotted(decorator.func if isinstance(decorator, ast.Call) else decorator)
        if spelled:
            yield spelled


def summarize_imports(tree: ast.Module, name: str = "", path: str = "", package: Optional[str] = None) -> ModuleSummary:
    """A summary holding only the module's imports: enough to resolve the names it imports (a
    screen asks what an imported helper does without summarising the module itself)."""
    summary = ModuleSummary(name, path)
    _collect_imports(tree, summary, name.rpartition(".")[0] if package is None else package)
    return summary


def _collect_imports(tree: ast.Module, summary: ModuleSummary, package: str) -> None:
    stars: List[str] = []
    for node in _statements(tree.body):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    summary.imports[alias.asname] = alias.name
                else:
                    head = alias.name.split(".", 1)[0]
                    summary.imports.setdefault(head, head)
        elif isinstance(node, ast.ImportFrom):
            base = resolve_relative(node.module, node.level, package)
            if base is None:
                continue
            for alias in node.names:
                if alias.name == "*":
                    stars.append(base)
                    continue
                summary.imports[alias.asname or alias.name] = f"{base}.{alias.name}" if base else alias.name
    summary.star_imports = tuple(stars)
    summary.exported = _exported_names(tree.body)


def _exported_names(body: List[ast.stmt]) -> Optional[FrozenSet[str]]:
    """The strings a module-level ``__all__`` lists (``__all__ = [...]``, ``+= [...]``, ``.extend([...])``,
    ``.append("x")``); None without ``__all__``, empty where some are not string literals."""
    names: Set[str] = set()
    seen = False

    def literal(value: ast.expr) -> Optional[Set[str]]:
        if isinstance(value, (ast.List, ast.Tuple)) and all(
            isinstance(e, ast.Constant) and isinstance(e.value, str) for e in value.elts
        ):
            return {e.value for e in value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
        return None

    def is_all(target: ast.expr) -> bool:
        return isinstance(target, ast.Name) and target.id == "__all__"

    for node in _statements(body):
        value: Optional[ast.expr] = None
        if isinstance(node, ast.Assign) and any(is_all(t) for t in node.targets):
            value = node.value
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and is_all(node.target):
            value = node.value
        elif (
            isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Attribute)
            and is_all(node.value.func.value) and len(node.value.args) == 1
        ):
            argument = node.value.args[0]
            value = ast.List([argument], ast.Load()) if node.value.func.attr == "append" else argument
        else:
            continue
        seen = True
        found = literal(value) if value is not None else None
        if found is None:
            return frozenset()
        names |= found
    return frozenset(names) if seen else None


def _statements(body: List[ast.stmt]) -> Iterator[ast.stmt]:
    """Every statement at any depth (imports are statements: expressions need not be walked)."""
    stack = list(reversed(body))
    while stack:
        node = stack.pop()
        yield node
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            block = getattr(node, name, None)
            if block:
                stack.extend(reversed(block))


def resolve_relative(module: Optional[str], level: int, package: str) -> Optional[str]:
    """The absolute module of ``from <level dots><module> import …`` in ``package``; None when it escapes."""
    if level == 0:
        return module or None
    parts = package.split(".") if package else []
    if level - 1 > len(parts):
        return None
    base = parts[: len(parts) - (level - 1)]
    if module:
        base.append(module)
    return ".".join(base) if base else None


def _summarize_definition(
    node: ast.stmt, summary: ModuleSummary, held: SourceTree, prefix: str, cls: Optional[ClassSummary],
    decorators: List[str],
) -> None:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        qualname = prefix + node.name
        summary.functions.defer(qualname, _function_read(held, node, qualname, summary, cls))
        decorators.extend(_decorator_names(node))
        for inner in _nested_definitions(node):
            _summarize_definition(inner, summary, held, qualname + ".", None, decorators)
    elif isinstance(node, ast.ClassDef):
        qualname = prefix + node.name
        summary.classes[qualname] = _read_class(node, qualname, summary, held, decorators)
        for inner in node.body:
            if isinstance(inner, ast.ClassDef):
                _summarize_definition(inner, summary, held, qualname + ".", None, decorators)
    elif isinstance(node, (ast.If, ast.Try, ast.With)):
        # ``if TYPE_CHECKING:``, ``try: import …``: definitions under them are still the module's.
        for block in _blocks(node):
            for inner in block:
                _summarize_definition(inner, summary, held, prefix, cls, decorators)


def _function_read(
    held: SourceTree, node: FunctionNode, qualname: str, summary: ModuleSummary, cls: Optional[ClassSummary]
) -> "Once[FunctionSummary]":
    position = (node.lineno, node.col_offset)
    return Once(lambda: _read_function(held, position, qualname, summary, cls))


def _blocks(node: ast.stmt) -> Iterator[List[ast.stmt]]:
    for name in ("body", "orelse", "finalbody"):
        block = getattr(node, name, None)
        if block:
            yield block
    for handler in getattr(node, "handlers", ()):
        yield handler.body


def _nested_definitions(function: FunctionNode) -> Iterator[ast.stmt]:
    stack: List[ast.stmt] = list(reversed(function.body))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield node
            continue
        for block in _blocks(node):
            stack.extend(reversed(block))
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            stack.extend(reversed(node.body))


def _module_statement(node: ast.stmt, summary: ModuleSummary) -> None:
    """Module-level ``name = <call>``: ``trainer = Engine(update)``."""
    if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
        callee = dotted(node.value.func)
        if callee is not None:
            for target in node.targets:
                if isinstance(target, ast.Name):
                    summary.assigned_calls[target.id] = summary.qualify(callee)


def _loop_wiring(tree: ast.Module, summary: ModuleSummary) -> None:
    """Functions a framework loops over, at any depth: ``Engine(update)``, ``@trainer.on(Events.X)``."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for decorator in node.decorator_list:
                if isinstance(decorator, ast.Call) and isinstance(decorator.func, ast.Attribute) and decorator.func.attr == "on":
                    summary.loop_functions.add(node.name)
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Name):
            callee = dotted(node.func)
            if callee is not None:
                _note_loop_function(node, summary.qualify(callee), summary)


def _note_loop_function(call: ast.Call, qualified: str, summary: ModuleSummary) -> None:
    from autofix.model.frameworks import LOOP_CONSTRUCTORS

    if qualified in LOOP_CONSTRUCTORS and call.args and isinstance(call.args[0], ast.Name):
        summary.loop_functions.add(call.args[0].id)


def _read_class(
    node: ast.ClassDef, qualname: str, summary: ModuleSummary, held: SourceTree, decorators: List[str]
) -> ClassSummary:
    bases = []
    for base in node.bases:
        spelled = dotted(base.value if isinstance(base, ast.Subscript) else base)
        if spelled is not None:
            bases.append(summary.qualify(spelled))
    cls = ClassSummary(node.name, qualname, node.lineno, summary.name, tuple(bases))
    methods = [n for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    # __init__ first: what it assigns is what the attribute holds for the object's whole life.
    # Attributes before methods: a method's summary knows what ``self.lstm(x)`` returns (the
    # attributes are read when a method's summary first asks for them).
    positions = [(m.lineno, m.col_offset) for m in sorted(methods, key=lambda m: m.name != "__init__")]
    cls.attributes.set_fill(lambda: _read_attributes(held, positions, cls, summary))
    for method in methods:
        method_qualname = f"{qualname}.{method.name}"
        read = _function_read(held, method, method_qualname, summary, cls)
        cls.methods.defer(method.name, read)
        summary.functions.defer(method_qualname, read)
        cls.method_decorators[method.name] = tuple(_decorator_names(method))
        if any(isinstance(statement, (ast.With, ast.AsyncWith)) and _disables_grad(statement) for statement in method.body):
            cls.no_grad_blocks.add(method.name)
        decorators.extend(cls.method_decorators[method.name])
        for inner in _nested_definitions(method):
            _summarize_definition(inner, summary, held, method_qualname + ".", None, decorators)
        if method.name == "automatic_optimization" and _returns_false_property(method):
            cls.manual_optimization_property = True
    return cls


def _read_attributes(held: SourceTree, positions: List[Tuple[int, int]], cls: ClassSummary, summary: ModuleSummary) -> None:
    for position in positions:
        method = held.node(position)
        assert isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef))
        _AttributeReader(cls, method, summary).read()


def _module_saved_output(constructor: Optional[str]) -> Optional[str]:
    """The op a ``torch.nn`` module built by ``constructor`` saves its output with (``torch.nn.ReLU`` → ``relu``)."""
    if constructor is None or not constructor.startswith("torch.nn."):
        return None
    return OUTPUT_SAVING_MODULES.get(constructor.rsplit(".", 1)[-1])


def _returns_false_property(method: FunctionNode) -> bool:
    """``@property def automatic_optimization(self): return False`` (Lightning's manual mode as a property)."""
    if not any(isinstance(d, ast.Name) and d.id == "property" for d in method.decorator_list):
        return False
    returns = [n for n in ast.walk(method) if isinstance(n, ast.Return)]
    return bool(returns) and all(isinstance(r.value, ast.Constant) and r.value.value is False for r in returns)


# --------------------------------------------------------------------------- expressions




def keyword_value(call: ast.Call, name: str) -> Optional[ast.expr]:
    for kw in call.keywords:
        if kw.arg == name:
            return kw.value
    return None


def is_true(node: Optional[ast.expr]) -> bool:
    return isinstance(node, ast.Constant) and node.value is True


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
#: statements whose effect (a binding, a return) happens after their expressions are evaluated
_AFTER_CHILDREN = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.NamedExpr, ast.Return)


#: node type → its fields that may hold nodes worth visiting (not ``ctx``, operators, names or numbers)
_NODE_FIELDS: Dict[type, Tuple[str, ...]] = {}
_LEAF_FIELDS = frozenset({"ctx", "op", "ops", "id", "attr", "arg", "name", "names", "value_kind", "kind",
                          "type_comment", "conversion", "is_async", "level", "lineno", "col_offset",
                          "end_lineno", "end_col_offset", "module", "asname", "simple"})


def _children(node: ast.AST) -> List[ast.AST]:
    kind = type(node)
    fields = _NODE_FIELDS.get(kind)
    if fields is None:
        fields = _NODE_FIELDS[kind] = tuple(f for f in kind._fields if f not in _LEAF_FIELDS)
    found: List[ast.AST] = []
    for name in fields:
        value = getattr(node, name, None)
        if isinstance(value, list):
            found.extend(v for v in value if isinstance(v, ast.AST))
        elif isinstance(value, ast.AST):
            found.append(value)
    return found


_DETACHED_COPY_CALLS = frozenset({"isinstance", "type", "len", "tuple", "list", "torch.is_tensor"})
#: a dict's views, walked by a detached copy (``{k: v.detach() for k, v in kp.items()}``)
_DICT_VIEWS = frozenset({"items", "keys", "values"})


def _detached_copy(function: FunctionNode, self_name: Optional[str]) -> bool:
    """:attr:`FunctionSummary.detached_copy` (the caller has seen at least one ``return``)."""

    def recursive(func: ast.expr) -> bool:
        if isinstance(func, ast.Name):
            return self_name is None and func.id == function.name
        return (
            isinstance(func, ast.Attribute) and func.attr == function.name
            and isinstance(func.value, ast.Name) and self_name is not None and func.value.id == self_name
        )

    def detached(value: Optional[ast.expr]) -> bool:
        if value is None or isinstance(value, ast.Constant):
            return True
        if isinstance(value, (ast.Tuple, ast.List)):
            return all(not isinstance(e, ast.Starred) and detached(e) for e in value.elts)
        if isinstance(value, (ast.ListComp, ast.GeneratorExp)):
            return detached(value.elt)
        if isinstance(value, ast.DictComp):
            # ``{k: v.detach() for k, v in kp.items()}``: the keys as they were, each entry detached.
            return isinstance(value.key, (ast.Name, ast.Constant)) and detached(value.value)
        if not isinstance(value, ast.Call):
            return False
        func = value.func
        if isinstance(func, ast.Attribute) and func.attr == "detach" and not value.args and not value.keywords:
            return True
        if recursive(func):
            return True
        return (
            isinstance(func, ast.Name) and func.id in ("tuple", "list") and len(value.args) == 1 and not value.keywords
            and isinstance(value.args[0], (ast.ListComp, ast.GeneratorExp)) and detached(value.args[0])
        )

    for node in ast.walk(function):
        if node is function:
            continue
        if isinstance(node, (*_SCOPES, ast.Global, ast.Nonlocal, ast.Yield, ast.YieldFrom, ast.Await, ast.NamedExpr)):
            return False
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            if not all(isinstance(t, ast.Name) for t in targets):
                return False  # a store into an object or a container may keep an argument
        elif isinstance(node, ast.Call):
            func = node.func
            if not (
                dotted(func) in _DETACHED_COPY_CALLS or recursive(func)
                or (isinstance(func, ast.Attribute) and func.attr == "detach")
                or (isinstance(func, ast.Attribute) and func.attr in _DICT_VIEWS and not node.args and not node.keywords)
            ):
                return False
        elif isinstance(node, ast.Return) and not detached(node.value):
            return False
    return True


def _entry_aliases(function: FunctionNode, params: Set[str]) -> Dict[str, Tuple[str, int]]:
    """Local names bound exactly once in ``function``'s own body, by a plain assignment of a
    parameter or an entry of one (``kp = generated["kp"]``): alias → (the parameter, the id of
    its read there). Names bound any other way too (a loop target, ``del``, ``global``, an
    import, a nested ``def``), or also bound in a nested scope, are none."""
    stores: Dict[str, int] = {}
    own_args = _own_args(function)
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            stores[node.id] = stores.get(node.id, 0) + 1
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:
                stores[name] = stores.get(name, 0) + 2
        elif isinstance(node, ast.alias):
            name = (node.asname or node.name).split(".", 1)[0]
            stores[name] = stores.get(name, 0) + 2
        elif isinstance(node, ast.ExceptHandler) and node.name:
            stores[node.name] = stores.get(node.name, 0) + 2
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node is not function:
            stores[node.name] = stores.get(node.name, 0) + 2
        elif type(node).__name__ in ("MatchAs", "MatchStar", "MatchMapping"):
            bound = getattr(node, "rest", None) if type(node).__name__ == "MatchMapping" else getattr(node, "name", None)
            if bound:
                stores[bound] = stores.get(bound, 0) + 2
        elif isinstance(node, ast.arg) and node not in own_args:
            stores[node.arg] = stores.get(node.arg, 0) + 2
    found: Dict[str, Tuple[str, int]] = {}
    for node in _own_nodes(function):
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            continue
        name = node.targets[0].id
        read = node.value
        while isinstance(read, ast.Subscript):
            read = read.value
        if isinstance(read, ast.Name) and read.id in params and name not in params and stores.get(name) == 1:
            found[name] = (read.id, id(read))
    return found


def _own_args(function: FunctionNode) -> Set[ast.arg]:
    a = function.args
    return {*a.posonlyargs, *a.args, *a.kwonlyargs, *([a.vararg] if a.vararg else []), *([a.kwarg] if a.kwarg else [])}


def _own_nodes(function: FunctionNode) -> Iterator[ast.AST]:
    """The nodes of ``function``'s body in evaluation order, not entering nested defs, classes or lambdas.

    Assignments and returns come after the expressions they evaluate
    (``a = a.detach()`` reads the old ``a`` first), other nodes before their children.
    """
    stack: List[Tuple[ast.AST, bool]] = [(n, False) for n in reversed(function.body)]
    while stack:
        node, done = stack.pop()
        if done:
            yield node
            continue
        after = isinstance(node, _AFTER_CHILDREN)
        if after:
            stack.append((node, True))
        else:
            yield node
        if isinstance(node, _SCOPES):
            continue
        children = _children(node)
        if isinstance(node, ast.Assign):
            children = [node.value]  # targets are bound, not evaluated
        stack.extend((child, False) for child in reversed(children))


_INPLACE_METHOD = re.compile(r"^[a-z][a-z0-9_]*[a-z0-9]_$")
#: trailing-underscore methods that change no tensor data
_NOT_DATA_WRITES = frozenset({"requires_grad_", "share_memory_", "detach_", "retain_grad_"})
_OPTIMIZER_NAME = re.compile(r"(^|[._])(opt|optim|optimizer|optimiser)(s?)(_\w+|\d+)?$", re.IGNORECASE)
_SCHEDULER_NAME = re.compile(r"sched|lr_", re.IGNORECASE)


#: what a read of a tensor through these attributes gets carries no graph
#: random draws of entries from a sequence: ``random.sample(buf, n)``, ``random.choice(buf)``
_DRAWS = frozenset({"sample", "choice", "choices"})
#: calls that hand back the entries of their arguments regrouped, not converted
_KEEPING_ENTRIES = frozenset({"zip", "list", "tuple", "map", "sorted", "reversed", "stack", "cat", "concatenate"})

_CUTTING_READS = frozenset({"detach", "data", "item", "tolist", "numpy"})
_SCOPE_KINDS = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda})


#: nodes a value goes through unchanged in kind on its way to an index: ``ids[i] * hop``, ``-k``, ``a:b``, ``(i, j)``
_INDEX_ARITHMETIC = (ast.BinOp, ast.UnaryOp, ast.Slice, ast.Tuple)


def _index_reads(nodes: List[ast.AST], params: Set[str]) -> Set[int]:
    """Ids of the reads of ``params`` whose value serves only as an index or a slice bound of a
    subscript (``x[i, ids[k]:ids[k] + n]``), directly or through locals that serve only as such
    (``start = ids[k]; end = start + n; ret[k] = x[k, start:end]``). Indexing is not differentiable
    in its indices: whatever graph the index tensor has never reaches the subscript's value.

    ``nodes``: a function's own nodes (:func:`_own_nodes`); a local counts only when every binding
    of it is a plain ``name = value``."""
    parents: Dict[int, ast.AST] = {}
    simple: Set[str] = set()
    other: Set[str] = set()
    for node in nodes:
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
        if isinstance(node, ast.Assign):
            names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            if len(names) == len(node.targets):
                simple.update(names)
            else:
                other.update(n.id for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Name))
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            other.add(node.id)  # a loop target, ``x += ...``, ``(y := ...)``, ``del x``
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            other.update(node.names)
    reads: Dict[str, List[ast.Name]] = {}
    for node in nodes:
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            reads.setdefault(node.id, []).append(node)

    def serves_index(read: ast.AST, locals_: Set[str]) -> bool:
        current = read
        while True:
            parent = parents.get(id(current))
            if isinstance(parent, ast.Subscript):
                if current is parent.slice:
                    return True
                current = parent  # ``ids[k]``: an entry of the index tensor, still index material
            elif isinstance(parent, _INDEX_ARITHMETIC):
                current = parent
            elif (
                isinstance(parent, ast.Attribute) and parent.value is current
                and isinstance(grand := parents.get(id(parent)), ast.Call) and grand.func is parent
                and not parent.attr.endswith("_")
            ):
                current = grand  # ``ids[k].long()``: a method of the index that writes nothing
            elif isinstance(parent, ast.Assign) and parent.value is current:
                return all(isinstance(t, ast.Name) and t.id in locals_ for t in parent.targets)
            else:
                return False

    # Locals whose every read serves as an index, found by dropping the others until none is left.
    locals_ = simple - other - params
    changed = True
    while changed:
        changed = False
        for name in sorted(locals_):
            if not all(serves_index(read, locals_) for read in reads.get(name, ())):
                locals_.discard(name)
                changed = True
    return {id(read) for name in params for read in reads.get(name, ()) if serves_index(read, locals_)}


#: methods of a dict that read it and change nothing in it
_DICT_READS = frozenset({"get", "keys", "values", "items"})
#: methods of a dict or list that put nothing into it
_CONTAINER_READS = _DICT_READS | {"pop", "popitem", "clear", "copy", "index", "count", "remove", "__contains__", "__len__", "__getitem__"}


def filled_dicts(function: FunctionNode) -> FrozenSet[str]:
    """Locals of ``function`` bound once, from a dict literal or ``dict()`` (``log = {}``), that
    the function fills only by statements ``log[key] = value``, all of which come before any
    read of the dict in the source (``log["acc"]``, ``log.get(k)``, ``k in log``, ``return
    log``, ``return loss, log``): when any read runs, the values in the dict are ones those statements stored, so its
    values' shapes are theirs. Not a dict handed to a call, aliased, stored elsewhere, changed
    through a method (``update``, ``setdefault``) or through an entry (``log[k] += x``,
    ``log[k].append(x)``), nor one a nested function or class sees: any of these may put a
    value the function's own statements do not show."""
    parents: Dict[int, ast.AST] = {}
    uses: Dict[str, List[ast.Name]] = {}
    bindings: Dict[str, int] = {}
    candidates: Set[str] = set()
    excluded: Set[str] = set()
    for node in ast.walk(function):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
        if isinstance(node, ast.Name):
            uses.setdefault(node.id, []).append(node)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            excluded.update(node.names)
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            value = node.value
            if isinstance(value, ast.Dict) and all(k is not None for k in value.keys) or (
                isinstance(value, ast.Call) and dotted(value.func) == "dict" and not value.args and not value.keywords
            ):
                candidates.add(node.targets[0].id)
    found: Set[str] = set()
    for name in candidates - excluded:
        stores: List[Tuple[int, int]] = []
        reads: List[Tuple[int, int]] = []
        closed = True
        for use in uses.get(name, ()):
            parent = parents.get(id(use))
            scope = parent
            while scope is not None and scope is not function:
                if isinstance(scope, _SCOPES):
                    closed = False  # a nested function or class sees it
                    break
                scope = parents.get(id(scope))
            if not closed:
                break
            if not isinstance(use.ctx, ast.Load):
                bindings[name] = bindings.get(name, 0) + 1
                closed = isinstance(parent, ast.Assign) and isinstance(use.ctx, ast.Store) and bindings[name] == 1
            elif isinstance(parent, ast.Subscript) and parent.value is use:
                grand = parents.get(id(parent))
                if isinstance(parent.ctx, ast.Store):
                    # ``log[key] = value`` alone: one value stored (not ``log[k] += x``, ``a = log[k] = x``)
                    closed = isinstance(grand, ast.Assign) and grand.targets == [parent]
                    stores.append((grand.lineno, grand.col_offset) if closed else (0, 0))  # type: ignore[union-attr]
                elif isinstance(parent.ctx, ast.Load):
                    # ``log[k]`` read, not changed through (``log[k].append(x)``, ``log[k][0] = x``)
                    closed = not (
                        isinstance(grand, (ast.Attribute, ast.Subscript)) and grand.value is parent
                        or isinstance(grand, ast.Call) and grand.func is parent
                    )
                    reads.append((use.lineno, use.col_offset))
            elif isinstance(parent, ast.Attribute) and parent.attr in _DICT_READS:
                grand = parents.get(id(parent))
                closed = isinstance(grand, ast.Call) and grand.func is parent
                reads.append((use.lineno, use.col_offset))
            elif isinstance(parent, (ast.Return, ast.Compare)) or (
                isinstance(parent, ast.Tuple) and isinstance(parents.get(id(parent)), ast.Return)
            ):
                # ``return log``, ``return loss, log``, ``key in log``
                reads.append((use.lineno, use.col_offset))
            else:
                closed = False  # handed on, aliased, or changed through a method
            if not closed:
                break
        if closed and bindings.get(name) == 1 and all(store < read for store in stores for read in reads):
            found.add(name)
    return frozenset(found)


def _is_none_test(node: ast.Compare) -> bool:
    """``x is None`` / ``x is not None`` with a name on the left."""
    return (
        type(node.left) is ast.Name and len(node.ops) == 1 and type(node.ops[0]) in (ast.Is, ast.IsNot)
        and type(node.comparators[0]) is ast.Constant and node.comparators[0].value is None  # type: ignore[attr-defined]
    )


def _disables_grad(statement: Union[ast.With, ast.AsyncWith]) -> bool:
    """``with torch.no_grad():`` (or ``inference_mode``)."""
    return any(
        (dotted(i.context_expr.func if isinstance(i.context_expr, ast.Call) else i.context_expr) or "")
        .rsplit(".", 1)[-1] in GRAD_DISABLING_CONTEXTS
        for i in statement.items
    )


def _under_no_grad(body: List[ast.stmt]) -> Set[int]:
    """Ids of every node inside a ``with torch.no_grad():`` (or ``inference_mode``) block of ``body``,
    or in the branch of ``if not torch.is_grad_enabled():`` that runs only with autograd off
    (``with`` and ``if`` are statements: expressions need no walk)."""
    found: Set[int] = set()
    for statement in _statements(body):
        if isinstance(statement, (ast.With, ast.AsyncWith)) and _disables_grad(statement):
            found.update(id(inner) for inner in ast.walk(statement))
        elif isinstance(statement, ast.If):
            enabled = _grad_enabled_test(statement.test)
            if enabled is not None:
                branch = statement.orelse if enabled else statement.body
                found.update(id(inner) for part in branch for inner in ast.walk(part))
    return found


def _view_of(value: Optional[ast.AST], name: str) -> bool:
    """``value`` is ``name`` itself or a view of it (``x.view(n, -1)``, ``x[:, 0]``, ``x.transpose(0, 1)``):
    writes through the rebound name still reach the caller's tensor."""
    while value is not None:
        if isinstance(value, ast.Name):
            return value.id == name
        if isinstance(value, ast.Subscript):
            value = value.value
        elif isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in VIEW_METHODS:
            value = value.func.value
        else:
            return False
    return False


def _grad_enabled_test(test: ast.expr) -> Optional[bool]:
    """True for ``torch.is_grad_enabled()``, False for ``not torch.is_grad_enabled()``, else None."""
    positive = True
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, positive = test.operand, False
    if isinstance(test, ast.Call) and not test.args and (dotted(test.func) or "").rsplit(".", 1)[-1] == "is_grad_enabled":
        return positive
    return None


def constructed_names(nodes: Iterable[ast.AST]) -> Set[str]:
    """The plain names an assignment among ``nodes`` binds from a call (``meter = AverageMeter()``):
    the only names whose class a function's summary (``local_constructors``) can know, so a call
    on a name bound otherwise runs what the ``def`` line alone tells."""
    return {
        target.id
        for node in nodes
        if type(node) is ast.Assign and type(node.value) is ast.Call  # type: ignore[attr-defined]
        for target in node.targets  # type: ignore[attr-defined]
        if type(target) is ast.Name
    }


def function_header(node: FunctionNode, qualname: str, class_name: Optional[str], module: str) -> FunctionSummary:
    """What the ``def`` line alone tells of a function (its name, parameters, class, decorators): the
    summary before its body is read, for questions that need no more."""
    args = node.args
    params = [a.arg for a in (*args.posonlyargs, *args.args)]
    if args.vararg:
        params.append(args.vararg.arg)
    params.extend(a.arg for a in args.kwonlyargs)
    if args.kwarg:
        params.append(args.kwarg.arg)
    header = FunctionSummary(
        node.name, qualname, tuple(params), node.lineno, class_name, module, node.end_lineno or node.lineno,
        tuple(_decorator_names(node)),
    )
    header.var_keyword = args.kwarg.arg if args.kwarg else None
    header.var_positional = args.vararg.arg if args.vararg else None
    return header


class _FunctionReader:
    """One pass over a function's own body, in source order."""

    def __init__(
        self, node: FunctionNode, qualname: str, class_name: Optional[str], module: ModuleSummary,
        cls: Optional[ClassSummary] = None,
    ) -> None:
        self.node = node
        self.module = module
        self.summary = function_header(node, qualname, class_name, module.name)
        params = list(self.summary.params)
        self.self_name = params[0] if class_name is not None and params and not self._is_static() else None
        own = set(params) - {self.self_name}
        self.own_params = frozenset(own)
        #: params rebound, on some way so far, to something other than the caller's tensor or a
        #: view of it (``x = self.norm(x)``): a later ``x += y`` writes the new value, not the argument
        self.rebound_params: Set[str] = set()
        #: name → the params whose graph it carries
        self.taint: Dict[str, Set[str]] = {p: {p} for p in own}
        #: name → what it holds, as far as known
        self.kinds: Dict[str, Kind] = {}
        #: local names assigned from an optimizer constructor or ``self.optimizers()``
        self.optimizers: Set[str] = set()
        #: the class of a method (its attributes tell what ``self.<attr>(x)`` returns)
        self.cls = cls
        #: local name → its shape, where binding told more than a kind (tuple unpacking)
        self.shapes: Dict[str, Shape] = {}
        self._bound: Optional[FrozenSet[str]] = None
        #: local dict → the shapes of the values stored in it so far, for one bound from a literal
        #: (``log = {}``) and filled by ``log[key] = value`` (see :func:`filled_dicts`)
        self.dict_entries: Dict[str, Set[Shape]] = {}
        self._filled: Optional[FrozenSet[str]] = None
        self._joins: Optional[Dict[int, str]] = None

    def _note_looped_calls(self, loop: Union[ast.For, ast.AsyncFor, ast.While]) -> None:
        stack: List[ast.AST] = [*loop.body, *loop.orelse]
        while stack:
            node = stack.pop()
            if isinstance(node, _SCOPES):
                continue
            if isinstance(node, ast.Call):
                if isinstance(node.func, ast.Attribute) and node.func.attr in BACKWARD_CALLS:
                    self.summary.looped_backward = True
                spelled = dotted(node.func)
                if spelled is not None:
                    head = spelled.split(".", 1)[0]
                    self.summary.looped_calls.add(spelled if head == self.self_name or head not in self.module.imports else self.module.qualify(spelled))
            stack.extend(_children(node))

    def _is_static(self) -> bool:
        return any(isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod") for d in self.node.decorator_list)

    def read(self) -> FunctionSummary:
        returns: List[ast.expr] = []
        shapes: Set[Shape] = set()
        saw_return_none = False
        tensor_returns: Set[int] = set()
        # For cut_params: every read of each parameter, and the reads that are detached or converted.
        params = set(self.summary.params) - {self.self_name}
        plain_params = set(params)
        cut_reads: Set[int] = set()
        param_reads: Dict[str, List[int]] = {}
        handed_reads: Dict[int, Tuple[str, Union[int, str]]] = {}
        # ``kp = generated["kp"]`` bound once: the parameter's entry under a local name.
        aliases = _entry_aliases(self.node, params) if params else {}
        alias_reads: Dict[str, List[int]] = {}
        for node in _own_nodes(self.node):
            if params:
                node_type = type(node)
                if node_type is ast.Name:
                    if node.id in params:  # type: ignore[attr-defined]
                        param_reads.setdefault(node.id, []).append(id(node))  # type: ignore[attr-defined]
                    elif node.id in aliases and isinstance(node.ctx, ast.Load):  # type: ignore[attr-defined]
                        alias_reads.setdefault(node.id, []).append(id(node))  # type: ignore[attr-defined]
                elif node_type is ast.Attribute:
                    if node.attr in _CUTTING_READS:  # type: ignore[attr-defined]
                        read = node.value  # type: ignore[attr-defined]
                        while type(read) is ast.Subscript:
                            read = read.value  # ``generated["kp"]["value"].detach()``: an entry, detached
                        if type(read) is ast.Name:
                            cut_reads.add(id(read))
                elif node_type is ast.Compare:
                    if _is_none_test(node):  # type: ignore[arg-type]
                        cut_reads.add(id(node.left))  # type: ignore[attr-defined]
                elif node_type is ast.Call:
                    self._note_handed_read(node, params | aliases.keys(), handed_reads)  # type: ignore[arg-type]
                elif node_type in _SCOPE_KINDS:
                    params = set()  # a nested def or lambda may read them uncut: nothing is known
                elif node_type is ast.Assign or node_type is ast.AugAssign or node_type is ast.AnnAssign or node_type is ast.For:
                    targets = node.targets if node_type is ast.Assign else [node.target]  # type: ignore[attr-defined]
                    params -= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
            if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
                self.summary.has_loop = True
                self._note_looped_calls(node)
                if isinstance(node, (ast.For, ast.AsyncFor)):
                    self._bind(node.target, self._taint_of(node.iter), Kind.UNKNOWN)
                    if type(node.iter) is ast.Call:
                        hand_over = self._grad_hand_over(node)
                        if hand_over is not None:
                            self.summary.grad_hand_overs.append(hand_over)
            elif isinstance(node, (ast.With, ast.AsyncWith)):
                for item in node.items:
                    expr = item.context_expr
                    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr in SYNC_GATED_CONTEXTS:
                        self.summary.sync_gated.append((node.lineno, node.end_lineno or node.lineno))
            elif isinstance(node, ast.Assign):
                taint, kind = self._taint_of(node.value), self.kind_of(node.value)
                if isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Attribute) and node.value.func.attr == "prepare":
                    for target in node.targets:
                        elements = target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]
                        self.summary.prepared.update(_bound_names(elements, self.self_name))
                self._note_optimizer(node.value, node.targets)
                self._note_constructor(node.value, node.targets)
                shape = self.shape_of(node.value)
                joined = self._branch_joins().get(id(node))
                if joined is not None and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                    taint, kind, shape = self._join_branch(node.targets[0].id, taint, kind, shape)
                for target in node.targets:
                    self._bind(target, taint, kind, shape, node.value)
                    self._write(target, node.value, augmented=False)
                if len(node.targets) == 1:
                    self._note_dict_entry(node.targets[0], node.value, shape)
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                self._bind(node.target, self._taint_of(node.value), self.kind_of(node.value), self.shape_of(node.value), node.value)
                self._write(node.target, node.value, augmented=False)
            elif isinstance(node, ast.AugAssign):
                self._write(node.target, node.value, augmented=True, iadd=isinstance(node.op, ast.Add))
                if isinstance(node.target, ast.Name):
                    self.taint[node.target.id] = self.taint.get(node.target.id, set()) | self._taint_of(node.value)
                    combined = self._arithmetic_shape([self.shape_of(node.target), self.shape_of(node.value)])
                    self.shapes[node.target.id] = combined
            elif isinstance(node, ast.NamedExpr):
                self._bind(node.target, self._taint_of(node.value), self.kind_of(node.value), self.shape_of(node.value))
            elif isinstance(node, (ast.Yield, ast.YieldFrom)) and node.value is not None:
                self.summary.kept_params.update(self._taint_of(node.value))
            elif isinstance(node, ast.Call):
                self._call(node)
            elif isinstance(node, ast.Attribute) and self._is_self(node.value):
                if isinstance(node.ctx, ast.Load):
                    self.summary.self_reads.add(node.attr)
            elif isinstance(node, ast.Attribute) and node.attr == "data" and isinstance(node.value, ast.Name):
                self.summary.detached_params.update(self.taint.get(node.value.id, ()))
            elif isinstance(node, ast.Return):
                if node.value is None:
                    saw_return_none = True
                else:
                    returns.append(node.value)
                    self.summary.returned_self_reads.update(
                        part.attr for part in ast.walk(node.value)
                        if isinstance(part, ast.Attribute) and self._is_self(part.value) and isinstance(part.ctx, ast.Load)
                    )
                    # The shape where it is returned (a name may be rebound later in the body).
                    shapes.add(self.shape_of(node.value))
                    self.summary.kept_params.update(self._taint_of(node.value))
                    if self.kind_of(node.value) is Kind.TENSOR or self.shape_of(node.value).kind in (Kind.TENSOR, Kind.GRAPH):
                        tensor_returns.add(id(node))
                    parts = node.value.elts if isinstance(node.value, (ast.Tuple, ast.List)) else [node.value]
                    self.summary.returned_self_attrs.update(
                        part.attr for part in parts if isinstance(part, ast.Attribute) and self._is_self(part.value)
                    )
        self.summary.returns = self._returns(returns, saw_return_none or not returns)
        self.summary.sampled_self_attrs = self._sampled_self_attrs(returns)
        if any(isinstance(value, ast.Tuple) for value in returns):
            packed = {a.arg for a in (self.node.args.vararg, self.node.args.kwarg) if a is not None}
            own = list(_own_nodes(self.node))
            unpacked = [p for p in self.summary.params if p not in packed]
            self.summary.returned_pass_through = returned_pass_through(unpacked, own, tensor_returns)
            self.summary.returned_unpacked = returned_unpacked(self.summary.params, own, self.self_name, self.module.qualify)
            self.summary.every_element_runs = forwards_in_every_element(unpacked, own)
            self.summary.returned_element_sources = returned_element_sources(self.summary.params, own, self.self_name, self.module.qualify)
            self.summary.returned_param_sources = returned_param_sources(
                self.summary.params, own, self.self_name, self.module.qualify, _under_no_grad(self.node.body)
            )
        if returns and not self.summary.grad_disabled:
            # ``with torch.no_grad(): return self.invert(x)``: every value handed back was computed
            # with grad disabled.
            no_grad = _under_no_grad(self.node.body)
            self.summary.returns_under_no_grad = all(id(value) in no_grad for value in returns)
        if (self.summary.grad_disabled or self.summary.returns_under_no_grad) and returns:
            rebound = {
                n.id for n in _own_nodes(self.node) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
            }
            given = self.own_params - rebound
            self.summary.returns_argument = any(
                isinstance(part, ast.Name) and part.id in given
                for value in returns
                for part in (value.elts if isinstance(value, (ast.Tuple, ast.List)) else [value])
            )
        if saw_return_none or not returns:
            shapes.add(Shape(Kind.NONE))
        self.summary.returns = dataclasses.replace(self.summary.returns, shapes=frozenset(shapes))
        self.summary.returns_detached = bool(returns and (self.own_params or self.self_name)) and all(
            self._detaching(v) for v in returns
        )
        self.summary.detached_copy = bool(returns) and _detached_copy(self.node, self.self_name)
        self.summary.handed_on = self._handed_on()
        freed = {
            b.tensor.name for b in self.summary.backward_calls
            if b.tensor.kind == "local" and not b.retain_graph and b.via != "torch.autograd"
        }
        self.summary.returns_backpropagated = bool(returns) and all(
            isinstance(v, ast.Name) and v.id in freed for v in returns
        )
        if freed and returns and not self.summary.returns_backpropagated:
            # ``losses.append(loss)`` before ``loss.backward()``, then ``return losses``.
            filled = {
                node.func.value.id
                for node in _own_nodes(self.node)
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "append"
                and isinstance(node.func.value, ast.Name) and len(node.args) == 1
                and isinstance(node.args[0], ast.Name) and node.args[0].id in freed
            }
            self.summary.returns_backpropagated_list = any(isinstance(v, ast.Name) and v.id in filled for v in returns)
        self.summary.returns_opaque_call = bool(returns) and all(
            isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and isinstance(v.func.value, ast.Name)
            and v.func.value.id != self.self_name and v.func.attr not in TENSOR_METHODS
            for v in returns
        )
        self.summary.returned_constructor = self._returned_constructor(returns)
        self.summary.on_arguments_only = self.self_name is None and self.node.name != MODULE_BODY and self._on_arguments_only()
        if self.self_name is not None and self.summary.class_name is not None:
            graphless = lambda value: self.kind_of(value) in GRAPHLESS_KINDS  # noqa: E731
            self.summary.member_uses = member_uses(self.node, self.self_name, graphless)
            self.summary.reset_self = reset_attributes(self.node, self.self_name, graphless)
        if self.self_name is not None and self.summary.class_name is not None and self.node.name in ("forward", "__call__"):
            self.summary.opt_in_branches = opt_in_branches(self.node, self.self_name)
            self.summary.carried_self = carried_attributes(
                self.node, self.self_name, lambda value: self.kind_of(value) in GRAPHLESS_KINDS, self.summary.opt_in_branches
            )
        self.summary.element_receivers = element_receivers(
            self.node, set(self.summary.params), self.module.qualify, self._element_constructor
        )
        if params:
            cut_reads |= _index_reads(list(_own_nodes(self.node)), params)
        # The read binding an alias is cut where every read of the alias is, and handed to the calls
        # the alias is handed to where each of its reads is cut or handed.
        alias_handed: Dict[int, List[Tuple[str, Union[int, str]]]] = {}
        for alias, (param, read) in aliases.items():
            reads = alias_reads.get(alias, [])
            if param not in params or not all(i in cut_reads or i in handed_reads for i in reads):
                continue
            if all(i in cut_reads for i in reads):
                cut_reads.add(read)
            else:
                alias_handed[read] = [handed_reads[i] for i in reads if i not in cut_reads]
        self.summary.cut_params = {p for p in params if p in param_reads and all(i in cut_reads for i in param_reads[p])}
        self.summary.cut_params |= self._rebound_detached(plain_params, cut_reads)
        for param in params - self.summary.cut_params:
            reads = param_reads.get(param, [])
            handed = [handed_reads[i] for i in reads if i not in cut_reads and i in handed_reads]
            handed += [call for i in reads if i not in cut_reads for call in alias_handed.get(i, ())]
            if handed and all(i in cut_reads or i in handed_reads or i in alias_handed for i in reads):
                self.summary.cut_if_handed[param] = handed
        return self.summary

    def _note_handed_read(
        self, call: ast.Call, params: Set[str], handed_reads: Dict[int, Tuple[str, Union[int, str]]]
    ) -> None:
        """Record the reads of ``params`` that ``call`` is given as an argument, as they are or an
        entry of them (``detach_kp(generated["kp"])``), for :attr:`FunctionSummary.cut_if_handed`."""
        spelled = self._spelled_callee(call.func)
        if spelled is None:
            return
        given: List[Tuple[Union[int, str], ast.expr]] = []
        for index, arg in enumerate(call.args):
            if isinstance(arg, ast.Starred):
                break
            given.append((index, arg))
        given.extend((kw.arg, kw.value) for kw in call.keywords if kw.arg is not None)
        for position, value in given:
            while isinstance(value, ast.Subscript):
                value = value.value
            if isinstance(value, ast.Name) and value.id in params:
                handed_reads[id(value)] = (spelled, position)

    def _rebound_detached(self, params: Set[str], cut_reads: Set[int]) -> Set[str]:
        """The parameters whose argument the body first rebinds detached (``fake = fake.detach()``
        in a discriminator's ``forward``): a statement of the body itself (not under an ``if``, a
        loop or a ``with``) runs before every later one; where the first to name the parameter is
        an assignment storing it whose every read of it is detached or converted, no later read
        sees the argument's graph."""
        found: Set[str] = set()
        named: Set[str] = set()
        for statement in self.node.body:
            if not params - named:
                break
            names = [n for n in ast.walk(statement) if isinstance(n, ast.Name) and n.id in params]
            first = {n.id for n in names} - named
            named |= first
            if not first or not isinstance(statement, ast.Assign):
                continue
            stored = {
                n.id for target in statement.targets for n in ast.walk(target)
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
            }
            for param in first & stored:
                if all(id(n) in cut_reads for n in names if n.id == param and isinstance(n.ctx, ast.Load)):
                    found.add(param)
        return found

    def _grad_hand_over(self, loop: Union[ast.For, ast.AsyncFor]) -> Optional[GradHandOver]:
        """:class:`GradHandOver` when ``loop`` is ``for a, b in zip(x.parameters(), y.parameters())``
        assigning one element's ``.grad`` to the other's ``.grad`` or ``._grad``."""
        it = loop.iter
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "zip" and len(it.args) == 2):
            return None
        owners: List[ast.expr] = []
        for arg in it.args:
            if not (isinstance(arg, ast.Call) and isinstance(arg.func, ast.Attribute) and arg.func.attr == "parameters"):
                return None
            owners.append(arg.func.value)
        spelled = [dotted(owner) for owner in owners]
        target = loop.target
        if None in spelled or spelled[0] == spelled[1] or not (
            isinstance(target, ast.Tuple) and len(target.elts) == 2 and all(isinstance(e, ast.Name) for e in target.elts)
        ):
            return None
        names = [e.id for e in target.elts]  # type: ignore[attr-defined]
        given: Optional[str] = None
        for node in (n for stmt in loop.body for n in ast.walk(stmt)):
            if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Attribute) and node.value.attr == "grad"):
                continue
            source = node.value.value
            for assigned in node.targets:
                if (
                    isinstance(assigned, ast.Attribute) and assigned.attr in ("grad", "_grad")
                    and isinstance(assigned.value, ast.Name) and assigned.value.id in names
                    and isinstance(source, ast.Name) and source.id in names and source.id != assigned.value.id
                ):
                    given = source.id
        if given is None:
            return None
        exits = (ast.Break, ast.Return, ast.Continue)
        conditional = any(
            isinstance(node, ast.If) and any(isinstance(n, exits) for stmt in node.body for n in ast.walk(stmt))
            for stmt in loop.body for node in ast.walk(stmt)
        )
        return GradHandOver(self.target_of(owners[names.index(given)]), conditional, loop.lineno)

    def _sampled_self_attrs(self, returns: List[ast.expr]) -> Set[str]:
        """``self`` lists whose entries a ``return`` hands back as they are: a random draw
        (``random.sample(self.memory, n)``, ``random.choice``), an index or a slice
        (``self.memory[-n:]``, ``[self.memory[i] for i in idx]``), directly or through locals and
        structure-keeping calls (``zip(*batch)``, ``torch.stack``); not through a conversion
        (``float(self.losses[-1])``) or any other call."""
        if not returns or self.self_name is None:
            return set()
        drawn: Dict[str, Set[str]] = {}

        def own_list(node: ast.AST) -> Set[str]:
            if isinstance(node, ast.Call) and dotted(node.func) == "list" and node.args:
                node = node.args[0]
            return {node.attr} if isinstance(node, ast.Attribute) and self._is_self(node.value) else set()

        def handed(expr: ast.AST) -> Set[str]:
            if isinstance(expr, ast.Name):
                return set(drawn.get(expr.id, ()))
            if isinstance(expr, ast.Subscript):
                return own_list(expr.value) or handed(expr.value)
            if isinstance(expr, (ast.Tuple, ast.List, ast.Set)):
                return {a for e in expr.elts for a in handed(e)}
            if isinstance(expr, ast.Starred):
                return handed(expr.value)
            if isinstance(expr, (ast.ListComp, ast.GeneratorExp)):
                return handed(expr.elt)
            if isinstance(expr, ast.IfExp):
                return handed(expr.body) | handed(expr.orelse)
            if isinstance(expr, ast.Call):
                last = (dotted(expr.func) or "").rsplit(".", 1)[-1]
                if last in _DRAWS and expr.args:
                    return own_list(expr.args[0]) or handed(expr.args[0])
                if last in _KEEPING_ENTRIES:
                    return {a for arg in expr.args for a in handed(arg)}
            return set()

        assignments = [n for n in _own_nodes(self.node) if isinstance(n, ast.Assign)]
        for _ in range(2):
            for node in assignments:
                got = handed(node.value)
                if got:
                    for target in node.targets:
                        for name in ast.walk(target):
                            if isinstance(name, ast.Name):
                                drawn.setdefault(name.id, set()).update(got)
        return {attr for value in returns for attr in handed(value)}

    def _on_arguments_only(self) -> bool:
        """See :attr:`FunctionSummary.on_arguments_only`."""
        nodes = list(_own_nodes(self.node))
        bound = set(self.summary.params) | {
            n.id for n in nodes if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
        }
        for node in nodes:
            if isinstance(node, ast.Assign):  # its targets are not among the nodes it evaluates
                # the names it binds: not those an index of a target reads (``one_hot[arange(len(i))] = 1``)
                bound.update(n.id for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
        # ``FloatTensor = th.cuda.FloatTensor if use_cuda else th.FloatTensor``: a local bound, every
        # time it is bound, to a library callable that holds no parameters is that callable.
        aliases = self._callable_aliases(nodes)
        nested = False  # names bound in nested defs and comprehensions count too: walked only if asked
        for node in nodes:
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                if node.id in self.module.imports or node.id in _PYTHON_BUILTINS:
                    continue
                if node.id not in bound and not nested:
                    nested = True
                    bound.update(
                        n.id for n in ast.walk(self.node) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
                    )
                if node.id not in bound:
                    return False
            elif isinstance(node, (ast.Global, ast.Nonlocal, ast.Lambda)):
                return False
            elif isinstance(node, ast.Call) and not self._parameter_free_call(node.func, bound, aliases):
                return False
        return True

    def _callable_aliases(self, nodes: List[ast.AST]) -> Set[str]:
        """Locals every binding of which is a library callable holding no parameters, by its
        dotted name or one of two by a condition (``th.cuda.FloatTensor if use_cuda else
        th.FloatTensor``): calling one calls that callable. Not a parameter, not bound any other way."""

        def callable_value(value: ast.expr) -> bool:
            if isinstance(value, ast.IfExp):
                return callable_value(value.body) and callable_value(value.orelse)
            spelled = dotted(value)
            return spelled is not None and spelled.split(".", 1)[0] in self.module.imports and self._parameter_free_call(value, set(), set())

        found: Set[str] = set()
        other: Set[str] = set(self.summary.params)
        for node in nodes:
            if isinstance(node, ast.Assign):  # its targets are not among the nodes
                names = {n.id for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
                plain = len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                (found if plain and callable_value(node.value) else other).update(names)
            elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                other.add(node.id)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                other.add(node.name)
        return found - other

    def _parameter_free_call(self, func: ast.expr, bound: Set[str], aliases: Set[str]) -> bool:
        """A callee that holds no parameters: a library function (not a ``torch.nn`` layer),
        a builtin, a local alias of such a library function, or a tensor method of a value."""
        spelled = dotted(func)
        if isinstance(func, ast.Name) and func.id in aliases:
            return True
        if spelled is None:
            # ``torch.relu(x).mean()``: a method of a computed value (the inner call is checked by itself)
            return isinstance(func, ast.Attribute) and func.attr in _TENSOR_VALUE_METHODS
        head = spelled.split(".", 1)[0]
        if head in self.module.imports:
            qualified = self.module.qualify(spelled)
            if qualified.startswith("torch.nn.") and not qualified.startswith(("torch.nn.functional.", "torch.nn.init.", "torch.nn.utils.")):
                return False
            return qualified.startswith(("torch.", "numpy.", "math."))
        if "." not in spelled:
            return head not in bound and head in _PYTHON_BUILTINS
        return isinstance(func, ast.Attribute) and func.attr in _TENSOR_VALUE_METHODS

    def _returned_constructor(self, returns: List[ast.expr]) -> Optional[str]:
        found: Set[Optional[str]] = set()
        for value in returns:
            if isinstance(value, ast.Call):
                spelled = dotted(value.func)
                found.add(self.module.qualify(spelled) if spelled else None)
            elif isinstance(value, ast.Name):
                found.add(self.summary.local_constructors.get(value.id))
            else:
                found.add(None)
        constructor = found.pop() if len(found) == 1 else None
        # Only a class by its name (``Net``, ``losses.DualLoss``), not ``torch.zeros`` or a method call.
        return constructor if constructor and constructor.rsplit(".", 1)[-1][:1].isupper() else None

    def _spelled_callee(self, func: ast.expr) -> Optional[str]:
        """A callee spelled as :attr:`FunctionSummary.calls` records it."""
        spelled = dotted(func)
        if spelled is None:
            return None
        head = spelled.split(".", 1)[0]
        return spelled if head == self.self_name or head not in self.module.imports else self.module.qualify(spelled)

    def _handed_on(self) -> Dict[str, Tuple[str, Union[int, str]]]:
        """:attr:`FunctionSummary.handed_on`: a statement of the body itself (not under an ``if``,
        a loop or a ``with``) runs before every later one; where it is the first to name a parameter
        and rebinds it from a call given it once, the value passed is read nowhere else."""
        plain = {a.arg for a in self.node.args.args} - {self.self_name}
        found: Dict[str, Tuple[str, Union[int, str]]] = {}
        named: Set[str] = set()
        for statement in self.node.body:
            if not plain - named:
                break
            names = {n.id for n in ast.walk(statement) if isinstance(n, ast.Name)} & plain
            first = names - named
            named |= names
            if not first or not isinstance(statement, ast.Assign) or not isinstance(statement.value, ast.Call):
                continue
            call = statement.value
            spelled = self._spelled_callee(call.func)
            if spelled is None:
                continue
            bound = {
                n.id for target in statement.targets for n in ast.walk(target)
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
            }
            for param in first & bound:
                reads = [n for n in ast.walk(statement) if isinstance(n, ast.Name) and n.id == param and isinstance(n.ctx, ast.Load)]
                if len(reads) != 1:
                    continue
                position: Optional[Union[int, str]] = None
                for index, arg in enumerate(call.args):
                    if isinstance(arg, ast.Starred):
                        break
                    if arg is reads[0]:
                        position = index
                for kw in call.keywords:
                    if kw.arg is not None and kw.value is reads[0]:
                        position = kw.arg
                if position is not None:
                    found[param] = (spelled, position)
        return found

    def _detaching(self, value: ast.expr) -> bool:
        """Does this returned expression detach what it returns?"""
        if isinstance(value, ast.Constant) and value.value is None:
            return True
        for node in ast.walk(value):
            # ``h.detach()``, and ``torch.Tensor.detach`` handed to a mapping helper.
            if isinstance(node, ast.Attribute) and node.attr in ("detach", "new_zeros"):
                return True
            if isinstance(node, ast.Call) and (dotted(node.func) or "").rsplit(".", 1)[-1] == self.node.name:
                return True
        return False

    # ------------------------------------------------------------------ helpers

    def _is_self(self, node: ast.AST) -> bool:
        return self.self_name is not None and isinstance(node, ast.Name) and node.id == self.self_name

    def target_of(self, node: ast.AST) -> Target:
        if isinstance(node, ast.Name):
            if node.id in self.summary.params and node.id != self.self_name:
                return Target("param", node.id)
            return Target("local", node.id)
        if isinstance(node, ast.Attribute) and self._is_self(node.value):
            return Target("self", node.attr)
        spelled = dotted(node)
        return Target("expr", spelled or "")

    def _bind(
        self, target: ast.AST, taint: Set[str], kind: Kind, shape: Optional[Shape] = None, value: Optional[ast.AST] = None
    ) -> None:
        if isinstance(target, ast.Name) and target.id in self.own_params and not _view_of(value, target.id):
            self.rebound_params.add(target.id)
        if isinstance(target, ast.Name):
            self.taint[target.id] = set(taint)
            self.kinds[target.id] = kind
            self.dict_entries.pop(target.id, None)
            if shape is not None and shape.kind is not Kind.UNKNOWN:
                self.shapes[target.id] = shape
            else:
                self.shapes.pop(target.id, None)
        elif isinstance(target, (ast.Tuple, ast.List)):
            parts: Tuple[Optional[Shape], ...] = (None,) * len(target.elts)
            if shape is not None and len(shape.parts) == len(target.elts) and not any(isinstance(e, ast.Starred) for e in target.elts):
                parts = shape.parts
            elif shape is not None and shape.kind in (Kind.TUPLE, Kind.LIST) and shape.values is not None:
                parts = (shape.values,) * len(target.elts)
            elif kind is Kind.GRAPH and (shape is None or shape == _GRAPH_SHAPE):
                parts = (UNPACKED_GRAPH_SHAPE,) * len(target.elts)
            for element, part in zip(target.elts, parts):
                inner = element.value if isinstance(element, ast.Starred) else element
                self._bind(inner, taint, Kind.UNKNOWN if kind in (Kind.TUPLE, Kind.LIST) else kind, part)
        elif isinstance(target, (ast.Attribute, ast.Subscript)):
            # Stored on an object or in a container: the caller's value outlives the call.
            self.summary.kept_params.update(taint)
            if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                table = target.value.id
                self._forget_elements(table)
                # ``out[i] = x[:, i]`` into ``out = torch.zeros_like(x)``: the tensor now holds x's graph,
                # a graph of its own, or one of its arguments' where the value reads a parameter.
                if table in self.taint:
                    self.taint[table] = self.taint[table] | taint
                if self.kinds.get(table) is Kind.TENSOR and (kind is Kind.GRAPH or taint):
                    written = Kind.GRAPH if kind is Kind.GRAPH else Kind.UNKNOWN
                    self.kinds[table] = written
                    self.shapes[table] = Shape(written)

    def _taint_of(self, node: Optional[ast.AST]) -> Set[str]:
        """The params whose graph ``node``'s value may carry (cut by the vocabulary)."""
        if node is None:
            return set()
        if isinstance(node, ast.Name):
            return set(self.taint.get(node.id, ()))
        if isinstance(node, ast.Attribute):
            return set() if node.attr in CUT_ATTRIBUTES else self._taint_of(node.value)
        if isinstance(node, ast.Call):
            func = node.func
            spelled = dotted(func) or ""
            if isinstance(func, ast.Attribute) and (func.attr in CUT_METHODS or func.attr in NON_TENSOR_METHODS):
                return set()
            if spelled in CUT_FUNCTIONS or spelled.rsplit(".", 1)[-1] in DETACH_HELPER_NAMES:
                return set()
            qualified = self.module.qualify(spelled) if spelled else ""
            if qualified.startswith("math.") or (
                qualified.startswith("torch.") and qualified.rsplit(".", 1)[-1] in TORCH_CUT_FUNCTIONS
            ):
                return set()
            found: Set[str] = set()
            args = [*node.args, *(k.value for k in node.keywords)]
            if isinstance(func, ast.Attribute) and func.attr in ("get", "pop", "setdefault") and node.args:
                # ``totals.get(key, 0.0)``: an entry of the mapping; the key brings no graph.
                args = args[1:]
            for arg in args:
                found |= self._taint_of(arg)
            if isinstance(func, ast.Attribute):
                found |= self._taint_of(func.value)
            return found
        if isinstance(node, ast.Subscript):
            # ``x[i]``: an element of ``x``; an index carries no gradient into it.
            return self._taint_of(node.value)
        if isinstance(node, (ast.Lambda, ast.Constant, ast.JoinedStr, ast.Compare)):
            return set()
        found = set()
        for child in ast.iter_child_nodes(node):
            found |= self._taint_of(child)
        return found

    def kind_of(self, node: ast.AST) -> Kind:
        """What the value of ``node`` is, from this function's own code."""
        if isinstance(node, ast.Constant):
            if node.value is None:
                return Kind.NONE
            if isinstance(node.value, bool):
                return Kind.OTHER
            return Kind.NUMBER if isinstance(node.value, (int, float, complex)) else Kind.OTHER
        if isinstance(node, (ast.Dict, ast.DictComp)):
            return Kind.DICT
        if isinstance(node, ast.Tuple):
            return Kind.TUPLE
        if isinstance(node, (ast.List, ast.ListComp)):
            return Kind.LIST
        if isinstance(node, (ast.JoinedStr, ast.Compare, ast.Lambda, ast.BoolOp)):
            return Kind.OTHER if not isinstance(node, ast.BoolOp) else Kind.UNKNOWN
        if isinstance(node, ast.Name):
            if node.id in self.kinds:
                return self.kinds[node.id]
            return Kind.UNKNOWN
        if isinstance(node, ast.Attribute):
            if node.attr in ("shape",):
                return Kind.TUPLE
            if node.attr in ("grad", "data"):
                return Kind.TENSOR
            if node.attr in CUT_ATTRIBUTES or node.attr in ("size", "itemsize", "nbytes"):
                # ``x.dtype``, ``idx.size`` of an array (a method object on a tensor): no graph
                return Kind.PLAIN
            return Kind.PLAIN if self._configuration_read(node) else Kind.UNKNOWN
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
            return Kind.TUPLE if isinstance(node.slice, ast.Slice) else Kind.NUMBER
        if isinstance(node, ast.Subscript) and self.kind_of(node.value) in (Kind.TENSOR, Kind.PLAIN):
            # An element of a tensor with no graph (``loss.data[0]``: a number on old torch) has none.
            return Kind.PLAIN
        if isinstance(node, ast.BinOp):
            return _arithmetic_kind([self.kind_of(node.left), self.kind_of(node.right)])
        if isinstance(node, ast.UnaryOp):
            return self.kind_of(node.operand) if not isinstance(node.op, ast.Not) else Kind.OTHER
        if isinstance(node, ast.Call):
            return self._call_kind(node)
        return Kind.UNKNOWN

    def shape_of(self, node: ast.AST) -> Shape:
        """The shape of ``node``'s value: :meth:`kind_of`, with tuples, dicts and what modules
        and tensor operations return spelled out."""
        if isinstance(node, ast.Name) and node.id in self.shapes:
            return self.shapes[node.id]
        if isinstance(node, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in node.elts):
            kind = Kind.TUPLE if isinstance(node, ast.Tuple) else Kind.LIST
            return Shape(kind, tuple(self.shape_of(e) for e in node.elts))
        if isinstance(node, ast.Dict) and node.keys and all(k is not None for k in node.keys):
            return Shape(Kind.DICT, values=_entries_shape(self.shape_of(v) for v in node.values))
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and type(node.slice.value) is int:
            whole = self.shape_of(node.value)
            if whole.kind in (Kind.TUPLE, Kind.LIST) and -len(whole.parts) <= node.slice.value < len(whole.parts):
                return whole.parts[node.slice.value]
        if isinstance(node, ast.BinOp):
            return self._arithmetic_shape([self.shape_of(node.left), self.shape_of(node.right)])
        if isinstance(node, ast.UnaryOp) and not isinstance(node.op, ast.Not):
            return self.shape_of(node.operand)
        if isinstance(node, ast.Call):
            module = self._module_shape(node)
            if module is not None:
                return module
            spelled = dotted(node.func)
            if spelled in ("tuple", "list") and len(node.args) == 1 and not node.keywords and spelled not in self.module.imports:
                # ``tuple(totals)`` of a list whose elements' shape is known: the same elements.
                inner = self.shape_of(node.args[0])
                if inner.kind in (Kind.TUPLE, Kind.LIST) and inner.values is not None:
                    return Shape(Kind.TUPLE if spelled == "tuple" else Kind.LIST, values=inner.values)
            if self._splits_graph(node):
                return Shape(Kind.TUPLE, values=_GRAPH_SHAPE)
            kind = self.kind_of(node)
            if kind is Kind.UNKNOWN and self._computes_on_graph(node):
                return _GRAPH_SHAPE
            return Shape(kind)
        return Shape(self.kind_of(node))

    def _splits_graph(self, call: ast.Call) -> bool:
        """``x.chunk(2)``, ``torch.split(x, 4)`` of a value with a graph: a tuple of such tensors."""
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr in TUPLE_RESULT_OPS and self.shape_of(func.value) == _GRAPH_SHAPE:
            return True
        spelled = dotted(func) or ""
        qualified = self.module.qualify(spelled) if spelled else ""
        return (
            qualified.startswith("torch.")
            and qualified.rsplit(".", 1)[-1] in TUPLE_RESULT_OPS
            and any(self.shape_of(a) == _GRAPH_SHAPE for a in call.args)
        )

    def _module_shape(self, call: ast.Call) -> Optional[Shape]:
        """What calling ``self.<attr>`` (or ``self.<attr>.forward``) returns, for a ``torch.nn`` layer."""
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr == "forward":
            func = func.value
        if not (isinstance(func, ast.Attribute) and self._is_self(func.value) and self.cls is not None):
            return None
        attribute = self.cls.attributes.get(func.attr)
        if attribute is None or attribute.kind is not AttrKind.MODULE or not attribute.constructor:
            return None
        if not attribute.constructor.startswith("torch.nn."):
            return None
        return nn_output_shape(attribute.constructor)

    def _computes_on_graph(self, node: ast.Call) -> bool:
        """A call on a value with a graph that yields one tensor: ``x.mean()``, ``F.relu(x)``."""
        func = node.func
        spelled = dotted(func) or ""
        qualified = self.module.qualify(spelled) if spelled else ""
        if qualified.startswith("torch."):
            last = qualified.rsplit(".", 1)[-1]
            if last in TORCH_CUT_FUNCTIONS or last in TUPLE_RESULT_OPS or last in MAYBE_TUPLE_RESULT_OPS or last[:1].isupper():
                return False
            return any(self.shape_of(a) == _GRAPH_SHAPE for a in node.args)
        if isinstance(func, ast.Attribute) and self.shape_of(func.value) == _GRAPH_SHAPE:
            method = func.attr
            if method in CUT_METHODS or method in NON_TENSOR_METHODS or method in NUMBER_METHODS:
                return False
            if method not in TENSOR_METHODS:
                # ``loss.get_loss()`` on a loss object the function back-propagated through its
                # own ``backward`` method: no tensor operation, so nothing known about the result.
                return False
            if method in TUPLE_RESULT_OPS or (method in MAYBE_TUPLE_RESULT_OPS and (node.args or node.keywords)):
                return False
            return True
        return False

    @staticmethod
    def _arithmetic_shape(shapes: List[Shape]) -> Shape:
        """The shape of arithmetic on operands of these shapes (as :meth:`kind_of` does for kinds)."""
        kind = _arithmetic_kind([s.kind if not s.parts and s.values is None else Kind.UNKNOWN for s in shapes])
        return _GRAPH_SHAPE if kind is Kind.GRAPH else Shape(kind)

    def _configuration_read(self, node: ast.Attribute) -> bool:
        """``args.chunk_len``, ``cfg.train.steps``: an attribute chain read from a module-level name
        that the function neither binds nor takes, built by a function call (``parser.parse_args()``,
        ``yaml.safe_load(f)``), not by a class (an object or module whose attributes may be tensors),
        or an imported library's constant (``math.pi``). Its kind is not known; it holds no graph."""
        spelled = dotted(node)
        if spelled is None or self.node.name == MODULE_BODY or node.attr in PARAMETER_ATTRIBUTES:
            return False
        root = spelled.split(".", 1)[0]
        if root in self._bound_names():
            return False
        if root in self.module.imports:
            return self.module.qualify(root).split(".", 1)[0] in LIBRARIES
        built = self.module.assigned_calls.get(root)
        if built is None:
            return False
        last = built.rsplit(".", 1)[-1]
        # Not a tensor (``torch.*``) nor a model a library builds (``timm.create_model``, ``from_pretrained``).
        model = built.startswith(("torch.", *MODEL_BUILDER_PREFIXES)) or last in MODEL_BUILDER_NAMES
        return last[:1].islower() and not model

    def _branch_joins(self) -> Dict[int, str]:
        """``if c: loss = f(x)`` / ``else: loss = None``: the assignments (by id) of a name, made by a
        statement of an ``if``'s ``else`` branch, that its body assigns too (at any depth, as
        ``loss = …`` in an inner ``if``). Read in source order, the ``else`` one comes last; the value
        after the ``if`` is either."""
        if self._joins is None:
            self._joins = {}
            for node in _own_nodes(self.node):
                if not isinstance(node, ast.If) or not node.orelse:
                    continue
                assigned: Set[str] = set()
                stack: List[ast.AST] = list(node.body)
                while stack:
                    inner = stack.pop()
                    if isinstance(inner, _SCOPES):
                        continue
                    if isinstance(inner, ast.Assign) and len(inner.targets) == 1 and isinstance(inner.targets[0], ast.Name):
                        assigned.add(inner.targets[0].id)
                    stack.extend(ast.iter_child_nodes(inner))
                for statement in node.orelse:
                    if (
                        isinstance(statement, ast.Assign) and len(statement.targets) == 1
                        and isinstance(statement.targets[0], ast.Name) and statement.targets[0].id in assigned
                    ):
                        self._joins[id(statement)] = statement.targets[0].id
        return self._joins

    def _join_branch(self, name: str, taint: Set[str], kind: Kind, shape: Shape) -> Tuple[Set[str], Kind, Shape]:
        """What ``name`` holds after an ``if`` whose body left it as it is now and whose ``else``
        binds it to a value of ``kind``/``shape``: when one way may hold a graph and the other cannot
        (a loss on one, ``None`` on the other), it may hold a graph and is not surely a tensor
        (:attr:`Kind.UNKNOWN`: reported, never detached); otherwise the ``else`` value, as before."""
        before_kind = self.kinds.get(name, Kind.UNKNOWN)
        before_shape = self.shapes.get(name, Shape(before_kind))
        taint = set(taint) | self.taint.get(name, set())
        if may_hold_graph(before_shape) != may_hold_graph(shape):
            return taint, Kind.UNKNOWN, _UNKNOWN_SHAPE
        return taint, kind, shape

    def _bindings(self, name: str) -> int:
        """How many times the function binds ``name`` (assignments, loop targets, ``with ... as``)."""
        return sum(
            1 for node in ast.walk(self.node) if isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load)
        ) + (name in self.summary.params)

    def _bound_names(self) -> FrozenSet[str]:
        """Every name the function binds (its params, assignments, loops, imports, nested defs)."""
        if self._bound is None:
            bound = set(self.summary.params)
            for node in ast.walk(self.node):
                if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                    bound.add(node.id)
                elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node is not self.node:
                    bound.add(node.name)
                elif isinstance(node, (ast.Import, ast.ImportFrom)):
                    bound.update((a.asname or a.name).split(".", 1)[0] for a in node.names)
                elif isinstance(node, (ast.Global, ast.Nonlocal)):
                    bound.update(node.names)
            self._bound = frozenset(bound)
        return self._bound

    def _call_kind(self, call: ast.Call) -> Kind:
        func = call.func
        spelled = dotted(func) or ""
        qualified = self.module.qualify(spelled) if spelled else ""
        if isinstance(func, ast.Attribute):
            method = func.attr
            if method == "item":
                return Kind.NUMBER
            if method == "tolist":
                return Kind.LIST
            if method == "numpy":
                return Kind.PLAIN  # an array: no graph, and nothing ``.detach()`` may be called on
            if method == "size" and not any(isinstance(a, ast.Starred) for a in call.args):
                # ``x.size(0)``: an int; ``x.size()``: a ``torch.Size``, a tuple of ints
                return Kind.NUMBER if call.args or call.keywords else Kind.TUPLE
            if method in ("detach", "new_zeros", "new_ones", "new_empty", "new_full", "new_tensor"):
                return Kind.TENSOR
            if method in CUT_METHODS and method not in ("numpy", "size", "__len__", "tolist", "sample"):
                return Kind.TENSOR if method not in ("dim", "numel", "element_size", "data_ptr", "get_device") else Kind.NUMBER
            if qualified.startswith("math."):
                return Kind.NUMBER
            if qualified.startswith("torch.") and not qualified.startswith("torch.nn."):
                last = qualified.rsplit(".", 1)[-1]
                if last in TORCH_CUT_FUNCTIONS:
                    return Kind.TENSOR
                return Kind.GRAPH if self._any_graph(call) else Kind.UNKNOWN
            if self._data_library_call(call, qualified):
                return Kind.PLAIN
            receiver = self.kind_of(func.value)
            if receiver is Kind.PLAIN and self._graphless_arguments(call):
                # ``counts.astype(np.float32)``, ``arr.mean()``: an array's (or a plain number's) method
                # given no graph computes none.
                return Kind.PLAIN
            if method in KEEP_METHODS and receiver in (Kind.GRAPH, Kind.TENSOR):
                return receiver
            if self._is_self(func.value) or (isinstance(func.value, ast.Attribute) and self._is_self(func.value.value)):
                # self.model(x) is handled below; self.forward(x), self.loss_fn(…) make a graph
                if method in ("forward", "compute_loss", "training_step", "shared_step") or receiver is Kind.GRAPH:
                    return Kind.GRAPH
            return Kind.UNKNOWN
        if spelled in ("dict", "collections.OrderedDict", "OrderedDict", "defaultdict"):
            return Kind.DICT
        if spelled in ("tuple",):
            return Kind.TUPLE
        if spelled in ("list", "sorted"):
            return Kind.LIST
        if spelled in NUMBER_FUNCTIONS and spelled != "abs":
            return Kind.NUMBER
        if spelled in ("str", "repr", "format", "isinstance", "hasattr", "callable"):
            return Kind.OTHER
        if qualified.startswith("math."):
            return Kind.NUMBER
        if qualified.startswith("torch.") and qualified.rsplit(".", 1)[-1] in TORCH_CUT_FUNCTIONS:
            return Kind.TENSOR
        if qualified.startswith(("torch.nn.functional.", "torch.")) and self._any_graph(call):
            return Kind.GRAPH
        if self._is_self(func):
            return Kind.GRAPH  # self(x): the module's own forward
        if self._data_library_call(call, qualified):
            return Kind.PLAIN
        return Kind.UNKNOWN

    def _data_library_call(self, call: ast.Call, qualified: str) -> bool:
        """``np.sum(counts)``, ``f1_score(y_true, y_pred)`` on arrays: a data library given no graph."""
        return qualified.split(".", 1)[0] in DATA_LIBRARIES and self._graphless_arguments(call)

    def _graphless_arguments(self, call: ast.Call) -> bool:
        values = [a.value if isinstance(a, ast.Starred) else a for a in call.args] + [k.value for k in call.keywords]
        return all(self.kind_of(v) in GRAPHLESS_KINDS for v in values)

    def _any_graph(self, call: ast.Call) -> bool:
        return any(self.kind_of(a) is Kind.GRAPH for a in call.args)

    def _note_optimizer(self, value: ast.expr, targets: List[ast.expr]) -> None:
        if not isinstance(value, ast.Call):
            return
        spelled = dotted(value.func) or ""
        qualified = self.module.qualify(spelled) if spelled else ""
        is_opt = is_optimizer_constructor(qualified) or (
            isinstance(value.func, ast.Attribute) and value.func.attr == "optimizers" and self._is_self(value.func.value)
        )
        for target in targets:
            if isinstance(target, ast.Name):
                if is_opt:
                    self.optimizers.add(target.id)
                else:
                    self.optimizers.discard(target.id)
            elif isinstance(target, (ast.Tuple, ast.List)) and is_opt:
                self.optimizers.update(e.id for e in target.elts if isinstance(e, ast.Name))

    def _note_constructor(self, value: ast.expr, targets: List[ast.expr]) -> None:
        for target in targets:
            if (
                isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List))
                and len(target.elts) == len(value.elts)
                and not any(isinstance(part, ast.Starred) for part in [*target.elts, *value.elts])
            ):
                # ``gen_full, disc_full = GenFull(g, d), DiscFull(g, d)``: each name its own element.
                for sub_target, sub_value in zip(target.elts, value.elts):
                    self._note_constructor(sub_value, [sub_target])
        # ``Net(...).to(device)``: the module methods that hand the object back keep its class.
        while (
            isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
            and value.func.attr in MODULE_SELF_METHODS and isinstance(value.func.value, ast.Call)
        ):
            value = value.func.value
        spelled = dotted(value.func) if isinstance(value, ast.Call) else None
        element = self._element_constructor(value)
        wrapped = self._first_argument_constructor(value)
        for target in targets:
            if isinstance(target, ast.Name):
                if spelled is not None and spelled.split(".", 1)[0] == target.id and target.id in self.summary.local_constructors:
                    # ``state = state.detach()``, ``net = net.to(device)``: the object's own method hands it
                    # back; its class stays the one it was constructed from.
                    continue
                if spelled is not None and spelled.split(".", 1)[0] != self.self_name:
                    self.summary.local_constructors[target.id] = self.module.qualify(spelled)
                else:
                    self.summary.local_constructors.pop(target.id, None)
                if wrapped is not None and target.id in self.summary.local_constructors:
                    self.summary.wrapped_constructors[target.id] = wrapped
                else:
                    self.summary.wrapped_constructors.pop(target.id, None)
                if element is not None:
                    self.summary.element_constructors[target.id] = element
                else:
                    self.summary.element_constructors.pop(target.id, None)

    def _first_argument_constructor(self, value: ast.expr) -> Optional[str]:
        """The qualified constructor of the object a call is handed first: a name built here by a
        call, or a call of a constructor (``Net(...)``,
        ``Net(...).to(device)``). None for anything else."""
        if not isinstance(value, ast.Call) or not value.args or isinstance(value.args[0], ast.Starred):
            return None
        inner = value.args[0]
        if isinstance(inner, ast.Name):
            return self.summary.local_constructors.get(inner.id)
        while (
            isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute)
            and inner.func.attr in MODULE_SELF_METHODS and isinstance(inner.func.value, ast.Call)
        ):
            inner = inner.func.value
        spelled = dotted(inner.func) if isinstance(inner, ast.Call) else None
        if spelled is None or spelled.split(".", 1)[0] == self.self_name:
            return None
        return self.module.qualify(spelled)

    def _element_constructor(self, value: ast.expr) -> Optional[str]:
        return _element_constructor(value, self.module)

    def _note_forwarded(self, call: ast.Call, receiver: ast.expr) -> None:
        """Params passed to a method of an object held on ``self`` (``self.meter.update(v)``,
        ``self.meters[k].update(v)``): whether that method keeps them is resolved across files."""
        assert isinstance(call.func, ast.Attribute)
        held = receiver.value if isinstance(receiver, ast.Subscript) else receiver
        if not (isinstance(held, ast.Attribute) and self._is_self(held.value)):
            return
        spelled = f"self.{held.attr}{'[]' if isinstance(receiver, ast.Subscript) else ''}.{call.func.attr}"
        bound: List[Tuple[Union[int, str], ast.expr]] = [(i, a) for i, a in enumerate(call.args) if not isinstance(a, ast.Starred)]
        bound.extend((k.arg, k.value) for k in call.keywords if k.arg is not None)
        for position, arg in bound:
            for param in self._taint_of(arg):
                self.summary.forwarded_params.append((param, spelled, position))

    def _write(self, target: ast.AST, value: ast.expr, augmented: bool, iadd: bool = False) -> None:
        summary = self.summary
        base = target.value if isinstance(target, ast.Subscript) else target
        if isinstance(base, ast.Attribute) and self._is_self(base.value):
            summary.self_writes.add(base.attr)
            if augmented or isinstance(target, ast.Subscript) or self._adds_to_itself(value, base):
                # ``self.tracks[k] += v``: what is kept is the element's ``__iadd__``'s to say.
                by_iadd = iadd and isinstance(target, ast.Subscript)
                for param in self._taint_of(value):
                    self._accumulate(param, base.attr, by_iadd)
            return
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            if target.value.id in summary.params:
                summary.inplace_params.update(self.taint.get(target.value.id, ()))
        elif (
            augmented and isinstance(target, ast.Name) and target.id in summary.params and target.id != self.self_name
            and target.id not in self.rebound_params
        ):
            # ``p += x`` on a tensor parameter writes the caller's tensor.
            summary.inplace_params.add(target.id)

    def _accumulate(self, param: str, attr: str, by_iadd: bool = False) -> None:
        summary = self.summary
        summary.accumulated_params.setdefault(param, set()).add(attr)
        (summary.added_by_iadd if by_iadd else summary.added_otherwise).add((param, attr))

    def _adds_to_itself(self, value: ast.expr, attribute: ast.Attribute) -> bool:
        """``self.sum = self.sum + val * n``, ``self.ema = a * self.ema + (1 - a) * val``."""
        if not isinstance(value, ast.BinOp) or not isinstance(value.op, ast.Add):
            return False
        return any(
            isinstance(node, ast.Attribute) and node.attr == attribute.attr and self._is_self(node.value)
            for side in (value.left, value.right)
            for node in _arithmetic_operands(side)
        )

    def _grow_list(self, call: ast.Call) -> None:
        """``out.append(loss.item())`` on a local list: its elements are what is appended to it.

        Any other way the list may be filled (``extend``, ``insert``, handing it to a call) leaves
        its elements unknown; so does changing a dict through a method that is not a read
        (``log.update(extra)``) or handing it to a call.
        """
        func = call.func
        grown = func.value.id if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) else None
        for arg in [*call.args, *(k.value for k in call.keywords)]:
            if isinstance(arg, ast.Name) and arg.id != grown:
                self._forget_elements(arg.id)
        if grown is not None and isinstance(func, ast.Attribute) and func.attr not in _DICT_READS:
            shape = self.shapes.get(grown)
            if shape is not None and shape.kind is Kind.DICT:
                self._forget_elements(grown)  # ``log.update(extra)``, ``log.setdefault(k, v)``
        if grown is None or not isinstance(func, ast.Attribute) or func.attr not in LIST_FILLING_METHODS:
            return
        shape = self.shapes.get(grown)
        if shape is None or shape.kind is not Kind.LIST:
            return
        if func.attr != "append" or len(call.args) != 1 or call.keywords:
            self._forget_elements(grown)
            return
        elements = {*shape.parts, self.shape_of(call.args[0])}
        if shape.values is not None:
            elements.add(shape.values)
        self.shapes[grown] = Shape(Kind.LIST, values=elements.pop() if len(elements) == 1 else _UNKNOWN_SHAPE)

    def _note_dict_entry(self, target: ast.expr, value: ast.expr, shape: Shape) -> None:
        """``log = {}`` / ``log = {"n": 0}``: a dict whose values are known; ``log["acc"] =
        float(acc)`` into such a dict, filled only that way (:func:`filled_dicts`): one value more,
        and the dict's values are what every such store put there."""
        if isinstance(target, ast.Name):
            if isinstance(value, ast.Dict) and all(k is not None for k in value.keys):
                self.dict_entries[target.id] = {self.shape_of(v) for v in value.values}
            elif isinstance(value, ast.Call) and dotted(value.func) == "dict" and not value.args and not value.keywords:
                self.dict_entries[target.id] = set()
            return
        if not (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)):
            return
        name = target.value.id
        entries = self.dict_entries.get(name)
        if entries is None:
            self._forget_elements(name)
            return
        if self._filled is None:
            self._filled = filled_dicts(self.node)
        if name not in self._filled:
            del self.dict_entries[name]
            self._forget_elements(name)
            return
        entries.add(shape)
        self.shapes[name] = Shape(Kind.DICT, values=_entries_shape(entries))

    def _forget_elements(self, name: str) -> None:
        """What the list or dict ``name`` holds is no longer known: something may have put any value in it."""
        shape = self.shapes.get(name)
        if shape is not None and shape.kind is Kind.LIST:
            self.shapes[name] = Shape(Kind.LIST, values=_UNKNOWN_SHAPE)
        elif shape is not None and shape.kind is Kind.DICT and shape.values is not None:
            self.shapes[name] = Shape(Kind.DICT)

    def _call(self, call: ast.Call) -> None:
        self._grow_list(call)
        summary = self.summary
        func = call.func
        spelled = dotted(func)
        if spelled is not None:
            head = spelled.split(".", 1)[0]
            summary.calls.append(spelled if head == self.self_name or head not in self.module.imports else self.module.qualify(spelled))
        if self._is_self(func):
            summary.self_calls.append("__call__")
        if isinstance(func, ast.Name) and not any(isinstance(a, ast.Starred) for a in call.args) and all(k.arg for k in call.keywords):
            summary.call_arguments.setdefault(func.id, []).append((
                tuple(_plain_name(a) for a in call.args),
                tuple((k.arg, _plain_name(k.value)) for k in call.keywords if k.arg is not None),
            ))
        if spelled in NUMBER_FUNCTIONS and call.args:
            summary.number_params.update(self._taint_of(call.args[0]))
        if self.own_params - summary.kept_params:
            passed = set().union(*(self._taint_of(a) for a in [*call.args, *(k.value for k in call.keywords)]))
            if passed - summary.kept_params and self._may_keep_arguments(call, spelled):
                summary.kept_params.update(passed)
        if call.keywords and call.args and is_true(keyword_value(call, "inplace")):
            summary.inplace_params.update(self._param_of(call.args[0]))  # F.relu(p, inplace=True)
        if not isinstance(func, ast.Attribute):
            if spelled is not None and spelled.rsplit(".", 1)[-1] in DETACH_HELPER_NAMES and call.args:
                summary.detached_params.update(self._taint_of(call.args[0]))
            if spelled is not None and self.module.qualify(spelled) == "torch.autograd.backward" and call.args:
                self._backward(call.args[0], "torch.autograd", call)
            return
        method, receiver = func.attr, func.value
        if self._is_self(receiver):
            summary.self_calls.append(method)
        if method in NUMBER_METHODS:
            summary.number_params.update(self._taint_of(receiver))
        elif method in ("detach", "detach_"):
            summary.detached_params.update(self._taint_of(receiver))
            if method == "detach_":
                summary.detached_in_place.update(self._taint_of(receiver))
        elif method in ACCUMULATING_METHODS and call.args:
            base = receiver.value if isinstance(receiver, ast.Subscript) else receiver
            if isinstance(base, ast.Attribute) and self._is_self(base.value):
                for arg in call.args:
                    for param in self._taint_of(arg):
                        self._accumulate(param, base.attr)
                        if receiver is base:
                            summary.appended_attrs.add(base.attr)
        else:
            self._note_forwarded(call, receiver)
        if _INPLACE_METHOD.match(method) and method not in _NOT_DATA_WRITES:
            summary.inplace_params.update(self._param_of(receiver))
        if method == "backward" and spelled is not None and self.module.qualify(spelled) == "torch.autograd.backward":
            if call.args:
                self._backward(call.args[0], "torch.autograd", call)
        elif method == "backward":
            if call.args and self._looks_like_wrapper(receiver, call.args[0]):
                self._backward(call.args[0], "accelerator", call)
                return
            self._backward(receiver, None, call)
        elif method == "manual_backward" and call.args:
            self._backward(call.args[0], "manual_backward", call)
        elif method == "step":
            if isinstance(receiver, ast.Name) or isinstance(receiver, ast.Attribute):
                if call.args and _is_scaler_name(receiver):
                    summary.steps.append(StepCall(self.target_of(call.args[0]), True, call.lineno))
                elif self._is_optimizer(receiver):
                    summary.steps.append(StepCall(self.target_of(receiver), self._known_optimizer(receiver), call.lineno))
        elif method == "zero_grad":
            summary.zero_grads.append(ZeroGradCall(self.target_of(receiver), call.lineno))

    def _may_keep_arguments(self, call: ast.Call, spelled: Optional[str]) -> bool:
        """Might this call keep its arguments beyond the call (a container, an unknown helper)?

        Not ``torch`` functions, numbers and display helpers, tensor methods, the module itself
        or its layers (``self(x)``, ``self.fc(x)``).
        """
        func = call.func
        if spelled is not None:
            qualified = self.module.qualify(spelled)
            if qualified.startswith("torch.") or qualified.startswith("math.") or spelled in DISPLAY_FUNCTIONS:
                return False
        if self._is_self(func):
            return False
        if not isinstance(func, ast.Attribute):
            return True
        receiver = func.value
        if func.attr in DISPLAY_METHODS or func.attr in CUT_METHODS or func.attr in NON_TENSOR_METHODS:
            return False
        if self._taint_of(receiver) or self.shape_of(receiver).kind in (Kind.GRAPH, Kind.TENSOR):
            return False  # a method of a tensor: ``x.add(y)`` computes, it does not store
        if isinstance(receiver, ast.Attribute) and self._is_self(receiver.value) and self.cls is not None:
            attribute = self.cls.attributes.get(receiver.attr)
            if attribute is not None and attribute.kind is AttrKind.MODULE:
                return False
        return True

    def _param_of(self, node: ast.AST) -> Set[str]:
        if isinstance(node, ast.Name) and node.id in self.summary.params and node.id != self.self_name:
            return {node.id}
        return set()

    def _looks_like_wrapper(self, receiver: ast.AST, argument: ast.expr) -> bool:
        """Is ``receiver.backward(argument)`` a wrapper's backward of the loss ``argument``?

        A tensor's own ``backward`` takes a gradient; ``accelerator.backward(loss)``,
        ``fabric.backward(loss)`` take the loss.
        """
        spelled = dotted(receiver) or ""
        last = spelled.rsplit(".", 1)[-1]
        if re.search(r"accelerator|fabric|trainer|strategy|precision|engine|booster|self", last, re.IGNORECASE):
            return True
        built = self.summary.local_constructors.get(spelled) or self.module.assigned_calls.get(spelled)
        if built is not None and built in WRAPPERS:
            return True
        named = dotted(argument) or ""
        return "loss" in named.rsplit(".", 1)[-1].lower()

    def _backward(self, tensor: ast.AST, via: Optional[str], call: ast.Call) -> None:
        if via is None and isinstance(tensor, ast.Call) and isinstance(tensor.func, ast.Attribute) and tensor.func.attr == "scale" and tensor.args:
            tensor, via = tensor.args[0], "scaler"
        retain = keyword_value(call, "retain_graph")
        if isinstance(tensor, ast.Name) and tensor.id != self.self_name and self._bindings(tensor.id) == 1:
            # Back-propagated: a tensor with a graph, whatever made it (``return loss * scale`` after
            # ``loss.backward()`` hands back that graph). Only a name bound once: bound on other
            # paths too (``loss = 0.0`` when there is nothing to train on) it may be something else.
            self.kinds[tensor.id] = Kind.GRAPH
            self.shapes[tensor.id] = _GRAPH_SHAPE
        self.summary.backward_calls.append(
            BackwardCall(self.target_of(tensor), via, retain is not None and not (isinstance(retain, ast.Constant) and not retain.value), call.lineno)
        )

    def _is_optimizer(self, receiver: ast.AST) -> bool:
        spelled = dotted(receiver) or ""
        if _SCHEDULER_NAME.search(spelled.rsplit(".", 1)[-1]):
            return False
        return self._known_optimizer(receiver) or bool(_OPTIMIZER_NAME.search(spelled))

    def _known_optimizer(self, receiver: ast.AST) -> bool:
        return isinstance(receiver, ast.Name) and receiver.id in self.optimizers

    def _returns(self, values: List[ast.expr], none: bool) -> Returns:
        kinds: Set[Kind] = {Kind.NONE} if none else set()
        keys: Set[str] = set()
        elements: List[Set[Kind]] = []
        via: List[str] = []
        direct: Set[Kind] = set(kinds)
        for value in values:
            kind = self.kind_of(value)
            kinds.add(kind)
            operands = None
            if kind is Kind.UNKNOWN and not isinstance(value, (ast.Call, ast.Dict, ast.Tuple)):
                # ``F1 = 2 * se * pc / (se + pc)`` of ``se = get_sensitivity(...)``: arithmetic on what
                # project calls return; the kinds of those results, with the other operands', are all
                # it can be (a graph only where one of them has one).
                operands = self._returned_operands(value, 0)
            if operands is not None:
                direct.update(operands[0])
                via.extend(operands[1])
            elif not (kind is Kind.UNKNOWN and isinstance(value, ast.Call) and dotted(value.func) is not None):
                direct.add(kind)
            if isinstance(value, ast.Dict):
                keys.update(k.value for k in value.keys if isinstance(k, ast.Constant) and isinstance(k.value, str))
            elif isinstance(value, ast.Tuple):
                for i, element in enumerate(value.elts):
                    while len(elements) <= i:
                        elements.append(set())
                    elements[i].add(self.kind_of(element))
            elif kind is Kind.UNKNOWN and isinstance(value, ast.Call):
                spelled = dotted(value.func)
                if spelled is not None:
                    via.append(self._via(spelled))
        return Returns(frozenset(kinds), frozenset(keys), tuple(frozenset(e) for e in elements), tuple(via), frozenset(direct))

    def _via(self, spelled: str) -> str:
        """A returned call's callee as :attr:`Returns.via_calls` records it: qualified unless on ``self``."""
        return spelled if spelled.startswith(f"{self.self_name}.") else self.module.qualify(spelled)

    def _returned_operands(self, value: ast.expr, depth: int) -> Optional[Tuple[Set[Kind], List[str]]]:
        """The kinds of the operands of returned arithmetic whose kind is known, and the callees of those
        that are calls of a plain or dotted name (directly or through a local bound once to one): None
        where some operand is neither (a parameter, an unknown attribute, a local bound twice)."""
        if depth > 4:
            return None
        kinds: Set[Kind] = set()
        calls: List[str] = []
        for operand in _arithmetic_operands(value):
            kind = self.kind_of(operand)
            if kind is not Kind.UNKNOWN:
                kinds.add(kind)
                continue
            if isinstance(operand, ast.Call):
                spelled = dotted(operand.func)
                if spelled is None:
                    return None
                head = spelled.split(".", 1)[0]
                if head != self.self_name and self._bindings(head):
                    return None  # not a function the module imports or defines (``model(x)`` of a param)
                calls.append(self._via(spelled))
                continue
            bound = self._single_binding(operand) if isinstance(operand, ast.Name) else None
            if bound is None:
                return None
            inner = self._returned_operands(bound, depth + 1)
            if inner is None:
                return None
            kinds |= inner[0]
            calls.extend(inner[1])
        return kinds, calls

    def _single_binding(self, name: ast.Name) -> Optional[ast.expr]:
        """The value of the one ``name = value`` of a local the function binds nowhere else and
        calls no in-place method on (``name.add_(...)``)."""
        if name.id in self.summary.params or self._bindings(name.id) != 1:
            return None
        found: Optional[ast.expr] = None
        for node in ast.walk(self.node):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                if node.targets[0].id == name.id:
                    found = node.value
            elif (
                isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr.endswith("_")
                and isinstance(node.func.value, ast.Name) and node.func.value.id == name.id
            ):
                return None
        return found


def _element_constructor(value: ast.expr, module: ModuleSummary) -> Optional[str]:
    """The constructor of a container's elements: ``{k: Meter() for k in …}``, ``defaultdict(Meter)``,
    ``OrderedDict([(k, Meter()) for k in …])``."""
    if (
        isinstance(value, ast.Call)
        and len(value.args) == 1
        and not value.keywords
        and (dotted(value.func) or "").rsplit(".", 1)[-1] in ("dict", "OrderedDict")
        and isinstance(value.args[0], (ast.ListComp, ast.GeneratorExp))
        and isinstance(value.args[0].elt, ast.Tuple)
        and len(value.args[0].elt.elts) == 2
    ):
        # A mapping built from (key, value) pairs: its elements are the pairs' values.
        value = value.args[0].elt.elts[1]
    elif isinstance(value, ast.DictComp):
        value = value.value
    elif isinstance(value, (ast.ListComp, ast.GeneratorExp)):
        value = value.elt
    elif isinstance(value, ast.Dict) and value.values:
        found = {dotted(v.func) if isinstance(v, ast.Call) else None for v in value.values}
        spelled = found.pop() if len(found) == 1 else None
        return module.qualify(spelled) if spelled else None
    elif isinstance(value, ast.Call) and value.args and (dotted(value.func) or "").rsplit(".", 1)[-1] == "defaultdict":
        factory = dotted(value.args[0])
        return module.qualify(factory) if factory and factory.rsplit(".", 1)[-1][:1].isupper() else None
    else:
        return None
    spelled = dotted(value.func) if isinstance(value, ast.Call) else None
    return module.qualify(spelled) if spelled else None


def _empty_container(value: ast.expr) -> bool:
    """``{}``, ``[]``, ``dict()``, ``OrderedDict()``, ``list()``: a container built with nothing in it."""
    if isinstance(value, (ast.Dict, ast.List)):
        return not (value.keys if isinstance(value, ast.Dict) else value.elts)
    return (
        isinstance(value, ast.Call) and not value.args and not value.keywords
        and (dotted(value.func) or "").rsplit(".", 1)[-1] in ("dict", "OrderedDict", "list")
    )


def _arithmetic_operands(node: ast.expr) -> Iterator[ast.expr]:
    """The operands of an arithmetic expression (``a * ema`` gives ``a`` and ``ema``)."""
    if isinstance(node, ast.BinOp):
        yield from _arithmetic_operands(node.left)
        yield from _arithmetic_operands(node.right)
    elif isinstance(node, ast.UnaryOp):
        yield from _arithmetic_operands(node.operand)
    else:
        yield node


def _bound_names(targets: Iterable[ast.expr], self_name: Optional[str]) -> Set[str]:
    """``model``, ``opt`` and ``self.opt`` (as ``self.opt``) among assignment targets."""
    found = set()
    for target in targets:
        if isinstance(target, ast.Name):
            found.add(target.id)
        elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == self_name:
            found.add(f"self.{target.attr}")
    return found


def _is_scaler_name(receiver: ast.AST) -> bool:
    spelled = dotted(receiver) or ""
    return "scaler" in spelled.rsplit(".", 1)[-1].lower()


# --------------------------------------------------------------------------- attributes


class _AttributeReader:
    """Fills ``cls.attributes`` from one method's ``self.<attr> = …`` statements."""

    def __init__(self, cls: ClassSummary, method: FunctionNode, module: ModuleSummary) -> None:
        self.cls = cls
        self.method = method
        self.module = module
        args = method.args
        params = [a.arg for a in (*args.posonlyargs, *args.args)]
        self.self_name = params[0] if params else None
        self.params = set(params[1:]) | {a.arg for a in args.kwonlyargs}
        #: parameters defaulting to a class or function (``optimizer_class=optim.Adam``): what calling
        #: them builds, unless the caller hands another
        self.class_defaults: Dict[str, str] = {}
        positional = [*args.posonlyargs, *args.args]
        pairs = [*zip(positional[len(positional) - len(args.defaults):], args.defaults), *zip(args.kwonlyargs, args.kw_defaults)]
        for param, default in pairs:
            spelled_default = dotted(default) if isinstance(default, (ast.Name, ast.Attribute)) else None
            if spelled_default is not None:
                self.class_defaults[param.arg] = spelled_default
        #: local lists built with append/extend: name → their elements in source order
        self.lists: Dict[str, List[ast.expr]] = {}
        self.locals: Dict[str, ast.expr] = {}
        #: every value assigned to a local in the method, in source order
        self.local_values: Dict[str, List[ast.expr]] = {}

    def read(self) -> None:
        if self.self_name is None:
            return
        #: statements inside ``with torch.no_grad():`` (what they compute carries no graph)
        self.no_grad = _under_no_grad(self.method.body)
        for node in _own_nodes(self.method):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    self._assign(target, node.value)
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                self._assign(node.target, node.value)
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                if isinstance(node.value, (ast.List, ast.Tuple)) and node.target.id in self.lists:
                    self.lists[node.target.id].extend(node.value.elts)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                self._call(node)

    def _call(self, call: ast.Call) -> None:
        func = call.func
        assert isinstance(func, ast.Attribute)
        receiver = func.value
        if (
            isinstance(receiver, ast.Attribute) and isinstance(receiver.value, ast.Name)
            and receiver.value.id == self.self_name and func.attr not in _CONTAINER_READS
        ):
            # ``self.tracks.setdefault(k, v)``, ``self.tracks.update(d)``: filled some other way than by key.
            self.cls.element_stores.setdefault(receiver.attr, set()).add(None)
        if isinstance(receiver, ast.Name) and receiver.id in self.lists and call.args:
            if func.attr == "append":
                self.lists[receiver.id].append(call.args[0])
            elif func.attr == "extend" and isinstance(call.args[0], (ast.List, ast.Tuple)):
                self.lists[receiver.id].extend(call.args[0].elts)
            elif func.attr == "extend":
                self.lists[receiver.id].append(call.args[0])  # unknown elements: the last one is unknown
        elif isinstance(receiver, ast.Name) and receiver.id == self.self_name:
            if func.attr == "register_buffer" and call.args and isinstance(call.args[0], ast.Constant):
                name = call.args[0].value
                if isinstance(name, str):
                    attribute = self._record(name, AttrKind.TENSOR, None)
                    attribute.buffer = True
            elif func.attr in ("register_parameter", "register_module", "add_module") and call.args:
                name = call.args[0].value if isinstance(call.args[0], ast.Constant) else None
                if isinstance(name, str):
                    kind = AttrKind.PARAMETER if func.attr == "register_parameter" else AttrKind.MODULE
                    self._record(name, kind, None)

    def _assign(self, target: ast.AST, value: ast.expr) -> None:
        if isinstance(target, ast.Name):
            self.locals[target.id] = value
            self.local_values.setdefault(target.id, []).append(value)
            if isinstance(value, (ast.List, ast.ListComp)):
                self.lists[target.id] = list(value.elts) if isinstance(value, ast.List) else [value.elt]
            else:
                self.lists.pop(target.id, None)
            return
        if isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List)) and len(target.elts) == len(value.elts):
            for t, v in zip(target.elts, value.elts):
                self._assign(t, v)
            return
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == self.self_name:
            if target.attr == "automatic_optimization" and isinstance(value, ast.Constant) and value.value is False:
                self.cls.assigns_manual_optimization = True
            self._describe(target.attr, value)
            return
        if (
            isinstance(target, ast.Subscript) and isinstance(target.value, ast.Attribute)
            and isinstance(target.value.value, ast.Name) and target.value.value.id == self.self_name
        ):
            self.cls.element_stores.setdefault(target.value.attr, set()).update(self._constructors_of(value))

    def _constructors_of(self, value: ast.expr) -> Set[Optional[str]]:
        """The constructors ``value`` is a call of: itself, or every value a local is assigned in
        the method (``track = A() if c else B()`` spelled as an ``if``); None for anything else."""
        values = [value]
        if isinstance(value, ast.Name) and value.id not in self.params and value.id in self.local_values:
            values = self.local_values[value.id]
        found: Set[Optional[str]] = set()
        for one in values:
            spelled = dotted(one.func) if isinstance(one, ast.Call) else None
            found.add(self.module.qualify(spelled) if spelled and spelled.rsplit(".", 1)[-1][:1].isupper() else None)
        return found

    def _record(self, name: str, kind: AttrKind, constructor: Optional[str]) -> AttributeSummary:
        attribute = self.cls.attributes.get(name)
        if attribute is None:
            attribute = self.cls.attributes[name] = AttributeSummary(name, kind, constructor=constructor)
        elif attribute.kind in (AttrKind.NONE, AttrKind.UNKNOWN) and kind not in (AttrKind.NONE, AttrKind.UNKNOWN):
            # ``self.opt = None`` in __init__, the optimizer built in setup(): the later kind tells more.
            attribute.kind, attribute.constructor = kind, constructor
        attribute.kinds.add(kind)
        if self.method.name not in attribute.assigned_in:
            attribute.assigned_in.append(self.method.name)
        return attribute

    def _describe(self, name: str, value: ast.expr) -> None:
        if isinstance(value, ast.Name) and value.id in self.locals and value.id not in self.params:
            value = self.locals[value.id]
        if isinstance(value, ast.Name) and value.id in self.params:
            attribute = self._record(name, AttrKind.UNKNOWN, None)
            attribute.from_param = attribute.from_param or value.id
            attribute.saved_output = self._callable_saved_output(value)
            return
        kind, constructor = self._kind(value)
        attribute = self._record(name, kind, constructor)
        element = _element_constructor(value, self.module)
        attribute.element_constructor = attribute.element_constructor or element
        if element is None and not _empty_container(value) and not self._from_param(value):
            attribute.elements_unknown = True
        if id(value) not in self.no_grad and self._from_parameters(value):
            attribute.graph_from_params = True
        if isinstance(value, ast.Call):
            attribute.requires_grad = attribute.requires_grad or is_true(keyword_value(value, "requires_grad"))
            if constructor is not None and constructor.endswith("Sequential") and attribute.constructor == constructor:
                last = self._last_layer(value)
                if last is not None:
                    attribute.last_layer, attribute.ends_inplace = last
            built = attribute.last_layer if constructor is not None and constructor.endswith("Sequential") else constructor
            attribute.saved_output = _module_saved_output(built)
        else:
            attribute.saved_output = self._callable_saved_output(value)

    def _callable_saved_output(self, value: ast.expr) -> Optional[str]:
        """The op a configurable callable is: ``torch.sigmoid``, ``F.softmax``, a parameter defaulting to one,
        either branch of ``a if c else b`` when both are the same op."""
        candidates = [value.body, value.orelse] if isinstance(value, ast.IfExp) else [value]
        ops = set()
        for candidate in candidates:
            if isinstance(candidate, ast.Name) and candidate.id in self.params:
                candidate = self._param_default(candidate.id) or candidate
            spelled = dotted(candidate)
            qualified = self.module.qualify(spelled) if spelled is not None else ""
            op = qualified.rsplit(".", 1)[-1]
            ops.add(op if qualified.startswith("torch.") and op in SAVES_OUTPUT else None)
        return ops.pop() if len(ops) == 1 else None

    def _param_default(self, name: str) -> Optional[ast.expr]:
        args = self.method.args
        positional = [*args.posonlyargs, *args.args]
        defaults: List[Tuple[ast.arg, Optional[ast.expr]]] = list(zip(positional[len(positional) - len(args.defaults):], args.defaults))
        defaults.extend(zip(args.kwonlyargs, args.kw_defaults))
        return next((default for arg, default in defaults if arg.arg == name), None)

    def _from_param(self, value: ast.expr) -> bool:
        """``state["tracks"]``: an entry of a parameter (state restored from outside)."""
        while isinstance(value, ast.Subscript):
            value = value.value
        return isinstance(value, ast.Name) and value.id in self.params

    def _from_parameters(self, value: ast.expr) -> bool:
        """Is ``value`` computed with autograd from this object's parameters (``self.w.exp()``), by
        an operation that keeps a tensor for its backward (a view or a sum of them keeps nothing:
        it can be back-propagated again, and a view even follows the parameter's updates)?"""
        if not isinstance(value, (ast.Call, ast.BinOp, ast.UnaryOp)):
            return False
        found = saves = False
        for node in ast.walk(value):
            if isinstance(node, ast.BinOp) and type(node.op).__name__ in SAVING_OPERATORS:
                saves = True
            if isinstance(node, ast.Call):
                spelled = dotted(node.func) or ""
                held_call = (
                    self.cls.attributes.get(node.func.attr)
                    if isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name)
                    and node.func.value.id == self.self_name else None
                )
                # A forward through a module (``self.embed(ids)``), an op that saves, or one the
                # vocabulary does not know (it may well save): only views, sums and copies do not.
                last = spelled.rsplit(".", 1)[-1]
                module_call = held_call is not None and held_call.kind is AttrKind.MODULE
                saves = saves or module_call or saves_for_backward(last) or last not in KEEPS_NOTHING
            if isinstance(node, ast.Attribute) and node.attr in CUT_ATTRIBUTES | {"detach", "item", "tolist", "numpy"}:
                return False
            if isinstance(node, ast.Call) and (dotted(node.func) or "") in CUT_FUNCTIONS:
                return False
            if (
                isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name) and node.func.value.id == self.self_name
            ):
                # ``self.embed(ids)``: a forward pass through a module this object holds.
                held = self.cls.attributes.get(node.func.attr)
                found = found or (held is not None and held.kind is AttrKind.MODULE)
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == self.self_name:
                held = self.cls.attributes.get(node.attr)
                found = found or (held is not None and (held.kind is AttrKind.PARAMETER or held.requires_grad))
            elif (
                isinstance(node, ast.Attribute) and node.attr in PARAMETER_ATTRIBUTES
                and isinstance(node.value, ast.Attribute) and isinstance(node.value.value, ast.Name)
                and node.value.value.id == self.self_name
            ):
                held = self.cls.attributes.get(node.value.attr)
                found = found or (held is not None and held.kind is AttrKind.MODULE)
        return found and saves

    def _kind(self, value: ast.expr) -> Tuple[AttrKind, Optional[str]]:
        if isinstance(value, ast.Constant):
            if value.value is None:
                return AttrKind.NONE, None
            if isinstance(value.value, (int, float)) and not isinstance(value.value, bool):
                return AttrKind.NUMBER, None
            return AttrKind.OTHER, None
        if isinstance(value, (ast.Dict, ast.DictComp)):
            return AttrKind.DICT, None
        if isinstance(value, (ast.List, ast.ListComp)):
            return AttrKind.LIST, None
        if isinstance(value, ast.Lambda):
            return AttrKind.CALLABLE, None
        if isinstance(value, ast.Name) and (value.id in self.module.functions or value.id in self.module.imports):
            qualified = self.module.qualify(value.id)
            return (AttrKind.CALLABLE, qualified) if value.id in self.module.functions or qualified.split(".")[-1][:1].islower() else (AttrKind.OTHER, qualified)
        if isinstance(value, ast.Attribute):
            spelled = dotted(value)
            if spelled is not None:
                qualified = self.module.qualify(spelled)
                if qualified.startswith("torch.nn.functional.") or qualified.startswith("torch.") and qualified.split(".")[-1][:1].islower():
                    return AttrKind.CALLABLE, qualified
        if not isinstance(value, ast.Call):
            return AttrKind.UNKNOWN, None
        if isinstance(value.func, ast.Attribute) and value.func.attr in ("to", "cuda", "cpu") and isinstance(value.func.value, ast.Call):
            # ``Net(opts).to(device)``: the module moves and is handed back; it is what was built.
            return self._kind(value.func.value)
        spelled = dotted(value.func)
        if spelled is None:
            return AttrKind.UNKNOWN, None
        spelled = self.class_defaults.get(spelled, spelled)
        qualified = self.module.qualify(spelled)
        last = qualified.rsplit(".", 1)[-1]
        if qualified in ("dict", "collections.OrderedDict", "collections.defaultdict", "torch.nn.ParameterDict") and qualified != "torch.nn.ParameterDict":
            return AttrKind.DICT, qualified
        if qualified in ("list", "collections.deque"):
            return AttrKind.LIST, qualified
        if qualified in ("int", "float"):
            return AttrKind.NUMBER, qualified
        if qualified in ("functools.partial", "getattr") :
            return AttrKind.CALLABLE, qualified
        if qualified.startswith("torch.optim.lr_scheduler."):
            return AttrKind.SCHEDULER, qualified
        if is_optimizer_constructor(qualified):
            return AttrKind.OPTIMIZER, qualified
        if qualified in SCALER_NAMES or last == "GradScaler":
            return AttrKind.SCALER, qualified
        if qualified in ("torch.nn.Parameter", "torch.nn.parameter.Parameter"):
            return AttrKind.PARAMETER, qualified
        if qualified.startswith("torch.nn.") and not qualified.startswith(NN_NON_MODULES) and last[:1].isupper():
            return AttrKind.MODULE, qualified
        if qualified.startswith("torch.") and last[:1].islower():
            return AttrKind.TENSOR, qualified
        # A project class or a library constructor: the project model tells what it is.
        return (AttrKind.UNKNOWN, qualified)

    def _last_layer(self, call: ast.Call, depth: int = 0) -> Optional[Tuple[str, bool]]:
        """``(constructor, built inplace)`` of an ``nn.Sequential``'s last layer (a nested one's, through up
        to eight levels: ``x = nn.Sequential(x)`` must not recurse forever)."""
        if not call.args:
            return None
        last = call.args[-1]
        if isinstance(last, ast.Starred):
            elements = self._list_elements(last.value)
            if not elements:
                return None
            last = elements[-1]
            if isinstance(last, ast.Starred):
                return None
        if isinstance(last, ast.Name) and last.id in self.locals:
            last = self.locals[last.id]
        if not isinstance(last, ast.Call):
            return None
        spelled = dotted(last.func)
        if spelled is None:
            return None
        qualified = self.module.qualify(spelled)
        name = qualified.rsplit(".", 1)[-1]
        if qualified in ("torch.nn.Sequential", "torch.nn.modules.container.Sequential"):
            # ``nn.Sequential(conv, nn.Sequential(bn, nn.ReLU(inplace=True)))``: the output is the inner one's.
            inner = self._last_layer(last, depth + 1) if depth < 8 else None
            if inner is not None:
                return inner
        inplace = keyword_value(last, "inplace")
        if inplace is None and last.args and name in ("ReLU", "ReLU6", "SELU", "SiLU", "Mish", "Hardswish", "Hardsigmoid"):
            inplace = last.args[0]  # nn.ReLU(True)
        return qualified, name in INPLACE_ACTIVATIONS and is_true(inplace)

    def _list_elements(self, node: ast.expr) -> Optional[List[ast.expr]]:
        if isinstance(node, (ast.List, ast.Tuple)):
            return list(node.elts)
        if isinstance(node, ast.Name) and node.id in self.lists:
            return self.lists[node.id]
        return None


def names_in(node: ast.AST) -> Iterable[str]:
    return (n.id for n in ast.walk(node) if isinstance(n, ast.Name))
