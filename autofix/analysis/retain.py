"""Whether a ``retain_graph=True`` keeps a graph that something later walks again (AF106).

For each back-propagating call that asks to keep its graph, :func:`retained_calls`
answers with one :class:`Retained`: how the flag is spelled (a keyword, a
variable with a known value, a ``**kwargs`` dict) and why it is or is not
needed. The graph a call retains is followed through its function as the
*component* of the back-propagated tensor: every local name connected to it
by an assignment (the forward's outputs, the features they came from, the
containers they are put into), cut where the code detaches or converts to a
number. The flag is *needless* only when all of these hold:

* the function is first-order (no ``create_graph=True``: gradient penalties,
  MAML and Hessian-vector products need the graph again on purpose);
* no other backward, ``autograd.grad``, ``jacobian``… in the function can
  reach the graph: each other backward has graph origins disjoint from this
  one's (AF101's :class:`autofix.analysis.steps.GraphFlow`); any other kind
  of gradient call counts as reaching it;
* nothing of the component leaves the function: not returned or yielded, not
  stored on an object, in a container it does not own or in a global, not
  passed to a call whose result it does not use (a replay buffer, a helper
  that may back-propagate it), not read by a nested function;
* inside a loop, the next iteration builds a new graph: no graph value of the
  component was computed before the loop (an embedding computed once and
  back-propagated every iteration needs its graph kept), and nothing is
  carried from one iteration into the next; a carried graph is the
  *band-aid* shape, judged with AF102's carried-state facts
  (:mod:`autofix.analysis.dataflow`);
* no attribute read into the component holds a graph made elsewhere: one
  the file assigns a computed value, or a copy of a name holding a graph
  (``self.fake = fake``), or one it never assigns (set by a base class in
  another file);
* no parameter of the function, other than data by name (``batch``, ``x``,
  ``target``…), is part of the component: the caller may back-propagate it.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Callable, Dict, FrozenSet, Iterator, List, Optional, Set, Tuple, Union

import libcst as cst

from autofix.analysis import dataflow, loops, module_state
from autofix.analysis.names import children, dotted_name, keyword, method_call, walk_local
from autofix.analysis.screen import nodes_of
from autofix.analysis.steps import (
    PASS_METHODS,
    backward_tensor,
    graph_flow,
    graph_free_parameters,
    has_keyword_true,
    later_backward_through_graph,
    scope_uses_create_graph,
    scopes,
)
from autofix.analysis.training import is_backward_call, qualified_names
from autofix.context import RuleContext
from autofix.model.summaries import FunctionSummary
from autofix.model.vocabulary import CUT_ATTRIBUTES, CUT_FUNCTIONS, NO_HISTORY_METHODS, NO_HISTORY_TORCH_FUNCTIONS

Scope = Union[cst.Module, cst.FunctionDef]

#: Why a flag was judged: the rule reports ``NEEDLESS`` and ``CARRIED``.
NEEDLESS, CARRIED, NEEDED = "needless", "carried", "needed"

_CONSTANTS = frozenset({"True", "False", "None"})
# Calls that back-propagate or differentiate, by their last name.
_GRADIENT_CALLS = frozenset({"backward", "manual_backward", "grad", "jacobian", "hessian", "vjp", "jvp", "hvp", "vhp"})
# Statement calls that only show a value (logging): the graph does not outlive them.
_DISPLAY = re.compile(
    r"^(print|info|debug|warning|warn|error|log|log_dict|log_metrics?|add_scalars?|add_histogram|"
    r"set_postfix|set_postfix_str|set_description|write|append_log|report)$"
)
# Data by convention: parameters a caller fills from a loader, not from a forward pass.
_DATA_PARAM = re.compile(
    r"^(batch|batch_idx|data|inputs?|x|xb|xs|images?|imgs?|targets?|labels?|y|yb|ys|samples?|obs|"
    r"observations?|tokens|input_ids|attention_mask|mask|src|tgt|seq|idx|i|step|epoch|self|cls|"
    r"\w*loaders?|batches|dataset|data_iter|epochs|steps|device|lr|args|config|cfg)$",
    re.IGNORECASE,
)
# Callees that fetch data: with clean arguments their result is no graph.
_DATA_CALLEE = re.compile(
    r"batch|data|loader|sample|fetch|load|read|synth|noise|^next$|^iter$|^range$|^enumerate$|^zip$|^tqdm$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Flag:
    """How ``retain_graph`` is passed: ``keyword`` (``=True``), ``variable`` (``=name``), ``kwargs`` (``**d``)."""

    kind: str
    arg: cst.Arg
    #: for ``kwargs``: the dict literal or ``dict(...)`` call holding the key, when only this call reads it
    holder: Optional[cst.CSTNode] = None


@dataclass(frozen=True)
class Retained:
    call: cst.Call
    flag: Flag
    verdict: str
    #: the back-propagated tensor (receiver of ``.backward``, first argument otherwise)
    tensor: Optional[cst.BaseExpression]
    #: the loop a carried graph goes round (``CARRIED``)
    loop: Optional[cst.CSTNode] = None
    #: the names carried into the next iteration (``CARRIED``)
    carried: Tuple[str, ...] = ()


def may_retain_graph(tree: ast.Module) -> bool:
    """AF106's screen: a gradient call, and ``retain_graph`` passed by keyword or held in a dict."""
    nodes = nodes_of(tree)
    named = False
    spelled = False
    for call in nodes.calls:
        func = call.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
        named = named or name in _GRADIENT_CALLS
        spelled = spelled or any(k.arg == "retain_graph" for k in call.keywords)
        if named and spelled:
            return True
    if not named:
        return False
    # {"retain_graph": True} passed on as **kwargs
    return any(
        isinstance(node, ast.Dict) and any(isinstance(k, ast.Constant) and k.value == "retain_graph" for k in node.keys)
        for node in ast.walk(tree)
    )


