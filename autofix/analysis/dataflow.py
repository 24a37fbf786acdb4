"""Where autograd graphs flow inside one function: a forward may-analysis.

Each dotted name (``h``, ``self.hidden``, ``losses``) gets an abstract value:
its *level* (0 no graph, 1 a leaf that requires grad, 2 a tensor with a
``grad_fn``) and a set of *labels* saying what it was computed from. Labels are
how the rules ask flow questions without a full def-use graph:

* ``("carry", loop, name)`` is put on every loop-carried name at the loop head:
  a backward whose tensor holds it back-propagates into the previous iteration.
* ``("acc", name)`` is put on an accumulator when something is added into it:
  a backward (or a ``return``, or an unknown call) holding it means the total
  is used for more than logging.
* ``("src", call)`` marks the graph produced by one model call or leaf, so two
  values can be shown to share a graph.

Graph sources are calls of ``nn.Module`` objects (recognised by construction,
by a class deriving from ``*Module``, or by ``.parameters()``/``.train()``…
being called on them), leaves (``nn.Parameter``, ``requires_grad=True``) and
names that ``.backward()`` is called on. Graph breakers are ``detach``,
``item``, comparisons, ``argmax``, creation functions, ``no_grad`` regions and
helpers whose body detaches (``repackage_hidden``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, FrozenSet, Iterable, List, Optional, Sequence, Set, Tuple

import libcst as cst

from autofix.analysis import loops
from autofix.analysis.names import dotted_name, keyword
from autofix.analysis.training import (
    grad_disabled_nodes,
    is_backward_call,
    qualified_names,
)
from autofix.model.vocabulary import (
    ACCUMULATING_METHODS,
    CONTAINER_FUNCTIONS,
    CUT_ATTRIBUTES,
    CUT_FUNCTIONS,
    CUT_METHODS,
    DETACH_HELPER_NAMES,
    NN_NON_MODULES,
    NON_TENSOR_METHODS,
    TORCH_CUT_FUNCTIONS,
)
from autofix.context import RuleContext

CLEAN_LEVEL, LEAF, GRAPH = 0, 1, 2

Label = Tuple


@dataclass(frozen=True)
class Val:
    level: int = CLEAN_LEVEL
    labels: FrozenSet[Label] = frozenset()

    def join(self, other: "Val") -> "Val":
        if other is self:
            return self
        return Val(max(self.level, other.level), self.labels | other.labels)

    def computed(self) -> "Val":
        """The value of an operation on this one: a leaf operand yields a graph."""
        return Val(GRAPH if self.level else CLEAN_LEVEL, self.labels)

    def with_labels(self, labels: Iterable[Label]) -> "Val":
        return Val(self.level, self.labels | frozenset(labels))


CLEAN = Val()

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
_DISPLAY_FUNCTIONS = _BREAKING_FUNCTIONS | {"sum", "max", "min", "abs", "sorted", "statistics.mean",
                                            "math.exp", "np.exp", "numpy.exp", "np.std", "numpy.std"}
_DISPLAY_METHODS = {"info", "debug", "warning", "warn", "error", "log", "add_scalar", "add_scalars",
                    "set_postfix", "set_description", "set_postfix_str", "write", "format",
                    "log_metric", "log_metrics", "log_dict", "append", "extend"}
_ACCUMULATING_METHODS = ACCUMULATING_METHODS


# --------------------------------------------------------------------------- module-wide facts


@dataclass
class ModuleFacts:
    """What the whole file says about names: modules, leaves, detaching helpers."""

    modules: Set[str] = field(default_factory=set)
    leaves: Set[str] = field(default_factory=set)
    module_classes: Set[str] = field(default_factory=set)
    #: local functions (or methods) whose result is a detached copy of their argument
    detach_helpers: Set[str] = field(default_factory=set)
    #: local functions that detach their argument in place
    inplace_detach_helpers: Set[str] = field(default_factory=set)
    #: dotted module name → ``torch.nn`` class name it was built from (``LSTM`` …)
    nn_kind: Dict[str, str] = field(default_factory=dict)
    #: dotted name → local class it was constructed from (``net = Forecaster()``)
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


def _unwrap_module_expr(node: cst.BaseExpression) -> cst.BaseExpression:
    # ``Net().to(device)``, ``nn.DataParallel(Net())`` are still the module.
    while isinstance(node, cst.Call):
        if isinstance(node.func, cst.Attribute) and node.func.attr.value in {
            "to", "cuda", "cpu", "train", "eval", "float", "double", "half", "bfloat16", "requires_grad_",
        }:
            node = node.func.value
            continue
        name = dotted_name(node.func) or ""
        if name.rsplit(".", 1)[-1] in {"DataParallel", "DistributedDataParallel", "compile"} and node.args:
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
                            facts.torch_alias = (
                                alias.asname.name.value if alias.asname is not None else "torch"
                            )

    for cls in classes:
        for node in _walk(cls.body):
            if isinstance(node, cst.Assign) and isinstance(node.value, cst.Call):
                kind = _constructed(context, _unwrap_module_expr(node.value), facts)
                for target in node.targets:
                    name = dotted_name(target.target) or ""
                    if kind and kind.startswith("nn.") and name.startswith("self.") and name.count(".") == 1:
                        facts.class_attr_kind[(cls.name.value, name[5:])] = kind[3:]

    for node in _walk(module):
        if isinstance(node, (cst.Assign, cst.AnnAssign)) and node.value is not None:
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            value = _unwrap_module_expr(node.value)
            kind = _constructed(context, value, facts)
            for target in targets:
                name = dotted_name(target)
                if name is None or kind is None:
                    continue
                if isinstance(value, cst.Call) and (dotted_name(value.func) or "") in facts.module_classes:
                    facts.instance_class[name] = dotted_name(value.func) or ""
                if kind == "leaf":
                    facts.leaves.add(name)
                else:
                    facts.modules.add(name)
                    if kind.startswith("nn."):
                        facts.nn_kind[name] = kind[3:]
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
        elif isinstance(node, cst.FunctionDef):
            kind = _helper_kind(node)
            if kind == "copy":
                facts.detach_helpers.add(node.name.value)
            elif kind == "inplace":
                facts.inplace_detach_helpers.add(node.name.value)
    return facts


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
        if name.startswith(("torchvision.models.", "timm.create_model")) or last in {"from_pretrained", "create_model"}:
            return "module"
        if last in facts.module_classes:
            return "module"
    return None


def _is_true(arg: Optional[cst.Arg]) -> bool:
    return arg is not None and isinstance(arg.value, cst.Name) and arg.value.value == "True"


def _helper_kind(func: cst.FunctionDef) -> Optional[str]:
    """``copy`` when every ``return`` of ``func`` detaches, ``inplace`` when it calls ``.detach_()``."""
    returns: List[cst.Return] = []
    inplace = False
    for node in _walk(func.body):
        if isinstance(node, cst.Return):
            returns.append(node)
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "detach_":
            inplace = True
    if returns and all(r.value is not None and _detaches(r.value, func.name.value) for r in returns):
        return "copy"
    if inplace and not any(r.value is not None for r in returns):
        return "inplace"
    return None


def _detaches(expr: cst.BaseExpression, self_name: str) -> bool:
    for node in _walk(expr):
        # ``h.detach()``, and ``torch.Tensor.detach`` handed to a mapping helper.
        if isinstance(node, cst.Attribute) and node.attr.value in {"detach", "new_zeros"}:
            return True
        if isinstance(node, cst.Call):
            if (dotted_name(node.func) or "").rsplit(".", 1)[-1] == self_name:
                return True
    return isinstance(expr, cst.Name) and expr.value == "None"


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
    """``target += value``, ``target = target + value``, ``target.append(value)``, ``target[k] += value``."""

    statement: cst.CSTNode
    target: str
    value_node: cst.BaseExpression
    value: Val
    loops: Tuple[cst.CSTNode, ...]
    kind: str
    #: True when ``target`` was assigned earlier in the same iteration of the innermost loop
    reset_in_iteration: bool = False


@dataclass
class Assignment:
    statement: cst.CSTNode
    name: str
    value: Val
    loops: Tuple[cst.CSTNode, ...]


# --------------------------------------------------------------------------- the analysis


State = Dict[str, Val]


def _join_states(a: State, b: State) -> State:
    out = dict(a)
    for key, value in b.items():
        out[key] = out[key].join(value) if key in out else value
    return out


class GraphFlow:
    """The analysis of one scope (a function body, or the module's top level)."""

    def __init__(self, context: RuleContext, scope: cst.CSTNode, in_module_class: bool, in_class: bool) -> None:
        self.context = context
        self.facts = module_facts(context)
        self.disabled = grad_disabled_nodes(context)
        self.scope = scope
        self.in_module_class = in_module_class
        self.in_class = in_class
        self.backwards: Dict[cst.Call, Backward] = {}
        self.accumulations: Dict[cst.CSTNode, Accumulation] = {}
        self.assignments: List[Assignment] = []
        self.carried: Dict[cst.CSTNode, loops.Carried] = {}
        self.loop_end: Dict[cst.CSTNode, State] = {}
        #: labels flowing out of the scope: returned, yielded, stored on objects, passed to unknown calls
        self.escaped: Set[Label] = set()
        self.none_names: Set[str] = set()
        #: the scope's parameters: objects the caller shares with it
        self.params: Set[str] = set()
        self._loops: List[cst.CSTNode] = []
        self._continues: List[List[State]] = []
        self._nograd = 0
        self._returns: List[State] = []
        self._backward_names = self._backward_receivers()

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
            end = self._block(statements, state)
            self._loops.pop()
            for returned in self._returns:
                end = _join_states(end, returned)
            self.loop_end[self.scope] = end
        else:
            self._block([s for s in self.scope.body], state)
        return self

    def loops_of(self, node_loops: Sequence[cst.CSTNode]) -> Tuple[cst.CSTNode, ...]:
        """The real loops (not the method scope) of a recorded loop stack, innermost last."""
        return tuple(n for n in node_loops if isinstance(n, (cst.For, cst.While)))

    def _backward_receivers(self) -> Set[str]:
        names = set()
        for node in _walk_scope(self.scope.body if isinstance(self.scope, cst.FunctionDef) else self.scope):
            if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "backward":
                name = dotted_name(node.func.value)
                if name:
                    names.add(name)
        return names

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
            self._expr(stmt.test, state)
            when_true, when_false = dict(state), dict(state)
            none_test = _none_test(stmt.test)
            if none_test is not None:
                # ``if h is not None:`` — on the other path ``h`` is None, no graph.
                name, is_none = none_test
                (when_true if is_none else when_false)[name] = CLEAN
            after_body = self._block(loops.block_statements(stmt.body), when_true)
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

    def _loop(self, loop: cst.CSTNode, pre: State) -> State:
        carried = self.carried.get(loop)
        if carried is None:
            test = loop.test if isinstance(loop, cst.While) else None
            carried = self.carried[loop] = loops.carried_names(loop.body, test)
        back: State = dict(pre)
        end: State = dict(pre)
        for _ in range(4):
            head = dict(back)
            for name in carried.names:
                head[name] = self._read(name, head).with_labels([("carry", loop, name)])
            if isinstance(loop, cst.For):
                iterated = self._expr(loop.iter, head)
                self._bind(loop.target, iterated, head, loop)
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
            target = small.target
            base = target.value if isinstance(target, cst.Subscript) else target
            name = dotted_name(base)
            if name is None:
                return state
            current = self._read(name, state)
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
            self.escaped.update(self._expr(small.value, state).labels)
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
        # ``total = total + loss`` (either operand order).
        if len(small.targets) != 1 or not self._loops:
            return False
        name = dotted_name(small.targets[0].target)
        value = small.value
        if name is None or not isinstance(value, cst.BinaryOperation) or not isinstance(value.operator, cst.Add):
            return False
        if dotted_name(value.left) == name:
            added = value.right
        elif dotted_name(value.right) == name:
            added = value.left
        else:
            return False
        added_value = self._expr(added, state)
        self._record_accumulation(line, name, added, added_value, "assign", state)
        current = self._read(name, state).with_labels([("acc", name)])
        self._assign(name, current.join(added_value).computed() if added_value.level else current.join(added_value), state, line)
        return True

    def _expression_statement(self, expr: cst.BaseExpression, line: cst.CSTNode, state: State) -> None:
        if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
            method = expr.func.attr.value
            receiver = expr.func.value
            base = receiver.value if isinstance(receiver, cst.Subscript) else receiver
            name = dotted_name(base)
            if method == "detach_" and name is not None:
                self._assign(name, CLEAN, state, line)
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
        if isinstance(expr, cst.Call):
            func_name = dotted_name(expr.func) or ""
            last = func_name.rsplit(".", 1)[-1]
            if last in self.facts.inplace_detach_helpers and expr.args:
                target = dotted_name(expr.args[0].value)
                if target is not None:
                    self._assign(target, CLEAN, state, line)
                    return
        self._expr(expr, state)

    def _record_accumulation(
        self, line: cst.CSTNode, name: str, added: cst.BaseExpression, value: Val, kind: str, state: State
    ) -> None:
        innermost = self._loops[-1]
        carried = self.carried.get(innermost)
        reset = False
        if carried is not None:
            reads = carried.first_read
            # Assigned in this iteration before being read: a per-iteration total.
            reset = name not in reads and name in carried.assignments
        previous = self.accumulations.get(added)
        if previous is not None:
            value = previous.value.join(value)
        self.accumulations[added] = Accumulation(line, name, added, value, tuple(self._loops), kind, reset)

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
            if isinstance(value_node, (cst.Tuple, cst.List)) and len(value_node.elements) == len(elements):
                values = [self._expr(e.value, dict(state)) for e in value_node.elements]
            for index, element in enumerate(elements):
                part_node = value_node.elements[index].value if values is not None else None
                self._bind(element, values[index] if values is not None else value, state, stmt, part_node)
            return
        if isinstance(target, cst.StarredElement):
            self._bind(target.value, value, state, stmt)
            return
        if isinstance(target, cst.Subscript):
            name = dotted_name(target.value)
            if name is not None:
                self._assign(name, self._read(name, state).join(value), state, stmt)
            return
        name = dotted_name(target)
        if name is None:
            return
        if isinstance(value_node, cst.Name) and value_node.value == "None":
            self.none_names.add(name)
        if isinstance(target, cst.Attribute) and not name.startswith("self."):
            self.escaped.update(value.labels)
        self._assign(name, value, state, stmt)

    def _assign(self, name: str, value: Val, state: State, stmt: cst.CSTNode) -> None:
        if self._nograd:
            value = CLEAN
        elif name in self._backward_names and value.level < GRAPH:
            # ``.backward()`` is called on it: it holds a graph whatever we inferred.
            value = Val(GRAPH, value.labels)
        for key in [k for k in state if k.startswith(name + ".")]:
            del state[key]
        state[name] = value
        self.assignments.append(Assignment(stmt, name, value, tuple(self._loops)))

    def _read(self, name: str, state: State) -> Val:
        if name in state:
            return state[name]
        if name in self.facts.leaves:
            return Val(LEAF)
        if "." in name:
            base, attr = name.rsplit(".", 1)
            if attr in _BREAKING_ATTRIBUTES:
                return CLEAN
            if attr in {"weight", "bias"} and (base in self.facts.modules or base.startswith("self.")):
                return Val(LEAF)
            if base in state:
                return state[base]
        return CLEAN

    # ----------------------------------------------------------------- expressions

    def _expr(self, node: Optional[cst.CSTNode], state: State) -> Val:
        if node is None:
            return CLEAN
        if isinstance(node, (cst.Name, cst.Attribute)):
            name = dotted_name(node)
            if name is not None:
                return self._read(name, state)
            if node.attr.value in _BREAKING_ATTRIBUTES:
                self._expr(node.value, state)
                return CLEAN
            return self._expr(node.value, state)
        if isinstance(node, cst.Call):
            return self._call(node, state)
        if isinstance(node, (cst.Comparison, cst.FormattedString, cst.SimpleString, cst.ConcatenatedString,
                             cst.Integer, cst.Float, cst.Imaginary, cst.Lambda, cst.Ellipsis)):
            for child in loops.children(node):
                if isinstance(child, (cst.BaseExpression, cst.ComparisonTarget, cst.FormattedStringExpression)):
                    self._scan(child, state)
            return CLEAN
        if isinstance(node, (cst.BinaryOperation, cst.UnaryOperation)):
            if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
                self._expr(node.expression, state)
                return CLEAN
            parts = [node.left, node.right] if isinstance(node, cst.BinaryOperation) else [node.expression]
            return _join_all(self._expr(p, state) for p in parts).computed()
        if isinstance(node, cst.Subscript):
            value = self._expr(node.value, state)
            for element in node.slice:
                self._scan(element, state)
            return value.computed() if value.level == LEAF else value
        if isinstance(node, (cst.Tuple, cst.List, cst.Set)):
            return _join_all(self._expr(e.value, state) for e in node.elements)
        if isinstance(node, cst.Dict):
            return _join_all(
                self._expr(e.value, state) for e in node.elements if isinstance(e, (cst.DictElement, cst.StarredDictElement))
            )
        if isinstance(node, (cst.GeneratorExp, cst.ListComp, cst.SetComp, cst.DictComp)):
            inner = dict(state)
            comp = node.for_in
            while comp is not None:
                self._bind(comp.target, self._expr(comp.iter, inner), inner, comp)
                comp = comp.inner_for_in
            if isinstance(node, cst.DictComp):
                return self._expr(node.value, inner)
            return self._expr(node.elt, inner)
        if isinstance(node, cst.IfExp):
            self._expr(node.test, state)
            return self._expr(node.body, state).join(self._expr(node.orelse, state))
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

    def _scan(self, node: cst.CSTNode, state: State) -> None:
        """Evaluate sub-expressions for their side effects (backward calls) only."""
        for child in [node] if isinstance(node, cst.BaseExpression) else loops.children(node):
            if isinstance(child, cst.BaseExpression):
                self._expr(child, state)
            else:
                self._scan(child, state)

    def _call(self, call: cst.Call, state: State) -> Val:
        func = call.func
        args = [self._expr(arg.value, state) for arg in call.args]
        joined = _join_all(args)
        if is_backward_call(self.context, call):
            target = self._expr(func.value, state) if isinstance(func, cst.Attribute) and func.attr.value == "backward" else joined
            retain = keyword(call, "retain_graph") is not None
            previous = self.backwards.get(call)
            if previous is not None:
                target = previous.value.join(target)
            self.backwards[call] = Backward(call, target, tuple(self._loops), retain)
            return CLEAN
        qnames = qualified_names(self.context, func)
        func_name = dotted_name(func) or ""
        if qnames & {"torch.autograd.grad", "torch.autograd.functional.jacobian"}:
            self.backwards[call] = Backward(call, args[0] if args else CLEAN, tuple(self._loops), True)
            return Val(GRAPH) if keyword(call, "create_graph") is not None else CLEAN
        torch_fn = next((q for q in qnames if q.startswith("torch.")), None)
        last = func_name.rsplit(".", 1)[-1] if func_name else ""
        if _is_true(keyword(call, "requires_grad")) or last == "Parameter":
            return Val(LEAF)

        if isinstance(func, cst.Attribute):
            method = func.attr.value
            receiver_name = dotted_name(func.value)
            receiver = self._expr(func.value, state)
            if method == "requires_grad_":
                return Val(LEAF)
            if method in _BREAKING_METHODS or _is_detach_helper(method, self.facts):
                return CLEAN
            if torch_fn is not None and torch_fn.rsplit(".", 1)[-1] in _TORCH_BREAKING:
                return CLEAN
            if receiver_name is not None and self._is_module(receiver_name):
                if method == "forward":
                    return self._module_call(call, joined)
                if method.startswith(_MODULE_NONGRAPH_PREFIXES) or method in _MODULE_HINT_METHODS:
                    return CLEAN
                return self._module_call(call, joined)
            if self._is_module(func_name):
                return self._module_call(call, joined)
            if torch_fn is None and receiver.level == CLEAN_LEVEL and receiver_name is not None:
                # A method of something that is not a tensor: logging, dicts, lists.
                if method not in _DISPLAY_METHODS:
                    self.escaped.update(joined.labels)
            return receiver.join(joined).computed()

        if func_name in _BREAKING_FUNCTIONS or _is_detach_helper(last, self.facts):
            return CLEAN
        if torch_fn is not None and torch_fn.rsplit(".", 1)[-1] in _TORCH_BREAKING:
            return CLEAN
        if func_name in _CONTAINER_FUNCTIONS:
            return joined
        if self._is_module(func_name) or (func_name == "self" and self.in_module_class):
            return self._module_call(call, joined)
        if torch_fn is None and func_name not in _DISPLAY_FUNCTIONS:
            self.escaped.update(joined.labels)
        return joined.computed()

    def _module_call(self, call: cst.Call, args: Val) -> Val:
        if self._nograd:
            return CLEAN
        return Val(GRAPH, args.labels | {("src", call)})

    def _is_module(self, name: str) -> bool:
        return bool(name) and name in self.facts.modules


def _is_detach_helper(name: str, facts: ModuleFacts) -> bool:
    """A helper that returns a detached copy: defined so here, well known, or named so."""
    if name in DETACH_HELPER_NAMES or name in facts.detach_helpers:
        return True
    lowered = name.lower()
    return "detach" in lowered or "repackage" in lowered


def _walk_scope(node: cst.CSTNode) -> Iterable[cst.CSTNode]:
    """Like ``_walk`` but not into nested functions, classes or lambdas."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(
            c for c in reversed(loops.children(current)) if not isinstance(c, (cst.FunctionDef, cst.ClassDef, cst.Lambda))
        )


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
    def may_backpropagate(nodes: Sequence[cst.CSTNode]) -> bool:
        return any(
            isinstance(n, cst.Name) and n.value in ("backward", "autograd") for node in nodes for n in _walk(node)
        )

    flows: List[GraphFlow] = []
    top = [s for s in context.module.body if not isinstance(s, (cst.FunctionDef, cst.ClassDef))]
    scopes: List[Tuple[cst.CSTNode, bool, bool]] = []
    if may_backpropagate(top):
        scopes.append((context.module, False, False))

    def visit(statements: Sequence[cst.CSTNode], cls: Optional[cst.ClassDef]) -> None:
        for stmt in statements:
            if isinstance(stmt, cst.FunctionDef):
                if may_backpropagate([stmt.body]):
                    scopes.append((stmt, cls is not None, cls))
                    visit(loops.block_statements(stmt.body), None)
            elif isinstance(stmt, cst.ClassDef):
                visit(loops.block_statements(stmt.body), stmt)
            elif isinstance(stmt, (cst.If, cst.For, cst.While, cst.With, cst.Try, cst.TryStar)):
                for block in _blocks(stmt):
                    visit(loops.block_statements(block), None)

    visit(context.module.body, None)
    if not scopes:
        return flows
    facts = module_facts(context)
    for scope, in_class, cls in scopes:
        in_module = bool(in_class) and isinstance(cls, cst.ClassDef) and cls.name.value in facts.module_classes
        flows.append(GraphFlow(context, scope, in_module, bool(in_class)).run())
    return flows


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
