"""Where autograd graphs flow inside one function: a forward may-analysis.

Each dotted name (``h``, ``self.hidden``, ``losses``) gets an abstract value:
its *level* (0 no graph, 1 a leaf that requires grad, 2 a tensor with a
``grad_fn``) and a set of *labels* saying what it was computed from. Labels are
how the rules ask flow questions without a full def-use graph:

* ``("carry", loop, name)`` is put on every loop-carried name at the loop head:
  a backward whose tensor holds it back-propagates into the previous iteration.
* ``("pre", loop, name)`` is put at the loop head on a name holding a graph that the loop reads
  and never assigns (a value made before the loop): a backward whose tensor holds it
  back-propagates through that value, not merely through something else made from the same graph.
  A container whose entries the loop stores into gets none: it is rebuilt in part, and its keys
  read as one joined value.
* ``("acc", name)`` is put on an accumulator when something is added into it:
  a backward (or a ``return``, or an unknown call) holding it means the total
  is used for more than logging.
* ``("src", call)`` marks the graph produced by one model call or leaf, so two
  values can be shown to share a graph.
* ``("leaf", op)`` marks the graph an operation on leaves alone starts (``x @ w``
  of ``w = torch.randn(..., requires_grad=True)``), when that operation keeps a
  tensor for its backward: one backward frees it. Unlike ``src`` it says nothing
  about model calls (a value with only such labels is computed from parameters).

Graph sources are calls of ``nn.Module`` objects (recognised by construction,
by a class deriving from ``*Module``, or by ``.parameters()``/``.train()``…
being called on them), leaves (``nn.Parameter``, ``requires_grad=True``) and
names that ``.backward()`` is called on. Graph breakers are ``detach``,
``item``, comparisons, ``argmax``, creation functions, ``no_grad`` regions and
helpers whose body detaches (``repackage_hidden``).

What a called function or method of the project does (what it returns, which
arguments it keeps or adds into ``self``, whether it detaches) is asked of the
program model (``context.model``), in this file or another file of the project. A method
called on a parameter (``def train_epoch(model, ...): model.adapt(feats, w)``) is that of the
class every call of the function in the file binds to the parameter; a same-spelled name
elsewhere in the file (``model = Net()`` in ``main``) says nothing about it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import compress
from operator import is_not
from typing import Callable, Dict, FrozenSet, Iterable, List, Optional, Sequence, Set, Tuple, Union

import libcst as cst
from libcst.metadata import PositionProvider

from autofix.analysis import loops
from autofix.analysis.names import dotted_name, keyword, method_call
from autofix.analysis.training import (
    is_function_backward,
    grad_disabled_nodes,
    is_backward_call,
    is_step_call,
    qualified_names,
)
from autofix.model.vocabulary import (
    ACCUMULATING_METHODS,
    CONTAINER_FUNCTIONS,
    CUT_ATTRIBUTES,
    CUT_FUNCTIONS,
    CUT_METHODS,
    KEEP_METHODS,
    DETACH_HELPER_NAMES,
    DISPLAY_FUNCTIONS,
    DISPLAY_METHODS,
    MAYBE_TUPLE_RESULT_OPS,
    MODEL_BUILDER_NAMES,
    MODEL_BUILDER_PREFIXES,
    MODULE_SELF_METHODS,
    NN_NON_MODULES,
    PARAMETER_ATTRIBUTES,
    NON_TENSOR_METHODS,
    SAVING_OPERATORS,
    TORCH_CUT_FUNCTIONS,
    TUPLE_RESULT_OPS,
    saves_for_backward,
)
from autofix.context import RuleContext
from autofix.model.summaries import MODULE_BODY, AttributeSummary, AttrKind, ClassSummary, FunctionSummary, Shape, nn_output_shape
from autofix.model.summaries import may_hold_graph as _may_hold_graph
from autofix.model.summaries import Kind as ModelKind

CLEAN_LEVEL, LEAF, GRAPH = 0, 1, 2

Label = Tuple


#: What a value may be at run time. ``kinds`` of a :class:`Val` is a set of these;
#: the empty set means unknown. A fix may only touch values whose kinds it knows.
TENSOR = "tensor"
NUMBER = "number"
TENSORS = "tensors"  # a tuple or list of tensors (``(h, c)``, ``x.chunk(2)``)
NUMBERS = "numbers"  # a tuple or list of Python numbers
TENSOR_LIST = "tensor-list"  # a list of tensors
TENSOR_DICT = "tensor-dict"  # a dict whose values are tensors
DICT = "dict"  # any other mapping
NONE = "none"
ITEMS = "items"  # a ``(key, tensor)`` pair of ``d.items()`` or ``enumerate(tensors)``
OTHER = "other"  # strings, booleans, objects: nothing a fix may detach
#: a numpy array of numbers (``np.zeros(n)``): an entry stored into it is converted to a number,
#: so it keeps no graph; not a tensor either, so nothing a fix may detach
ARRAY = "array"
#: A kind is one of the names above, or a tuple of the kinds of a tuple's elements
#: (``out, (h, c) = lstm(x)`` unpacks ``(tensor, tensors)``).
Kind = Union[str, Tuple["Kinds", ...]]
Kinds = FrozenSet[Kind]
UNKNOWN: Kinds = frozenset()


def join_kinds(a: Kinds, b: Kinds) -> Kinds:
    """Either kind; unknown when either side is unknown."""
    if not a or not b:
        return UNKNOWN
    return a | b


@dataclass(frozen=True)
class Val:
    level: int = CLEAN_LEVEL
    labels: FrozenSet[Label] = frozenset()
    kinds: Kinds = UNKNOWN

    def join(self, other: "Val") -> "Val":
        if other is self:
            return self
        return Val(max(self.level, other.level), self.labels | other.labels, join_kinds(self.kinds, other.kinds))

    def computed(self, source: Optional[cst.CSTNode] = None) -> "Val":
        """The value of an operation on this one: a leaf operand yields a graph. ``source`` is the
        operation when it keeps a tensor for its backward: on leaves alone it starts a graph of
        its own, labelled ``("leaf", source)``, that one backward frees."""
        if source is not None and self.level == LEAF:
            return Val(GRAPH, self.labels | {("leaf", source)}, self.kinds)
        return Val(GRAPH if self.level else CLEAN_LEVEL, self.labels, self.kinds)

    def with_labels(self, labels: Iterable[Label]) -> "Val":
        return Val(self.level, self.labels | frozenset(labels), self.kinds)

    def join_graph(self, other: "Val") -> "Val":
        """This value's kinds with the graph of ``self`` and ``other`` together."""
        return Val(max(self.level, other.level), self.labels | other.labels, self.kinds)

    @property
    def is_tensor(self) -> bool:
        return self.kinds == {TENSOR}

    @property
    def graph_is_assumed(self) -> bool:
        """Neither a tensor nor a graph is proven: the value came from a module's method other
        than ``forward`` that the model cannot summarise (``model.estimate_mfu(...)``,
        ``self.extend_pe(x, self.pe)``), which may well return a number or a constant table."""
        return not self.kinds and ("assumed",) in self.labels


CLEAN = Val()
#: spells an expression as source text (the key of a container's entry)
_SPELLER = cst.Module([])
_TENSOR_KIND: Kinds = frozenset({TENSOR})
#: labels saying a value's graph or kind was not proven (see :attr:`Val.graph_is_assumed`)
_UNPROVEN_LABELS: FrozenSet[Label] = frozenset({("unproven",), ("assumed",)})
_NUMBER_KIND: Kinds = frozenset({NUMBER})
_OTHER_KIND: Kinds = frozenset({OTHER})
_NONE_KIND: Kinds = frozenset({NONE})
_ARRAY_KIND: Kinds = frozenset({ARRAY})
#: numpy functions that make a new array of the numbers they are given or of zeros (dtype aside)
_NUMPY_ARRAY_MAKERS = frozenset(
    {"zeros", "ones", "empty", "full", "array", "asarray", "zeros_like", "ones_like", "empty_like", "full_like",
     "arange", "linspace"}
)


def tuple_parts(kinds: Kinds) -> Optional[Tuple[Kinds, ...]]:
    """The element kinds of a value known to be one tuple of known shape."""
    if len(kinds) == 1:
        (only,) = kinds
        if isinstance(only, tuple):
            return only
    return None


def element_kinds(kinds: Kinds) -> Kinds:
    """The kinds of an element (an index, an unpacked part, an iteration) of a value."""
    parts = tuple_parts(kinds)
    if parts is not None:
        joined = parts[0] if parts else UNKNOWN
        for part in parts[1:]:
            joined = join_kinds(joined, part)
        return joined
    if kinds == _TENSOR_KIND or (bool(kinds) and kinds <= {TENSORS, TENSOR_LIST, TENSOR_DICT}):
        return _TENSOR_KIND
    if kinds == {NUMBERS}:
        return _NUMBER_KIND
    return UNKNOWN


def _arithmetic_kinds(values: Sequence[Val]) -> Kinds:
    # An operation with a tensor operand is a tensor; numbers only make a number.
    if any(v.is_tensor for v in values):
        return _TENSOR_KIND
    if values and all(v.kinds == _NUMBER_KIND for v in values):
        return _NUMBER_KIND
    return UNKNOWN


def _sequence_kinds(node: cst.BaseExpression, values: Sequence[Val]) -> Kinds:
    if not values or any(isinstance(e, cst.StarredElement) for e in getattr(node, "elements", ())):
        return frozenset({OTHER}) if not values else UNKNOWN
    if isinstance(node, cst.Set):
        return _OTHER_KIND
    if all(v.is_tensor for v in values):
        return frozenset({TENSORS if isinstance(node, cst.Tuple) else TENSOR_LIST})
    if all(v.kinds == _NUMBER_KIND for v in values):
        return frozenset({NUMBERS})
    if isinstance(node, cst.Tuple) and all(v.kinds for v in values):
        return frozenset({tuple(v.kinds for v in values)})
    return UNKNOWN


# Tensor methods and torch functions whose result is not one tensor.
_TUPLE_RESULTS = TUPLE_RESULT_OPS
_MAYBE_NAMED_TUPLE = MAYBE_TUPLE_RESULT_OPS
_NOT_TENSOR_RESULTS = {"is_tensor", "numel", "manual_seed", "no_grad", "enable_grad", "device", "Size",
                       "get_rng_state", "is_grad_enabled", "save", "load", "set_grad_enabled", "compile"}
_NON_TENSOR_METHODS = {"item": _NUMBER_KIND, "tolist": UNKNOWN, "numpy": _OTHER_KIND, "size": UNKNOWN,
                       "dim": _NUMBER_KIND, "numel": _NUMBER_KIND, "element_size": _NUMBER_KIND,
                       "data_ptr": _NUMBER_KIND, "get_device": _NUMBER_KIND, "is_contiguous": _OTHER_KIND,
                       "type": UNKNOWN, "__len__": _NUMBER_KIND, "keys": _OTHER_KIND,
                       "is_floating_point": _OTHER_KIND, "state_dict": _OTHER_KIND}
_NUMBER_FUNCTIONS = {"float", "int", "len", "round", "math.isfinite", "math.isnan", "hash", "id"}


def _torch_kinds(torch_fn: Optional[str], call: cst.Call) -> Kinds:
    """What a ``torch.*`` function returns (unknown for anything else)."""
    if torch_fn is None:
        return UNKNOWN
    last = torch_fn.rsplit(".", 1)[-1]
    if last in _TUPLE_RESULTS:
        return frozenset({TENSORS})
    if last.endswith("Tensor") and last[:1].isupper():
        return _TENSOR_KIND  # ``torch.Tensor([1.0])``, ``torch.FloatTensor(3, 2)``: a tensor class builds a tensor
    if last in _NOT_TENSOR_RESULTS or last[:1].isupper():
        return UNKNOWN
    if last in _MAYBE_NAMED_TUPLE and (len(call.args) > 1 or last not in {"max", "min", "median"}):
        return UNKNOWN
    return _TENSOR_KIND


def _cut_expression(node: cst.BaseExpression) -> bool:
    """``x.detach()``, ``loss.detach().cpu().numpy()``, ``x.data``, ``x.item()``: the value is cut from
    any graph by the expression itself (through methods that keep what they are given)."""
    while True:
        if isinstance(node, cst.Attribute):
            return node.attr.value in _BREAKING_ATTRIBUTES
        if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)):
            return False
        method = node.func.attr.value
        if method in ("detach", "item", "tolist", "numpy"):
            return True
        if method not in KEEP_METHODS:
            return False
        node = node.func.value


def _number_of(node: cst.BaseExpression) -> Optional[str]:
    """The name ``node`` converts to a Python number: ``x.item()``, ``x.detach().cpu().item()``,
    ``x.tolist()``, ``float(x)``, ``int(x)``."""
    if not isinstance(node, cst.Call):
        return None
    func = node.func
    if isinstance(func, cst.Name) and func.value in ("float", "int") and len(node.args) == 1:
        return dotted_name(node.args[0].value)
    if not (isinstance(func, cst.Attribute) and func.attr.value in ("item", "tolist")):
        return None
    inner: cst.BaseExpression = func.value
    while isinstance(inner, cst.Call) and isinstance(inner.func, cst.Attribute) and inner.func.attr.value in KEEP_METHODS | {"detach"}:
        inner = inner.func.value
    return dotted_name(inner)


def _guarded_conversion(node: cst.IfExp) -> Optional[Tuple[str, bool]]:
    """``(name, bare_is_body)`` for ``x.item() if c else x`` (``False``) or ``x if c else float(x)``
    (``True``): one arm converts the name to a number, the other is the name as it is."""
    for converted, bare, bare_is_body in ((node.body, node.orelse, False), (node.orelse, node.body, True)):
        name = _number_of(converted)
        if name is not None and dotted_name(bare) == name:
            return name, bare_is_body
    return None


def _object_dtype(call: cst.Call) -> bool:
    """``np.empty(n, dtype=object)``: an argument spells Python objects as the dtype (the array
    may hold tensors as they are)."""
    for arg in call.args:
        value = arg.value
        if isinstance(value, cst.SimpleString) and value.evaluated_value in ("O", "object"):
            return True
        spelled = dotted_name(value)
        if spelled is not None and spelled.rsplit(".", 1)[-1] in ("object", "object_"):
            return True
    return False


def _method_kinds(method: str, receiver: Val, call: cst.Call) -> Kinds:
    """What ``receiver.method(...)`` returns, when the receiver is known to be a tensor."""
    if method == "item":
        return _NUMBER_KIND
    if method in ("tolist", "numpy"):
        return _OTHER_KIND  # Python numbers or lists, or an array: no tensor at all
    if not receiver.is_tensor:
        return UNKNOWN
    if method in _NON_TENSOR_METHODS:
        return _NON_TENSOR_METHODS[method]
    if method in _TUPLE_RESULTS:
        return frozenset({TENSORS})
    if method in _MAYBE_NAMED_TUPLE and (call.args or method not in {"max", "min", "median"}):
        return UNKNOWN
    return _TENSOR_KIND


def _container_kinds(func_name: str, args: Sequence[Val]) -> Kinds:
    if func_name in ("tuple", "list") and len(args) == 1:
        parts = element_kinds(args[0].kinds)
        if parts == _TENSOR_KIND:
            return frozenset({TENSORS if func_name == "tuple" else TENSOR_LIST})
        if parts == _NUMBER_KIND:
            return frozenset({NUMBERS})
    if func_name == "dict":
        return frozenset({DICT})
    return UNKNOWN

# One vocabulary for every rule: what cuts the graph and what keeps it.
_BREAKING_METHODS = CUT_METHODS | NON_TENSOR_METHODS
_BREAKING_ATTRIBUTES = CUT_ATTRIBUTES
_BREAKING_FUNCTIONS = CUT_FUNCTIONS
_TORCH_BREAKING = TORCH_CUT_FUNCTIONS
_CONTAINER_FUNCTIONS = CONTAINER_FUNCTIONS
_MODULE_NONGRAPH_PREFIXES = ("init", "reset", "zero", "new_", "begin", "empty", "get_num", "num_")
_MODULE_HINT_METHODS = {"parameters", "named_parameters", "state_dict", "load_state_dict", "modules",
                        "named_modules", "children", "train", "eval", "register_buffer", "buffers"}
_NN_NON_MODULES = NN_NON_MODULES
# Calls that consume a value for display only; a total passed to them does not escape.
_DISPLAY_FUNCTIONS = DISPLAY_FUNCTIONS
# ``append``/``extend`` into a local list: the list is followed as an accumulation of its own.
_DISPLAY_METHODS = DISPLAY_METHODS | {"append", "extend"}
_ACCUMULATING_METHODS = ACCUMULATING_METHODS