def retained_calls(context: RuleContext) -> List[Retained]:
    return context.fact("retain.retained_calls", lambda: _Analysis(context).run())


# --------------------------------------------------------------------------- the analysis


class _Analysis:
    def __init__(self, context: RuleContext) -> None:
        self.context = context
        self.found: List[Retained] = []

    def run(self) -> List[Retained]:
        module = self.context.module
        for scope in scopes(module):
            for call in _gradient_calls(scope):
                flag = self._flag(scope, call)
                if flag is not None:
                    self.found.append(self._judge(scope, call, flag))
        return self.found

    # ------------------------------------------------------------------ the flag

    def _flag(self, scope: Scope, call: cst.Call) -> Optional[Flag]:
        if not self._differentiates(call):
            return None
        arg = keyword(call, "retain_graph")
        if arg is not None:
            if _is_true(arg.value):
                return Flag("keyword", arg)
            if isinstance(arg.value, cst.Name):
                value = _single_assignment(scope, arg.value.value)
                if value is not None and _is_true(value):
                    return Flag("variable", arg)
            return None
        for star in (a for a in call.args if a.star == "**"):
            if not isinstance(star.value, cst.Name):
                continue
            holder = _single_assignment(scope, star.value.value)
            entry = _dict_entry(holder, "retain_graph") if holder is not None else None
            if entry is not None and _is_true(entry):
                used_once = _reads_of(scope, star.value.value) == 1
                return Flag("kwargs", star, holder if used_once else None)
        return None

    def _differentiates(self, call: cst.Call) -> bool:
        if is_backward_call(self.context, call):
            return True
        name = _last_name(call)
        if name == "manual_backward":
            return True
        return name == "grad" and any(q.endswith("autograd.grad") for q in qualified_names(self.context, call.func))

    # ------------------------------------------------------------------ judging

    def _judge(self, scope: Scope, call: cst.Call, flag: Flag) -> Retained:
        tensor = self._tensor(call)
        verdict = Retained(call, flag, NEEDED, tensor)
        if tensor is None or scope_uses_create_graph(scope) or has_keyword_true(call, "inputs"):
            return verdict
        if not self._alone(scope, call):
            return verdict
        body = Body(scope)
        component = body.component(tensor)
        if component is None or body.escapes(component):
            return verdict
        if not isinstance(scope, cst.Module):
            given = self.context.fact("retain.graph_arguments", lambda: _graph_arguments(self.context.module))
            handed = given.get(scope.name.value, set())
            # A parameter named like data is data unless a call here hands it a value that may be a graph.
            suspects = {p for p in body.params & component.names if not _DATA_PARAM.match(p) or p in handed}
            # Parameters are data when every call of the method here passes data (`self._critic_step(s, a, y)`
            # inside a loop over a replay buffer), whatever their names.
            if suspects and suspects - graph_free_parameters(self.context, scope):
                return verdict
        loops = body.loops_around(call)
        carried = self._carried(call)
        if carried is not None:
            loop, names = carried
            return Retained(call, flag, CARRIED, tensor, loop, names)
        for loop in loops:
            if body.carried_into(loop, component, tensor) or body.from_before(loop, component):
                return verdict
        qualname = next((f.qualname for f in dataflow.graph_flows(self.context) if f.scope is scope), "")
        if self._handed_to_backward(scope, call, component, qualname):
            return verdict
        for loop in reversed(loops):
            # A module the loop calls keeps its own graph state across calls (in this file or another).
            stateful = module_state.unreset_calls(self.context, loop, qualname, strict=True)
            if stateful:
                names = tuple(sorted(f"{s.instance}.{path}" for s in stateful for path in s.state))
                return Retained(call, flag, CARRIED, tensor, loop, names)
        graph_attributes = self.context.fact("retain.graph_attributes", lambda: _graph_attributes(self.context.module))
        graph_globals = self.context.fact("retain.graph_globals", lambda: _graph_globals(self.context.module))
        assigned = self.context.fact("retain.assigned_attributes", lambda: _assigned_attributes(self.context.module))
        for name in component.foreign:
            # A graph kept on an object or in a global outlives this call: another one may walk it.
            if "." in name and name.rsplit(".", 1)[-1] in graph_attributes or name in graph_globals:
                return verdict
            parts = name.split(".")
            if parts[0] in ("self", "cls") and len(parts) > 1 and (parts[1] in graph_attributes or parts[1] not in assigned):
                # self.fake set by a base class in another file, or by whoever holds the object: unknown.
                return verdict
        if self._reads_object_graph(scope, body, tensor):
            return verdict  # ``loss = self.loss_of_fake()`` reading ``self.fake``: kept on the object for others
        if later_backward_through_graph(self.context, call) is not None:
            return verdict  # a later backward of the step, in another method, walks the graph again
        return Retained(call, flag, NEEDLESS, tensor)

    def _tensor(self, call: cst.Call) -> Optional[cst.BaseExpression]:
        if is_backward_call(self.context, call):
            return backward_tensor(self.context, call)
        first = call.args[0] if call.args else None
        if first is None or first.star or (first.keyword is not None and first.keyword.value not in ("outputs", "loss")):
            return None
        return first.value

    def _alone(self, scope: Scope, call: cst.Call) -> bool:
        """No other gradient call in ``scope`` can reach the graph ``call`` retains."""
        flow = graph_flow(self.context)
        mine = flow.origins(call)
        body: Optional[Body] = None
        for other in _gradient_calls(scope):
            if other is call:
                continue
            theirs = flow.origins(other)
            # Disjoint origins of two plain backward calls: two forward passes.
            if not (mine and theirs and is_backward_call(self.context, other) and not (mine & theirs)):
                return False
            body = body or Body(scope)
            if self._reads_object_graph(scope, body, self._tensor(other)):
                # ``self.aux_loss().backward()`` where ``aux_loss`` reads ``self.cache``, which the forward
                # of this step set: the origins do not follow a graph through an object.
                return False
        return True

    def _reads_object_graph(self, scope: Scope, body: "Body", tensor: Optional[cst.BaseExpression]) -> bool:
        """``tensor`` may read a graph kept on an object: an attribute that may hold one (or that the
        file never sets), or a method of the class that reads such an attribute."""
        if tensor is None:
            return True
        component = body.component(tensor)
        graph_attributes = self.context.fact("retain.graph_attributes", lambda: _graph_attributes(self.context.module))
        assigned = self.context.fact("retain.assigned_attributes", lambda: _assigned_attributes(self.context.module))
        for name in component.foreign if component is not None else ():
            parts = name.split(".")
            if parts[0] in ("self", "cls") and len(parts) > 1 and (parts[1] in graph_attributes or parts[1] not in assigned):
                return True
        facts = dataflow.module_facts(self.context)
        holders = self.context.fact("retain.graph_holding_classes", lambda: _graph_holding_classes(self.context.module, graph_attributes))
        for name in (component.names | component.foreign) if component is not None else ():
            parts = name.split(".")
            instance = parts[0] in facts.modules or parts[0] in facts.instance_class
            if parts[0] in ("self", "cls") or not instance:
                continue
            if len(parts) > 1 and parts[-1] in graph_attributes:
                return True  # ``net.last_hidden`` that the forward of ``net`` set
            if len(parts) == 1 and facts.instance_class.get(name) in holders:
                return True  # ``aux(net)``: handed an object that keeps a graph on itself
        expressions: List[cst.CSTNode] = [tensor]
        if component is not None:
            expressions.extend(node for targets, _, node in body.bindings if targets & component.names)
        owners = self.context.fact("retain.class_methods", lambda: _class_methods(self.context.module))
        methods = owners.get(id(scope), {})
        for expression in expressions:
            for node in walk_local(expression):
                if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)):
                    continue
                receiver = node.func.value
                method = methods.get(node.func.attr.value) if isinstance(receiver, cst.Name) and receiver.value == "self" else None
                if method is not None and self._returns_object_graph(method, methods, graph_attributes, assigned):
                    return True
        return False

    @staticmethod
    def _returns_object_graph(
        method: cst.FunctionDef, methods: Dict[str, cst.FunctionDef], graph_attributes: Set[str], assigned: Set[str]
    ) -> bool:
        """What ``method`` returns is connected to an attribute of ``self`` that may hold a graph."""
        inner = Body(method)
        for statement in inner.statements:
            if not isinstance(statement, cst.Return) or statement.value is None:
                continue
            component = inner.component(statement.value)
            for read in component.foreign if component is not None else ():
                parts = read.split(".")
                if parts[0] == "self" and len(parts) > 1 and parts[1] not in methods and (
                    parts[1] in graph_attributes or parts[1] not in assigned
                ):
                    return True
        return False

    def _handed_to_backward(self, scope: Scope, call: cst.Call, component: Component, qualname: str) -> bool:
        """Part of the graph goes into a project function that back-propagates (``aux_step(out)``, whose
        result the caller keeps): it may walk the kept graph again."""
        model = self.context.model
        caller = model.function(qualname) if qualname else None
        if caller is None:
            return False
        held = component.names | component.foreign
        root = scope.body if isinstance(scope, cst.FunctionDef) else scope
        for node in walk_local(root):
            if not isinstance(node, cst.Call) or node is call or not node.args:
                continue
            if not set().union(*(graph_reads(a.value) for a in node.args)) & held:
                continue
            spelled = dotted_name(node.func)
            callee = model.callee(caller, spelled) if spelled is not None else None
            if isinstance(callee, FunctionSummary) and model.runs_backward(callee):
                return True
        return False

    def _carried(self, call: cst.Call) -> Optional[Tuple[cst.CSTNode, Tuple[str, ...]]]:
        """The loop whose previous iterations the back-propagated graph reaches (AF102's facts)."""
        for flow in dataflow.graph_flows(self.context):
            backward = flow.backwards.get(call)
            if backward is None:
                continue
            carried: Dict[cst.CSTNode, List[str]] = {}
            for label in backward.value.labels:
                if label[0] != "carry" or label[1] not in backward.loops:
                    continue
                # What the loop hands to its next iteration holds a graph (not a leaf updated in place).
                end = flow.loop_end.get(label[1], {}).get(label[2])
                if end is not None and end.level >= dataflow.GRAPH:
                    carried.setdefault(label[1], []).append(label[2])
            if carried:
                # The innermost such loop: its iterations are what the graph chains.
                loop = max(carried, key=lambda node: backward.loops.index(node))
                return loop, tuple(sorted(set(carried[loop])))
        return None


# --------------------------------------------------------------------------- one function body


@dataclass
class Component:
    """Local names holding (part of) one graph, and graph-like reads of other objects."""

    names: Set[str]
    #: attribute reads (``self.reg``) of objects outside the function that may hold a graph
    foreign: Set[str]


class Body:
    """Assignments and reads of one function (or the module's top level), not entering nested scopes."""

    def __init__(self, scope: Scope) -> None:
        self.scope = scope
        self.params: Set[str] = set()
        if isinstance(scope, cst.FunctionDef):
            p = scope.params
            for param in [*p.posonly_params, *p.params, *p.kwonly_params]:
                self.params.add(param.name.value)
            for star in (p.star_arg, p.star_kwarg):
                if isinstance(star, cst.Param):
                    self.params.add(star.name.value)
        #: (targets, value reads, statement) of every binding
        self.bindings: List[Tuple[Set[str], Set[str], cst.CSTNode]] = []
        self.statements: List[cst.CSTNode] = []
        self.nested: List[cst.CSTNode] = []
        self.declared: Set[str] = set()
        self.no_grad: Set[int] = set()
        self._locals: Optional[Set[str]] = None
        self._collect(scope)

    # ------------------------------------------------------------------ collection

    def _collect(self, scope: Scope) -> None:
        body = scope.body if isinstance(scope, cst.Module) else getattr(scope.body, "body", ())
        stack: List[cst.CSTNode] = list(reversed(list(body)))
        while stack:
            node = stack.pop()
            if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                self.nested.append(node)
                continue
            if isinstance(node, cst.With) and any(_disables_grad(item.item) for item in node.items):
                # Values computed under no_grad carry no graph: bindings there link nothing.
                self.no_grad.update(id(n) for n in loops.walk(node.body))
            if isinstance(node, (cst.Global, cst.Nonlocal)):
                self.declared.update(n.name.value for n in node.names)
            self._binding(node)
            if isinstance(node, (cst.BaseSmallStatement, cst.BaseCompoundStatement)):
                self.statements.append(node)
            stack.extend(reversed(children(node)))

    def _binding(self, node: cst.CSTNode) -> None:
        reads: Set[str]
        if isinstance(node, cst.Assign):
            reads = graph_reads(node.value)
            for target in node.targets:
                self._bind_target(target.target, reads, node)
        elif isinstance(node, (cst.AnnAssign, cst.AugAssign)) and node.value is not None:
            reads = graph_reads(node.value)
            if isinstance(node, cst.AugAssign):
                reads |= graph_reads(node.target)
            self._bind_target(node.target, reads, node)
        elif isinstance(node, (cst.For, cst.CompFor)):
            self._bind_target(node.target, graph_reads(node.iter), node)
        elif isinstance(node, cst.NamedExpr):
            self._bind_target(node.target, graph_reads(node.value), node)
        elif isinstance(node, cst.WithItem) and node.asname is not None:
            self._bind_target(node.asname.name, graph_reads(node.item), node)
        elif isinstance(node, cst.Expr):
            # losses.append(l): the container now holds l's graph.
            mc = method_call(node.value)
            if isinstance(node.value, cst.Call) and mc is not None and mc[1] in ("append", "extend", "insert", "add", "update", "setdefault"):
                receiver = dotted_name(mc[0])
                if receiver is not None:
                    reads = set()
                    for arg in node.value.args:
                        reads |= graph_reads(arg.value)
                    self.bindings.append(({receiver}, reads, node))

    def _bind_target(self, target: cst.BaseExpression, reads: Set[str], node: cst.CSTNode) -> None:
        if id(node) in self.no_grad:
            reads = set()
        names: Set[str] = set()
        for part in loops.target_parts(target):
            if isinstance(part, cst.Name):
                names.add(part.value)
            else:
                # obj.attr = v, d[k] = v: the object now holds v's graph.
                root = dotted_name(part.value) if isinstance(part, (cst.Attribute, cst.Subscript)) else None
                name = dotted_name(part) if isinstance(part, cst.Attribute) else None
                names.add(name or root or "<unknown>")
                if root is not None and root.split(".", 1)[0] in self.params:
                    # d[k] = v, d.x = v on an argument: the caller's object now holds v's graph.
                    names.add("<unknown>")
        self.bindings.append((names, reads, node))

    # ------------------------------------------------------------------ queries

    def component(self, tensor: cst.BaseExpression) -> Optional[Component]:
        """The names connected to ``tensor``'s graph by bindings of this body.

        Names read but bound elsewhere (globals, attributes of outside
        objects) end up in ``foreign``; leaves and data (``w`` of
        ``torch.randn(..., requires_grad=True)``, a loader) belong to the
        component but link nothing further: they hold no graph.
        """
        local = self.locals_()
        names: Set[str] = set()
        foreign: Set[str] = set()
        frontier = set(graph_reads(tensor)) - _CONSTANTS
        while frontier:
            name = frontier.pop()
            root = name.split(".", 1)[0]
            if root not in local:
                foreign.add(name)
                continue
            if name in names:
                continue
            names.add(name)
            if name in self.params or self.clean_name(name):
                continue
            for targets, reads, _ in self.bindings:
                if name in targets or name in reads:
                    frontier |= (targets | reads) - names - _CONSTANTS
        if not names:
            return None
        return Component(names, foreign)

    def locals_(self) -> Set[str]:
        if self._locals is None:
            found: Set[str] = set()
            for targets, _, node in self.bindings:
                if not isinstance(node, cst.Expr):
                    found.update(t for t in targets if "." not in t)
            self._locals = (found | self.params) - {"self", "cls"} - self.declared
        return self._locals

    def escapes(self, component: Component) -> bool:
        names = component.names
        if names & self.declared:
            return True
        roots = {n.split(".", 1)[0] for n in names}
        if isinstance(self.scope, cst.FunctionDef) and any(t for t in names if t.startswith(("self.", "cls."))):
            return True
        for node in self.statements:
            if isinstance(node, cst.Return) and node.value is not None and graph_reads(node.value) & names:
                return True
            if isinstance(node, cst.Expr) and isinstance(node.value, cst.Yield) and node.value.value is not None:
                if graph_reads(node.value.value) & names:
                    return True
            if isinstance(node, cst.Expr) and self._escapes_through_call(node.value, names):
                return True
        for nested in self.nested:
            if _free_reads(nested) & roots:
                return True
        for targets, reads, _ in self.bindings:
            if reads & names:
                for target in targets:
                    root = target.split(".", 1)[0]
                    # Stored on an object the function does not own.
                    if target == "<unknown>" or ("." in target and root not in self.locals_()):
                        return True
                    if root in self.params and "." in target:
                        return True
        return False

    def _escapes_through_call(self, expr: cst.BaseExpression, names: Set[str]) -> bool:
        """A statement call handed part of the graph and dropped its result: it may keep it."""
        if not isinstance(expr, cst.Call):
            return False
        mc = method_call(expr)
        last = _last_name(expr) or ""
        if mc is not None and mc[1] in ("append", "extend", "insert", "add", "update", "setdefault"):
            receiver = dotted_name(mc[0])
            args = set().union(*(graph_reads(a.value) for a in expr.args)) if expr.args else set()
            # Into a container the function does not own: one it was given, or an outside one.
            owner = receiver.split(".", 1)[0] if receiver is not None else None
            return bool(args & names) and (owner is None or owner not in self.locals_() or owner in self.params)
        if last in _GRADIENT_CALLS or _DISPLAY.match(last) or last in ("zero_grad", "step", "clip_grad_norm_", "clip_grad_value_", "unscale_", "update"):
            return False
        reads: Set[str] = set()
        for arg in expr.args:
            reads |= graph_reads(arg.value)
        if mc is not None and mc[1] in PASS_METHODS:
            reads |= graph_reads(mc[0])
        return bool(reads & names)

    def clean_binding(self, node: cst.CSTNode, seen: FrozenSet[str] = frozenset()) -> bool:
        """The value bound by ``node`` is data, a number or a leaf, following names it reads."""
        if isinstance(node, (cst.For, cst.CompFor)):
            value: Optional[cst.CSTNode] = node.iter
        elif isinstance(node, cst.WithItem):
            value = node.item
        else:
            value = getattr(node, "value", None)
        if value is None:
            return False
        return _clean_value(value, lambda name: self.clean_name(name, seen))

    def clean_name(self, name: str, seen: FrozenSet[str] = frozenset()) -> bool:
        if name in seen:
            return True
        if name in self.params:
            return bool(_DATA_PARAM.match(name))
        bound = [node for targets, _, node in self.bindings if name in targets]
        return bool(bound) and all(
            id(node) in self.no_grad or self.clean_binding(node, seen | {name}) for node in bound
        )

    def loops_around(self, node: cst.CSTNode) -> List[cst.CSTNode]:
        found: List[cst.CSTNode] = []

        def visit(current: cst.CSTNode, path: List[cst.CSTNode]) -> bool:
            if current is node:
                found.extend(path)
                return True
            if isinstance(current, (cst.FunctionDef, cst.ClassDef, cst.Lambda)) and current is not self.scope:
                return False
            inner = path + [current] if isinstance(current, (cst.For, cst.While)) else path
            return any(visit(child, inner) for child in children(current))

        visit(self.scope, [])
        return found

    def carried_into(self, loop: cst.CSTNode, component: Component, tensor: cst.CSTNode) -> bool:
        """A component name read in ``loop`` before the iteration binds it, and bound in it."""
        body = getattr(loop, "body", None)
        carried = loops.carried_names(body, getattr(loop, "test", None)) if body is not None else None
        if carried is None:
            return False
        inside = {id(n) for n in loops.walk(loop)}
        # Source order: a read before the name's first binding in the body sees the previous iteration.
        order = {id(n): i for i, n in enumerate(loops.walk(loop))}
        for name in carried.names & component.names:
            first = carried.first_read.get(name)
            if first is not None and self._cut_on_entry(name, first, inside):
                continue
            bound = [node for targets, _, node in self.bindings if name in targets and id(node) in inside]
            if not bound:
                continue
            assigned_at = min(order[id(node)] for node in bound)
            read_at = [order[id(node)] for _, reads, node in self.bindings if name in reads and id(node) in inside]
            if name in graph_reads(tensor) and id(tensor) in order:
                read_at.append(order[id(tensor)])
            if not any(at <= assigned_at for at in read_at):
                continue  # every graph read comes after this iteration rebinds it
            # A leaf updated under no_grad (``w -= lr * g``) or data re-created each time carries no graph.
            if not all(id(node) in self.no_grad or self.clean_binding(node) for node in bound):
                return True
        return False

    def _cut_on_entry(self, name: str, first: cst.CSTNode, inside: Set[int]) -> bool:
        """The iteration's first read of ``name`` rebinds it detached: ``h = h.detach()``."""
        for targets, _, node in self.bindings:
            value = getattr(node, "value", None)
            if name in targets and id(node) in inside and isinstance(value, cst.BaseExpression):
                if any(n is first for n in loops.walk(value)):
                    return _clean_value(value)
        return False

    def from_before(self, loop: cst.CSTNode, component: Component) -> bool:
        """A graph value of the component computed before ``loop`` and read in it."""
        inside = set(loops.walk(loop))
        bound_inside: Set[str] = set()
        for targets, _, node in self.bindings:
            if node in inside:
                bound_inside |= targets
        read_inside = _reads_names(loop)
        for targets, _, node in self.bindings:
            if node in inside or not (targets & component.names & read_inside) - bound_inside:
                continue
            if id(node) not in self.no_grad and not self.clean_binding(node):
                return True
        # Parameters read in the loop were computed by the caller, once.
        return any(p in component.names and p in read_inside and not _DATA_PARAM.match(p) for p in self.params)