# --------------------------------------------------------------------------- module-wide facts


@dataclass
class ModuleFacts:
    """What the whole file says about names: modules, leaves, detaching helpers."""

    modules: Set[str] = field(default_factory=set)
    leaves: Set[str] = field(default_factory=set)
    module_classes: Set[str] = field(default_factory=set)
    #: dotted module name → ``torch.nn`` class name it was built from (``LSTM`` …)
    nn_kind: Dict[str, str] = field(default_factory=dict)
    #: dotted name → the class (of the file or the project, as spelled) it was constructed from
    #: (``net = Forecaster()``)
    instance_class: Dict[str, str] = field(default_factory=dict)
    #: (class name, attribute) → ``torch.nn`` class name of ``self.attribute``
    class_attr_kind: Dict[Tuple[str, str], str] = field(default_factory=dict)
    #: the name ``torch`` is bound to at module level (``th`` for ``import torch as th``)
    torch_alias: Optional[str] = None


def nn_kind_of(facts: ModuleFacts, callee: str) -> Optional[str]:
    """The ``torch.nn`` class behind a called name: ``rnn``, ``self.rnn``, ``net.rnn`` of ``net = Net()``."""
    if callee in facts.nn_kind:
        return facts.nn_kind[callee]
    if "." in callee:
        owner, attr = callee.rsplit(".", 1)
        cls = facts.instance_class.get(owner)
        if cls is not None:
            return facts.class_attr_kind.get((cls, attr))
    return None


def module_facts(context: RuleContext) -> ModuleFacts:
    return context.fact("dataflow.module_facts", lambda: _collect_module_facts(context))


def _unwrap_module_expr(context: RuleContext, node: cst.BaseExpression) -> cst.BaseExpression:
    # ``Net().to(device)``, ``nn.DataParallel(Net())``, ``DDP(net)`` are still the module.
    while isinstance(node, cst.Call):
        if isinstance(node.func, cst.Attribute) and node.func.attr.value in MODULE_SELF_METHODS:
            node = node.func.value
            continue
        names = {dotted_name(node.func) or "", *qualified_names(context, node.func)}
        if any(n.rsplit(".", 1)[-1] in {"DataParallel", "DistributedDataParallel", "compile"} for n in names) and node.args:
            node = node.args[0].value
            continue
        break
    return node