# --------------------------------------------------------------------------- expressions


def graph_reads(node: Optional[cst.CSTNode]) -> Set[str]:
    """Names (and dotted names of attributes) an expression reads as operands that may carry a graph.

    Callees are not operands (``model`` in ``model(x)``), nor receivers of
    methods other than tensor methods (``scaler`` in ``scaler.scale(loss)``);
    anything under ``detach()``, ``item()``, ``float()``, ``.shape`` … is cut.
    """
    found: Set[str] = set()
    if node is None:
        return found
    stack: List[cst.CSTNode] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Name):
            found.add(current.value)
        elif isinstance(current, cst.Attribute):
            if current.attr.value in CUT_ATTRIBUTES:
                continue
            name = dotted_name(current)
            if name is not None:
                found.add(name)
            else:
                stack.append(current.value)
        elif isinstance(current, cst.Subscript):
            # x[i]: the element carries x's graph; an index carries none.
            stack.append(current.value)
        elif isinstance(current, cst.Call):
            if _cuts(current):
                continue
            stack.extend(a.value for a in current.args)
            mc = method_call(current)
            if mc is not None and mc[1] in PASS_METHODS and mc[1] != "scale":
                stack.append(mc[0])
            elif mc is None and not isinstance(current.func, (cst.Name, cst.Attribute)):
                stack.append(current.func)
        elif isinstance(current, (cst.Lambda, cst.BaseString, cst.Integer, cst.Float, cst.Imaginary, cst.Comparison)):
            continue  # a comparison gives a bool (a bool tensor has no history)
        elif isinstance(current, cst.IfExp):
            stack.extend((current.body, current.orelse))  # the test only picks a branch
        elif isinstance(current, (cst.ListComp, cst.GeneratorExp, cst.SetComp, cst.DictComp)):
            bound = {n for comp in _generators(current.for_in) for n in _target_names(comp.target)}
            element = graph_reads(current.value) | graph_reads(current.key) if isinstance(current, cst.DictComp) else graph_reads(current.elt)
            found |= element - bound
            if element & bound:
                # Elements computed from what is iterated: ``tuple(t.detach() for t in h)`` is not.
                for comp in _generators(current.for_in):
                    found |= graph_reads(comp.iter) - bound
        else:
            stack.extend(children(current))
    return found


def _cuts(call: cst.Call) -> bool:
    mc = method_call(call)
    if mc is not None and mc[1] in NO_HISTORY_METHODS:
        return True
    name = dotted_name(call.func) or ""
    return name in CUT_FUNCTIONS


def _disables_grad(item: cst.BaseExpression) -> bool:
    func = item.func if isinstance(item, cst.Call) else item
    return (dotted_name(func) or "").endswith(("no_grad", "inference_mode"))


#: tensor methods whose result has the receiver's history and no other (a device, a dtype, sizes)
_SAME_HISTORY_METHODS = frozenset(
    {"to", "cuda", "cpu", "float", "half", "double", "long", "view", "reshape", "unsqueeze", "split", "chunk", "t"}
)


def _clean_value(value: cst.CSTNode, clean_name: Callable[[str], bool] = lambda name: False) -> bool:
    """A value that is data, a number or a leaf, never an autograd history: a factory, a loader, a literal.

    ``clean_name`` says whether a name read in it is clean.
    """
    if isinstance(value, (cst.BaseString, cst.Integer, cst.Float, cst.Imaginary)):
        return True
    if isinstance(value, cst.Name):
        return value.value in ("None", "True", "False") or clean_name(value.value)
    if isinstance(value, (cst.ListComp, cst.GeneratorExp, cst.SetComp)):
        bound = {n for comp in _generators(value.for_in) for n in _target_names(comp.target)}
        if _clean_value(value.elt, lambda name: name not in bound and clean_name(name)):
            return True  # every element detached or converted, whatever is iterated
        inner = lambda name: name in bound or clean_name(name)  # noqa: E731
        return all(_clean_value(c.iter, clean_name) for c in _generators(value.for_in)) and _clean_value(value.elt, inner)
    if isinstance(value, (cst.Tuple, cst.List)):
        return all(_clean_value(e.value, clean_name) for e in value.elements)
    if isinstance(value, cst.UnaryOperation):
        return _clean_value(value.expression, clean_name)
    if isinstance(value, cst.BinaryOperation):
        return _clean_value(value.left, clean_name) and _clean_value(value.right, clean_name)
    if isinstance(value, cst.Subscript):
        return _clean_value(value.value, clean_name)
    if isinstance(value, cst.Attribute):
        return value.attr.value in CUT_ATTRIBUTES or _clean_value(value.value, clean_name)
    if isinstance(value, cst.Call):
        if _cuts(value) or has_keyword_true(value, "requires_grad"):
            return True  # a number, a detached copy, or a leaf: no history to keep
        name = dotted_name(value.func) or ""
        last = name.rsplit(".", 1)[-1]
        mc = method_call(value)
        if mc is not None and mc[1] in _SAME_HISTORY_METHODS:
            # Their arguments are a device, a dtype or sizes (``x.to(device)``, ``x.to(other)`` takes only
            # other's dtype and device): the result's history is the receiver's.
            return _clean_value(mc[0], clean_name)
        if (name.startswith(("torch.", "th.")) and last in NO_HISTORY_TORCH_FUNCTIONS) or last in NO_HISTORY_TORCH_FUNCTIONS and name.count(".") == 0:
            return True
        if last == "Parameter":
            return True
        if name in ("tuple", "list", "set", "dict"):
            return all(_clean_value(a.value, clean_name) for a in value.args)
        if _DATA_CALLEE.search(last):
            return all(_clean_value(a.value, clean_name) or _plain_reference(a.value) for a in value.args)
    return False