def _collect_module_facts(context: RuleContext) -> ModuleFacts:
    facts = ModuleFacts()
    module = context.module

    # Classes deriving (transitively, within the file) from something named *Module.
    classes = [n for n in _walk(module) if isinstance(n, cst.ClassDef)]
    changed = True
    while changed:
        changed = False
        for cls in classes:
            if cls.name.value in facts.module_classes:
                continue
            for base in cls.bases:
                base_name = dotted_name(base.value) or ""
                last = base_name.rsplit(".", 1)[-1]
                if last.endswith("Module") or last in facts.module_classes or last in {"Sequential", "ModuleList"}:
                    facts.module_classes.add(cls.name.value)
                    changed = True
                    break

    for stmt in module.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Import):
                    for alias in small.names:
                        if dotted_name(alias.name) == "torch" and facts.torch_alias != "torch":
                            bound = alias.asname.name if alias.asname is not None else None
                            facts.torch_alias = bound.value if isinstance(bound, cst.Name) else "torch"

    model = context.model

    def project_class(spelled: str) -> bool:
        """A class of the file, or of another project file (``from models.rnn import CharRNN``)."""
        last = spelled.rsplit(".", 1)[-1]
        return last in facts.module_classes or any(c.name.value == last for c in classes) or (
            last[:1].isupper() and model.resolve_class(spelled) is not None
        )

    for cls in classes:
        for node in _walk(cls.body):
            if isinstance(node, cst.Assign) and isinstance(node.value, cst.Call):
                kind = _constructed(context, _unwrap_module_expr(context, node.value), facts)
                for assign_target in node.targets:
                    name = dotted_name(assign_target.target) or ""
                    if kind and kind.startswith("nn.") and name.startswith("self.") and name.count(".") == 1:
                        facts.class_attr_kind[(cls.name.value, name[5:])] = kind[3:]

    renamed: List[Tuple[List[cst.BaseExpression], List[str]]] = []
    conflicting: Set[str] = set()
    for node in _walk(module):
        if isinstance(node, (cst.Assign, cst.AnnAssign)) and node.value is not None:
            targets: List[cst.BaseExpression] = (
                [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            )
            value = _unwrap_module_expr(context, node.value)
            sources = _named_values(value)
            if sources:
                renamed.append((targets, sources))
            instance_of = _instance_class(value, project_class)
            if instance_of is not None:
                for target in targets:
                    bound_name = dotted_name(target)
                    if bound_name is not None:
                        facts.instance_class.setdefault(bound_name, instance_of)
            kind = _constructed(context, value, facts)
            for target in targets:
                target_name = dotted_name(target)
                if target_name is None or kind is None:
                    continue
                if isinstance(value, cst.Call) and project_class(dotted_name(value.func) or ""):
                    facts.instance_class[target_name] = dotted_name(value.func) or ""
                if kind == "leaf":
                    facts.leaves.add(target_name)
                else:
                    facts.modules.add(target_name)
                    if kind.startswith("nn.") and target_name not in conflicting:
                        if facts.nn_kind.get(target_name, kind[3:]) != kind[3:]:
                            # ``self.rnn`` an LSTM in one class and a GRU in another: no one kind for the name
                            # (a class's own attribute kinds are in ``class_attr_kind``).
                            conflicting.add(target_name)
                            del facts.nn_kind[target_name]
                        else:
                            facts.nn_kind[target_name] = kind[3:]
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            receiver = dotted_name(node.func.value)
            method = node.func.attr.value
            if receiver and method in _MODULE_HINT_METHODS:
                facts.modules.add(receiver)
            if receiver and method == "requires_grad_":
                facts.leaves.add(receiver)
        elif isinstance(node, cst.Param) and node.annotation is not None:
            annotation = dotted_name(node.annotation.annotation) or ""
            if annotation.rsplit(".", 1)[-1] in {"Module", *facts.module_classes}:
                facts.modules.add(node.name.value)
    # ``D = self.D``, ``G = self.G_ddp if ddp else self.G``: another name for a module is a module.
    def held_module(source: str) -> Optional[ClassSummary]:
        """``self.GAN.G``: the module class an attribute of the object's project class is built from."""
        holder, _, attr = source.rpartition(".")
        spelled = facts.instance_class.get(holder)
        cls = model.resolve_class(spelled) if spelled else None
        held = model.attribute(cls, attr) if cls is not None else None
        if cls is None or held is None or held.kinds - {AttrKind.MODULE, AttrKind.UNKNOWN} or not held.constructor:
            return None
        home = model.class_model(cls)
        built = home.constructed_class(held.constructor)
        return built if built is not None and home.is_module_class(built) else None

    def class_spelled(source: str) -> Optional[str]:
        """The project class (as spelled here) of the module ``source`` names."""
        spelled = facts.instance_class.get(source)
        if spelled:
            return spelled
        built = held_module(source) if "." in source else None
        return built.qualname if built is not None and built.module == model.summary.name else None

    # ``D = self.D``, ``G = self.G_ddp if ddp else self.G``, ``self.G_ddp = DDP(self.GAN.G)``: another
    # name for a module is a module, of the same class.
    changed = True
    while changed:
        changed = False
        for targets, sources in renamed:
            names = [n for n in (dotted_name(t) for t in targets) if n is not None]
            if all(source in facts.modules or held_module(source) is not None for source in sources):
                for other_name in names:
                    if other_name not in facts.modules:
                        facts.modules.add(other_name)
                        changed = True
            spelled_classes = {class_spelled(source) for source in sources}
            built_from = spelled_classes.pop() if len(spelled_classes) == 1 else None
            if built_from is not None:
                for other_name in names:
                    if other_name not in facts.instance_class:
                        facts.instance_class[other_name] = built_from
                        changed = True
    return facts


def _named_values(value: cst.BaseExpression) -> List[str]:
    """The names ``value`` is one of (``self.D``; both ways of ``self.G_ddp if ddp else self.G``);
    empty when it is anything else."""
    if isinstance(value, cst.IfExp):
        body, orelse = _named_values(value.body), _named_values(value.orelse)
        return body + orelse if body and orelse else []
    name = dotted_name(value) if isinstance(value, (cst.Name, cst.Attribute)) else None
    return [name] if name is not None else []


def _instance_class(value: cst.BaseExpression, is_class: Callable[[str], bool]) -> Optional[str]:
    """The project class (as spelled) that ``value`` builds: ``Net()``, ``Net().to(device)``."""
    if not isinstance(value, cst.Call):
        return None
    name = dotted_name(value.func) or ""
    return name if name and is_class(name) else None


def _constructed(context: RuleContext, value: cst.BaseExpression, facts: ModuleFacts) -> Optional[str]:
    if not isinstance(value, cst.Call):
        return None
    names = qualified_names(context, value.func) | {dotted_name(value.func) or ""}
    for name in names:
        last = name.rsplit(".", 1)[-1]
        if name in {"torch.nn.Parameter", "torch.nn.parameter.Parameter"} or last == "Parameter":
            return "leaf"
        if name.startswith("torch.") and _is_true(keyword(value, "requires_grad")):
            return "leaf"
        if name.startswith("torch.nn.") and not name.startswith(_NN_NON_MODULES) and last[:1].isupper():
            return "nn." + last
        if name.startswith(MODEL_BUILDER_PREFIXES) or last in MODEL_BUILDER_NAMES:
            return "module"
        if last in facts.module_classes:
            return "module"
    spelled = dotted_name(value.func)
    if spelled and spelled.rsplit(".", 1)[-1][:1].isupper():
        # A module class defined in another file of the project.
        cls = context.model.resolve_class(spelled)
        if cls is not None and context.model.is_module_class(cls):
            return "module"
    return None


def _is_true_name(node: Optional[cst.BaseExpression]) -> bool:
    return isinstance(node, cst.Name) and node.value == "True"


def _is_true(arg: Optional[cst.Arg]) -> bool:
    return arg is not None and isinstance(arg.value, cst.Name) and arg.value.value == "True"


_walk = loops.walk


# --------------------------------------------------------------------------- events


@dataclass
class Backward:
    call: cst.Call
    value: Val
    loops: Tuple[cst.CSTNode, ...]
    retain_graph: bool


@dataclass
class Accumulation:
    """``target += value``, ``target = target + value``, ``target.append(value)``, ``target[k] += value``.

    ``kind``: ``augassign``, ``assign``, ``append`` (and the other filling methods), ``method``,
    ``store`` (``target[k] = value``), or ``slot``: a store at the loop's own index into a tensor the
    scope made before the loop (``q_vals[:, t] = q_t``; see ``GraphFlow._fills_iteration_slot``)."""

    statement: cst.CSTNode
    target: str
    value_node: cst.BaseExpression
    value: Val
    loops: Tuple[cst.CSTNode, ...]
    kind: str


@dataclass
class Assignment:
    statement: cst.CSTNode
    name: str
    value: Val
    loops: Tuple[cst.CSTNode, ...]
    #: made where autograd is off (``torch.no_grad()``): no graph, whatever the operands hold
    graph_off: bool = False


@dataclass(frozen=True)
class InstanceCall:
    """A call of an object of a project class (``crit(student(x), teacher(x))``) where autograd is on."""

    call: cst.Call
    #: the class as spelled where the object was built (``ModuleFacts.instance_class``)
    cls: str
    #: what each argument holds, in the order written
    args: Tuple[Val, ...]
    loops: Tuple[cst.CSTNode, ...]


# --------------------------------------------------------------------------- the analysis


#: A scope's values by dotted name. Keys are always names spelled in the scope (see ``GraphFlow._extensions``).
State = Dict[str, Val]
_NO_NAMES: Set[str] = set()


def _join_states(a: State, b: State) -> State:
    out = dict(a)
    # Both sides mostly come from one state: only the values that differ are joined, and
    # they are found at C speed. Joining every key in Python made a long module-level
    # script quadratic (one full join per ``if``).
    keys = list(b)
    shared = len(a)
    if len(keys) >= shared and keys[:shared] == list(a):
        # ``b`` is ``a`` with values changed and keys added: compare the values pairwise.
        for key in compress(keys, map(is_not, a.values(), b.values())):
            out[key] = out[key].join(b[key])
        for key in keys[shared:]:
            out[key] = b[key]
        return out
    for key, value in [(k, v) for k, v in b.items() if out.get(k) is not v]:
        mine = out.get(key)
        out[key] = value if mine is None else mine.join(value)
    return out


class GraphFlow:
    """The analysis of one scope (a function body, or the module's top level)."""

    def __init__(
        self,
        context: RuleContext,
        scope: cst.CSTNode,
        in_module_class: bool,
        in_class: bool,
        class_name: Optional[str] = None,
        qualname: str = MODULE_BODY,
        class_qualname: Optional[str] = None,
    ) -> None:
        self.context = context
        self.class_name = class_name
        #: the model's names of this scope and of its class (``Trainer.fit``, ``Trainer``)
        self.qualname = qualname
        self.class_qualname = class_qualname
        #: what the scope returns, joined over its ``return`` statements (None: it never returns a value)
        self.returned: Optional[Val] = None
        self.facts = module_facts(context)
        self.disabled = grad_disabled_nodes(context)
        self.scope = scope
        self.in_module_class = in_module_class
        self.in_class = in_class
        self.backwards: Dict[cst.Call, Backward] = {}
        #: calls of project functions that back-propagate the tensor they return (``loss = self.train_step(b)``)
        self.callee_backwards: Dict[cst.Call, Backward] = {}
        #: the loops (and the method scope) in which an optimizer step runs here (see :meth:`steps_in`)
        self.stepping_loops: Set[cst.CSTNode] = set()
        #: project functions called in loops, with those loops: asked whether they step only when
        #: a rule needs to know (following their calls reads much of the project)
        self.looped_callees: List[Tuple[FunctionSummary, Tuple[cst.CSTNode, ...]]] = []
        #: ``.step(...)`` calls → what their first positional argument holds (joined over the passes;
        #: None: no such argument) and the loops they run in
        self._step_calls: Dict[cst.Call, Tuple[Optional[Val], Tuple[cst.CSTNode, ...]]] = {}
        self.accumulations: Dict[cst.CSTNode, Accumulation] = {}
        self.assignments: List[Assignment] = []
        self.carried: Dict[cst.CSTNode, loops.Carried] = {}
        #: entries of containers the loop never rebinds that an iteration reads before it stores
        #: them (``state["h"] = rnn(x, state["h"])``): their container is carried too
        self.carried_entries: Dict[cst.CSTNode, List[loops.CarriedEntry]] = {}
        #: calls of objects of project classes with autograd on, and what their arguments hold
        self.instance_calls: List[InstanceCall] = []
        #: container → the names of its carried entries (``state`` → ``state["h"]``): each entry is
        #: a value of its own in the states, so one entry's graph is not taken for another's
        self._entries_of: Dict[str, Set[str]] = {}
        self.loop_end: Dict[cst.CSTNode, State] = {}
        #: what each loop's first iteration starts from (joined over the times it is entered)
        self.loop_entry: Dict[cst.CSTNode, State] = {}
        #: what each loop starts from the first time it is entered, before enclosing loops come round
        self.first_entry: Dict[cst.CSTNode, State] = {}
        #: labels flowing out of the scope: returned, yielded, stored on objects, passed to unknown calls
        self.escaped: Set[Label] = set()
        self.none_names: Set[str] = set()
        #: the scope's parameters: objects the caller shares with it
        self.params: Set[str] = set()
        self._loops: List[cst.CSTNode] = []
        self._continues: List[List[State]] = []
        self._nograd = 0
        self._returns: List[State] = []
        #: containers one of whose entries ``.backward()`` is called on
        self._backward_containers: Set[str] = set()
        self._backward_entries: List[cst.Subscript] = []
        self._summary: Optional[FunctionSummary] = None
        self._backward_names = self._backward_receivers()
        #: names whose ``.detach()`` is a project method that detaches nothing (a stub)
        self.stub_detached: Set[str] = set()
        #: ("init", name) → where the scope first reads an attribute computed from parameters once
        self.init_reads: Dict[Label, cst.CSTNode] = {}
        #: names that keys of this scope's states may extend (see :meth:`_extensions`)
        self._extended: Optional[Dict[str, Set[str]]] = None
        #: the scope is one iteration of a framework's loop that back-propagates what it returns:
        #: the key of a returned dict that holds the loss ("" for a returned tensor), else None
        self._framework_loss_key: Optional[str] = None

    def steps_in(self, loop: cst.CSTNode) -> bool:
        """An optimizer step runs in ``loop``, here or in a project function called there."""
        return loop in self.stepping_loops or any(
            loop in loops and self.context.model.runs_step(callee) for callee, loops in self.looped_callees
        )

    # ----------------------------------------------------------------- entry

    def run(self) -> "GraphFlow":
        state: State = {}
        if isinstance(self.scope, cst.FunctionDef):
            for param in _params(self.scope):
                self.params.add(param.name.value)
                state[param.name.value] = Val(GRAPH) if param.name.value in self._backward_names else CLEAN
                if isinstance(param.default, cst.Name) and param.default.value == "None":
                    self.none_names.add(param.name.value)
            if self.scope.body in self.disabled:
                self._nograd += 1
            statements = loops.block_statements(self.scope.body)
            if self.in_class:
                # A method is an iteration of whatever calls it: ``self.*`` state read
                # before it is assigned comes from the previous call.
                carried = loops.carried_names(self.scope.body)
                self.carried[self.scope] = carried
                for name in carried.names:
                    if name.startswith("self."):
                        state[name] = self._read(name, state).with_labels([("carry", self.scope, name)])
            self._loops.append(self.scope)
            self._framework_loss_key = self._framework_backpropagates_return()
            end = self._block(statements, state)
            self._loops.pop()
            for returned in self._returns:
                end = _join_states(end, returned)
            self.loop_end[self.scope] = end
        elif isinstance(self.scope, cst.Module):
            self._block(list(self.scope.body), state)
        for given, stepped_in in self._step_calls.values():
            if not _given_a_graph(given):
                self.stepping_loops.update(stepped_in)
        return self

    def loops_of(self, node_loops: Sequence[cst.CSTNode]) -> Tuple[cst.CSTNode, ...]:
        """The real loops (not the method scope) of a recorded loop stack, innermost last."""
        return tuple(n for n in node_loops if isinstance(n, (cst.For, cst.While)))

    def _backward_receivers(self) -> Set[str]:
        names = set()
        taken: List[cst.Assign] = []  # ``name = container[key]``, read once ``names`` is complete
        for node in _walk_scope(self.scope.body if isinstance(self.scope, cst.FunctionDef) else self.scope):
            if isinstance(node, cst.Assign) and isinstance(node.value, cst.Subscript):
                taken.append(node)
            elif isinstance(node, cst.Call) and not (isinstance(node.func, cst.Attribute) and node.func.attr.value == "backward"):
                # ``self.net.train_step(loss, optim)`` of a project method whose own code runs
                # ``loss.backward()`` on that parameter: the argument is back-propagated there.
                names.update(self._backpropagated_arguments(node))
            elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "backward":
                receiver = node.func.value
                name = dotted_name(receiver)
                if is_function_backward(self.context, node):
                    # ``accelerator.backward(loss)``: the receiver is the wrapper that back-propagates
                    # its argument, not a tensor; what is read from it (``accelerator.num_processes``)
                    # holds no graph.
                    continue
                if name:
                    names.add(name)
                elif isinstance(receiver, cst.Subscript):
                    # ``losses["total"].backward()``: the container holds a graph in that entry,
                    # and the entry is a tensor (nothing else has ``backward()``).
                    base = dotted_name(receiver.value)
                    if base:
                        self._backward_containers.add(base)
                        self._backward_entries.append(receiver)
        # ``loss = loss_dict["loss"]`` then ``loss.backward()``: the container the back-propagated
        # value was taken from holds a graph in that entry, as if ``loss_dict["loss"].backward()``
        # were written (its other entries may hold the same graph; their kind stays unknown).
        for node in taken:
            if not any(dotted_name(t.target) in names for t in node.targets):
                continue
            assert isinstance(node.value, cst.Subscript)
            base = dotted_name(node.value.value)
            if base and base not in names:
                self._backward_containers.add(base)
                self._backward_entries.append(node.value)
        return names

    def _backpropagated_arguments(self, call: cst.Call) -> Set[str]:
        """The names passed to ``call`` of a project function for parameters its own code calls
        ``.backward()`` on (a tensor's backward, or a wrapper's of the loss: ``accelerator.backward(loss)``)."""
        if any(arg.star for arg in call.args) or dotted_name(call.func) is None:
            return set()
        callee = self._callee(call.func)
        if callee is None or callee.qualname == self.qualname:
            return set()
        params = {b.tensor.name for b in callee.backward_calls if b.tensor.kind == "param" and b.via != "torch.autograd"}
        if not params:
            return set()
        return {name for param, arg in bind_arguments(callee, call) if param in params and (name := dotted_name(arg))}

    # ----------------------------------------------------------------- statements

    def _block(self, statements: Sequence[cst.CSTNode], state: State) -> State:
        for stmt in statements:
            state = self._statement(stmt, state)
        return state

    def _statement(self, stmt: cst.CSTNode, state: State) -> State:
        if isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            for small in stmt.body:
                state = self._small(small, stmt, state)
            return state
        if isinstance(stmt, cst.If):
            opted = self._opted_in(stmt)
            if opted is not None:
                # ``if use_cache:`` in a forward: only calls that opt in (generation under no_grad) take
                # that branch, never the default call of a training step.
                if not opted:
                    return self._block(loops.block_statements(stmt.body), state)
                if stmt.orelse is None:
                    return state
                if isinstance(stmt.orelse, cst.If):
                    return self._statement(stmt.orelse, state)
                return self._block(loops.block_statements(stmt.orelse.body), state)
            self._expr(stmt.test, state)
            when_true, when_false = dict(state), dict(state)
            none_test = _none_test(stmt.test)
            if none_test is not None:
                # ``if h is not None:`` — on the other path ``h`` is None, no graph.
                name, is_none = none_test
                (when_true if is_none else when_false)[name] = CLEAN
            tensor_test = _tensor_test(self.context, stmt.test)
            if tensor_test is not None:
                # ``if torch.is_tensor(v): v = v.item()`` — where it is no tensor it holds no graph.
                name, is_tensor = tensor_test
                (when_false if is_tensor else when_true)[name] = CLEAN
            after_body = self._block(loops.block_statements(stmt.body), when_true)
            if stmt.orelse is None and self._loops and self._cuts_every_backpropagating_iteration(stmt.test):
                # ``if step > 0 and train: h = h.detach()`` with backward only ``if train:``: where
                # the body does not run, no earlier iteration's graph is there (the first one) or
                # none is back-propagated, so what it rebinds carries no freed graph on that way.
                loop = self._loops[-1]
                when_false = dict(when_false)
                for name, value in after_body.items():
                    if when_false.get(name) is not None and when_false[name] is not value:
                        carry = ("carry", loop, name)
                        if carry in when_false[name].labels:
                            old = when_false[name]
                            when_false[name] = Val(old.level, old.labels - {carry}, old.kinds)
            if stmt.orelse is None:
                return _join_states(when_false, after_body)
            if isinstance(stmt.orelse, cst.If):
                after_else = self._statement(stmt.orelse, when_false)
            else:
                after_else = self._block(loops.block_statements(stmt.orelse.body), when_false)
            return _join_states(after_body, after_else)
        if isinstance(stmt, (cst.For, cst.While)):
            return self._loop(stmt, state)
        if isinstance(stmt, cst.With):
            inner = dict(state)
            nograd = stmt.body in self.disabled
            for item in stmt.items:
                value = self._expr(item.item, inner)
                if item.asname is not None:
                    self._bind(item.asname.name, value, inner, stmt)
            if nograd:
                self._nograd += 1
            try:
                return self._block(loops.block_statements(stmt.body), inner)
            finally:
                if nograd:
                    self._nograd -= 1
        if isinstance(stmt, (cst.Try, cst.TryStar)):
            after = self._block(loops.block_statements(stmt.body), dict(state))
            merged = _join_states(state, after)
            for handler in stmt.handlers:
                merged = _join_states(merged, self._block(loops.block_statements(handler.body), dict(merged)))
            if stmt.orelse is not None:
                merged = _join_states(merged, self._block(loops.block_statements(stmt.orelse.body), dict(after)))
            if stmt.finalbody is not None:
                merged = self._block(loops.block_statements(stmt.finalbody.body), merged)
            return merged
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            state = dict(state)
            state[stmt.name.value] = CLEAN
            return state
        return state

    def _cuts_every_backpropagating_iteration(self, test: cst.BaseExpression) -> bool:
        """Each ``and``-part of ``test`` holds on every iteration after the first (``i > 0`` of the loop's
        ``range``/``enumerate`` counter) or guards every backward of the loop (a name the loop does not
        assign, also tested around each ``backward()``): an ``if`` on it runs on every iteration
        that back-propagates what an earlier one left."""
        loop = self._loops[-1]
        if not isinstance(loop, (cst.For, cst.While)):
            return False
        parts = _and_parts(test)
        counter = _loop_counter(loop)
        carried = self.carried.get(loop)
        assigned = set(carried.assignments) if carried is not None else set()
        for part in parts:
            if counter is not None and _after_first(part, counter):
                continue
            name = dotted_name(part)
            if name is None or name in assigned or not self._guards_backwards(loop, part):
                return False
        return True

    def _detached_with_every_backward(self, loop: Union[cst.For, cst.While]) -> Set[str]:
        """Names an ``if`` of ``loop`` detaches (``h = h.detach()``, ``h.detach_()``) in the block that
        holds every backward of the loop (``if step % T == 0 or done: h = h.detach_(); loss.backward()``
        of truncated BPTT): a pass that skips the block frees no graph, and one that runs it leaves
        the name clean, so what the name carries into the next pass is never a freed graph."""
        found: Set[str] = set()
        stack: List[cst.CSTNode] = [loop.body]
        while stack:
            node = stack.pop()
            if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                continue
            if isinstance(node, cst.If):
                names = _detached_names(node.body, self._detaching_call)
                if names and self._holds_every_backward(loop, node):
                    found |= names
            stack.extend(loops.children(node))
        return found

    def _detaching_call(self, call: cst.Call) -> bool:
        """A call of a project function whose result holds no graph of its arguments (a
        ``repackage_hidden``-like helper: :attr:`FunctionSummary.detached_copy`)."""
        callee = self._callee(call.func)
        return callee is not None and callee.detached_copy

    def _holds_every_backward(self, loop: Union[cst.For, cst.While], block: cst.If) -> bool:
        """Every backward of ``loop`` (and every call of a project function that back-propagates) is
        inside ``block``'s body; there is at least one."""
        return self._every_backward_under(loop, lambda node: node is block)

    def _guards_backwards(self, loop: Union[cst.For, cst.While], guard: cst.BaseExpression) -> bool:
        """Every backward in ``loop`` (and every call of a project function that back-propagates) sits
        under an ``if`` one of whose ``and``-parts is ``guard``; there is at least one."""
        return self._every_backward_under(loop, lambda node: any(part.deep_equals(guard) for part in _and_parts(node.test)))

    def _every_backward_under(self, loop: Union[cst.For, cst.While], covers: Callable[[cst.If], bool]) -> bool:
        """Every backward in ``loop`` (and every call of a project function that back-propagates) is in
        the body of an ``if`` that ``covers`` (not in its ``else``); there is at least one."""
        found = False
        stack: List[Tuple[cst.CSTNode, bool]] = [(loop.body, False)]
        while stack:
            node, inside = stack.pop()
            if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                continue
            if isinstance(node, cst.If):
                stack.append((node.body, inside or covers(node)))
                if node.orelse is not None:
                    stack.append((node.orelse, inside))
                stack.append((node.test, inside))
                continue
            if isinstance(node, cst.Call) and (is_backward_call(self.context, node) or self._backpropagating_callee(node)):
                if not inside:
                    return False
                found = True
            stack.extend((child, inside) for child in loops.children(node))
        return found

    def _backpropagating_callee(self, call: cst.Call) -> bool:
        callee = self._callee(call.func)
        return callee is not None and callee.qualname != self.qualname and self.context.model.runs_backward(callee)

    def _loop(self, loop: Union[cst.For, cst.While], pre: State) -> State:
        carried = self.carried.get(loop)
        if carried is None:
            test = loop.test if isinstance(loop, cst.While) else None
            bound_before = frozenset(pre) | self.params

            def unbound(name: str) -> bool:
                return name not in bound_before

            def fixed(name: str, touched: FrozenSet[str]) -> bool:
                return self._fixed_during_loop(name, touched, loop)

            carried = self.carried[loop] = loops.carried_names(
                loop.body, test, fixed, loop.target if isinstance(loop, cst.For) else None, unbound
            )
        entries = self.carried_entries.get(loop)
        if entries is None:
            entries = self.carried_entries[loop] = loops.carried_entries(loop, carried.assignments)
        if entries:
            pre = dict(pre)
            for entry in entries:
                self._entries_of.setdefault(entry.container, set()).add(entry.name)
                if entry.name not in pre:
                    # Where the loop starts, the entry holds what the container's entries hold.
                    container = self._read(entry.container, pre)
                    pre[entry.name] = Val(container.level, container.labels, element_kinds(container.kinds))
        self.loop_entry[loop] = _join_states(self.loop_entry.get(loop, {}), pre)
        self.first_entry.setdefault(loop, dict(pre))
        kept_clean = self._detached_with_every_backward(loop)
        targets = {n for n, _ in loops.target_names(loop.target)} if isinstance(loop, cst.For) else set()
        # A container (not a tensor written row by row) whose entries the loop stores into is not
        # read only: some of its keys are rebuilt in the loop (``d["v"] = model(d["x"])`` after the
        # backward, or ``if epoch > 0:`` before the read). Its keys are read as the join of all it
        # held where the loop started, and that join cannot show that the loop reads the graph made
        # before it under a key the loop never rebuilds, so it gets no ``pre`` label.
        rebuilt = {
            name for name in loops.stored_keys(loop.body)
            if name in pre and pre[name].kinds != _TENSOR_KIND
        }
        read_only = [
            n for n in carried.first_read
            if n not in carried.assignments and n not in targets and n in pre and n not in rebuilt
        ]
        back: State = dict(pre)
        end: State = dict(pre)
        for _ in range(4):
            head = dict(back)
            for name in carried.names | {entry.name for entry in entries}:
                if name not in kept_clean:
                    head[name] = self._read(name, head).with_labels([("carry", loop, name)])
            for name in read_only:
                if head[name].level >= GRAPH:
                    head[name] = head[name].with_labels([("pre", loop, name)])
            if isinstance(loop, cst.For):
                self._bind(loop.target, self._iterated(loop.iter, head), head, loop)
            else:
                self._expr(loop.test, head)
            self._loops.append(loop)
            self._continues.append([])
            end = self._block(loops.block_statements(loop.body), head)
            for continued in self._continues.pop():
                end = _join_states(end, continued)
            self._loops.pop()
            self.loop_end[loop] = _join_states(self.loop_end.get(loop, {}), end)
            new_back = _join_states(back, end)
            if new_back == back:
                break
            back = new_back
        after = _join_states(pre, back)
        if isinstance(loop, cst.For) and _detaches_each(loop):
            # ``for t in hidden: t.detach_()`` detaches the whole tuple in place.
            after[dotted_name(loop.iter) or ""] = CLEAN
        if loop.orelse is not None:
            after = self._block(loops.block_statements(loop.orelse.body), after)
        return after

    def _small(self, small: cst.CSTNode, line: cst.CSTNode, state: State) -> State:
        state = dict(state)
        if isinstance(small, cst.Assign):
            if self._accumulating_assign(small, line, state):
                return state
            value = self._expr(small.value, state)
            for target in small.targets:
                self._bind(target.target, value, state, line, small.value)
            return state
        if isinstance(small, cst.AnnAssign) and small.value is not None:
            value = self._expr(small.value, state)
            self._bind(small.target, value, state, line, small.value)
            return state
        if isinstance(small, cst.AugAssign):
            value = self._expr(small.value, state)
            aug_target: cst.BaseExpression = small.target
            base = aug_target.value if isinstance(aug_target, cst.Subscript) else aug_target
            name = dotted_name(base)
            if name is None:
                return state
            current = self._read(name, state)
            if isinstance(small.operator, cst.AddAssign) and self._iadd_keeps_nothing(aug_target):
                # ``meter += loss`` on an object whose ``__iadd__`` keeps nothing of the loss's graph.
                return state
            if isinstance(small.operator, (cst.AddAssign, cst.SubtractAssign)) and self._loops:
                self._record_accumulation(line, name, small.value, value, "augassign", state)
                current = current.with_labels([("acc", name)])
            new = current.join(value.computed()) if value.level or current.level else current.join(value)
            if isinstance(base, cst.Attribute):
                self.escaped.update(value.labels)
            self._assign(name, new, state, line)
            return state
        if isinstance(small, cst.Expr):
            self._expression_statement(small.value, line, state)
            return state
        if isinstance(small, cst.Return) and small.value is not None:
            returned = self._expr(small.value, state)
            if self._framework_loss_key is not None and not self._nograd:
                self._framework_backward(small.value, state)
            self.escaped.update(returned.labels)
            self.returned = returned if self.returned is None else self.returned.join(returned)
            self._returns.append(dict(state))
            return state
        if isinstance(small, cst.Continue) and self._continues:
            self._continues[-1].append(dict(state))
            return state
        if isinstance(small, cst.Del):
            for name, _ in loops.target_names(small.target):
                state.pop(name, None)
            return state
        for child in loops.children(small):
            if isinstance(child, cst.BaseExpression):
                self._expr(child, state)
        return state

    def _accumulating_assign(self, small: cst.Assign, line: cst.CSTNode, state: State) -> bool:
        # ``total = total + loss`` (either operand order), ``totals[k] = totals.get(k, 0) + v``,
        # ``ema = loss if ema is None else a * ema + (1 - a) * loss``.
        if len(small.targets) != 1 or not self._loops:
            return False
        target = small.targets[0].target
        keyed = isinstance(target, cst.Subscript)
        name = dotted_name(target.value if isinstance(target, cst.Subscript) else target)
        if name is None:
            return False
        value = small.value
        branches = [value.body, value.orelse] if isinstance(value, cst.IfExp) else [value]
        added_parts = [self._added_terms(branch, name, target) for branch in branches]
        if not any(part is not None for part in added_parts):
            return False
        if isinstance(value, cst.IfExp):
            self._expr(value.test, state)
        joined = CLEAN
        for branch, added in zip(branches, added_parts):
            # A branch that does not read the total starts it (``loss if ema is None``): it is
            # kept by the next iteration's total just the same.
            for kept in [branch] if added is None else added:
                added_value = self._expr(kept, state)
                self._record_accumulation(line, name, kept, added_value, "assign", state)
                joined = joined.join(added_value)
        current = self._read(name, state).with_labels([("acc", name)])
        new = current.join(joined).computed() if joined.level else current.join(joined)
        if keyed:
            kinds = current.kinds if current.kinds <= {TENSOR_DICT, DICT} and current.kinds else UNKNOWN
            new = Val(kinds=kinds).join_graph(new)
        self._assign(name, new, state, line)
        return True

    def _framework_backpropagates_return(self) -> Optional[str]:
        """``""`` (or the dict key) when a framework back-propagates what this method returns
        (Lightning's automatic ``training_step``, Hugging Face ``compute_loss``), else None."""
        if not self.in_class or self.summary is None:
            return None
        contract = self.context.model.loop_contract(self.summary)
        if contract is None or not contract.backward_returned:
            return None
        return contract.loss_key or ""

    def _framework_backward(self, returned: cst.BaseExpression, state: State) -> None:
        """The backward the framework runs on the returned loss after this call, spelled as the
        call it makes (``loss.backward()``), recorded with the calls of project functions that
        back-propagate: both free the loss's graph once per call."""
        loss: Optional[cst.BaseExpression] = returned
        if isinstance(returned, cst.Dict):
            loss = next(
                (e.value for e in returned.elements if isinstance(e, cst.DictElement)
                 and isinstance(e.key, cst.SimpleString) and e.key.evaluated_value == self._framework_loss_key),
                None,
            )
        elif isinstance(returned, cst.Tuple) and returned.elements:
            loss = returned.elements[0].value  # HF compute_loss(return_outputs=True): (loss, outputs)
        if loss is None:
            return
        value = self._expr(loss, state)
        if value.level < GRAPH:
            return
        call = cst.Call(func=cst.Attribute(value=loss, attr=cst.Name("backward")))
        self.callee_backwards[call] = Backward(call, value, tuple(self._loops), False)

    def _added_terms(
        self, value: cst.BaseExpression, name: str, target: cst.BaseExpression
    ) -> Optional[List[cst.BaseExpression]]:
        """What ``value`` keeps in the running total ``name`` (assigned to ``target``): the operand of
        ``name + x`` (an EMA, ``torch.cat([name, x])``), or the terms of an incremental mean
        ``target + (x - target) / n`` that do not read it; None when ``value`` updates no total."""
        single = _accumulated_operand(value, name) or self._concatenated(value, name)
        if single is not None:
            return [single]
        if not (isinstance(value, cst.BinaryOperation) and isinstance(value.operator, (cst.Add, cst.Subtract))):
            return None
        if not value.left.deep_equals(target):
            return None
        terms = _terms_beside_total(value.right, name, target)
        return terms if terms and any(t.deep_equals(target) for t in _walk(value.right)) else None

    def _concatenated(self, value: cst.BaseExpression, name: str) -> Optional[cst.BaseExpression]:
        """What ``torch.cat([name, x])`` appends to the running tensor ``name`` (``x``), else None."""
        if not isinstance(value, cst.Call) or not value.args:
            return None
        if not qualified_names(self.context, value.func) & {"torch.cat", "torch.concat", "torch.concatenate"}:
            return None
        parts = value.args[0].value
        if not isinstance(parts, (cst.List, cst.Tuple)) or len(parts.elements) != 2:
            return None
        first, second = (e.value for e in parts.elements)
        if dotted_name(first) == name and dotted_name(second) != name:
            return second
        if dotted_name(second) == name and dotted_name(first) != name:
            return first
        return None

    def _expression_statement(self, expr: cst.BaseExpression, line: cst.CSTNode, state: State) -> None:
        if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
            method = expr.func.attr.value
            receiver = expr.func.value
            base = receiver.value if isinstance(receiver, cst.Subscript) else receiver
            name = dotted_name(base)
            if method == "detach_" and name is not None:
                self._assign(name, CLEAN, state, line)
                return
            # A project object's own method (``tracker.add(losses)``) says itself what it keeps.
            if method in _ACCUMULATING_METHODS and self._loops and self._method_accumulation(expr, line, state):
                return
            if method in _ACCUMULATING_METHODS and name is not None and expr.args:
                added = expr.args[-1].value
                value = self._expr(added, state)
                if self._loops and method != "add":
                    self._record_accumulation(line, name, added, value, method, state)
                current = self._read(name, state).with_labels([("acc", name)])
                if isinstance(base, cst.Attribute):
                    self.escaped.update(value.labels)
                self._assign(name, current.join(value), state, line)
                return
        if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and self._loops:
            if self._method_accumulation(expr, line, state):
                return
        if isinstance(expr, cst.Call) and expr.args and self._detach_helper(expr.func) == "inplace":
            target = dotted_name(expr.args[0].value)
            if target is not None:
                self._assign(target, CLEAN, state, line)
                return
        self._expr(expr, state)

    def _method_accumulation(self, call: cst.Call, line: cst.CSTNode, state: State) -> bool:
        """``meter.update(loss)`` where the method adds its argument into ``self.*``: an accumulation
        into ``meter`` (the method's summary says which arguments it keeps)."""
        callee = self._callee(call.func)
        if callee is None or callee.class_name is None:
            return False
        kept = self._accumulating_params(callee)
        if not kept or self._read_back(callee, kept):
            return False
        assert isinstance(call.func, cst.Attribute)
        owner = call.func.value
        owner_name = dotted_name(owner.value if isinstance(owner, cst.Subscript) else owner)
        if owner_name is None or owner_name == "self":
            return False
        self._expr(call, state)
        for param, arg in bind_arguments(callee, call):
            if param in kept:
                self._record_accumulation(line, owner_name, arg, self._expr(arg, state), "method", state)
        return True

    def _read_back(self, callee: FunctionSummary, kept: Set[str]) -> bool:
        """The method appends the kept params to lists of its object that another method of the class
        hands back whole (``Memory.remember`` appends ``log_p`` to ``self.log_probs``, and
        ``sample_memory`` returns it) or as a random draw (``random.sample(self.memory, n)``): a buffer whose entries its users read back, not a total kept
        only for logging. What the readers do with them (a loss, a backward) is theirs to say."""
        owner = self.context.model.class_of(callee)
        if owner is None:
            return False
        appended = {attr for param in kept for attr in callee.accumulated_params.get(param, ()) if attr in callee.appended_attrs}
        return bool(appended) and any(
            appended & (method.returned_self_attrs | method.sampled_self_attrs) for method in owner.methods.values()
        )

    def _iadd_keeps_nothing(self, target: cst.BaseExpression) -> bool:
        """``target += v`` runs the ``__iadd__`` of a project class that keeps no graph of ``v``
        (:meth:`~autofix.model.project.ModuleModel.iadd_keeps_nothing`): ``meter`` built by
        ``Meter()``, ``meters[k]`` of ``{k: Meter() ...}``, ``self.meter``, or ``self.tracks[k]`` of a
        container the class fills only with such objects."""
        model = self.context.model
        if self.summary is None:
            return False
        callee = self._callee(cst.Attribute(value=target, attr=cst.Name("__iadd__")))
        if callee is not None:
            return model.iadd_keeps_nothing(callee)
        holder = target.value if isinstance(target, cst.Subscript) else None
        if (
            isinstance(holder, cst.Attribute) and isinstance(holder.value, cst.Name)
            and self.summary.params and holder.value.value == self.summary.params[0]
        ):
            return model.elements_add_no_graph(self.summary, holder.attr.value)
        return False

    def _accumulating_params(self, callee: FunctionSummary, depth: int = 0) -> Set[str]:
        """The params of a method whose graph outlives the call in its object's state: added into
        ``self.*`` by the method, or handed to a method of an object it holds that does
        (``MetricLogger.update(**kwargs)`` passing each value to ``self.meters[k].update``); not
        one added only by ``self.tracks[k] += v`` into elements whose ``__iadd__`` keeps nothing."""
        model = self.context.model
        kept = {
            param for param, attrs in callee.accumulated_params.items()
            if any(
                (param, attr) in callee.added_otherwise or (param, attr) not in callee.added_by_iadd
                or not model.elements_add_no_graph(callee, attr)
                for attr in attrs
            )
        }
        if depth >= 3:
            return kept
        for param, spelled, position in callee.forwarded_params:
            if param in kept:
                continue
            inner = self.context.model.callee(callee, spelled)
            if not isinstance(inner, FunctionSummary) or inner.class_name is None or inner is callee:
                continue
            if _bound_param(inner, position) in self._accumulating_params(inner, depth + 1):
                kept.add(param)
        return kept

    def _fresh_in_iteration(self, name: str) -> bool:
        """``name`` is rebuilt in each iteration of the innermost loop before anything reads it."""
        carried = self.carried.get(self._loops[-1])
        return carried is not None and name in carried.assignments and name not in carried.first_read

    def _fills_iteration_slot(self, target: cst.Subscript, name: str) -> bool:
        """``q_vals[:, t] = q_t`` in ``for t in ...`` on a tensor: the store fills the entry at this
        iteration's index of a table the scope itself made before the loop (a local bound here, not
        a parameter, an attribute or a global). Its size was fixed before the loop ran (unlike a
        dict or list that gains an entry per step), and it dies with the call."""
        loop = self._loops[-1]
        if not isinstance(loop, cst.For) or "." in name or name in self.params:
            return False
        if not any(assignment.name == name for assignment in self.assignments):
            return False
        index = {bound for bound, _ in loops.target_names(loop.target)}
        return any(read in index for element in target.slice for read, _ in loops.iter_reads(element.slice))

    def _record_accumulation(
        self, line: cst.CSTNode, name: str, added: cst.BaseExpression, value: Val, kind: str, state: State
    ) -> None:
        previous = self.accumulations.get(added)
        if previous is not None:
            value = previous.value.join(value)
        self.accumulations[added] = Accumulation(line, name, added, value, tuple(self._loops), kind)

    # ----------------------------------------------------------------- binding

    def _bind(
        self,
        target: cst.BaseExpression,
        value: Val,
        state: State,
        stmt: cst.CSTNode,
        value_node: Optional[cst.BaseExpression] = None,
    ) -> None:
        if isinstance(target, (cst.Tuple, cst.List)):
            elements = [e.value for e in target.elements]
            values = None
            literal = value_node if isinstance(value_node, (cst.Tuple, cst.List)) else None
            if literal is not None and len(literal.elements) == len(elements):
                values = [self._expr(e.value, dict(state)) for e in literal.elements]
            labels = value.labels
            # The project function a call unpacked here runs, asked once for all that follows.
            callee = self._callee(value_node.func) if isinstance(value_node, cst.Call) else None
            if not value.kinds and isinstance(value_node, cst.Call):
                # The parts of what an unknown function returns: one may be a loss, another a
                # detached metric; none of them is proven to hold a graph.
                labels = labels | {("unproven",)}
            parts = [Val(value.level, labels, element_kinds(value.kinds))] * len(elements)
            shape = tuple_parts(value.kinds)
            if shape is not None and len(shape) == len(elements):
                unproven = self._unproven_parts(callee, len(elements)) if isinstance(value_node, cst.Call) else set()
                parts = [
                    Val(value.level, value.labels | ({("unproven",)} if not part and index in unproven else set()), part)
                    for index, part in enumerate(shape)
                ]
            if value.kinds == {ITEMS} and len(elements) == 2:
                parts = [Val(kinds=_OTHER_KIND), Val(value.level, value.labels, _TENSOR_KIND)]
            if values is None and isinstance(value_node, cst.Call):
                parts = self._passed_through(value_node, callee, parts, state)
                parts = self._from_arguments_only(value_node, callee, parts, state)
                parts = self._graphless_parts(callee, parts)
                parts = self._graph_from_arguments(value_node, callee, parts, state)
            for index, element in enumerate(elements):
                part_node = literal.elements[index].value if literal is not None and values is not None else None
                self._bind(element, values[index] if values is not None else parts[index], state, stmt, part_node)
            return
        if isinstance(target, cst.StarredElement):
            self._bind(target.value, value, state, stmt)
            return
        if isinstance(target, cst.Subscript):
            name = dotted_name(target.value)
            if name is not None:
                container = self._read(name, state)
                kinds = container.kinds
                if kinds == _ARRAY_KIND:
                    # ``epoch_loss[i] = loss`` into ``np.zeros(n)``: numpy stores the number the
                    # tensor holds (``float(loss)``); neither the array nor the entry keeps a graph.
                    return
                if kinds == {TENSOR_DICT} and not value.is_tensor:
                    kinds = frozenset({DICT})
                elif kinds == {TENSOR_LIST} and value.is_tensor:
                    pass  # ``hiddens[i] = cell(x, hiddens[i])``: still a list of tensors
                elif not (kinds <= {TENSOR, DICT, TENSOR_DICT} and kinds):
                    kinds = UNKNOWN  # a list of tensors with a number stored in it, ...
                if (
                    value_node is not None
                    and self._loops
                    and value.level == GRAPH
                    and not self._fresh_in_iteration(name)
                    and not _replaces_one_entry(target, value_node, name)
                ):
                    # ``log[step] = loss``: kept across iterations unless ``log`` is rebuilt in each.
                    kind = "slot" if container.kinds == {TENSOR} and self._fills_iteration_slot(target, name) else "store"
                    self._record_accumulation(stmt, name, value_node, value, kind, state)
                    container = container.with_labels([("acc", name)])
                self._assign(name, Val(kinds=kinds).join_graph(container.join(value)), state, stmt)
                entry = self._entry_name(target)
                if entry is not None:
                    self._assign(entry, value, state, stmt)
                if value.level < GRAPH and any(target.deep_equals(entry) for entry in self._backward_entries):
                    # ``output["loss"] = output["loss"].detach()``: the entry that proved a graph no
                    # longer holds one; what the other entries hold is not known.
                    state[name] = state[name].with_labels([("assumed",)])
            return
        name = dotted_name(target)
        if name is None:
            return
        if isinstance(value_node, cst.Name) and value_node.value == "None":
            self.none_names.add(name)
        if isinstance(target, cst.Attribute) and not name.startswith("self."):
            self.escaped.update(value.labels)
        if name.count(".") == 1 and name.startswith("self.") and self._holds_parameter(name[len("self."):]):
            # ``self.w = self.w.to(device)`` on a registered Parameter: the module stores a
            # Parameter there or raises, so the attribute stays a leaf, not this value's graph.
            value = Val(LEAF, kinds=_TENSOR_KIND)
        for entry in self._entries_of.get(name, ()):
            state.pop(entry, None)  # a new container: none of the old one's entries
        cut = value_node is not None and (
            _cut_expression(value_node) or isinstance(value_node, cst.Call) and self._numpy_function(value_node) is not None
        )
        self._assign(name, value, state, stmt, cut)
        if isinstance(target, cst.Attribute) and target.attr.value == "requires_grad" and _is_true_name(value_node):
            # ``w.requires_grad = True`` on a tensor: from here on ``w`` is a leaf autograd tracks.
            self._make_leaf(dotted_name(target.value), state)

    def _entry_name(self, node: cst.Subscript) -> Optional[str]:
        """The name of the carried entry ``node`` spells (``state["h"]``), if it is one."""
        container = dotted_name(node.value)
        entries = self._entries_of.get(container) if container is not None else None
        if not entries or len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
            return None
        name = f"{container}[{_SPELLER.code_for_node(node.slice[0].slice.value)}]"
        return name if name in entries else None

    def _make_leaf(self, name: Optional[str], state: State) -> None:
        if name is not None and not self._nograd and self._read(name, state).is_tensor:
            state[name] = Val(LEAF, kinds=_TENSOR_KIND)

    def _passed_through(self, call: cst.Call, callee: Optional[FunctionSummary], parts: List[Val], state: State) -> List[Val]:
        """``y_hat, latent, deltas, codes = self.net.forward(x, codes=codes, …)`` of a project function
        whose four-element returns hand back, in that position, only its parameters or what
        grad-disabled callees return: that name gets the caller's arguments for those parameters
        (or nothing), not the graph of the call (:attr:`FunctionSummary.returned_pass_through`)."""
        if callee is None or any(arg.star for arg in call.args):
            return parts  # ``f(*args)``: which parameter gets what is not known
        positions = callee.returned_pass_through.get(len(parts))
        if positions is None:
            return parts
        arguments = dict(bind_arguments(callee, call))
        model = self.context.model
        out = list(parts)
        for index, passed in enumerate(positions):
            if passed is None:
                continue
            params, callees = passed
            if any(not isinstance(inner := model.callee(callee, spelled), FunctionSummary) or not inner.returns_no_graph for spelled in callees):
                continue
            if any(p not in arguments and p not in callee.params for p in params) or callee.var_keyword in params:
                continue
            out[index] = self._arguments_value(arguments, params, state)
        return out

    def _unproven_parts(self, callee: Optional[FunctionSummary], length: int) -> Set[int]:
        """The positions of ``call``'s tuple of ``length`` whose graph, if any, comes from nothing the
        project function runs itself: from its parameters only (an episode's reward summed from
        ``env.step(a)``), or from what cannot be told. Of unknown kind, they are not proven to hold one."""
        if callee is None:
            return set(range(length))
        sources = callee.returned_element_sources.get(length)
        if sources is None:
            return set(range(length))
        params = set(callee.params)
        return {index for index, source in enumerate(sources) if source is None or source <= params}

    def _graphless_parts(self, callee: Optional[FunctionSummary], parts: List[Val]) -> List[Val]:
        """``info, q1_loss, q2_loss = self.update(obs)`` of a project function every tuple of that
        length it returns holds, in some position, what can hold no graph (a detached loss, a
        number): that name gets no graph, whatever the other positions hold (``info = {}``)."""
        if all(part.level < GRAPH for part in parts) or callee is None:
            return parts
        shapes = self.context.model.returned_shapes(callee)
        if any(s.kind is not ModelKind.NONE and (s.kind not in (ModelKind.TUPLE, ModelKind.LIST) or not s.parts) for s in shapes):
            return parts  # something of a length not known: which part is which cannot be told
        tuples = [s for s in shapes if s.kind is not ModelKind.NONE and len(s.parts) == len(parts)]
        if not tuples:
            return parts
        return [
            Val(kinds=part.kinds) if part.level == GRAPH and not any(_may_hold_graph(s.parts[index]) for s in tuples) else part
            for index, part in enumerate(parts)
        ]

    def _from_arguments_only(self, call: cst.Call, callee: Optional[FunctionSummary], parts: List[Val], state: State) -> List[Val]:
        """``y, self.running_mean = batch_norm(x, gamma, self.running_mean)`` of a project function
        whose element in that position reads only some of its parameters where gradients flow
        (:attr:`FunctionSummary.returned_param_sources`): that name carries the graphs of the
        arguments for those parameters, not of all of them. A method's receiver is none of them:
        an element of ``log, out = self.step(x, y)`` whose ``step`` runs ``self(x)`` carries the
        graph of the module's own forward."""
        if callee is None or self.context.model.runs_backward(callee):
            return parts
        positions = callee.returned_param_sources.get(len(parts))
        if positions is None:
            return parts
        arguments = dict(bind_arguments(callee, call))
        # Not the receiver of a method: ``out = self(x)`` (a run of the module itself), ``helper(self)``
        # read the object, whose parameters no argument of the call stands for.
        given = set(_call_params(callee))
        out = list(parts)
        for index, sources in enumerate(positions):
            if sources is None or not sources <= given or callee.var_keyword in sources:
                continue
            value = self._arguments_value(arguments, sources, state)
            out[index] = Val(GRAPH if value.level else CLEAN_LEVEL, value.labels, parts[index].kinds)
        return out

    def _graph_from_arguments(self, call: cst.Call, callee: Optional[FunctionSummary], parts: List[Val], state: State) -> List[Val]:
        """``batch_loss, batch_mf_loss, batch_emb_loss = model.create_bpr_loss(u, p, n)``: an element
        of a project function's tuple that reads, where gradients flow, a parameter it never
        detaches (:attr:`FunctionSummary.returned_param_sources`), whose argument here carries a
        proven graph, carries that graph: it is proven, not merely possible, whatever else the
        element is made of. Its kind stays what the model says (unknown: no fix may touch it)."""
        if callee is None or any(arg.star for arg in call.args) or self.context.model.runs_backward(callee):
            return parts
        positions = callee.returned_param_sources.get(len(parts))
        if positions is None:
            return parts
        arguments = dict(bind_arguments(callee, call))
        detached = callee.detached_params | callee.detached_in_place | callee.cut_params
        out = list(parts)
        for index, sources in enumerate(positions):
            part = parts[index]
            if sources is None or part.level < GRAPH or not part.labels & _UNPROVEN_LABELS:
                continue
            read = sorted(p for p in sources if p in callee.params and p in arguments and p not in detached and p != callee.var_keyword)
            given = [self._expr(arguments[p], dict(state)) for p in read]
            proven = [v for v in given if v.level == GRAPH and not v.labels & _UNPROVEN_LABELS]
            if proven:
                out[index] = Val(GRAPH, (part.labels - _UNPROVEN_LABELS) | _join_all(proven).labels, part.kinds)
        return out

    def _arguments_value(
        self, arguments: Dict[str, cst.BaseExpression], params: Iterable[str], state: State
    ) -> Val:
        """The caller's values of the arguments passed for ``params``, joined (none passed: clean)."""
        value = CLEAN
        for param in sorted(params):
            if param in arguments:
                value = value.join(self._expr(arguments[param], dict(state)))
        return value

    def _holds_parameter(self, attr: str) -> bool:
        model = self.context.model
        cls = model.cls(self.class_qualname) if self.class_qualname else None
        return cls is not None and model.holds_parameter(cls, attr)

    def _assign(self, name: str, value: Val, state: State, stmt: cst.CSTNode, graph_free: bool = False) -> None:
        """Bind ``name``. ``graph_free``: the value was cut from any graph where it was made
        (``loss = loss.detach().cpu().tolist()`` after its backward): it stays what it is, whatever
        else the name holds elsewhere."""
        if self._nograd:
            value = Val(kinds=value.kinds)
        elif name in self._backward_names and not graph_free and (value.level < GRAPH or not any(label[0] == "src" for label in value.labels)):
            # ``.backward()`` is called on it: it holds a graph whatever we inferred, and when no
            # source of it is known, this assignment stands for one (what is derived from it shares it).
            value = Val(GRAPH, value.labels | {("src", stmt)}, value.kinds)
        if name in self._backward_names and not self._nograd and not graph_free:
            # ... and it is a tensor: nothing else has ``backward()`` (so it is proven one, whatever
            # made it: ``loss, mse, ce = my_loss(...)``, an unsummarised helper's tuple).
            value = Val(value.level, value.labels - _UNPROVEN_LABELS, _TENSOR_KIND)
        elif name in self._backward_containers and not self._nograd and value.level < GRAPH:
            # One of its entries is back-propagated: the container holds a graph (kinds unchanged).
            value = Val(GRAPH, value.labels, value.kinds)
        if ("assumed",) in value.labels and not self._nograd and (name in self._backward_names or name in self._backward_containers):
            # ``.backward()`` is called on it (or on an entry of it): its graph is proven, not assumed.
            value = Val(value.level, value.labels - {("assumed",)}, value.kinds)
        for key in self._extensions(name):
            state.pop(key, None)
        if "." in name:
            self._note_extension(name)
        state[name] = value
        self.assignments.append(Assignment(stmt, name, value, tuple(self._loops), self._nograd > 0))

    def _extensions(self, name: str) -> Set[str]:
        """The keys that may extend ``name`` in this scope's states (``self.x``, ``self.x.y`` for ``self``).

        Keys are dotted names spelled in the scope (``dotted_name`` of its
        nodes) or assigned through :meth:`_assign`, so rebinding a name forgets
        its extensions by looking each one up; scanning every key of the state
        instead made a long script quadratic.
        """
        if self._extended is None:
            self._extended = {}
            stack: List[cst.CSTNode] = [self.scope]
            while stack:
                node = stack.pop()
                if isinstance(node, cst.Attribute):
                    spelled = dotted_name(node)
                    if spelled is not None:
                        self._note_extension(spelled)
                        continue  # the chain's shorter names are noted with it
                stack.extend(loops.children(node))
        return self._extended.get(name, _NO_NAMES)

    def _note_extension(self, name: str) -> None:
        """Record dotted ``name`` as an extension of each of its prefixes (``a.b.c``: of ``a`` and ``a.b``)."""
        if self._extended is None:
            self._extensions(name)
        extended = self._extended
        assert extended is not None
        parts = name.split(".")
        if name in extended.get(parts[0], _NO_NAMES):
            return  # noted before
        for cut in range(1, len(parts)):
            known = extended.setdefault(".".join(parts[:cut]), set())
            known.update(".".join(parts[:longer]) for longer in range(cut + 1, len(parts) + 1))

    def _read(self, name: str, state: State) -> Val:
        if name in state:
            return state[name]
        if name in self.facts.leaves:
            return Val(LEAF, kinds=_TENSOR_KIND)
        if "." in name:
            base, attr = name.rsplit(".", 1)
            if attr in _BREAKING_ATTRIBUTES:
                return CLEAN
            if attr in PARAMETER_ATTRIBUTES and (base in self.facts.modules or base.startswith("self.")):
                return Val(LEAF, kinds=_TENSOR_KIND)
            held = self._attribute(base, attr)
            if held is not None and (held.kind is AttrKind.PARAMETER or held.requires_grad):
                return Val(LEAF, kinds=_TENSOR_KIND)
            if held is not None and held.graph_from_params and held.assigned_in == ["__init__"]:
                # Built once from the parameters: every iteration shares that one graph.
                return Val(GRAPH, frozenset({("init", name)}), _TENSOR_KIND)
            if base in state:
                owner = state[base]
                # ``x.T`` of a tensor is a tensor; ``out.logits`` of anything else is unknown.
                return owner if owner.is_tensor else Val(owner.level, owner.labels)
        return CLEAN

    def _fixed_during_loop(self, name: str, touched: FrozenSet[str], loop: cst.CSTNode) -> bool:
        """A dotted name a test on which has one value for the whole ``loop``: ``self.<attr>`` (or
        ``self.<attr>.<x>``) that only ``__init__`` assigns, so no method the loop runs rebinds it;
        an attribute of a parameter (``args.hier``) whose object the loop body neither hands to
        a call nor stores into (``touched``): no code the loop runs can reach it to change it; or
        such an attribute of a module global (``args`` bound at the top level or under ``global``)
        that the scope does not bind as a local, where no function the loop calls, directly or
        through the module's other functions, rebinds the global or stores into that attribute."""
        base, _, rest = name.partition(".")
        if base == "self":
            held = self._attribute(base, rest.split(".", 1)[0]) if rest else None
            return held is not None and held.assigned_in == ["__init__"]
        parts = name.split(".")
        prefixes = {".".join(parts[:i]) for i in range(1, len(parts) + 1)}
        if prefixes & touched:
            return False
        if base in self.params:
            return True
        found = self.context.fact("dataflow.global_writes", lambda: _global_writes(self.context.module))
        if base not in found.bound or (isinstance(self.scope, cst.FunctionDef) and base in _locals(self.scope)):
            return False
        # Functions changing what the test reads, then those calling one of them (by name).
        reach = {f for f, target in found.writes.get(base, ()) if f and _overlaps(target, name)}
        grown = True
        while grown:
            more = {f for f, called in found.calls.items() if f not in reach and called & reach}
            grown = bool(more)
            reach |= more
        return not any(
            isinstance(node, cst.Call) and _called_name(node) in reach for node in loops.walk(loop)
        )

    def _attribute(self, base: str, attr: str) -> Optional[AttributeSummary]:
        """What the model says ``base.attr`` holds: ``self`` in a method, or an instance of a project class."""
        if base != "self" and base not in self.facts.instance_class:
            return None
        model = self.context.model
        if base == "self":
            cls = model.cls(self.class_qualname) if self.class_qualname else None
        else:
            cls = model.resolve_class(self.facts.instance_class[base])
        return model.attribute(cls, attr) if cls is not None else None

    # ----------------------------------------------------------------- expressions

    def _expr(self, node: Optional[cst.CSTNode], state: State) -> Val:
        if node is None:
            return CLEAN
        if isinstance(node, (cst.Name, cst.Attribute)):
            name = dotted_name(node)
            if name is not None:
                value = self._read(name, state)
                for label in value.labels:
                    if label[0] == "init":
                        self.init_reads.setdefault(label, node)
                return value
            if isinstance(node, cst.Attribute):
                if node.attr.value in _BREAKING_ATTRIBUTES:
                    self._expr(node.value, state)
                    return CLEAN
                return self._expr(node.value, state)
            return CLEAN
        if isinstance(node, cst.Call):
            return self._call(node, state)
        if isinstance(node, (cst.Comparison, cst.FormattedString, cst.SimpleString, cst.ConcatenatedString,
                             cst.Integer, cst.Float, cst.Imaginary, cst.Lambda, cst.Ellipsis)):
            for child in loops.children(node):
                if isinstance(child, (cst.BaseExpression, cst.ComparisonTarget, cst.FormattedStringExpression)):
                    self._scan(child, state)
            if isinstance(node, (cst.Integer, cst.Float, cst.Imaginary)):
                return Val(kinds=_NUMBER_KIND)
            return CLEAN if isinstance(node, cst.Comparison) else Val(kinds=_OTHER_KIND)
        if isinstance(node, (cst.BinaryOperation, cst.UnaryOperation)):
            if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
                self._expr(node.expression, state)
                return CLEAN
            parts = [node.left, node.right] if isinstance(node, cst.BinaryOperation) else [node.expression]
            values = [self._expr(p, state) for p in parts]
            kinds = _arithmetic_kinds(values)
            if self._nograd and _numeric_operation(node, values, kinds):
                # Arithmetic under ``torch.no_grad()`` records no graph (``ema = a * ema + b * loss``).
                return Val(kinds=kinds)
            op = SAVING_OPERATORS.get(type(node.operator).__name__) if isinstance(node, cst.BinaryOperation) else None
            return Val(kinds=kinds).join_graph(_join_all(values)).computed(node if op else None)
        if isinstance(node, cst.Subscript):
            value = self._expr(node.value, state)
            for element in node.slice:
                self._scan(element, state)
            entry_name = self._entry_name(node)
            if entry_name is not None and entry_name in state:
                # What the entry holds; a total kept in the container (``("acc", name)``) is read with it.
                return state[entry_name].with_labels(label for label in value.labels if label[0] == "acc")
            sliced = any(isinstance(e.slice, cst.Slice) for e in node.slice)
            kinds = value.kinds if sliced and value.kinds <= {TENSOR, TENSORS, TENSOR_LIST} else element_kinds(value.kinds)
            shape = tuple_parts(value.kinds)
            index = node.slice[0].slice if len(node.slice) == 1 else None
            if shape is not None and isinstance(index, cst.Index) and isinstance(index.value, cst.Integer):
                position = int(index.value.evaluated_value)
                kinds = shape[position] if position < len(shape) else UNKNOWN
            if not kinds and any(node.deep_equals(entry) for entry in self._backward_entries):
                kinds = _TENSOR_KIND
            labels = value.labels
            if sliced and not kinds and value.level == GRAPH:
                # ``ret[1:]`` of a forward's list (``[loss] + new_mems``, the memories computed under
                # ``no_grad``): which of its elements hold a graph is not known.
                labels = labels | {("assumed",)}
            return Val(GRAPH if value.level == LEAF else value.level, labels, kinds)
        if isinstance(node, (cst.Tuple, cst.List, cst.Set)):
            values = [self._expr(e.value, state) for e in node.elements]
            return Val(kinds=_sequence_kinds(node, values)).join_graph(_join_all(values))
        if isinstance(node, cst.Dict):
            values = [
                self._expr(e.value, state) for e in node.elements if isinstance(e, (cst.DictElement, cst.StarredDictElement))
            ]
            every_tensor = all(isinstance(e, cst.DictElement) for e in node.elements) and all(v.is_tensor for v in values)
            kinds = frozenset({TENSOR_DICT if values and every_tensor else DICT})
            return Val(kinds=kinds).join_graph(_join_all(values))
        if isinstance(node, (cst.GeneratorExp, cst.ListComp, cst.SetComp, cst.DictComp)):
            inner = dict(state)
            comp: Optional[cst.CompFor] = node.for_in
            while comp is not None:
                self._bind(comp.target, self._iterated(comp.iter, inner), inner, comp)
                comp = comp.inner_for_in
            if isinstance(node, cst.DictComp):
                entry = self._expr(node.value, inner)
                return Val(kinds=frozenset({TENSOR_DICT if entry.is_tensor else DICT})).join_graph(entry)
            produced = self._expr(node.elt, inner)
            if isinstance(node, cst.ListComp):
                listed = TENSOR_LIST if produced.is_tensor else NUMBERS if produced.kinds == _NUMBER_KIND else OTHER
                return Val(kinds=frozenset({listed})).join_graph(produced)
            return Val(kinds=_OTHER_KIND).join_graph(produced)
        if isinstance(node, cst.IfExp):
            self._expr(node.test, state)
            when_true, when_false = state, state
            none_test = _none_test(node.test)
            if none_test is not None:
                # ``w.detach() if w is not None else w``: where ``w`` is None it holds no graph.
                name, is_none = none_test
                cleared = dict(state)
                cleared[name] = Val(kinds=_NONE_KIND)
                when_true, when_false = (cleared, state) if is_none else (state, cleared)
            body, orelse = self._expr(node.body, when_true), self._expr(node.orelse, when_false)
            guarded = _guarded_conversion(node)
            if guarded is not None and self._may_be_number(guarded[0], state):
                # ``flat_loss.item() if task != 0 else flat_loss`` of a name that is a Python number
                # on some path (``flat_loss = 0.0`` unless a branch made a loss): the test tells the
                # two apart, so the bare arm is not proven to hold a graph where it is chosen.
                if guarded[1]:
                    body = body.with_labels([("unproven",)]) if body.level == GRAPH else body
                else:
                    orelse = orelse.with_labels([("unproven",)]) if orelse.level == GRAPH else orelse
            return body.join(orelse)
        if isinstance(node, cst.BooleanOperation):
            return self._expr(node.left, state).join(self._expr(node.right, state))
        if isinstance(node, cst.NamedExpr):
            value = self._expr(node.value, state)
            self._bind(node.target, value, state, node)
            return value
        if isinstance(node, (cst.Yield, cst.Await, cst.StarredElement)):
            value = self._expr(getattr(node, "value", None), state)
            if isinstance(node, cst.Yield):
                self.escaped.update(value.labels)
            return value
        return _join_all(self._expr(c, state) for c in loops.children(node) if isinstance(c, cst.BaseExpression))

    def _iterated(self, iterable: cst.BaseExpression, state: State) -> Val:
        """One element of ``for target in iterable``."""
        if (
            isinstance(iterable, cst.Call)
            and isinstance(iterable.func, cst.Attribute)
            and iterable.func.attr.value in ("items", "values")
            and not iterable.args
        ):
            mapping = self._expr(iterable.func.value, state)
            entry = _TENSOR_KIND if mapping.kinds == {TENSOR_DICT} else UNKNOWN
            if iterable.func.attr.value == "items":
                # ``(key, value)`` pairs: a tuple whose second part is the entry.
                return Val(mapping.level, mapping.labels, frozenset({ITEMS}) if entry else UNKNOWN)
            return Val(mapping.level, mapping.labels, entry)
        if isinstance(iterable, cst.Call) and dotted_name(iterable.func) == "enumerate" and iterable.args:
            inner = self._iterated(iterable.args[0].value, state)
            return Val(inner.level, inner.labels, frozenset({ITEMS}) if inner.is_tensor else UNKNOWN)
        value = self._expr(iterable, state)
        return Val(value.level, value.labels, element_kinds(value.kinds))

    def _scan(self, node: cst.CSTNode, state: State) -> None:
        """Evaluate sub-expressions for their side effects (backward calls) only."""
        for child in [node] if isinstance(node, cst.BaseExpression) else loops.children(node):
            if isinstance(child, cst.BaseExpression):
                self._expr(child, state)
            else:
                self._scan(child, state)

    def _call(self, call: cst.Call, state: State) -> Val:
        value = self._any_call(call, state)
        numpy = self._numpy_function(call)
        if numpy is None:
            return value
        # What a numpy function hands back is an array or a number, never a tensor: given a tensor
        # that carries a graph it raises (``Can't call numpy() on Tensor that requires grad``).
        return Val(kinds=_ARRAY_KIND if numpy in _NUMPY_ARRAY_MAKERS else _OTHER_KIND)

    def _may_be_number(self, name: str, state: State) -> bool:
        """``name`` may hold a Python number here: its value's kinds say so, or the scope bound it to
        a number (``spatial_loss = 0.0``) where a join with a value of unknown kind lost that."""
        if NUMBER in self._read(name, state).kinds:
            return True
        return any(a.name == name and a.value.kinds == _NUMBER_KIND for a in self.assignments)

    def _numpy_function(self, call: cst.Call) -> Optional[str]:
        """The name of the numpy function ``call`` calls (``mean`` for ``np.mean`` under ``import numpy
        as np``, ``zeros`` under ``from numpy import zeros``, ``random.rand``), or None; None too
        for an array of Python objects."""
        for qualified in qualified_names(self.context, call.func):
            if qualified.startswith("numpy."):
                if _object_dtype(call):
                    return None  # ``np.empty(n, dtype=object)`` may hold tensors as they are
                return qualified[len("numpy."):]
        return None

    def _any_call(self, call: cst.Call, state: State) -> Val:
        func = call.func
        args = [self._expr(arg.value, state) for arg in call.args]
        joined = _join_all(args)
        called = dotted_name(func)
        if called is not None and called in self.facts.instance_class and not self._nograd:
            self.instance_calls.append(InstanceCall(call, self.facts.instance_class[called], tuple(args), tuple(self._loops)))
        if is_backward_call(self.context, call):
            target = self._expr(func.value, state) if isinstance(func, cst.Attribute) and func.attr.value == "backward" else joined
            if (
                isinstance(func, cst.Attribute) and func.attr.value == "backward" and call.args
                and call.args[0].keyword is None and not call.args[0].star
                and (is_function_backward(self.context, call) or target.level != GRAPH and args[0].level == GRAPH)
            ):
                # ``engine.backward(loss)`` (DeepSpeed, accelerate, a wrapper the file names otherwise):
                # the loss is the argument; a tensor's own ``backward(gradient)`` has a graph itself.
                target = args[0]
            retain = keyword(call, "retain_graph") is not None
            previous = self.backwards.get(call)
            if previous is not None:
                target = previous.value.join(target)
            self.backwards[call] = Backward(call, target, tuple(self._loops), retain)
            return Val(kinds=_NONE_KIND)
        if is_step_call(self.context, call) or isinstance(func, cst.Attribute) and func.attr.value.endswith("step"):
            # Any ``.step()`` / ``first_step()`` may update weights in place (an optimizer the
            # file does not construct): the loop counts as one that steps, unless the step is
            # given a graph (see :func:`_given_a_graph`), judged on what its argument holds over
            # every pass of the loops, once the scope is walked.
            given = args[0] if call.args and call.args[0].keyword is None and not call.args[0].star else None
            earlier = self._step_calls.get(call)
            if earlier is not None and earlier[0] is not None and given is not None:
                given = earlier[0].join(given)
            self._step_calls[call] = (given, tuple(self._loops))
        qnames = qualified_names(self.context, func)
        func_name = dotted_name(func) or ""
        if qnames & {"torch.autograd.grad", "torch.autograd.functional.jacobian"}:
            self.backwards[call] = Backward(call, args[0] if args else CLEAN, tuple(self._loops), True)
            level = GRAPH if keyword(call, "create_graph") is not None else CLEAN_LEVEL
            return Val(level, kinds=frozenset({TENSORS}))
        torch_fn = next((q for q in qnames if q.startswith("torch.")), None)
        last = func_name.rsplit(".", 1)[-1] if func_name else ""
        if _is_true(keyword(call, "requires_grad")) or last == "Parameter":
            return Val(LEAF, kinds=_TENSOR_KIND)
        kinds = _torch_kinds(torch_fn, call)

        if isinstance(func, cst.Attribute):
            method = func.attr.value
            receiver_name = dotted_name(func.value)
            receiver = self._expr(func.value, state)
            if method == "requires_grad_":
                if not call.args or _is_true_name(call.args[0].value):
                    # ``w.requires_grad_()`` works in place: ``w`` itself becomes a leaf.
                    self._make_leaf(receiver_name, state)
                return Val(LEAF, kinds=_TENSOR_KIND)
            if method in ("detach", "detach_") and self._stub_detach(func):
                # ``state.detach()`` of a project class whose detach() cuts nothing: the graph stays.
                self.stub_detached.add(receiver_name or "")
                # The same object comes back, with the graphs its attributes hold (``state.h``).
                held = [state[k] for k in self._extensions(receiver_name) if k in state] if receiver_name else []
                return receiver.join_graph(_join_all(held)) if held else receiver
            if method in ("detach", "detach_") or self._detach_helper(func) == "copy":
                # ``repackage_hidden(h)`` and ``h.detach()`` keep the structure they are given.
                return Val(kinds=receiver.kinds if method in ("detach", "detach_") else joined.kinds)
            if method in _BREAKING_METHODS and not self._library_function(receiver_name):
                return Val(kinds=_method_kinds(method, receiver, call))
            if torch_fn is not None and torch_fn.rsplit(".", 1)[-1] in _TORCH_BREAKING:
                return Val(kinds=kinds)
            if receiver_name is not None and self._is_module(receiver_name):
                if method == "forward":
                    return self._module_call(call, self._reaching(call, self._module_forward(receiver_name), joined, state), receiver_name)
                if method.startswith(_MODULE_NONGRAPH_PREFIXES) or method in _MODULE_HINT_METHODS or method in MODULE_SELF_METHODS:
                    # ``model.cuda()`` hands back the module itself: no forward pass
                    return CLEAN
                summarised = self._summarised_call(call, joined, state)
                if summarised is not None and summarised.level == GRAPH:
                    return summarised
                # A method other than forward (``model.estimate_mfu(...)``) whose summary shows
                # no forward pass, or that the project does not define: a graph is assumed. It is
                # marked as assumed where the summary shows no forward pass, and where the object's
                # class cannot be told (``raw_model.estimate_mfu(...)`` of ``model.module if ddp
                # else model``, ``gflownet.sample_trajectories(...)`` of a factory's result): the
                # method may return numbers or objects as well as a forward's output. What a class
                # the model knows does not define is a module the object holds (``self.cell(x, h)``),
                # whose forward does run.
                attribute_module = func_name if receiver_name == "self" and (self.class_name, method) in self.facts.class_attr_kind else None
                assumed = self._module_call(call, self._reaching(call, self._callee(func), joined, state), attribute_module)
                if summarised is not None or not self._class_known(receiver_name):
                    return assumed.with_labels([("assumed",)])
                return assumed
            if self._is_module(func_name):
                return self._module_call(call, self._reaching(call, self._module_forward(func_name), joined, state), func_name)
            summarised = self._summarised_call(call, joined, state)
            if summarised is not None:
                return summarised
            if torch_fn is None and receiver.level == CLEAN_LEVEL and receiver_name is not None:
                # A method of something that is not a tensor: logging, dicts, lists.
                if method not in _DISPLAY_METHODS:
                    self.escaped.update(joined.labels)
            if torch_fn is None:
                kinds = _method_kinds(method, receiver, call)
            if self._nograd and (receiver.is_tensor or torch_fn is not None):
                # A tensor operation under ``torch.no_grad()`` records no graph.
                return Val(kinds=kinds)
            return Val(kinds=kinds).join_graph(receiver.join(joined)).computed(call if saves_for_backward(method) else None)

        if func_name in _BREAKING_FUNCTIONS or self._detach_helper(func) == "copy":
            if func_name in _BREAKING_FUNCTIONS:
                return Val(kinds=_NUMBER_KIND if func_name in _NUMBER_FUNCTIONS else _OTHER_KIND)
            return Val(kinds=joined.kinds)
        if torch_fn is not None and torch_fn.rsplit(".", 1)[-1] in _TORCH_BREAKING:
            return Val(kinds=kinds)
        if func_name in _CONTAINER_FUNCTIONS:
            return Val(kinds=_container_kinds(func_name, args)).join_graph(joined)
        if self._is_module(func_name):
            return self._module_call(call, self._reaching(call, self._module_forward(func_name), joined, state), func_name)
        if func_name == "self" and self.in_module_class:
            return self._module_call(call, self._reaching(call, self._module_forward("self"), joined, state), "self")
        summarised = self._summarised_call(call, joined, state)
        if summarised is not None:
            return summarised
        if torch_fn is None and func_name not in _DISPLAY_FUNCTIONS:
            self.escaped.update(joined.labels)
        if func_name in ("sum", "max", "min") and len(args) == 1:
            kinds = element_kinds(args[0].kinds)
        if self._nograd and torch_fn is not None:
            return Val(kinds=kinds)
        saves = torch_fn is not None and saves_for_backward(torch_fn.rsplit(".", 1)[-1])
        return Val(kinds=kinds).join_graph(joined).computed(call if saves else None)

    def _module_call(self, call: cst.Call, args: Val, callee: Optional[str]) -> Val:
        kinds = self._module_output_kinds(callee)
        if self._nograd:
            return Val(kinds=kinds)
        return Val(GRAPH, args.labels | {("src", call)}, kinds)

    def _module_forward(self, callee: Optional[str]) -> Optional[FunctionSummary]:
        """The ``forward`` a call of the module ``callee`` runs, where it is an instance of a project
        class with no ``__call__`` of its own (``nn.DataParallel(Net())`` is taken as the ``Net``)."""
        if not callee:
            return None
        model = self.context.model
        cls: Optional[ClassSummary] = None
        caller = self.summary
        # A parameter of this function is not the object a same-spelled name elsewhere in the file holds.
        shadowed = caller is not None and callee.split(".", 1)[0] in caller.params[caller.class_name is not None:]
        if callee == "self":
            cls = model.cls(self.class_qualname) if self.class_qualname else None
        elif callee in self.facts.instance_class and not shadowed:
            cls = model.resolve_class(self.facts.instance_class[callee])
        elif caller is not None:
            cls = model.instance_class(caller, callee)
        if cls is None or model.method(cls, "__call__") is not None:
            return None
        return model.method(cls, "forward")

    def _module_output_kinds(self, callee: Optional[str]) -> Kinds:
        """What calling the module ``callee`` returns: ``torch.nn`` classes by name, project classes
        by what the model says their ``forward`` returns."""
        if callee is None:
            return UNKNOWN
        model = self.context.model
        if callee == "self":
            cls = model.cls(self.class_qualname) if self.class_qualname else None
        else:
            kind = nn_kind_of(self.facts, callee)
            if kind is None and callee.startswith("self.") and callee.count(".") == 1 and self.class_name:
                # ``self.cell(x, h)`` of ``self.cell = nn.RNNCell(...)`` in this class.
                kind = self.facts.class_attr_kind.get((self.class_name, callee[len("self."):]))
            if kind is not None:
                return shape_kinds(frozenset({nn_output_shape(kind)}))
            spelled = self.facts.instance_class.get(callee)
            cls = model.resolve_class(spelled) if spelled else None
        forward = model.method(cls, "forward") if cls is not None else None
        if forward is None:
            return UNKNOWN
        return shape_kinds(model.returned_shapes(forward))

    def _reaching(self, call: cst.Call, callee: Optional[FunctionSummary], joined: Val, state: State) -> Val:
        """What of the arguments' graphs reaches what ``callee`` builds: not an argument it reads only
        detached (``calc_loss(..., r_i_t)`` reading ``r_i_t.detach().numpy()``)."""
        cut_params = self.context.model.cut_params(callee) if callee is not None else frozenset()
        if callee is None or not cut_params or any(a.star for a in call.args):
            return joined
        cut = {id(arg) for param, arg in bind_arguments(callee, call) if param in cut_params}
        return _join_all([self._expr(a.value, state) for a in call.args if id(a.value) not in cut])

    def _summarised_call(self, call: cst.Call, joined: Val, state: State) -> Optional[Val]:
        """A call of a function or method the project defines: what the model says it returns,
        with the graph of an attribute ``__init__`` built from parameters that it hands back."""
        result = self._summarised_result(call, joined, state)
        callee = self._callee(call.func) if result is not None and not self._nograd else None
        if callee is None or self.context.model.runs_backward(callee):
            return result
        assert result is not None
        labels = self._returned_init_graphs(call, callee)
        for label in labels:
            self.init_reads.setdefault(label, call)
        return result.join_graph(Val(GRAPH, labels)) if labels else result

    def _returned_init_graphs(self, call: cst.Call, callee: FunctionSummary) -> FrozenSet[Label]:
        """``("init", "m.table")`` for each ``self.table`` that ``m.method(...)`` returns directly
        (``return x @ self.table``) and that ``__init__`` alone built from parameters."""
        receiver = dotted_name(call.func.value) if isinstance(call.func, cst.Attribute) else None
        model = self.context.model
        cls = model.class_of(callee) if receiver is not None and callee.returned_self_reads else None
        if cls is None:
            return frozenset()
        found = set()
        for attr in sorted(callee.returned_self_reads):
            held = model.attribute(cls, attr)
            if held is not None and held.graph_from_params and held.assigned_in == ["__init__"]:
                found.add(("init", f"{receiver}.{attr}"))
        return frozenset(found)

    def _summarised_result(self, call: cst.Call, joined: Val, state: State) -> Optional[Val]:
        callee = self._callee(call.func)
        if callee is None:
            return None
        bound = bind_arguments(callee, call)
        for param, arg in bound:
            if param in callee.kept_params:
                self.escaped.update(self._expr(arg, state).labels)
        joined = self._reaching(call, callee, joined, state)
        shapes = self.context.model.returned_shapes(callee)
        kinds = shape_kinds(shapes)
        if callee.qualname != self.qualname and self._loops:
            self.looped_callees.append((callee, tuple(self._loops)))
        if not self._nograd and callee.qualname != self.qualname and self.context.model.runs_backward(callee):
            # A training step of the project (``self.train_step(batch)``), here or through what it
            # calls: it back-propagates the graph of its own forward, which is what it hands back,
            # so the call stands for both; a step returning the loss it back-propagated returns a tensor.
            source = joined.labels | {("src", call)}
            retains = self.context.model.retains_graph(callee)
            self.backwards[call] = Backward(call, Val(GRAPH, source), tuple(self._loops), retains)
            if callee.returns_backpropagated:
                return Val(GRAPH, source, _TENSOR_KIND)
            if not any(_may_hold_graph(shape) for shape in shapes):
                return Val(kinds=kinds)
            if (
                self.context.model.loops_backward(callee)
                and not callee.returns_backpropagated_list
                and not any(_holds_graph(shape) for shape in shapes)
            ):
                # An epoch (its own loop back-propagates every iteration) hands back what it kept
                # after that loop, not the graph of one forward: a graph only where the model
                # knows one is returned (a list its loop filled with losses).
                return Val(kinds=kinds)
            if callee.returns_opaque_call:
                # ``return loss.get_loss()`` of a loss object: what it hands back is not known to
                # be the graph it back-propagated (nor a tensor): assumed, not proven.
                source = source | {("assumed",)}
            return Val(GRAPH, source, kinds)
        if self._nograd or not any(_may_hold_graph(shape) for shape in shapes):
            return Val(kinds=kinds)
        if callee.returns_no_graph:
            # ``@torch.no_grad()``: nothing it builds has a graph, and it hands back no argument.
            return Val(kinds=kinds)
        if any(_holds_graph(shape) for shape in shapes):
            # The callee runs a forward of its own (``self.net(x)``): a graph of its own.
            return Val(GRAPH, joined.labels | {("src", call)}, kinds)
        return Val(kinds=kinds).join_graph(joined).computed()

    def _opted_in(self, stmt: cst.If) -> Optional[bool]:
        """In a ``forward``, for an ``if`` whose branch only calls that opt in take, and that keeps
        state of its own there (:attr:`FunctionSummary.opt_in_branches`): True where that branch is
        the body, False where it is the ``else``; None for every other ``if``."""
        scope = self.scope
        if not isinstance(scope, cst.FunctionDef) or scope.name.value not in ("forward", "__call__"):
            return None
        branches = self.summary.opt_in_branches if self.summary is not None else None
        if not branches:
            return None
        start = self.context.get(PositionProvider, stmt).start
        return branches.get((start.line, start.column))

    @property
    def summary(self) -> Optional[FunctionSummary]:
        """The model's summary of this scope (the module body's for the module)."""
        if self._summary is None:
            self._summary = self.context.model.function(self.qualname)
        return self._summary

    def _callee(self, func: cst.BaseExpression) -> Optional[FunctionSummary]:
        """The function or method of the project a call of ``func`` runs (``helper``, ``self.step``,
        ``meter.update``, ``meters[k].update``, ``utils.log_losses``)."""
        caller = self.summary
        if caller is None:
            return None
        spelled = dotted_name(func)
        element: Optional[str] = None
        if spelled is None and isinstance(func, cst.Attribute) and isinstance(func.value, cst.Subscript):
            owner = dotted_name(func.value.value)
            spelled = f"{owner}[].{func.attr.value}" if owner is not None else None
            element = self._element_at(func.value, caller)
        if spelled is None:
            return None
        model = self.context.model
        found = model.callee(caller, spelled, element)
        if isinstance(found, FunctionSummary):
            return found
        head, _, method = spelled.partition(".")
        if found is None and method and "." not in method and head in caller.params[caller.class_name is not None:]:
            # ``model.adapt(feats, w)`` of a parameter that every call of this function in the file
            # binds to one project class (``train_epoch(model, ...)`` of ``model = Net()``).
            cls = model.parameter_class(caller, head)
            if cls is not None:
                return model.class_model(cls).method(cls, method)
        # An object of a project class that is called (``self.loss_fn(pred, y)``): its ``__call__``;
        # a module's call is its forward, handled as a module call.
        instance = model.instance_class(caller, spelled)
        if instance is not None and not model.is_module_class(instance):
            return model.method(instance, "__call__")
        return None

    def _element_at(self, receiver: cst.Subscript, caller: FunctionSummary) -> Optional[str]:
        """The constructor of the elements of the local container ``receiver`` indexes, where it is
        filled by key with instances of one class (:attr:`FunctionSummary.element_receivers`)."""
        if not caller.element_receivers:
            return None
        position = self.context.get(PositionProvider, receiver)
        if position is None:
            return None
        return caller.element_receivers.get((position.start.line, position.start.column))

    def _class_known(self, receiver: str) -> bool:
        """The model can tell the class of the object ``receiver`` names (``self`` in a method, an
        instance of a project class, a ``torch.nn`` layer)."""
        if receiver == "self" and self.class_qualname is not None:
            return True
        caller = self.summary
        head = receiver.split(".", 1)[0]
        if caller is not None and head in caller.params[caller.class_name is not None:]:
            # A parameter of this function is not the object a same-spelled name elsewhere in the
            # file holds: only the class every call here binds to it tells (see ``_module_forward``).
            return "." not in receiver and self.context.model.parameter_class(caller, receiver) is not None
        if nn_kind_of(self.facts, receiver) is not None or receiver in self.facts.instance_class:
            return True
        return caller is not None and self.context.model.instance_class(caller, receiver) is not None

    def _library_function(self, receiver: Optional[str]) -> bool:
        """``random.sample(xs, k)``: a function of an imported library module, not a tensor's method."""
        if receiver is None:
            return False
        qualified = self.context.model.imports.get(receiver.split(".", 1)[0], "")
        return qualified.split(".", 1)[0] in ("random", "numpy", "np")

    def _stub_detach(self, func: cst.BaseExpression) -> bool:
        """``obj.detach()`` where ``obj``'s class (in the project) defines a ``detach`` that detaches nothing."""
        callee = self._callee(func)
        if callee is None or callee.class_name is None or callee.returns_detached:
            return False
        return not any("detach" in c.lower() or "repackage" in c.lower() for c in callee.calls)

    def _detach_helper(self, func: cst.BaseExpression) -> Optional[str]:
        """``copy`` for a helper returning a detached copy of its argument (``repackage_hidden``),
        ``inplace`` for one detaching it in place, from its name or from what the model says it does."""
        name = dotted_name(func) or ""
        last = name.rsplit(".", 1)[-1].lower()
        if last in DETACH_HELPER_NAMES or "detach" in last or "repackage" in last:
            return "copy"
        callee = self._callee(func)
        if callee is None:
            return None
        if callee.returns_detached:
            return "copy"
        if callee.detached_in_place & set(_call_params(callee)) and callee.returns.kinds == {ModelKind.NONE}:
            return "inplace"
        return None

    def _is_module(self, name: str) -> bool:
        return bool(name) and name in self.facts.modules


def _call_params(callee: FunctionSummary) -> Tuple[str, ...]:
    """The parameters a call passes arguments to (``self`` of a method is the receiver)."""
    if callee.class_name is not None and "staticmethod" not in callee.decorators and callee.params:
        return callee.params[1:]
    return callee.params


def bind_arguments(callee: FunctionSummary, call: cst.Call) -> List[Tuple[str, cst.BaseExpression]]:
    """(parameter name, the argument a call passes for it), positional and keyword; keywords the
    callee does not name go to its ``**kwargs``; no ``*args``."""
    params = _call_params(callee)
    bound: List[Tuple[str, cst.BaseExpression]] = []
    for index, arg in enumerate(call.args):
        if arg.star:
            break
        if arg.keyword is not None:
            param = _bound_param(callee, arg.keyword.value)
            if param is not None:
                bound.append((param, arg.value))
        elif index < len(params) and params[index] != callee.var_keyword:
            bound.append((params[index], arg.value))
    return bound


def _bound_param(callee: FunctionSummary, position: Union[int, str]) -> Optional[str]:
    """The parameter an argument at ``position`` (an index after the receiver, or a keyword) binds to."""
    params = _call_params(callee)
    if isinstance(position, int):
        return params[position] if position < len(params) and params[position] != callee.var_keyword else None
    return position if position in params else callee.var_keyword


def shape_kinds(shapes: FrozenSet[Shape]) -> Kinds:
    """The model's shapes of a value as kinds (unknown when any is unknown)."""
    kinds: Kinds = frozenset()
    for shape in shapes:
        one = _shape_kind(shape)
        if not one:
            return UNKNOWN
        kinds = kinds | one
    return kinds


def _shape_kind(shape: Shape) -> Kinds:
    kind = shape.kind
    if kind in (ModelKind.GRAPH, ModelKind.TENSOR):
        # ``values`` on a graph: a part unpacked from what is known only to carry one (no tensor)
        return _TENSOR_KIND if shape.values is None else UNKNOWN
    if kind is ModelKind.NUMBER:
        return _NUMBER_KIND
    if kind is ModelKind.NONE:
        return _NONE_KIND
    if kind is ModelKind.OTHER:
        return _OTHER_KIND
    if kind is ModelKind.DICT:
        values = shape.values
        tensors = values is not None and values.kind in (ModelKind.GRAPH, ModelKind.TENSOR) and not values.parts
        return frozenset({TENSOR_DICT if tensors else DICT})
    if kind in (ModelKind.TUPLE, ModelKind.LIST) and shape.values is not None and not shape.parts:
        if _shape_kind(shape.values) == _TENSOR_KIND:
            return frozenset({TENSORS if kind is ModelKind.TUPLE else TENSOR_LIST})
        return UNKNOWN
    if kind in (ModelKind.TUPLE, ModelKind.LIST) and shape.parts:
        parts = [_shape_kind(part) for part in shape.parts]
        if all(part == _TENSOR_KIND for part in parts):
            return frozenset({TENSORS if kind is ModelKind.TUPLE else TENSOR_LIST})
        if all(part == _NUMBER_KIND for part in parts):
            return frozenset({NUMBERS})
        if kind is ModelKind.TUPLE and any(parts):
            # Position by position; an unknown element stays unknown (``return torch.stack(outs), h``:
            # ``h`` is a tensor whatever the first element is).
            return frozenset({tuple(parts)})
    return UNKNOWN


def _holds_graph(shape: Shape) -> bool:
    """Some part of the value is known to carry a graph."""
    if shape.kind is ModelKind.GRAPH:
        return True
    return any(_holds_graph(part) for part in shape.parts) or (shape.values is not None and _holds_graph(shape.values))


def _given_a_graph(value: Optional[Val]) -> bool:
    """The first positional argument of a ``step`` call holds a graph (``diffopt.step(loss)``).

    A ``torch.optim`` optimizer's ``step`` takes a closure (a tensor there raises: it is not
    callable), a ``GradScaler``'s an optimizer and a scheduler's an epoch or a metric: a step given
    the loss itself is none of torch's in-place weight updates. A differentiable optimizer
    (``higher``'s ``diffopt.step(loss)``) computes new weights out of place, keeping the graph
    for the meta-gradient; what an unknown object does with it is not known either way, so it is
    not taken as a step that rewrites weights under a retained graph."""
    return value is not None and value.level == GRAPH and not value.graph_is_assumed


def _replaces_one_entry(target: cst.Subscript, value_node: cst.BaseExpression, name: str) -> bool:
    """``self.loss["rec"] = loss``: every iteration replaces the same entry (a literal key) with a
    value that does not read the container, so it keeps one iteration's value, not all of them."""
    if len(target.slice) != 1 or not isinstance(target.slice[0].slice, cst.Index):
        return False
    if not isinstance(target.slice[0].slice.value, (cst.SimpleString, cst.ConcatenatedString, cst.Integer)):
        return False
    return not any(
        isinstance(node, (cst.Name, cst.Attribute)) and dotted_name(node) == name for node in _walk_scope(value_node)
    )


@dataclass
class _GlobalWrites:
    """Who may change a module global or its attributes (see ``GraphFlow._fixed_during_loop``)."""

    #: names the module's top level binds, or a function declares ``global``
    bound: Set[str] = field(default_factory=set)
    #: global name → (function name, dotted name rebound or stored into: ``args``, ``args.lr``);
    #: the function is "" for the module's top level and class bodies
    writes: Dict[str, List[Tuple[str, str]]] = field(default_factory=dict)
    #: function name → the last part of each name it calls (``step`` of ``self.step(x)``)
    calls: Dict[str, Set[str]] = field(default_factory=dict)


def _called_name(call: cst.Call) -> Optional[str]:
    if isinstance(call.func, cst.Attribute):
        return call.func.attr.value
    return call.func.value if isinstance(call.func, cst.Name) else None


def _overlaps(target: str, name: str) -> bool:
    """Storing into ``target`` may change what ``name`` reads: one dotted name begins the other."""
    a, b = target.split("."), name.split(".")
    n = min(len(a), len(b))
    return a[:n] == b[:n]


def _global_names(func: cst.FunctionDef) -> Set[str]:
    return {
        n.name.value for node in _walk_scope(func.body) if isinstance(node, cst.Global) for n in node.names
    }


def _stored(node: cst.CSTNode) -> List[cst.BaseExpression]:
    """The targets a statement or expression binds or stores into."""
    if isinstance(node, cst.Assign):
        return [part for t in node.targets for part in loops.target_parts(t.target)]
    if isinstance(node, (cst.AugAssign, cst.AnnAssign)):
        return [node.target]
    if isinstance(node, (cst.For, cst.CompFor)):
        return list(loops.target_parts(node.target))
    if isinstance(node, cst.WithItem) and node.asname is not None:
        return list(loops.target_parts(node.asname.name))
    if isinstance(node, cst.Del):
        return list(loops.target_parts(node.target))
    if isinstance(node, cst.NamedExpr):
        return [node.target]
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in ("setattr", "delattr"):
        return [node.args[0].value] if node.args else []
    return []


def _locals(func: cst.FunctionDef) -> Set[str]:
    """Plain names ``func`` binds as its own locals (not under ``global``)."""
    declared = _global_names(func)
    found = {p.name.value for p in _params(func)}
    for node in _walk_scope(func.body):
        if isinstance(node, cst.Call):
            continue
        found.update(t.value for t in _stored(node) if isinstance(t, cst.Name))
    return found - declared


def _global_writes(module: cst.Module) -> _GlobalWrites:
    found = _GlobalWrites()

    def visit(node: cst.CSTNode, func: str, declared: Set[str]) -> None:
        if isinstance(node, cst.FunctionDef):
            inner = _global_names(node)
            found.bound.update(inner)
            for child in loops.children(node):
                visit(child, node.name.value, inner)
            return
        if isinstance(node, cst.ClassDef):
            func, declared = "<class>", set()  # a class body binds class attributes, not globals
        if isinstance(node, cst.Lambda):
            declared = set()
        if isinstance(node, cst.Call):
            called = _called_name(node)
            if called is not None:
                found.calls.setdefault(func, set()).add(called)
        for target in _stored(node):
            if isinstance(target, cst.Name):
                if not func:
                    found.bound.add(target.value)
                elif target.value in declared:
                    found.writes.setdefault(target.value, []).append((func, target.value))
                continue
            spelled = dotted_name(target.value if isinstance(target, cst.Subscript) else target)
            if spelled is not None:
                found.writes.setdefault(spelled.split(".", 1)[0], []).append((func, spelled))
        for child in loops.children(node):
            visit(child, func, declared)

    visit(module, "", set())
    return found


def _walk_scope(node: cst.CSTNode) -> Iterable[cst.CSTNode]:
    """Like ``_walk`` but not into nested functions, classes or lambdas."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(
            c for c in reversed(loops.children(current)) if not isinstance(c, (cst.FunctionDef, cst.ClassDef, cst.Lambda))
        )


def _detached_names(block: cst.BaseSuite, detaching: Callable[[cst.Call], bool] = lambda call: False) -> Set[str]:
    """Names a block's own statements detach or start afresh: ``h = h.detach()``, ``h = h.detach_()``,
    ``h.detach_()``, ``outputs = []``, ``h = (h[0].detach(), h[1].detach())``, ``h = repackage(h)`` of a
    project helper that returns detached copies (``detaching``); also under ``if h is not None:``
    (otherwise ``h`` is None and holds no graph)."""
    found: Set[str] = set()
    for line in loops.block_statements(block):
        if isinstance(line, cst.If) and line.orelse is None:
            tested = _not_none_name(line.test)
            if tested is not None and tested in _detached_names(line.body, detaching):
                found.add(tested)
            continue
        smalls = line.body if isinstance(line, cst.SimpleStatementLine) else [line]
        for small in smalls:
            value = small.value if isinstance(small, (cst.Assign, cst.Expr)) else None
            if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
                fresh_container = isinstance(value, (cst.List, cst.Dict, cst.Tuple)) and not value.elements
                copied = isinstance(value, cst.Call) and detaching(value)
                if fresh_container or isinstance(value, (cst.Integer, cst.Float)) or _detached_elements(value) or copied:
                    found.add(small.targets[0].target.value)
                    continue
            mc = method_call(value) if isinstance(value, cst.Call) else None
            if mc is None or mc[1] not in ("detach", "detach_") or not isinstance(mc[0], cst.Name):
                continue
            name = mc[0].value
            if isinstance(small, cst.Expr) and mc[1] == "detach_":
                found.add(name)
            elif isinstance(small, cst.Assign) and [dotted_name(t.target) for t in small.targets] == [name]:
                found.add(name)
    return found


def _not_none_name(test: cst.BaseExpression) -> Optional[str]:
    """``h`` of ``if h is not None:`` or ``if h:``."""
    if isinstance(test, cst.Name):
        return test.value
    if (
        isinstance(test, cst.Comparison) and isinstance(test.left, cst.Name) and len(test.comparisons) == 1
        and isinstance(test.comparisons[0].operator, cst.IsNot)
        and isinstance(test.comparisons[0].comparator, cst.Name) and test.comparisons[0].comparator.value == "None"
    ):
        return test.left.value
    return None


def _detached_elements(value: Optional[cst.BaseExpression]) -> bool:
    """A tuple or list each of whose elements is cut from any graph: ``(h[0].detach(), h[1].detach())``,
    ``[t.detach() for t in h]``, ``tuple(t.detach() for t in h)``."""
    if isinstance(value, cst.Call) and dotted_name(value.func) in ("tuple", "list") and len(value.args) == 1:
        value = value.args[0].value
    if isinstance(value, (cst.Tuple, cst.List)):
        return bool(value.elements) and all(
            not isinstance(e, cst.StarredElement) and _cut_expression(e.value) for e in value.elements
        )
    if isinstance(value, (cst.ListComp, cst.GeneratorExp)):
        return _cut_expression(value.elt)
    return False


def _and_parts(test: cst.BaseExpression) -> List[cst.BaseExpression]:
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return _and_parts(test.left) + _and_parts(test.right)
    return [test]


def _loop_counter(loop: cst.CSTNode) -> Optional[str]:
    """The name counting a ``for``'s iterations from 0: ``i`` of ``range(n)`` / ``range(0, n)``, or of
    ``enumerate(xs)`` (``for i, x in ...``)."""
    if not isinstance(loop, cst.For) or not isinstance(loop.iter, cst.Call):
        return None
    func = dotted_name(loop.iter.func)
    args = loop.iter.args
    if func == "range" and args and (len(args) == 1 or _is_zero(args[0].value)) and isinstance(loop.target, cst.Name):
        return loop.target.value
    if func == "enumerate" and len(args) == 1 and isinstance(loop.target, cst.Tuple) and loop.target.elements:
        first = loop.target.elements[0].value
        return first.value if isinstance(first, cst.Name) else None
    return None


def _is_zero(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Integer) and node.value == "0"


def _after_first(test: cst.BaseExpression, counter: str) -> bool:
    """``counter > 0``, ``counter >= 1``, ``counter != 0`` (``0 < counter``): false on the first iteration only."""
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return False
    comparison = test.comparisons[0]
    left, right, op = test.left, comparison.comparator, comparison.operator
    if isinstance(right, cst.Name) and right.value == counter and isinstance(left, cst.Integer):
        left, right = right, left
        op = {cst.LessThan: cst.GreaterThan(), cst.LessThanEqual: cst.GreaterThanEqual()}.get(type(op), op)
    if not (isinstance(left, cst.Name) and left.value == counter and isinstance(right, cst.Integer)):
        return False
    if isinstance(op, (cst.GreaterThan, cst.NotEqual)):
        return right.value == "0"
    return isinstance(op, cst.GreaterThanEqual) and right.value == "1"


def _none_test(test: cst.BaseExpression) -> Optional[Tuple[str, bool]]:
    """``(name, True)`` for ``name is None``, ``(name, False)`` for ``name is not None``."""
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return None
    comparison = test.comparisons[0]
    name = dotted_name(test.left)
    if name is None or not (isinstance(comparison.comparator, cst.Name) and comparison.comparator.value == "None"):
        return None
    if isinstance(comparison.operator, cst.Is):
        return name, True
    if isinstance(comparison.operator, cst.IsNot):
        return name, False
    return None


def _numeric_operation(node: cst.BaseExpression, values: Sequence[Val], kinds: Kinds) -> bool:
    """``node`` computes a number or tensor, never a list or tuple (``[h] * 2``, ``xs + [loss]``)
    that would hold its operands themselves."""
    if kinds:
        return True
    if isinstance(node, cst.UnaryOperation):
        return True
    assert isinstance(node, cst.BinaryOperation)
    if not isinstance(node.operator, (cst.Add, cst.Multiply)):
        return True
    # ``x + 1.0`` or ``0.9 * x``: a float operand rules out list concatenation and repetition.
    return any(v.kinds == _NUMBER_KIND for v in values) and any(isinstance(p, cst.Float) for p in (node.left, node.right))


def _accumulated_operand(value: cst.BaseExpression, name: str) -> Optional[cst.BaseExpression]:
    """What ``value`` adds onto the running total ``name`` (``name + x``, ``a * name + b * x``,
    ``name.get(k, 0) + x``), or None when ``value`` is not such a sum."""
    if not isinstance(value, cst.BinaryOperation) or not isinstance(value.operator, cst.Add):
        return None
    left, right = _reads_arithmetically(value.left, name), _reads_arithmetically(value.right, name)
    if left and not right:
        return value.right
    if right and not left:
        return value.left
    return None


def _terms_beside_total(
    node: cst.BaseExpression, name: str, total: cst.BaseExpression
) -> Optional[List[cst.BaseExpression]]:
    """The largest parts of arithmetic ``node`` that do not read ``name`` (``(x - total) / n`` → ``x``,
    ``n``); None where ``name`` is read other than as the operand ``total`` (``f(total)``, another entry)."""
    if node.deep_equals(total):
        return []
    if not any(read == name for read, _ in loops.iter_reads(node)):
        return [node]
    if isinstance(node, cst.BinaryOperation) and not isinstance(node.operator, (cst.MatrixMultiply, cst.Power)):
        left, right = _terms_beside_total(node.left, name, total), _terms_beside_total(node.right, name, total)
        return None if left is None or right is None else left + right
    if isinstance(node, cst.UnaryOperation):
        return _terms_beside_total(node.expression, name, total)
    return None


def _reads_total(node: cst.BaseExpression, name: str) -> bool:
    """``node`` reads the total ``name`` itself, one of its entries (``name[k]``) or ``name.get(k, 0)``."""
    if dotted_name(node) == name:
        return True
    if isinstance(node, cst.Subscript):
        return dotted_name(node.value) == name
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "get":
        return dotted_name(node.func.value) == name
    return False


def _reads_arithmetically(node: cst.BaseExpression, name: str) -> bool:
    """``name`` is an operand of ``node`` through arithmetic only (``a * ema``, ``-(ema)``)."""
    if _reads_total(node, name):
        return True
    if isinstance(node, cst.BinaryOperation):
        return _reads_arithmetically(node.left, name) or _reads_arithmetically(node.right, name)
    if isinstance(node, cst.UnaryOperation):
        return _reads_arithmetically(node.expression, name)
    return False


def _tensor_test(context: RuleContext, test: cst.BaseExpression) -> Optional[Tuple[str, bool]]:
    """``(name, True)`` for ``torch.is_tensor(name)`` / ``isinstance(name, torch.Tensor)``, False under ``not``."""
    positive = True
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        test, positive = test.expression, False
    if not isinstance(test, cst.Call) or not test.args:
        return None
    name = dotted_name(test.args[0].value)
    if name is None:
        return None
    if "torch.is_tensor" in qualified_names(context, test.func):
        return name, positive
    if dotted_name(test.func) == "isinstance" and len(test.args) == 2:
        kind = dotted_name(test.args[1].value) or ""
        if kind.endswith(".Tensor") or kind == "Tensor":
            return name, positive
    return None


def _detaches_each(loop: cst.For) -> bool:
    target = dotted_name(loop.target)
    if target is None or dotted_name(loop.iter) is None:
        return False
    for node in _walk(loop.body):
        if (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value == "detach_"
            and dotted_name(node.func.value) == target
        ):
            return True
    return False


def _params(func: cst.FunctionDef) -> List[cst.Param]:
    params = func.params
    found = list(params.posonly_params) + list(params.params) + list(params.kwonly_params)
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            found.append(star)
    return found


def _join_all(values: Iterable[Val]) -> Val:
    result = CLEAN
    for value in values:
        result = result.join(value)
    return result


# --------------------------------------------------------------------------- per-module cache


def graph_flows(context: RuleContext) -> List[GraphFlow]:
    """The analysis of every scope of the module (module body and each function), cached."""
    return context.fact("dataflow.graph_flows", lambda: _all_flows(context))


def _all_flows(context: RuleContext) -> List[GraphFlow]:
    # Both rules need a backward() in the scope: skip the (costly) analysis of
    # every function that cannot hold one. ``backward`` or ``autograd``
    # spelled anywhere inside (a call, an attribute, a nested def) is enough.
    # A scope calling a project function that back-propagates (``loss = self.train_step(b)``) runs a
    # backward too: ``trains_through_calls`` asks the model.
    stepping = {"backward", "autograd"}

    def may_backpropagate(nodes: Sequence[cst.CSTNode]) -> bool:
        return any(isinstance(n, cst.Name) and n.value in stepping for node in nodes for n in _walk(node))

    def framework_step(qualname: str) -> bool:
        """A method a framework calls once per batch and back-propagates the result of."""
        summary = context.model.function(qualname)
        contract = context.model.loop_contract(summary) if summary is not None else None
        return contract is not None and contract.backward_returned

    model = context.model

    def trains_through_calls(qualname: str) -> bool:
        # A loop over ``self.train_step(batch)`` back-propagates through the project's step.
        summary = model.function(qualname)
        return summary is not None and model.runs_backward(summary)

    def reads_init_graph(qualname: str) -> bool:
        # A forward reading an attribute whose graph ``__init__`` built from parameters: what it
        # returns goes through that one graph (AF102 asks the forward's flow).
        summary = model.function(qualname)
        cls = model.class_of(summary) if summary is not None and summary.name == "forward" else None
        if summary is None or cls is None:
            return False
        held = [attr for current in model.mro(cls) for name in summary.self_reads for attr in [current.attributes.get(name)] if attr]
        return any(attr.graph_from_params and attr.assigned_in == ["__init__"] for attr in held)

    flows: List[GraphFlow] = []
    top = [s for s in context.module.body if not isinstance(s, (cst.FunctionDef, cst.ClassDef))]
    # (scope, its class, the model's qualname of the scope, of its class)
    scopes: List[Tuple[cst.CSTNode, Optional[cst.ClassDef], str, Optional[str]]] = []
    if may_backpropagate(top) or trains_through_calls(MODULE_BODY):
        scopes.append((context.module, None, MODULE_BODY, None))

    def visit(statements: Sequence[cst.CSTNode], cls: Optional[cst.ClassDef], prefix: str) -> None:
        # ``prefix`` spells qualnames as the model does: ``Class.method``, ``outer.inner``.
        for stmt in statements:
            if isinstance(stmt, cst.FunctionDef):
                qualname = prefix + stmt.name.value
                if (
                    may_backpropagate([stmt.body])
                    or (cls is not None and (keeps_state_on_self(stmt) or framework_step(qualname) or reads_init_graph(qualname)))
                    or trains_through_calls(qualname)
                ):
                    scopes.append((stmt, cls, qualname, prefix[:-1] if cls is not None else None))
                    visit(loops.block_statements(stmt.body), None, qualname + ".")
            elif isinstance(stmt, cst.ClassDef):
                visit(loops.block_statements(stmt.body), stmt, prefix + stmt.name.value + ".")
            elif isinstance(stmt, (cst.If, cst.For, cst.While, cst.With, cst.Try, cst.TryStar)):
                for block in _blocks(stmt):
                    visit(loops.block_statements(block), None, prefix)

    visit(context.module.body, None, "")
    if not scopes:
        return flows
    facts = module_facts(context)
    for scope, cls, qualname, class_qualname in scopes:
        in_module = cls is not None and cls.name.value in facts.module_classes
        class_name = cls.name.value if cls is not None else None
        flow = GraphFlow(context, scope, in_module, cls is not None, class_name, qualname, class_qualname)
        flows.append(flow.run())
    return flows


#: methods called once per input (``forward``) or per batch by a framework (Lightning's
#: ``training_step``, whose returned loss it back-propagates)
STATEFUL_CALLS = ("forward", "training_step")


def keeps_state_on_self(func: cst.FunctionDef) -> bool:
    """A ``forward`` (or ``training_step``) that reads a ``self.*`` attribute and then reassigns it:
    state the next call reads (``out, self.hidden = self.rnn(x, self.hidden)``)."""
    if func.name.value not in STATEFUL_CALLS:
        return False
    return any(name.startswith("self.") for name in loops.carried_names(func.body).names)


def _blocks(stmt: cst.CSTNode) -> List[cst.CSTNode]:
    blocks = [getattr(stmt, "body", None)]
    orelse = getattr(stmt, "orelse", None)
    while isinstance(orelse, cst.If):
        blocks.append(orelse.body)
        orelse = orelse.orelse
    if orelse is not None:
        blocks.append(orelse.body)
    for handler in getattr(stmt, "handlers", ()):
        blocks.append(handler.body)
    final = getattr(stmt, "finalbody", None)
    if final is not None:
        blocks.append(final.body)
    return [b for b in blocks if b is not None]