def _graph_globals(module: cst.Module) -> Set[str]:
    """Module-level names bound to something that may hold a graph."""
    body = Body(module)
    found: Set[str] = set()
    for targets, _, node in body.bindings:
        if not body.clean_binding(node):
            found.update(t for t in targets if "." not in t)
    return found


def _graph_attributes(module: cst.Module) -> Set[str]:
    """Attribute names the module assigns something that may be a graph (``self.reg = model.penalty()``).

    Data, numbers and leaves are not (``self.noise = torch.randn(n)``), nor
    configuration copied onto an object: a copy of a constructor's argument
    (``self.alpha = alpha`` in ``__init__``) or of a name that holds no graph
    where it is copied. A copy of a name that holds one is: ``fake =
    self.gen(x); self.fake = fake`` keeps the generator's graph on the object
    for other methods to walk, whatever the copy's spelling (``self.a, self.b
    = out.split(n)`` too). A copy of another attribute is a graph when that
    one is.
    """
    found: Set[str] = set()
    #: attribute -> the attributes it is a plain copy of (``self.y = self.x.cuda()``)
    copies: Dict[str, Set[str]] = {}
    graph_globals = _graph_globals(module)
    for scope in _all_scopes(module):
        body = Body(scope)
        init = isinstance(scope, cst.FunctionDef) and scope.name.value == "__init__"
        local = body.locals_()
        for targets, _, node in body.bindings:
            attributes = [t.rsplit(".", 1)[-1] for t in targets if "." in t]
            if not attributes or id(node) in body.no_grad or body.clean_binding(node):
                continue
            value = getattr(node, "value", None)
            if isinstance(value, cst.Call) and _constructs(value) and all(
                name.split(".", 1)[0] in ("self", "cls") or body.clean_name(name) or (init and name in body.params)
                for argument in value.args for name in graph_reads(argument.value)
            ):
                continue  # an object built from configuration (``self.head = nn.Linear(4, 1)``), not a graph
            sources = _copied_names(value, local) if isinstance(node, cst.Assign) else None
            if sources is None:
                found.update(attributes)
                continue
            graph = False
            for name in sources:
                if "." in name:
                    for attribute in attributes:
                        copies.setdefault(attribute, set()).add(name.rsplit(".", 1)[-1])
                elif name in local:
                    graph = graph or not (body.clean_name(name) or (init and name in body.params))
                else:
                    graph = graph or name in graph_globals
            if graph:
                found.update(attributes)
    changed = True
    while changed:
        changed = False
        for attribute, sources in copies.items():
            if attribute not in found and sources & found:
                found.add(attribute)
                changed = True
    return found


def _graph_arguments(module: cst.Module) -> Dict[str, Set[str]]:
    """For each function name, the parameters some call in the module hands a value that may hold a graph.

    ``adversarial(fake)`` with ``fake = gen(z)`` hands ``x`` of ``def adversarial(x)`` a graph whatever
    the parameter's name. Calls are matched by the callee's last name (``f(...)``, ``self.f(...)``);
    an argument is judged where the call is (data, a number, a leaf or a detached copy is none).
    """
    definitions: Dict[str, List[cst.FunctionDef]] = {}
    for node in loops.walk(module):
        if isinstance(node, cst.FunctionDef):
            definitions.setdefault(node.name.value, []).append(node)
    found: Dict[str, Set[str]] = {}
    for scope in _all_scopes(module):
        body: Optional[Body] = None
        root = scope.body if isinstance(scope, cst.FunctionDef) else scope
        for node in walk_local(root):
            if not isinstance(node, cst.Call) or any(a.star for a in node.args):
                continue
            name = _last_name(node)
            if name is None or name not in definitions:
                continue
            for definition in definitions[name]:
                params = [p.name.value for p in (*definition.params.posonly_params, *definition.params.params)]
                if params and params[0] in ("self", "cls") and isinstance(node.func, cst.Attribute):
                    params = params[1:]
                for index, arg in enumerate(node.args):
                    param = arg.keyword.value if arg.keyword is not None else params[index] if index < len(params) else None
                    if param is None:
                        continue
                    if body is None:
                        body = Body(scope)
                    if not _clean_value(arg.value, body.clean_name):
                        found.setdefault(name, set()).add(param)
    return found


def _constructs(call: cst.Call) -> bool:
    """``nn.Linear(4, 1)``, ``Net(cfg).to(device)``, ``torch.optim.Adam(...)``: a class is called, and
    what it builds is an object (a tensor class builds a tensor with no history)."""
    while True:
        mc = method_call(call)
        if mc is not None and mc[1] in ("to", "cuda", "cpu", "float", "double", "half", "train", "eval") and isinstance(mc[0], cst.Call):
            call = mc[0]
            continue
        break
    last = (dotted_name(call.func) or "").rsplit(".", 1)[-1]
    return last[:1].isupper()


def _graph_holding_classes(module: cst.Module, graph_attributes: Set[str]) -> Set[str]:
    """Classes of the module whose methods set an attribute of ``self`` that may hold a graph (a
    forward keeping ``self.last_hidden = h``)."""
    found: Set[str] = set()
    for node in loops.walk(module):
        if not isinstance(node, cst.ClassDef):
            continue
        for inner in loops.walk(node.body):
            targets = loops.binding_targets(inner) if isinstance(inner, (cst.Assign, cst.AnnAssign, cst.AugAssign)) else []
            if any(
                isinstance(part, cst.Attribute) and isinstance(part.value, cst.Name) and part.value.value == "self"
                and part.attr.value in graph_attributes
                for target in targets for part in loops.target_parts(target)
            ):
                found.add(node.name.value)
                break
    return found


def _class_methods(module: cst.Module) -> Dict[int, Dict[str, cst.FunctionDef]]:
    """For each method (by id), the methods of its class by name: read once per module."""
    found: Dict[int, Dict[str, cst.FunctionDef]] = {}
    for node in loops.walk(module):
        if isinstance(node, cst.ClassDef):
            methods = {s.name.value: s for s in node.body.body if isinstance(s, cst.FunctionDef)}
            for method in methods.values():
                found[id(method)] = methods
    return found


def _assigned_attributes(module: cst.Module) -> Set[str]:
    """Attribute names the module binds anywhere (``self.x = ...``, ``for self.i in ...``, ``self.t += ...``)."""
    return {
        part.attr.value
        for node in loops.walk(module)
        for target in loops.binding_targets(node)
        for part in loops.target_parts(target)
        if isinstance(part, cst.Attribute)
    }


def _all_scopes(module: cst.Module) -> Iterator[Scope]:
    yield module
    for node in loops.walk(module):
        if isinstance(node, cst.FunctionDef):
            yield node


def _copied_names(value: Optional[cst.BaseExpression], local: Set[str]) -> Optional[Set[str]]:
    """The names ``value`` is a plain copy of, moved at most (``self.y = self.y.cuda()``, ``a, b = x, y``,
    ``h.split(n)``); None when it computes something (a call, arithmetic, a function of a module such as
    ``torch.split(x, n)``, whose receiver is no local value)."""
    if value is None:
        return None
    if isinstance(value, (cst.Tuple, cst.List)):
        found: Set[str] = set()
        for element in value.elements:
            inner = None if isinstance(element, cst.StarredElement) else _copied_names(element.value, local)
            if inner is None:
                return None
            found |= inner
        return found
    moved = False
    while isinstance(value, cst.Call):
        mc = method_call(value)
        if mc is None or mc[1] not in _SAME_HISTORY_METHODS:
            return None
        value = mc[0]
        moved = True
    if _clean_value(value):
        return set()
    name = dotted_name(value) if isinstance(value, (cst.Name, cst.Attribute)) else None
    if name is None:
        return None
    if moved and "." not in name and name not in local:
        return None  # torch.split(x, n): a function of a module, not a method of a value
    return {name}


def _plain_reference(node: cst.BaseExpression) -> bool:
    """``loader``, ``self.loaders[mode]``, a keyword value: what a data callee is handed, not computed."""
    while isinstance(node, (cst.Subscript, cst.Attribute)):
        node = node.value
    return isinstance(node, (cst.Name, cst.BaseString, cst.Integer, cst.Float))


def _is_true(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "True"


def _last_name(call: cst.Call) -> Optional[str]:
    func = call.func
    if isinstance(func, cst.Attribute):
        return func.attr.value
    if isinstance(func, cst.Name):
        return func.value
    return None


def _gradient_calls(scope: Scope) -> Iterator[cst.Call]:
    """Calls in ``scope`` (not in nested functions) that back-propagate or differentiate, by name."""
    body = scope.body if isinstance(scope, cst.Module) else [scope.body]
    stack: List[cst.CSTNode] = list(reversed(list(body)))
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        if isinstance(node, cst.Call) and _last_name(node) in _GRADIENT_CALLS:
            yield node
        stack.extend(reversed(children(node)))


def _single_assignment(scope: Scope, name: str) -> Optional[cst.BaseExpression]:
    """The value of ``name`` when ``scope`` (or the module, for a global) binds it exactly once, plainly."""
    values: List[cst.BaseExpression] = []
    other = False
    for node in loops.walk(scope):
        if isinstance(node, cst.Assign):
            for target in node.targets:
                if isinstance(target.target, cst.Name) and target.target.value == name:
                    values.append(node.value)
                elif name in {n.value for n in loops.target_parts(target.target) if isinstance(n, cst.Name)}:
                    other = True
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.For, cst.NamedExpr)):
            if name in {n.value for n in loops.target_parts(node.target) if isinstance(n, cst.Name)}:
                other = True
        elif isinstance(node, cst.Param) and node.name.value == name:
            other = True
    return values[0] if len(values) == 1 and not other else None


def _dict_entry(holder: cst.BaseExpression, key: str) -> Optional[cst.BaseExpression]:
    if isinstance(holder, cst.Dict):
        for element in holder.elements:
            if isinstance(element, cst.DictElement) and isinstance(element.key, cst.SimpleString) and element.key.evaluated_value == key:
                return element.value
    if isinstance(holder, cst.Call) and dotted_name(holder.func) == "dict":
        arg = keyword(holder, key)
        return arg.value if arg is not None else None
    return None


def _reads_of(scope: Scope, name: str) -> int:
    count = 0
    for node in loops.walk(scope):
        if isinstance(node, cst.Name) and node.value == name:
            count += 1
    return count - 1  # its one binding


def _free_reads(node: cst.CSTNode) -> Set[str]:
    """Names a nested function, class or lambda reads from the enclosing scope."""
    if isinstance(node, cst.ClassDef):
        found: Set[str] = set()
        for stmt in getattr(node.body, "body", ()):
            found |= _free_reads(stmt) if isinstance(stmt, cst.FunctionDef) else _reads_names(stmt)
        return found
    if isinstance(node, cst.FunctionDef):
        return _reads_names(node.body) - Body(node).locals_()
    return _reads_names(node)


def _reads_names(node: cst.CSTNode) -> Set[str]:
    found: Set[str] = set()
    for current in loops.walk(node):
        if isinstance(current, cst.Name):
            found.add(current.value)
        elif isinstance(current, cst.Attribute):
            name = dotted_name(current)
            if name is not None:
                found.add(name)
    return found


def _target_names(target: cst.CSTNode) -> FrozenSet[str]:
    if not isinstance(target, cst.BaseExpression):
        return frozenset()
    return frozenset(name for name, _ in loops.target_names(target) if "." not in name)


def _generators(comp_for: Optional[cst.CompFor]) -> Iterator[cst.CompFor]:
    while comp_for is not None:
        yield comp_for
        comp_for = comp_for.inner_for_in
