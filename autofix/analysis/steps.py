"""Training-step segmentation and graph sharing inside one function.

Two facts built here serve AF101 and AF104:

* :func:`graph_flow` — a def-use walk over each function body (and the module
  body) that records, for every ``backward()`` call, the set of *graph origins*
  its loss derives from. An origin is a value computed with autograd in this
  scope: the result of a module-like call (``model(x)``, ``self.backbone(f)``,
  ``compute_losses(...)``). Two losses whose origin sets intersect were built
  from one forward pass, so their backward traversals go through one graph.
  Data never makes an origin: factories (``torch.randn``), loaders
  (``next(it)``, ``get_batch()``), ``.detach()``/``.item()``, anything computed
  under ``torch.no_grad()``; parameters and loop variables are leaves.

* :func:`linear_block` — the statements of one block in execution order with
  ``with`` bodies flattened in (``autocast`` wraps the forward but does not
  branch), which is the granularity the rules reason about.
"""

from __future__ import annotations

import enum
import itertools
import re
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Dict, FrozenSet, Iterator, List, Optional, Sequence, Set, Tuple, TypeVar, Union

import libcst as cst

from autofix.analysis.conditions import Literal, arm_literals, bound_names, declared_names, immutable_value
from autofix.analysis.dataflow import bind_arguments, module_facts
from autofix.analysis.index import module_index
from autofix.analysis.names import bound_roots as _roots, children as _children, dotted_name, iter_calls, keyword, method_call
from autofix.analysis.training import (
    is_function_backward,
    BACKWARD_NAMES,
    disables_grad,
    is_backward_call,
    is_step_call,
    is_zero_grad_call,
    optimizer_facts,
    qualified_names,
)
from autofix.model.frameworks import LIGHTNING_STEP, Framework, LoopContract
from autofix.model.returned import sources_share
from autofix.model.project import ModuleModel
from autofix.model.summaries import MODULE_BODY, ClassSummary, FunctionSummary, Kind, may_hold_graph
from autofix.model.vocabulary import (
    CUT_ATTRIBUTES,
    CUT_FUNCTIONS,
    CUT_METHODS,
    KEEP_METHODS,
    LIBRARIES,
    TORCH_CUT_FUNCTIONS,
)
from autofix.context import RuleContext

Origins = FrozenSet[int]
_EMPTY: Origins = frozenset()

# One vocabulary for every rule: what cuts the graph and what keeps it.
_CUT_METHODS = CUT_METHODS
_CUT_ATTRIBUTES = CUT_ATTRIBUTES
PASS_METHODS = KEEP_METHODS
_BUILTINS = {
    "len", "range", "enumerate", "zip", "list", "tuple", "dict", "set", "sum", "min", "max", "abs",
    "float", "int", "bool", "str", "print", "isinstance", "sorted", "reversed", "map", "filter",
    "round", "any", "all", "getattr", "hasattr", "id", "repr", "format",
}
_NO_GRAPH_BUILTINS = CUT_FUNCTIONS | {"iter", "next"}
# Callees that fetch or synthesise data: with no graph-carrying argument their
# result is an input, not a forward pass.
_DATA_CALLEE = re.compile(
    r"batch|data|loader|sample|fetch|load|read|synth|noise|rand|augment|transform|"
    r"preprocess|prepare|collate|^next$|^iter$|tokeni[sz]|encode_input|get_input",
    re.IGNORECASE,
)


# torch functions and tensor methods whose result is always a tensor (a fix may call `.detach()` on it).
_TENSOR_FUNCTIONS = re.compile(
    r"^torch\.(cat|concat|stack|hstack|vstack|matmul|mm|bmm|add|sub|mul|div|exp|log|sigmoid|tanh|relu|softmax|"
    r"where|clamp|flatten|reshape|permute|transpose|unsqueeze|squeeze|abs|sum|mean|nn\.functional\.\w+)$"
)
_TENSOR_METHODS = frozenset(
    {"view", "reshape", "permute", "transpose", "flatten", "squeeze", "unsqueeze", "contiguous", "clone",
     "float", "half", "double", "to", "cuda", "cpu", "sum", "mean", "abs", "exp", "log", "sigmoid", "tanh"}
)


def names_class(context: RuleContext, func: cst.BaseExpression) -> bool:
    """``func`` names a class (a capitalised callee: ``Net``, ``argparse.ArgumentParser``, a
    ``Tensor`` alias), not a module held in a name or attribute (``G(z)``, ``self.D(fake)``)."""
    name = dotted_name(func)
    if name is None or not name.rsplit(".", 1)[-1][:1].isupper():
        return False
    return name.split(".", 1)[0] != "self" and name not in module_facts(context).modules


def _unpacked_pairs(
    target: cst.BaseExpression, value: cst.BaseExpression
) -> Optional[List[Tuple[cst.BaseExpression, cst.BaseExpression]]]:
    """``a, b = x, y``: each target with the element it receives (None unless both sides are
    literals of one length with no starred element)."""
    if not (isinstance(target, (cst.Tuple, cst.List)) and isinstance(value, (cst.Tuple, cst.List))):
        return None
    if len(target.elements) != len(value.elements):
        return None
    if any(isinstance(e, cst.StarredElement) for e in (*target.elements, *value.elements)):
        return None
    return [(t.value, v.value) for t, v in zip(target.elements, value.elements)]


def _derives_elements(callee: str, args: List["_Value"]) -> bool:
    """Every element of what ``callee(graph_value)`` returns derives from that one graph.

    A container argument passes on whether its own elements share a graph
    (``ensure_tuple((a, b))``). Not for constructors (``Dataset(x)``) and data
    helpers (``make_loader(cfg)``): what they hold is data, not outputs of the
    argument's graph.
    """
    if callee[:1].isupper() or _DATA_CALLEE.search(callee):
        return False
    return any(v.shared_elements if v.container else bool(v.origins) for v in args)


#: what a walk asks of the program model about one call or name, kept per walked function
_Answer = TypeVar("_Answer")


class _GradFree(enum.Enum):
    """What a call of code that computes its result with autograd off hands back (:meth:`_GraphWalker._grad_free_callee`)."""

    NO_GRAPH = "no graph"
    ARGUMENTS = "the arguments' graphs"


def _sharing_groups(sources: Sequence[FrozenSet[str]]) -> List[int]:
    """For each element, the first element it shares a source with (:func:`sources_share`),
    directly or through others."""
    group = list(range(len(sources)))
    for i, j in itertools.combinations(range(len(sources)), 2):
        if sources_share(sources[i], sources[j]):
            old, new = group[j], group[i]
            group = [new if g == old else g for g in group]
    return group


def _library_callable(qualified: Set[str]) -> bool:
    """A function or class of a library (``tqdm.tqdm``, ``torchvision.datasets.ImageFolder``), not of
    this project: calling it runs none of the project's modules, so it starts no forward pass."""
    return bool(qualified) and all("." in q and q.split(".", 1)[0] in LIBRARIES for q in qualified)


def _library_value(origins: "Origins", arg_values: List["_Value"]) -> "_Value":
    """What a library call hands back: its arguments' graphs, and elements sharing one only where an
    argument's elements already did (``tqdm(pairs)`` of a list of one forward's outputs)."""
    return _Value(origins, shared_elements=any(v.shared_elements for v in arg_values if v.container))


def _makes_tensor(qualified: Set[str]) -> bool:
    return any(_TENSOR_FUNCTIONS.match(q) for q in qualified)


@dataclass
class BackwardUse:
    """One ``backward()`` call and what its loss was built from when it ran."""

    call: cst.Call
    #: The tensor that is back-propagated (receiver, or first argument of ``torch.autograd.backward``).
    tensor: Optional[cst.BaseExpression]
    origins: Origins


@dataclass
class GraphFlow:
    """Per-module result of the def-use walk."""

    uses: Dict[cst.Call, BackwardUse] = field(default_factory=dict)
    #: ``for l in losses:`` loops: origins of the container's elements, and
    #: whether distinct elements provably share an origin.
    containers: Dict[cst.For, Tuple[Origins, bool]] = field(default_factory=dict)

    def origins(self, call: cst.Call) -> Origins:
        use = self.uses.get(call)
        return use.origins if use else _EMPTY


def backward_holders(context: RuleContext) -> Set[cst.CSTNode]:
    """Every statement (simple or compound, functions and classes too) holding a backward call.

    Spelled syntactically (``.backward(`` or a callee named ``backward``) so
    that blocks and functions without one are skipped before any costly work.
    """
    return context.fact("backward_holders", lambda: _mark_backward(context.module))


def _mark_backward(module: cst.Module) -> Set[cst.CSTNode]:
    marked: Set[cst.CSTNode] = set()

    def walk(node: cst.CSTNode) -> bool:
        found = False
        if isinstance(node, cst.Call):
            func = node.func
            name = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", None)
            found = name in BACKWARD_NAMES
        for child in _children(node):
            found = walk(child) or found
        if found and isinstance(node, (cst.BaseStatement, cst.BaseSmallStatement)):
            marked.add(node)
        return found

    walk(module)
    return marked


def unknown_callees(context: RuleContext) -> FrozenSet[str]:
    """Names this module only ever calls, that the project cannot resolve: never bound here (no def,
    assignment or parameter, never used as a value) and imported from a module the project does not
    hold (``from onpolicy.util import check``) or reached through a star import. Nothing is known of
    the code they run; called with no graph going in, no forward pass of the project's modules is
    proven. (A name defined nowhere stays a possible module: a snippet's ``model(x)``.)"""
    return context.fact("steps.unknown_callees", lambda: _unknown_callees(context))


def _unknown_callees(context: RuleContext) -> FrozenSet[str]:
    model = context.model
    called: Set[str] = set()
    other: Set[str] = set()
    imported: Set[str] = set()
    stack: List[cst.CSTNode] = [context.module]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.ImportFrom) and not isinstance(node.names, cst.ImportStar):
            imported.update(
                (alias.asname.name.value if alias.asname is not None and isinstance(alias.asname.name, cst.Name)
                 else dotted_name(alias.name) or "")
                for alias in node.names
            )
            continue  # an imported name is bound by the import, not used as a value
        if isinstance(node, (cst.Import, cst.ImportFrom)):
            continue
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
            called.add(node.func.value)
            stack.extend(c for c in _children(node) if c is not node.func)
            continue
        if isinstance(node, cst.Name):
            other.add(node.value)
        stack.extend(_children(node))
    star = bool(model.summary.star_imports)
    return frozenset(
        name for name in called - other
        if (star or name in imported)
        and name not in _BUILTINS and name not in _NO_GRAPH_BUILTINS and model.resolve(name) is None
    )


def graph_flow(context: RuleContext) -> GraphFlow:
    return context.fact("graph_flow", lambda: _GraphWalker(context).run())


@dataclass
class _Value:
    origins: Origins = _EMPTY
    #: Elements of a container built here share an origin (``[crit(o) for o in model(x)]``).
    shared_elements: bool = False
    #: Provably a tensor: made by a ``torch.*`` function or a tensor method of a tensor.
    tensor: bool = False
    #: Built here as a list, tuple, set or dict of values (whose sharing ``shared_elements`` says).
    container: bool = False
    #: A tuple or list of known length: each element's own value (``return policy_loss, q1_loss``),
    #: so unpacking it gives each name its element's graph, not the union of all of them.
    parts: Tuple["_Value", ...] = ()
    #: An object built with keyword arguments (``SACLosses(policy_loss=…, qf1_loss=…)``): each
    #: field's value, read back by ``losses.policy_loss``.
    fields: Tuple[Tuple[str, "_Value"], ...] = ()
    #: An empty list or tuple literal (``self.transition = []``): of known length, none, so
    #: ``.append(a)`` and ``.extend([b, c])`` make a list whose :attr:`parts` are known.
    empty: bool = False
    #: A dict built here with string keys (``{'value': v, 'log_prob': lp}``): :attr:`fields` are
    #: all it holds, so ``d['value']`` reads that entry's graph alone and ``d['value'] = x``
    #: replaces it.
    keyed: bool = False
    #: A string known here: a dict's key while a comprehension walks its keys
    #: (``{k: torch.cat([t[k] for t in rows]) for k in rows[0].keys()}``).
    key: Optional[str] = None

    def field_value(self, name: str) -> Optional["_Value"]:
        return next((value for key, value in self.fields if key == name), None)


class _Env(Dict[str, _Value]):
    """A scope's values by dotted name, knowing which keys extend which name.

    Rebinding ``self.x`` forgets ``self.x.y``. Finding those by scanning every
    key made a long module-level script quadratic (a 4,000-line script spent
    6.5 s in that scan); the index answers from the name alone.
    """

    def __init__(self, items: Any = ()) -> None:
        super().__init__()
        self._extensions: Dict[str, Set[str]] = {}
        if isinstance(items, _Env):
            # A copy (a comprehension's scope): at C speed, as dict(env) was.
            dict.update(self, items)
            self._extensions = {prefix: set(keys) for prefix, keys in items._extensions.items() if keys}
        else:
            self.update(items)

    def __setitem__(self, key: str, value: _Value) -> None:
        if key not in self:
            for prefix in _prefixes(key):
                self._extensions.setdefault(prefix, set()).add(key)
        super().__setitem__(key, value)

    def __delitem__(self, key: str) -> None:
        super().__delitem__(key)
        for prefix in _prefixes(key):
            self._extensions[prefix].discard(key)

    def update(self, items: Any = (), **more: _Value) -> None:  # type: ignore[override]
        for key, value in (items.items() if hasattr(items, "items") else items):
            self[key] = value
        for key, value in more.items():
            self[key] = value

    def pop(self, key: str, *default: Any) -> Any:  # type: ignore[override]
        if key in self:
            value = self[key]
            del self[key]
            return value
        if default:
            return default[0]
        raise KeyError(key)

    def setdefault(self, key: str, default: Any = None) -> Any:  # type: ignore[override]
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self) -> None:
        super().clear()
        self._extensions.clear()

    def popitem(self) -> Any:
        raise TypeError("_Env.popitem is not supported")

    def extensions(self, name: str) -> List[str]:
        """The keys that extend ``name`` with more dotted parts (``self.x.y`` for ``self.x``)."""
        return list(self._extensions.get(name, ()))


def _prefixes(key: str) -> Iterator[str]:
    end = key.find(".")
    while end != -1:
        yield key[:end]
        end = key.find(".", end + 1)


@dataclass(frozen=True)
class OriginSite:
    """Where a graph origin was made: the forward call and what it was given."""

    call: cst.Call
    #: the function (or module) whose code holds the call
    scope: Optional[cst.CSTNode]
    #: each positional or keyword argument's expression and value
    args: Tuple[Tuple[cst.BaseExpression, "_Value"], ...]
    #: the call builds an object (``Net(cfg)``, ``uniform_initializer(0.01)`` of a project class):
    #: no forward pass, so two losses that both reach it share no node through it
    constructs: bool = False


class _GraphWalker:
    #: How many times a loop body is walked (twice: the second round sees what the first stored).
    LOOP_ROUNDS = 2

    def __init__(self, context: RuleContext) -> None:
        self.context = context
        self.flow = GraphFlow()
        self._ids = itertools.count(1)
        self._loop_depth = 0
        #: expressions whose value is taken as cut from the graph (what-if for a ``.detach()`` fix)
        self.cut: Set[cst.CSTNode] = set()
        self.sites: Dict[int, OriginSite] = {}
        self._last_origin = 0
        self._scope: Optional[cst.CSTNode] = None
        #: the ``def`` being walked (nested defs are walked as scopes of their own)
        self._def: Optional[cst.FunctionDef] = None
        self._graph_free: Dict[Tuple[int, str], Optional[_GradFree]] = {}
        self._library: Dict[Tuple[int, str], bool] = {}
        self._instantiates: Dict[Tuple[int, str], bool] = {}
        self._free_elements: Dict[Tuple[int, str], Optional[Tuple[bool, ...]]] = {}
        #: a ``for`` target bound to each row of a list of dicts built here → that list's name:
        #: ``for t in reversed(rows): t['ret'] = r`` writes an entry into the rows of ``rows``
        self._row_alias: Dict[str, str] = {}
        #: arguments handed to a library object's method: the graph of its result through them is assumed
        self.assumed: Set[cst.CSTNode] = set()
        #: (statement, index of the branch) for each branch being walked
        self._branch: List[Tuple[int, int]] = []

    def run(self) -> GraphFlow:
        self._holders = backward_holders(self.context)
        self._walk_body(self.context.module.body, _Env(), False)
        return self.flow

    # ------------------------------------------------------------------ statements

    def _walk_body(self, body, env: "_Env", disabled: bool) -> None:
        for stmt in body:
            self._walk_stmt(stmt, env, disabled)

    def _walk_stmt(self, stmt: cst.CSTNode, env: "_Env", disabled: bool) -> None:
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            if stmt not in self._holders:
                return
            # A new scope: its parameters are leaves, it sees no locals of ours.
            inner_disabled = isinstance(stmt, cst.FunctionDef) and any(
                disables_grad(self.context, d.decorator) for d in stmt.decorators
            )
            outer, aliases = self._def, self._row_alias
            self._def, self._row_alias = (stmt if isinstance(stmt, cst.FunctionDef) else None), {}
            self._walk_body(_block_body(stmt.body), _Env(), inner_disabled)
            self._def, self._row_alias = outer, aliases
            return
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                self._walk_small(small, env, disabled)
            return
        if isinstance(stmt, cst.With):
            off = disabled or any(disables_grad(self.context, item.item) for item in stmt.items)
            for item in stmt.items:
                if item.asname is not None:
                    self._bind(item.asname.name, _EMPTY, env)
            self._walk_body(_block_body(stmt.body), env, off)
            return
        row: Optional[Tuple[str, Optional[str]]] = None
        if isinstance(stmt, cst.For):
            value = self._iterated(stmt.iter, env, disabled)
            self._bind(stmt.target, value.origins, env)
            self.flow.containers[stmt] = (value.origins, value.shared_elements)
            rows = _row_list(stmt.iter)
            each = _keyed_rows(env.get(rows, _Value())) if rows is not None and isinstance(stmt.target, cst.Name) else None
            if each is not None and isinstance(stmt.target, cst.Name) and rows is not None:
                # Each round's target is one of the rows built here (their graphs, entry by entry),
                # and what is written into it is written into that row.
                self._assign(stmt.target, each, env)
                row = (stmt.target.value, self._row_alias.get(stmt.target.value))
                self._row_alias[stmt.target.value] = rows
        if isinstance(stmt, cst.SimpleStatementSuite):
            for small in stmt.body:
                self._walk_small(small, env, disabled)
            return
        # if / while / try / match: walk every branch in order with one
        # environment (an assignment in a branch may happen).
        # A loop body runs again: walk it twice (to a small depth) so that
        # `losses.append(head(features))` sees the elements of earlier rounds.
        rounds = self.LOOP_ROUNDS if isinstance(stmt, (cst.For, cst.While)) and self._loop_depth < 3 else 1
        self._loop_depth += isinstance(stmt, (cst.For, cst.While))
        for _ in range(rounds):
            for index, child in enumerate(_child_blocks(stmt)):
                self._branch.append((id(stmt), index))
                self._walk_branch(_block_body(child), env, disabled)
                self._branch.pop()
        self._loop_depth -= isinstance(stmt, (cst.For, cst.While))
        if row is not None:
            target, outer_rows = row
            self._row_alias.pop(target, None)
            if outer_rows is not None:
                self._row_alias[target] = outer_rows

    def _walk_branch(self, body: Sequence[cst.CSTNode], env: "_Env", disabled: bool) -> None:
        self._walk_body(body, env, disabled)

    def _iterated(self, iterable: cst.BaseExpression, env: "_Env", disabled: bool) -> _Value:
        """What a ``for`` loop over ``iterable`` binds its target to."""
        return self._value(iterable, env, disabled)

    def _walk_small(self, small: cst.BaseSmallStatement, env: "_Env", disabled: bool) -> None:
        if isinstance(small, cst.Assign):
            pairs = _unpacked_pairs(small.targets[0].target, small.value) if len(small.targets) == 1 else None
            if pairs is not None:
                # `q1, q2 = critic1(x), critic2(x)`: each name gets its own element, evaluated
                # before any is bound, so q2 does not share q1's forward pass.
                values = [self._value(element, env, disabled) for _, element in pairs]
                for (bound, _), element_value in zip(pairs, values):
                    self._assign(bound, element_value, env)
            else:
                value = self._value(small.value, env, disabled)
                for assigned in small.targets:
                    self._assign(assigned.target, value, env)
        elif isinstance(small, cst.AnnAssign) and small.value is not None:
            self._assign(small.target, self._value(small.value, env, disabled), env)
        elif isinstance(small, cst.AugAssign):
            value = self._value(small.value, env, disabled)
            name = dotted_name(small.target)
            if name is not None:
                old = env.get(name, _Value())
                env[name] = _Value(old.origins | value.origins, old.shared_elements)
        elif isinstance(small, cst.Expr):
            self._value(small.value, env, disabled)
            self._container_mutation(small.value, env, disabled)
        self._record_backward_calls(small, env, disabled)

    def _record_backward_calls(self, small: cst.CSTNode, env, disabled: bool) -> None:
        for call in iter_calls(small):
            if not is_backward_call(self.context, call):
                continue
            tensor = backward_tensor(self.context, call)
            origins = self._value(tensor, env, disabled).origins if tensor is not None else _EMPTY
            self.flow.uses[call] = BackwardUse(call, tensor, origins)

    def _container_mutation(self, expr: cst.BaseExpression, env, disabled: bool) -> None:
        # losses.append(l) / losses.extend(ls): the container now holds l's graph.
        mc = method_call(expr)
        if mc is None or not isinstance(expr, cst.Call) or mc[1] not in ("append", "extend", "insert") or not expr.args:
            return
        name = dotted_name(mc[0])
        if name is None:
            return
        added_value = self._value(expr.args[-1].value, env, disabled)
        added = added_value.origins
        old = env.get(name, _Value())
        shared = old.shared_elements or bool(old.origins & added)
        parts: Tuple[_Value, ...] = ()
        known = bool(old.parts) or old.empty
        if known and mc[1] == "append":
            parts = (*old.parts, added_value)
        elif known and mc[1] == "extend" and (added_value.parts or added_value.empty):
            # ``self.transition = [state, log_prob]`` (or ``[]``) then ``.extend([next_state, reward,
            # done])``: a list of known length still, unpacked later name by name.
            parts = (*old.parts, *added_value.parts)
            if not parts:
                env[name] = old
                return
        env[name] = _Value(old.origins | added, shared, container=bool(parts), parts=parts)

    def _assign(self, target: cst.BaseExpression, value: _Value, env) -> None:
        if isinstance(target, cst.Subscript):
            # losses["cls"] = l: the dict now holds l's graph as well.
            name = dotted_name(target.value)
            old = env.get(name, _Value()) if name is not None else _Value()
            key = _literal_key(target.slice[0].slice.value) if (
                len(target.slice) == 1 and isinstance(target.slice[0].slice, cst.Index)
            ) else None
            rows = self._row_alias.get(name) if name is not None else None
            if rows is not None:
                # ``t['ret'] = r`` with ``t`` a row of ``rows``: any row may now hold ``r`` there.
                listed = env.get(rows, _Value())
                rows_parts = tuple(_with_entry(part, key, value) for part in listed.parts) if key is not None else ()
                env[rows] = replace(listed, origins=listed.origins | value.origins, parts=rows_parts)
                if key is not None and name is not None:
                    # The next round's row still holds its own entry there: added to, not replaced.
                    env[name] = _with_entry(old, key, value)
                    return
            if name is not None and old.keyed and key is not None:
                # ``batch['value'] = critic(states)`` on a dict built here: that entry's graph is
                # replaced, the other entries keep theirs.
                fields = tuple((k, v) for k, v in old.fields if k != key) + ((key, value),)
                parts = [v.origins for _, v in fields]
                env[name] = _Value(_union(parts), _pairwise_share(parts), container=True, fields=fields, keyed=True)
                return
            if name is not None:
                shared = old.shared_elements or bool(old.origins & value.origins)
                env[name] = _Value(old.origins | value.origins, shared)
            return
        if isinstance(target, (cst.Tuple, cst.List)):
            if len(value.parts) == len(target.elements) and not any(
                isinstance(e, cst.StarredElement) for e in target.elements
            ):
                # `policy_loss, q1_loss = self.loss(batch)`: each name its own element's graph.
                for element, part in zip(target.elements, value.parts):
                    self._assign(element.value, part, env)
                return
            for element in target.elements:
                inner = element.value
                if isinstance(inner, cst.StarredElement):
                    inner = inner.value
                self._assign(inner, _Value(value.origins, False), env)
            return
        name = dotted_name(target)
        if name is not None:
            # ``name`` is no longer a row of a list, and no longer the list its loop targets are rows of.
            self._row_alias.pop(name, None)
            for alias in [a for a, rows in self._row_alias.items() if rows == name]:
                del self._row_alias[alias]
            env[name] = value
            # Rebinding self.x invalidates what we knew about self.x.y.
            for key in env.extensions(name):
                del env[key]

    def _bind(self, target: cst.CSTNode, origins: Origins, env) -> None:
        if isinstance(target, cst.BaseExpression):
            self._assign(target, _Value(origins), env)

    # ------------------------------------------------------------------ expressions

    def _new_origin(self, call: cst.Call, arg_values: Sequence[_Value]) -> Origins:
        # The caller's values of the arguments: evaluating them again here made
        # nested calls cost 2^depth (f(g(h(...))) 18 deep: 15 s).
        origin = next(self._ids)
        args = tuple((a.value, value) for a, value in zip(call.args, arg_values) if not a.star)
        self.sites[origin] = OriginSite(call, self._scope, args, self._constructs(call.func))
        self._last_origin = origin
        return frozenset((origin,))

    def _constructs(self, func: cst.BaseExpression) -> bool:
        """Calling ``func`` instantiates a class: one the project defines under that name (a
        ``class`` statement in an enclosing function included, whatever its case), or, where the
        model cannot tell, a capitalised callee (:func:`names_class`)."""
        if names_class(self.context, func):
            return True
        if not isinstance(func, cst.Name):
            return False
        scope, caller_of = self._walked_scope()
        key = (id(scope), func.value)
        known = self._instantiates.get(key)
        if known is None:
            known = self._instantiates[key] = self.context.model.instantiated_class(caller_of(), func.value) is not None
        return known

    def _value(self, node: Optional[cst.CSTNode], env, disabled: bool) -> _Value:
        if node is None or disabled or node in self.cut:
            return _Value()
        if isinstance(node, cst.Name):
            return env.get(node.value, _Value())
        if isinstance(node, cst.Attribute):
            if node.attr.value in _CUT_ATTRIBUTES:
                return _Value()
            name = dotted_name(node)
            if name is not None and name in env:
                return env[name]
            owner = self._value(node.value, env, disabled)
            # A dict's entries are no attributes.
            found = owner.field_value(node.attr.value) if not owner.keyed else None
            return found if found is not None else _Value(owner.origins)
        if isinstance(node, cst.Subscript):
            owner = self._value(node.value, env, disabled)
            entry = self._entry(owner, node, env, disabled)
            return entry if entry is not None else _Value(owner.origins)
        if isinstance(node, cst.Call):
            return self._call_value(node, env, disabled)
        if isinstance(node, (cst.ListComp, cst.GeneratorExp, cst.SetComp, cst.DictComp)):
            return self._comprehension_value(node, env, disabled)
        if isinstance(node, (cst.List, cst.Tuple, cst.Set)):
            values = [self._value(e.value, env, disabled) for e in node.elements]
            parts = [v.origins for v in values]
            known = isinstance(node, (cst.List, cst.Tuple)) and not any(isinstance(e, cst.StarredElement) for e in node.elements)
            return _Value(
                _union(parts), _pairwise_share(parts), container=True, parts=tuple(values) if known else (),
                empty=not node.elements,
            )
        if isinstance(node, cst.Dict):
            values = [self._value(e.value, env, disabled) for e in node.elements if isinstance(e, cst.DictElement)]
            parts = [v.origins for v in values]
            keys = [_literal_key(e.key) if isinstance(e, cst.DictElement) else None for e in node.elements]
            keyed = None not in keys and len(set(keys)) == len(keys)
            fields = tuple((k, v) for k, v in zip(keys, values) if k is not None) if keyed else ()
            return _Value(_union(parts), _pairwise_share(parts), container=True, fields=fields, keyed=keyed)
        if isinstance(node, (cst.Lambda, cst.BaseString, cst.Integer, cst.Float, cst.Imaginary)):
            return _Value()
        parts = [self._value(child, env, disabled).origins for child in _children(node) if isinstance(child, cst.CSTNode)]
        return _Value(_union(parts))

    def _entry(self, owner: _Value, node: cst.Subscript, env, disabled: bool) -> Optional[_Value]:
        """What ``owner[...]`` reads, where that is one entry's value: a dict built here with string
        keys at a key known here, or any row of a list of such dicts (every row's entries joined,
        whatever the index). None where that is not known (the whole container's graphs then)."""
        if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
            return None  # a slice of rows is a list, not a row
        rows = _keyed_rows(owner)
        if rows is not None:
            return rows
        if not owner.keyed:
            return None
        index = node.slice[0].slice.value
        key = _literal_key(index)
        if key is None and isinstance(index, cst.Name):
            key = env.get(index.value, _Value()).key
        return owner.field_value(key) if key is not None else None

    def _is_module(self, name: str) -> bool:
        return name in module_facts(self.context).modules

    def _comprehension_value(self, node, env, disabled: bool) -> _Value:
        keyed = self._transposed(node, env, disabled)
        if keyed is not None:
            return keyed
        inner = _Env(env)
        source = _EMPTY
        shared = False
        for comp in _generators(node.for_in):
            iterated_value = self._value(comp.iter, inner, disabled)
            iterated = iterated_value.origins
            shared = shared or bool(iterated)
            rows = _keyed_rows(iterated_value)
            if rows is not None and isinstance(comp.target, cst.Name):
                # ``[t['value'] for t in rows]`` over dicts built here: each ``t`` is such a dict,
                # so an element reads only what it takes from ``t``, not every entry of every row.
                inner[comp.target.value] = rows
                continue
            source |= iterated
            self._bind(comp.target, iterated, inner)
        elt = node.value if isinstance(node, cst.DictComp) else node.elt
        element = self._value(elt, inner, disabled).origins
        # Every element was computed from the same iterated graph value.
        return _Value(source | element, shared, container=True)

    def _transposed(self, node, env, disabled: bool) -> Optional[_Value]:
        """``{k: torch.cat([t[k] for t in rows]) for k in rows[0].keys()}``: a dict built by walking
        the keys of a dict built here, each entry computed with its key known, so each keeps the
        graphs of what it reads under that key. None for any other comprehension."""
        if not isinstance(node, cst.DictComp) or node.for_in.inner_for_in is not None or node.for_in.ifs:
            return None
        target = node.for_in.target
        if not (isinstance(target, cst.Name) and isinstance(node.key, cst.Name) and node.key.value == target.value):
            return None
        iterated = self._value(node.for_in.iter, env, disabled)
        if not iterated.keyed:
            return None
        fields = []
        for key, _ in iterated.fields:
            inner = _Env(env)
            inner[target.value] = _Value(key=key)
            fields.append((key, self._value(node.value, inner, disabled)))
        parts = [v.origins for _, v in fields]
        return _Value(_union(parts), _pairwise_share(parts), container=True, fields=tuple(fields), keyed=True)

    def _graph_free_callee(self, func: cst.BaseExpression) -> bool:
        """``func`` is a project function or method decorated ``@torch.no_grad()`` that hands back
        none of its arguments: what it returns carries no graph (``aug.tune(pred)``, ``fan.heatmap(x)``)."""
        return self._grad_free_callee(func) is _GradFree.NO_GRAPH

    def _grad_free_callee(self, func: cst.BaseExpression) -> Optional["_GradFree"]:
        """What a call of ``func`` returns when the code it runs computes that with autograd off:
        no graph, or (when it may hand back an argument as given) the arguments' graphs only.
        None when not known to be grad-free."""
        spelled = dotted_name(func)
        if spelled is None or spelled.rsplit(".", 1)[-1] in PASS_METHODS:
            return None
        model = self.context.model

        def answer(caller: Optional[FunctionSummary]) -> Optional[_GradFree]:
            callee = model.callee(caller, spelled) if caller is not None else None
            known: Optional[_GradFree] = None
            if isinstance(callee, FunctionSummary) and callee.adds_no_graph:
                known = _GradFree.NO_GRAPH if callee.returns_no_graph else _GradFree.ARGUMENTS
            head = spelled.split(".", 1)[0]
            if (
                callee is None and "." in spelled and head not in model.imports
                and not (head == "self" and spelled.count(".") == 1)
            ):
                # ``nets.fan.get_heatmap(x)`` on an object the model cannot type: every method of that
                # name the project may run (here and in what this file imports) is grad-disabled.
                name = spelled.rsplit(".", 1)[-1]
                if model.methods_named_return_no_graph(name):
                    known = _GradFree.NO_GRAPH
                elif model.methods_named_add_no_graph(name):
                    # ``self.model.norm_obs(obs)``: each computes under ``torch.no_grad()`` and may hand
                    # ``obs`` back as given (its normalisation switched off).
                    known = _GradFree.ARGUMENTS
            return known

        return self._per_scope(self._graph_free, spelled, answer)

    def _reaching(self, call: cst.Call, arg_values: Sequence[_Value], args: Origins) -> Origins:
        """What of the arguments' graphs reaches what a project function builds: not an argument
        it reads only detached or as an index (:attr:`FunctionSummary.cut_params`:
        ``slice_segments(y, ids)`` slicing ``y`` at the offsets ``ids``)."""
        spelled = dotted_name(call.func)
        caller = self._walked_scope()[1]() if spelled is not None and args else None
        if caller is None or spelled is None or any(a.star for a in call.args):
            return args
        model = self.context.model
        callee = model.callee(caller, spelled)
        if not isinstance(callee, FunctionSummary):
            # ``disc_full(x, fake)``, ``self.disc(x, fake)``: the ``forward`` of a project module.
            callee = self._module_forward(caller, spelled)[0]
        if callee is None:
            return args
        cut_params = model.cut_params(callee)
        if not cut_params:
            return args
        cut = {id(arg) for param, arg in bind_arguments(callee, call) if param in cut_params}
        return _union(v.origins for a, v in zip(call.args, arg_values) if id(a.value) not in cut)

    def _own_method(self, func: cst.Attribute) -> Optional[FunctionSummary]:
        """The method of the walked method's own class (or a project base) that ``self.<name>(...)``
        runs (``actor_loss, value_loss = self.loss(obs)``); None for any other call."""
        if not (isinstance(func.value, cst.Name) and func.value.value == "self"):
            return None
        caller = self._walked_scope()[1]()
        if caller is None or caller.class_name is None or not caller.params or caller.params[0] != "self":
            return None
        callee = self.context.model.callee(caller, f"self.{func.attr.value}")
        return callee if isinstance(callee, FunctionSummary) and callee.class_name is not None else None

    def _module_forward(self, caller: FunctionSummary, spelled: str) -> Tuple[Optional[FunctionSummary], ModuleModel]:
        """The ``forward`` a call spelled ``spelled`` in ``caller`` runs, where it names an instance of a
        project module class with no ``__call__`` of its own (``policy(states)``, ``self.disc(x)``),
        and the model of the file defining it."""
        model = self.context.model
        cls = model.instance_class(caller, spelled)
        if cls is None and "." not in spelled:
            cls = model.parameter_class(caller, spelled)
        if cls is None or not model.is_module_class(cls) or model.method(cls, "__call__") is not None:
            return None, model
        return model.method(cls, "forward"), model.class_model(cls)

    def _graphless_elements(self, func: cst.BaseExpression) -> Optional[Tuple[bool, ...]]:
        """For a method of the project that returns tuples of one length only, which elements hold
        no graph in every one of them (:func:`may_hold_graph`: a fresh ``torch.tensor(obs)``, a
        number); None when not known, or when every element may hold one."""
        spelled = dotted_name(func)
        if spelled is None:
            return None
        model = self.context.model

        def answer(caller: Optional[FunctionSummary]) -> Optional[Tuple[bool, ...]]:
            callee = model.callee(caller, spelled) if caller is not None else None
            if not isinstance(callee, FunctionSummary):
                return None
            shapes = model.returned_shapes(callee)
            lengths = {len(shape.parts) for shape in shapes}
            if not (shapes and all(shape.kind is Kind.TUPLE for shape in shapes) and len(lengths) == 1 and 0 not in lengths):
                return None
            free = tuple(not any(may_hold_graph(shape.parts[i]) for shape in shapes) for i in range(lengths.pop()))
            return free if any(free) else None

        return self._per_scope(self._free_elements, spelled, answer)

    def _library_instance(self, name: str) -> bool:
        """:meth:`ModuleModel.library_instance` of ``name`` where the walk is."""
        model = self.context.model
        return self._per_scope(
            self._library, name, lambda caller: caller is not None and model.library_instance(caller, name)
        )

    def _per_scope(
        self, memo: Dict[Tuple[int, str], _Answer], name: str, answer: Callable[[Optional[FunctionSummary]], _Answer]
    ) -> _Answer:
        """``answer`` about ``name`` given the summary of the function the walk is in (None where it
        has none), once per function and name: the walk meets the same call on every pass."""
        scope, caller_of = self._walked_scope()
        key = (id(scope), name)
        if key not in memo:
            memo[key] = answer(caller_of())
        return memo[key]

    def _walked_scope(self) -> Tuple[Optional[cst.FunctionDef], Callable[[], Optional[FunctionSummary]]]:
        """The function the walk is in, and a reader of its summary (the module body's outside any)."""
        scope = self._scope if isinstance(self._scope, cst.FunctionDef) else self._def
        return scope, lambda: scope_summary(self.context, scope)

    def _separate_elements(
        self, call: cst.Call, arg_values: Sequence[_Value], args: Origins, helper: Optional[FunctionSummary] = None
    ) -> Optional[_Value]:
        """A call whose returned tuple's elements share no graph node beyond what its arguments share:
        ``logits, value = policy(states)`` where ``forward`` returns ``self.actor(state),
        self.critic(state)``, ``values, logps, returns = play(actor, critic, n)`` where ``play`` builds
        ``values`` from ``critic(s)`` and ``logps`` from ``actor(s)`` on fresh states. Each element gets
        a forward pass of its own (and the arguments' graph). None unless the callee is read and each
        element runs other modules of its own (see :meth:`ModuleModel.returned_element_graphs`)."""
        model = self.context.model
        spelled = dotted_name(call.func)
        if spelled is None:
            return None
        home = model
        if helper is None:
            caller = self._walked_scope()[1]()
            if caller is None:
                return None
            helper, home = self._module_forward(caller, spelled)
        if helper is None:
            return None
        elements = home.returned_element_graphs(helper)
        if elements is None or len(elements) < 2:
            return None
        bound = bind_arguments(helper, call)
        passed = {param: dotted_name(arg) or f"<argument {index}>" for index, (param, arg) in enumerate(bound)}
        # A module handed in as an argument is named as the caller spells it (``play(net, net)`` runs one).
        sources = [frozenset(passed.get(s, s) if s in helper.params else s for s in element) for element in elements]
        # What the modules handed in were built by is no graph: only the other arguments' graphs go in.
        modules = {id(arg) for param, arg in bound if any(param in element for element in elements)}
        args = _union(v.origins for a, v in zip(call.args, arg_values) if id(a.value) not in modules)
        groups = _sharing_groups(sources)
        if len(set(groups)) < 2:
            return None
        reached = self._element_arguments(call, arg_values, helper, len(elements), modules)
        # Elements with a source in common share a forward pass; one that runs nothing and reads
        # nothing held (``torch.randn(n)``) has only the arguments' graph.
        made = {group: self._new_origin(call, arg_values) for group, element in zip(groups, sources) if element}
        parts = tuple(
            _Value((args if own is None else own) | (made[group] if element else _EMPTY))
            for group, element, own in zip(groups, sources, reached)
        )
        return _Value(_union(p.origins for p in parts), parts=parts)

    @staticmethod
    def _element_arguments(
        call: cst.Call, arg_values: Sequence[_Value], helper: FunctionSummary, length: int, modules: Set[int]
    ) -> List[Optional[Origins]]:
        """For each element of the ``length``-tuple ``helper`` returns, the graphs of the arguments
        whose parameters it reads where gradients flow (:attr:`FunctionSummary.returned_param_sources`):
        ``pg_loss, vl_loss = ppo_loss(batch, policy, value_net, old_logp, adv, writer)`` gives neither
        loss ``writer``'s graph, nor ``old_logp``'s where only ``old_logp.detach()`` is read. None for
        an element where that is not known, or where some argument binds to no parameter by name."""
        positions = helper.returned_param_sources.get(length)
        bound = bind_arguments(helper, call)
        if positions is None or len(positions) != length or any(a.star for a in call.args) or len(bound) != len(call.args):
            return [None] * length
        value_of = {id(a.value): v for a, v in zip(call.args, arg_values)}
        given: Dict[str, Origins] = {}
        for param, arg in bound:
            if id(arg) not in modules:
                given[param] = given.get(param, _EMPTY) | value_of[id(arg)].origins
        found: List[Optional[Origins]] = []
        for reads in positions:
            if reads is None or helper.var_keyword in reads:
                found.append(None)
                continue
            found.append(_union(origins for param, origins in given.items() if param in reads or f"{param}()" in reads))
        return found

    def _call_value(self, call: cst.Call, env, disabled: bool) -> _Value:
        arg_values = [self._value(a.value, env, disabled) for a in call.args]
        args = _union(v.origins for v in arg_values)
        qualified = qualified_names(self.context, call.func)
        if any(q.startswith("torch.") and q.rsplit(".", 1)[-1] in TORCH_CUT_FUNCTIONS for q in qualified):
            return _Value()
        func = call.func
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            if method in _CUT_METHODS:
                return _Value()
            if method in ("values", "items", "keys", "copy"):
                return self._value(func.value, env, disabled)
            if isinstance(func.value, (cst.BaseString, cst.Integer, cst.Float, cst.Imaginary)):
                # ``"{}_{}".format(now.day, now.hour)``, ``", ".join(names)``: a method of a literal
                # string or number hands back a string or a number, never a graph.
                return _Value()
            grad_free = self._grad_free_callee(func)
            if grad_free is _GradFree.NO_GRAPH:
                return _Value()
            if grad_free is _GradFree.ARGUMENTS:
                return _Value(args)
            receiver_value = self._value(func.value, env, disabled)
            receiver = receiver_value.origins
            args = self._reaching(call, arg_values, args)
            if any(q.startswith(("torch.", "numpy.", "math.")) and not q.startswith("torch.nn.modules") for q in qualified):
                return _Value(receiver | args, tensor=_makes_tensor(qualified))
            if _library_callable(qualified):
                # ``tqdm.tqdm(loader)``, ``tv.datasets.ImageFolder(root)``: a library's function or class
                # wraps or builds; it runs no forward pass of this project's modules.
                return _library_value(receiver | args, arg_values)
            module_receiver = isinstance(func.value, cst.Name) and self._is_module(func.value.value)
            if method in PASS_METHODS or (receiver and not module_receiver):
                # A method of a value holding a graph hands that graph on (``h.sum()``). Not a
                # method of a module (``net_d.forward(x)``, ``net.score(x)`` on a name used as a
                # module, as ``net_d.parameters()``): whatever call built the module, the call
                # runs a forward pass of its own, below.
                free = self._graphless_elements(func) if method not in PASS_METHODS else None
                if free is not None:
                    # ``next_state, reward, done = env.step(action)`` where ``step`` returns
                    # ``torch.tensor(obs), reward, done``: the fresh tensor holds no graph.
                    parts = tuple(_Value() if none else _Value(receiver | args) for none in free)
                    return _Value(receiver | args, parts=parts)
                return _Value(receiver | args, tensor=receiver_value.tensor and method in _TENSOR_METHODS)
            if not args and _DATA_CALLEE.search(method):
                return _Value()
            if isinstance(func.value, cst.Call) or (
                isinstance(func.value, cst.Attribute) and func.value.attr.value in _CUT_ATTRIBUTES
            ):
                # A method of a value computed with no graph (``torch.FloatTensor(n).fill_(1)``,
                # ``x.data.uniform_()``): no module's parameters, so no forward pass.
                return _Value(args)
            if not args and isinstance(func.value, cst.Name) and func.value.value != "self" and not self._is_module(func.value.value):
                # ``parser.parse_args()``, ``timer.elapsed()``: no graph in, and no module's
                # parameters, so no forward pass whose graph two losses could share.
                return _Value()
            if args and isinstance(func.value, cst.Name) and not is_backward_call(self.context, call) and self._library_instance(func.value.value):
                # ``model.discriminator_loss(z)`` of a library's object: whether it hands back ``z``'s
                # graph or a detached copy is not visible, so that graph is assumed, not proven.
                self.assumed.update(a.value for a, v in zip(call.args, arg_values) if v.origins)
            separate = self._separate_elements(call, arg_values, args, self._own_method(func))
            if separate is not None:
                return separate
            # model.encode(x), self.backbone(x): a forward pass through parameters.
            return _Value(args | self._new_origin(call, arg_values), shared_elements=_derives_elements(method, arg_values))
        if isinstance(func, cst.Name):
            if any(q.startswith(("torch.", "numpy.", "math.")) for q in qualified):
                return _Value(args, tensor=_makes_tensor(qualified))
            if _library_callable(qualified):
                return _library_value(args, arg_values)
            if func.value in _NO_GRAPH_BUILTINS:
                return _Value()
            if func.value in _BUILTINS:
                return _Value(args)
            if not args and _DATA_CALLEE.search(func.value):
                return _Value()
            if self._graph_free_callee(func):
                return _Value()
            args = self._reaching(call, arg_values, args)
            if not args and func.value in unknown_callees(self.context):
                # ``to_tensors(batch)`` from ``from helpers import *`` or ``check(mask)`` from a module the
                # project does not hold: nothing is known of it, and no graph goes in, so no forward
                # pass is proven.
                return _Value()
            if call.args and all(a.keyword is not None for a in call.args) and names_class(self.context, func):
                # ``SACLosses(policy_loss=…, qf1_loss=…)``: a record whose fields keep their own graphs.
                fields = tuple((a.keyword.value, v) for a, v in zip(call.args, arg_values) if a.keyword is not None)
                return _Value(args | self._new_origin(call, arg_values), fields=fields)
            helper = self.context.model.resolve_function(func.value)
            if helper is not None and helper.detached_copy:
                # ``detach_kp(kp)`` returning ``{k: v.detach() for k, v in kp.items()}``: a detached
                # copy, no graph of the argument's and no forward pass.
                return _Value()
            if helper is not None and not any(may_hold_graph(s) for s in self.context.model.returned_shapes(helper)):
                # ``adv, ref = calc_adv_ref(traj, net, states)``: it runs the network but hands back
                # numbers or fresh tensors (``torch.FloatTensor(list(...))``): no graph comes out.
                return _Value()
            if helper is not None and self.context.model.returns_instances(helper):
                # ``gflownet = build_gflownet(args)``: a factory's object runs no forward pass; its
                # methods' results are each a forward of their own.
                return _Value(args)
            if helper is not None and helper.on_arguments_only:
                # ``to_var(torch.ones(n))``: the helper only computes on its arguments, so the
                # result carries their graph and no forward pass of its own (``ensure_tuple(losses)``
                # hands back elements sharing what the argument's elements share).
                return _Value(args, shared_elements=_derives_elements(func.value, arg_values))
            separate = self._separate_elements(call, arg_values, args, helper)
            if separate is not None:
                return separate
            return _Value(args | self._new_origin(call, arg_values), shared_elements=_derives_elements(func.value, arg_values))
        return _Value(args | self._value(func, env, disabled).origins | self._new_origin(call, arg_values))


# --------------------------------------------------------------------------- one training step across methods


@dataclass
class TraceEvent:
    """A backward, step or zero_grad call met while following one training step."""

    kind: str  # "backward" | "step" | "zero_grad" | "return"
    #: the call (None for a ``return``)
    call: Optional[cst.Call]
    #: the small statement holding it
    statement: cst.CSTNode
    #: the function whose code holds it (the module for top-level code)
    scope: Optional[cst.CSTNode]
    #: backward: the graph origins of the loss; return: of the returned value
    origins: Origins = _EMPTY
    #: step / zero_grad: the optimizer (or model) it acts on
    target: str = ""
    #: (statement, branch index) of each branch it runs in
    branch: Tuple[Tuple[int, int], ...] = ()
    #: branches it sits in that end in return/raise/continue: nothing after them runs with it
    terminal: Tuple[Tuple[int, int], ...] = ()
    #: the last graph origin made before it (origins are numbered in the order the walk makes them)
    mark: int = 0
    #: what the tests of the ``if`` arms it sits in say (:mod:`autofix.analysis.conditions`)
    facts: FrozenSet[Literal] = frozenset()

    def exclusive(self, later: "TraceEvent") -> bool:
        """The two never run in one pass: other branches of one ``if``, ``later`` after a
        ``return``, or arms whose tests contradict each other while the names they test hold the
        same values (``if flag:`` … ``if not flag:``)."""
        mine = dict(self.branch)
        if any(key in mine and mine[key] != index for key, index in later.branch):
            return True
        if any((atom, not sign) in later.facts for atom, sign in self.facts):
            return True
        return any(tag not in later.branch for tag in self.terminal)


@dataclass
class StepTrace:
    """Events of one function run, with the ``self.`` methods it calls walked in place."""

    entry: cst.CSTNode
    events: List[TraceEvent]
    sites: Dict[int, OriginSite]
    #: the functions walked (the entry and every inlined method)
    functions: Tuple[cst.CSTNode, ...]
    #: each inlined ``self.<m>(...)`` call: the method, the call, and the values its parameters got
    bindings: Tuple[Tuple[cst.FunctionDef, cst.Call, Dict[str, "_Value"]], ...] = ()
    #: arguments of library objects' methods (:attr:`_GraphWalker.assumed`): a graph that reaches
    #: a loss only through them is assumed, not proven
    assumed: FrozenSet[cst.CSTNode] = frozenset()

    def backward_events(self) -> List[TraceEvent]:
        return [e for e in self.events if e.kind == "backward"]


def step_traces(context: RuleContext) -> List[StepTrace]:
    """One trace per function (and the module) that back-propagates or calls a method that does."""
    return context.fact("step_traces", lambda: _collect_traces(context))


def _collect_traces(context: RuleContext) -> List[StepTrace]:
    holders = backward_holders(context)
    if not holders:
        return []
    traces = []
    for scope in scopes(context.module):
        if isinstance(scope, cst.FunctionDef) and scope not in holders and not calls_eventful_method(context, scope):
            continue
        if isinstance(scope, cst.Module) and scope not in holders and not any(s in holders for s in scope.body):
            continue
        traces.append(trace_step(context, scope))
    return traces


def trace_step(context: RuleContext, entry: cst.CSTNode, cut: Optional[Set[cst.CSTNode]] = None) -> StepTrace:
    """Follow ``entry`` once through (loop bodies walked once, ``self.m()`` walked in place).

    ``cut`` names expressions taken as detached: the what-if of a ``.detach()`` fix.
    """
    walker = _TraceWalker(context, entry)
    if cut:
        walker.cut = set(cut)
    return walker.trace()


class _TraceWalker(_GraphWalker):
    LOOP_ROUNDS = 1

    def __init__(self, context: RuleContext, entry: cst.CSTNode) -> None:
        super().__init__(context)
        self.entry = entry
        self.events: List[TraceEvent] = []
        self._inlining: List[cst.FunctionDef] = []
        self._returns: List[List[_Value]] = []
        self._terminal: List[Tuple[int, int]] = []
        self._functions: List[cst.CSTNode] = [entry]
        self._owner = method_owner(context, entry)
        self._bindings: List[Tuple[cst.FunctionDef, cst.Call, Dict[str, _Value]]] = []
        # Path conditions (:mod:`autofix.analysis.conditions`). A frame is one run of a function:
        # the entry is 0, each inlined ``self.m()`` call a new one (its locals are its own).
        self._frames = itertools.count(1)
        self._frame = 0
        #: frames entered inside a loop: another round runs them with other values
        self._looped_frames: Set[int] = set()
        #: (frame, name) → how many bindings of it the walk has met
        self._versions: Dict[Tuple[int, str], int] = {}
        #: (frame, name, version) bound to a bool, number, string or None
        self._immutable: Set[Tuple[int, str, int]] = set()
        #: (frame, names bound anywhere inside) of each loop being walked
        self._loops: List[Tuple[int, Set[str]]] = []
        #: ``if`` statement → the literals each of its arms holds
        self._arms: Dict[int, List[Tuple[Literal, ...]]] = {}
        #: the literals of each ``if`` arm being walked
        self._facts: List[Tuple[Literal, ...]] = []
        self._declared = context.fact("conditions.declared", lambda: declared_names(context.module))
        self._shadowed = context.fact("conditions.bound", lambda: frozenset(bound_names(context.module)))
        #: id of a statement → the names it binds (shared by every trace of the module)
        self._bound_by: Dict[int, Set[str]] = context.fact("conditions.bound_by", dict)

    def trace(self) -> StepTrace:
        self._holders = set()  # nested defs are traces of their own
        self._scope = self.entry
        body = self.entry.body if isinstance(self.entry, cst.Module) else _block_body(self.entry.body) if isinstance(self.entry, cst.FunctionDef) else ()
        self._walk_body(body, _Env(), False)
        return StepTrace(self.entry, self.events, self.sites, tuple(self._functions), tuple(self._bindings), frozenset(self.assumed))

    def _walk_stmt(self, stmt: cst.CSTNode, env: "_Env", disabled: bool) -> None:
        # `with pytest.raises(...)`: a test expecting the failure, not a training step.
        if isinstance(stmt, cst.With) and any(_catches(item.item) for item in stmt.items):
            return
        if isinstance(stmt, (cst.SimpleStatementLine, cst.BaseSmallStatement)):
            super()._walk_stmt(stmt, env, disabled)
            if isinstance(stmt, cst.BaseSmallStatement):
                self._rebind(self._bound(stmt))
            return
        # Whatever a compound statement binds (a `for` target, an `except ... as` name, a walrus
        # in a test) may be rebound on entry and is taken as rebound on exit.
        bound = self._bound(stmt)
        self._rebind(bound)
        looped = isinstance(stmt, (cst.For, cst.While))
        if looped:
            self._loops.append((self._frame, bound))
        if isinstance(stmt, cst.If):
            self._arms[id(stmt)] = self._if_arms(stmt)
        super()._walk_stmt(stmt, env, disabled)
        if looped:
            self._loops.pop()
        self._rebind(bound)

    def _if_arms(self, stmt: cst.If) -> List[Tuple[Literal, ...]]:
        tests: List[cst.BaseExpression] = []
        node = stmt
        while True:
            tests.append(node.test)
            if not isinstance(node.orelse, cst.If):
                break
            node = node.orelse
        return arm_literals(tests, isinstance(node.orelse, cst.Else), self._operand)

    def _operand(self, node: cst.BaseExpression, immutable: bool) -> Optional[Tuple[int, str, int]]:
        """A name tested here, keyed by what binding of it the test reads; None where another
        test of it may read another value (a name bound in a loop being walked, a local of a method
        called in a loop, a name some function declares ``global``/``nonlocal``) or, when
        ``immutable``, where a mutation through another name could change the answer."""
        if not isinstance(node, cst.Name):
            return None
        name = node.value
        if name in self._declared or self._frame in self._looped_frames:
            return None
        if any(frame == self._frame and name in bound for frame, bound in self._loops):
            return None
        version = self._versions.get((self._frame, name), 0)
        if immutable and (self._frame, name, version) not in self._immutable:
            return None
        return (self._frame, name, version)

    def _bound(self, stmt: cst.CSTNode) -> Set[str]:
        found = self._bound_by.get(id(stmt))
        if found is None:
            found = self._bound_by[id(stmt)] = bound_names(stmt)
        return found

    def _rebind(self, names: Set[str]) -> None:
        for name in names:
            key = (self._frame, name)
            self._versions[key] = self._versions.get(key, 0) + 1

    def _immutable_targets(self, small: cst.BaseSmallStatement) -> List[str]:
        """Names that ``small`` binds to a bool, number, string or None (``flag = x is not None``)."""
        if isinstance(small, cst.Assign):
            targets = [t.target for t in small.targets]
        elif isinstance(small, cst.AnnAssign) and small.value is not None:
            targets = [small.target]
        else:
            return []
        value = small.value
        if value is None or not all(isinstance(t, cst.Name) for t in targets):
            return []
        frame = self._frame

        def known(name: str) -> bool:
            return (frame, name, self._versions.get((frame, name), 0)) in self._immutable

        if not immutable_value(value, known, self._shadowed):
            return []
        return [t.value for t in targets if isinstance(t, cst.Name)]

    def _iterated(self, iterable: cst.BaseExpression, env: "_Env", disabled: bool) -> _Value:
        # Across a whole training step, iterating a data loader is data, not a
        # graph: only containers whose elements share a forward pass carry one.
        value = self._value(iterable, env, disabled)
        return value if value.shared_elements else _Value()

    def _walk_branch(self, body: Sequence[cst.CSTNode], env: "_Env", disabled: bool) -> None:
        start = len(self.events)
        statement, index = self._branch[-1]
        # What the statement binds may be bound on the way into any of its branches (an
        # ``except ... as e`` handler, a ``case`` pattern, a walrus in a test): a new version.
        self._rebind(self._bound_by.get(statement, set()))
        arms = self._arms.get(statement)
        facts = arms[index] if arms is not None and index < len(arms) else ()
        self._facts.append(facts)
        super()._walk_branch(body, env, disabled)
        self._facts.pop()
        last = body[-1] if body else None
        if isinstance(last, cst.SimpleStatementLine) and any(isinstance(s, (cst.Return, cst.Raise, cst.Continue)) for s in last.body):
            tag = self._branch[-1]
            for index in range(start, len(self.events)):
                event = self.events[index]
                event.terminal = event.terminal + (tag,)

    def _walk_small(self, small: cst.BaseSmallStatement, env: "_Env", disabled: bool) -> None:
        immutable = self._immutable_targets(small)  # of the values before the binding
        self._walk_small_events(small, env, disabled)
        self._rebind(self._bound(small))
        for name in immutable:
            self._immutable.add((self._frame, name, self._versions.get((self._frame, name), 0)))

    def _walk_small_events(self, small: cst.BaseSmallStatement, env: "_Env", disabled: bool) -> None:
        target = self._inlined(small)
        if target is not None:
            method, call = target
            value = self._inline(method, call, env, disabled)
            if isinstance(small, cst.Assign):
                for assign_target in small.targets:
                    self._assign(assign_target.target, value, env)
            return
        super()._walk_small(small, env, disabled)
        if isinstance(small, cst.Return) and small.value is not None:
            value = self._value(small.value, env, disabled)
            if self._returns:
                self._returns[-1].append(value)
            elif not self._inlining:
                self._event("return", None, small, value.origins)
        for call in iter_calls(small):
            mc = method_call(call)
            if mc is None:
                continue
            if is_zero_grad_call(call):
                self._event("zero_grad", call, small, target=dotted_name(mc[0]) or "")
            elif is_step_call(self.context, call):
                receiver = dotted_name(mc[0])
                if not optimizer_facts(self.context).is_optimizer(receiver) and call.args:
                    receiver = dotted_name(call.args[0].value)
                self._event("step", call, small, target=receiver or "")

    def _record_backward_calls(self, small: cst.CSTNode, env, disabled: bool) -> None:
        for call in iter_calls(small):
            if not is_backward_call(self.context, call):
                continue
            tensor = backward_tensor(self.context, call)
            origins = self._value(tensor, env, disabled).origins if tensor is not None else _EMPTY
            self._event("backward", call, small, origins)

    def _event(self, kind: str, call: Optional[cst.Call], small: cst.CSTNode, origins: Origins = _EMPTY, target: str = "") -> None:
        facts = frozenset(literal for arm in self._facts for literal in arm)
        self.events.append(TraceEvent(kind, call, small, self._scope, origins, target, tuple(self._branch), mark=self._last_origin, facts=facts))

    def _inlined(self, small: cst.BaseSmallStatement) -> Optional[Tuple[cst.FunctionDef, cst.Call]]:
        # Every method of the class, eventful or not: `self.forward()` sets the
        # `self.fake_B` that `self.backward_D()` reads.
        if self._owner is None:
            return None
        found = []
        for call in iter_calls(small):
            mc = method_call(call)
            method = class_method(self.context, self._owner, mc[1]) if mc is not None and _is_self(mc[0]) else None
            if method is not None:
                found.append((method, call))
        if len(found) != 1:
            return None
        method, call = found[0]
        if method in self._inlining or method is self.entry:
            return None
        return method, call

    def _inline(self, method: cst.FunctionDef, call: cst.Call, env: "_Env", disabled: bool) -> _Value:
        # The callee sees `self.` state and its own parameters bound to our arguments.
        inner = _Env((key, env[key]) for key in env.extensions("self"))
        bound = _bind_arguments(method, call, lambda e: self._value(e, env, disabled))
        self._bindings.append((method, call, bound))
        for name, value in bound.items():
            inner[name] = value
        self._inlining.append(method)
        self._returns.append([])
        self._functions.append(method)
        outer_scope, self._scope = self._scope, method
        outer_frame, self._frame = self._frame, next(self._frames)
        if self._loops or outer_frame in self._looped_frames:
            self._looped_frames.add(self._frame)
        aliases, self._row_alias = self._row_alias, {}  # the caller's loop targets are not the callee's names
        off = disabled or any(disables_grad(self.context, d.decorator) for d in method.decorators)
        self._walk_body(_block_body(method.body), inner, off)
        self._scope, self._row_alias = outer_scope, aliases
        self._frame = outer_frame
        returned = self._returns.pop()
        self._inlining.pop()
        for key in env.extensions("self"):
            if key not in inner:
                del env[key]
        env.update({key: value for key, value in inner.items() if key.startswith("self.")})
        if not returned:
            return _Value()
        return _joined(returned)


def _literal_key(node: Optional[cst.BaseExpression]) -> Optional[str]:
    """The string a plain string literal spells (``'value'``), else None."""
    if isinstance(node, cst.SimpleString):
        evaluated = node.evaluated_value
        return evaluated if isinstance(evaluated, str) else None
    return None


def _row_list(iterable: cst.BaseExpression) -> Optional[str]:
    """The list a ``for`` loop walks the rows of, as they are: ``rows``, ``reversed(rows)``,
    ``list(rows)``."""
    if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name) and iterable.func.value in ("reversed", "list"):
        if len(iterable.args) != 1 or iterable.args[0].star or iterable.args[0].keyword is not None:
            return None
        iterable = iterable.args[0].value
    return dotted_name(iterable) if isinstance(iterable, (cst.Name, cst.Attribute)) else None


def _with_entry(row: _Value, key: str, value: _Value) -> _Value:
    """A dict built here with string keys (``row``) that may now also hold ``value`` at ``key``."""
    if not row.keyed:
        return _Value(row.origins | value.origins, container=True)
    old = row.field_value(key)
    entry = value if old is None else _Value(old.origins | value.origins)
    fields = tuple((k, v) for k, v in row.fields if k != key) + ((key, entry),)
    return replace(row, origins=row.origins | value.origins, fields=fields)


def _keyed_rows(value: _Value) -> Optional[_Value]:
    """Any row of a list whose every row is a dict built here with string keys (``rows.append({'s':
    s, 'v': v})``): one such dict whose each entry joins that entry's graphs over the rows. None
    unless every row is known and keyed."""
    if not value.parts or not all(p.keyed for p in value.parts):
        return None
    keys: List[str] = []
    for part in value.parts:
        keys.extend(k for k, _ in part.fields if k not in keys)
    fields = tuple(
        (k, _Value(_union(v.origins for p in value.parts for key, v in p.fields if key == k))) for k in keys
    )
    parts = [v.origins for _, v in fields]
    return _Value(_union(parts), _pairwise_share(parts), container=True, fields=fields, keyed=True)


def _joined(values: Sequence[_Value]) -> _Value:
    """What a function returns over all its ``return`` statements: element by element where every
    one returns a tuple of one length, field by field where every one builds the same fields."""
    joined = _Value(_union(v.origins for v in values), any(v.shared_elements for v in values), all(v.tensor for v in values))
    lengths = {len(v.parts) for v in values}
    if len(lengths) == 1 and 0 not in lengths:
        parts = tuple(_joined([v.parts[i] for v in values]) for i in range(lengths.pop()))
        joined = replace(joined, container=True, parts=parts)
    keys = {tuple(k for k, _ in v.fields) for v in values}
    if len(keys) == 1 and () not in keys:
        fields = tuple((k, _joined([v.fields[i][1] for v in values])) for i, k in enumerate(keys.pop()))
        joined = replace(joined, fields=fields, keyed=all(v.keyed for v in values))
    return joined


def graph_free_parameters(context: RuleContext, method: cst.FunctionDef) -> Set[str]:
    """Parameters of ``method`` that no call of it in this module hands a graph.

    Only for a method called as ``self.<name>(...)`` from the methods of its
    class in this module, each call walked in place by a step trace (where the
    argument's value is known); a reference to ``.<name>`` the traces did not
    walk (another receiver, a bound method passed on) leaves nothing known.
    """
    name = method.name.value
    walked = [
        bound
        for trace in step_traces(context)
        for inlined, call, bound in trace.bindings
        if inlined is method
    ]
    calls = {
        id(call.func)
        for trace in step_traces(context)
        for inlined, call, _ in trace.bindings
        if inlined is method
    }
    if not walked:
        return set()
    stack: List[cst.CSTNode] = [context.module]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Attribute) and node.attr.value == name and id(node) not in calls:
            return set()
        stack.extend(_children(node))
    params = {p.name.value for p in (*method.params.posonly_params, *method.params.params)}
    return {p for p in params if all(p in bound and not bound[p].origins for bound in walked)}


def _bind_arguments(method: cst.FunctionDef, call: cst.Call, value_of) -> Dict[str, "_Value"]:
    """The method's parameter names (after ``self``) bound to the values of the call's arguments."""
    params = [p.name.value for p in (*method.params.posonly_params, *method.params.params)][1:]
    bound: Dict[str, _Value] = {}
    positional = [a for a in call.args if a.keyword is None]
    if any(a.star for a in call.args):
        return bound
    for name, arg in zip(params, positional):
        bound[name] = value_of(arg.value)
    for arg in call.args:
        if arg.keyword is not None:
            bound[arg.keyword.value] = value_of(arg.value)
    return bound


def later_backward_through_graph(context: RuleContext, call: cst.Call) -> Optional[cst.Call]:
    """A backward call that runs after ``call`` in one training step and reaches its graph again.

    What ``retain_graph=True`` on ``call`` is kept for: AF106 asks this before
    calling the flag needless. Follows the step across ``self.`` methods.
    """
    for trace in step_traces(context):
        events = trace.backward_events()
        for index, event in enumerate(events):
            if event.call is not call:
                continue
            for later in events[index + 1:]:
                if later.call is not call and later.origins & event.origins and not event.exclusive(later):
                    return later.call
    return None


def backward_tensor(context: RuleContext, call: cst.Call) -> Optional[cst.BaseExpression]:
    """The tensor back-propagated: ``t`` of ``t.backward()`` or of ``torch.autograd.backward(t)``."""
    if is_function_backward(context, call):
        first = call.args[0] if call.args else None
        if first is not None and (first.keyword is None or first.keyword.value == "tensors") and not first.star:
            if not isinstance(first.value, (cst.List, cst.Tuple)):
                return first.value
        return None
    mc = method_call(call)
    return mc[0] if mc is not None and mc[1] == "backward" else None


def _generators(comp_for: Optional[cst.CompFor]) -> Iterator[cst.CompFor]:
    while comp_for is not None:
        yield comp_for
        comp_for = comp_for.inner_for_in


def _union(parts) -> Origins:
    out: Set[int] = set()
    for part in parts:
        out |= part
    return frozenset(out)


def _pairwise_share(parts: List[Origins]) -> bool:
    return any(a & b for a, b in itertools.combinations(parts, 2))


def _block_body(block: cst.CSTNode):
    body = getattr(block, "body", ())
    return body if isinstance(body, (list, tuple)) else ()


# --------------------------------------------------------------------------- linear blocks


@dataclass(frozen=True)
class Line:
    """One statement of a linearised block: the statement and the small statement inside it."""

    stmt: cst.BaseStatement
    #: For a simple line, its small statement (``;`` lines give one Line each); else ``None``.
    small: Optional[cst.BaseSmallStatement] = None
    #: the method whose statements :func:`linear_block` put in place of its call, when the line
    #: is one of them (``None``: the line is the block's own): the function its names are read in
    inlined: Optional[cst.FunctionDef] = None

    @property
    def node(self) -> cst.CSTNode:
        return self.small if self.small is not None else self.stmt


def linear_block(
    context: RuleContext,
    body: Sequence[cst.CSTNode],
    owner: Optional[cst.ClassDef] = None,
    _inlining: Tuple[cst.FunctionDef, ...] = (),
) -> List[Line]:
    """Statements of ``body`` in order, ``with`` bodies (not ``no_grad``) flattened in.

    With ``owner`` (the class of the method ``body`` belongs to), a statement
    that calls a method of that class holding a training event
    (``self.train_step(batch)``, ``self.backward_D()``) is replaced by that
    method's statements: one training step is often spread over methods, and
    ``self.optimizer`` means the same object in all of them.
    """
    out: List[Line] = []
    inlined = _inlining[-1] if _inlining else None
    for stmt in body:
        if isinstance(stmt, cst.With) and not any(disables_grad(context, i.item) or _catches(i.item) for i in stmt.items):
            out.extend(linear_block(context, _block_body(stmt.body), owner, _inlining))
        elif isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                method = inlined_method(context, small, owner) if owner is not None else None
                if method is not None and method not in _inlining:
                    out.extend(linear_block(context, _block_body(method.body), owner, _inlining + (method,)))
                    # `print(self.train_step(b))`: the rest of the statement runs after the call.
                    if not (isinstance(small, cst.Expr) and method_call(small.value) is not None):
                        out.append(Line(stmt, small, inlined))
                else:
                    out.append(Line(stmt, small, inlined))
        elif isinstance(stmt, cst.BaseStatement):
            out.append(Line(stmt, None, inlined))
    return out


# --------------------------------------------------------------------------- methods of a class

# Which function is a method of which class, which methods a class has (through
# its bases), what a method does and which functions a framework loops over are
# facts of the program model (``context.model``). The walkers here need the
# LibCST ``def`` to walk, so the model's qualnames are matched to this module's
# nodes; a method defined in a base class of another file has no node here and
# is not walked (its summary still makes its callers eventful).


@dataclass
class _Definitions:
    """This module's ``def`` and ``class`` nodes under the program model's qualnames."""

    nodes: Dict[str, cst.CSTNode] = field(default_factory=dict)
    qualnames: Dict[cst.CSTNode, str] = field(default_factory=dict)
    #: methods (defs directly in a class body, as the model has them) → their class
    owners: Dict[cst.FunctionDef, cst.ClassDef] = field(default_factory=dict)

    @property
    def method_names(self) -> Set[str]:
        return {method.name.value for method in self.owners}


def _definitions(context: RuleContext) -> _Definitions:
    return context.fact("definitions", lambda: _collect_definitions(context.module))


def _collect_definitions(module: cst.Module) -> _Definitions:
    found = _Definitions()
    # Definitions are statements: only statement blocks are entered. Qualnames are
    # the chain of enclosing defs and classes, as the model spells them.
    stack: List[Tuple[cst.CSTNode, str]] = [(stmt, "") for stmt in reversed(module.body)]
    while stack:
        stmt, prefix = stack.pop()
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            qualname = prefix + stmt.name.value
            found.nodes[qualname] = stmt  # a later definition wins, as in the model
            found.qualnames[stmt] = qualname
            prefix = qualname + "."
        if isinstance(stmt, cst.BaseCompoundStatement):
            for block in _child_blocks(stmt):
                body = list(_block_body(block))
                if isinstance(stmt, cst.ClassDef):
                    found.owners.update((inner, stmt) for inner in body if isinstance(inner, cst.FunctionDef))
                stack.extend((inner, prefix) for inner in reversed(body))
    return found


def function_summary(context: RuleContext, func: cst.CSTNode) -> Optional[FunctionSummary]:
    """The program model's summary of a ``def`` of this module."""
    qualname = _definitions(context).qualnames.get(func) if isinstance(func, cst.FunctionDef) else None
    return context.model.function(qualname) if qualname is not None else None


def scope_summary(context: RuleContext, scope: Optional[cst.CSTNode]) -> Optional[FunctionSummary]:
    """The program model's summary of the ``def`` code sits in, the module body's outside any."""
    found = function_summary(context, scope) if isinstance(scope, cst.FunctionDef) else None
    return found if found is not None else context.model.function(MODULE_BODY)


def class_summary(context: RuleContext, cls: cst.ClassDef) -> Optional[ClassSummary]:
    """The program model's summary of a ``class`` of this module."""
    qualname = _definitions(context).qualnames.get(cls)
    return context.model.cls(qualname) if qualname is not None else None


def _local_def(context: RuleContext, summary: FunctionSummary) -> Optional[cst.FunctionDef]:
    """The ``def`` of ``summary`` when this module defines it."""
    if context.model.function(summary.qualname) is not summary:
        return None
    node = _definitions(context).nodes.get(summary.qualname)
    return node if isinstance(node, cst.FunctionDef) else None


def method_owner(context: RuleContext, func: cst.CSTNode) -> Optional[cst.ClassDef]:
    """The class ``func`` is a method of, if it is one (read off the tree: no need to build the model)."""
    return _definitions(context).owners.get(func) if isinstance(func, cst.FunctionDef) else None


def class_method(context: RuleContext, owner: cst.ClassDef, name: str) -> Optional[cst.FunctionDef]:
    """Method ``name`` of ``owner`` (its own or a base's), when this module defines it."""
    cls = class_summary(context, owner)
    # Only a method this module defines has a body to walk here: bases in other files are not read.
    method = context.model.method(cls, name, local=True) if cls is not None else None
    return _local_def(context, method) if method is not None else None


def eventful(context: RuleContext, summary: FunctionSummary) -> bool:
    """``summary`` back-propagates, steps or zero_grads, itself or through a ``self.`` method."""
    memo: Dict[int, bool] = context.fact("eventful_functions", dict)
    return _eventful(context, summary, memo, set())


def _eventful(context: RuleContext, summary: FunctionSummary, memo: Dict[int, bool], visiting: Set[int]) -> bool:
    key = id(summary)
    if key in memo:
        return memo[key]
    if key in visiting:
        return False
    visiting.add(key)
    answer = bool(summary.backward_calls or summary.steps or summary.zero_grads) or any(
        _eventful(context, method, memo, visiting) for method in context.model.self_method_calls(summary, local=True)
    )
    visiting.discard(key)
    memo[key] = answer
    return answer


def inlined_method(context: RuleContext, small: cst.BaseSmallStatement, owner: Optional[cst.ClassDef]) -> Optional[cst.FunctionDef]:
    """The eventful method of ``owner`` that a statement runs: ``self.m(...)``, ``x = self.m(...)``,
    ``print(self.m(...))``; None when the statement calls none, or more than one."""
    if owner is None:
        return None
    found: List[cst.FunctionDef] = []
    for call in iter_calls(small):
        mc = method_call(call)
        if mc is not None and _is_self(mc[0]):
            target = class_method(context, owner, mc[1])
            summary = function_summary(context, target) if target is not None else None
            if summary is not None and eventful(context, summary):
                found.append(target)  # type: ignore[arg-type]
    return found[0] if len(found) == 1 else None


def calls_eventful_method(context: RuleContext, func: cst.FunctionDef) -> bool:
    """``func`` calls a ``self.`` method that runs a training event."""
    # Asked of every function of a module that back-propagates; the model is built only for a
    # method that calls a method this module defines (``self.fc(x)`` calls a submodule).
    definitions = _definitions(context)
    if method_owner(context, func) is None or not _self_call_names(context, func) & definitions.method_names:
        return False
    summary = function_summary(context, func)
    if summary is None or summary.class_name is None:
        return False
    return any(eventful(context, method) for method in context.model.self_method_calls(summary, local=True))


def _self_call_names(context: RuleContext, func: cst.FunctionDef) -> Set[str]:
    found = set()
    for call in module_index(context).calls_of(func):
        mc = method_call(call)
        if mc is not None and _is_self(mc[0]):
            found.add(mc[1])
    return found


def _is_self(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "self"


# --------------------------------------------------------------------------- loops owned by a framework

#: Frameworks whose loop calls a function of the user once per training iteration
#: (Hugging Face's ``training_step`` is one micro-batch of an accumulation, not an iteration).
_ITERATION_FRAMEWORKS = frozenset({Framework.LIGHTNING, Framework.IGNITE})


def loop_contract(context: RuleContext, func: cst.CSTNode) -> Optional[LoopContract]:
    """The framework's contract when ``func`` is one iteration of a loop the framework runs."""
    summary = function_summary(context, func)
    return context.model.loop_contract(summary) if summary is not None else None


def framework_step_functions(context: RuleContext) -> Set[cst.FunctionDef]:
    """Functions whose body is one iteration of a loop a framework runs.

    Lightning calls ``training_step`` of a ``LightningModule`` once per batch;
    ignite calls the function given to ``Engine(...)`` once per iteration.
    """
    return context.fact("framework_steps", lambda: _collect_framework_steps(context))


def _collect_framework_steps(context: RuleContext) -> Set[cst.FunctionDef]:
    # The model (built here otherwise) wires a loop function only from an ignite ``Engine(fn)``
    # or an ``@engine.on(...)`` handler, and a framework step method by its name.
    code = context.code if context.code is not None else context.module.code
    if "Engine" not in code and ".on(" not in code and LIGHTNING_STEP not in _definitions(context).method_names:
        return set()
    model = context.model
    found: Set[cst.FunctionDef] = set()
    for summary in model.functions():
        # Asking for a contract resolves the class's bases across the project: only for candidates.
        if summary.name != LIGHTNING_STEP and summary.class_name is not None:
            continue
        if summary.class_name is None and summary.name not in model.summary.loop_functions and summary.qualname not in model.summary.loop_functions:
            continue
        contract = model.loop_contract(summary)
        if contract is not None and contract.framework in _ITERATION_FRAMEWORKS:
            node = _local_def(context, summary)
            if node is not None:
                found.add(node)
    return found


def returned_loss_functions(context: RuleContext) -> Set[cst.FunctionDef]:
    """Methods whose returned loss a framework back-propagates without them being one iteration of
    its loop: a Hugging Face ``Trainer``'s ``compute_loss`` (its ``training_step`` calls backward)."""
    code = context.code if context.code is not None else context.module.code
    if "compute_loss" not in code:
        return set()
    model = context.model
    found: Set[cst.FunctionDef] = set()
    for summary in model.functions():
        if summary.name != "compute_loss" or summary.class_name is None:
            continue
        contract = model.loop_contract(summary)
        if contract is not None and contract.framework is Framework.HF_TRAINER and contract.backward_returned:
            node = _local_def(context, summary)
            if node is not None:
                found.add(node)
    return found


_CATCHING = re.compile(r"raises|assert|suppress|warns|expect", re.IGNORECASE)


def _catches(item: cst.BaseExpression) -> bool:
    """``with pytest.raises(...)``/``self.assertRaises(...)``: the body may stop early on purpose."""
    func = item.func if isinstance(item, cst.Call) else item
    name = dotted_name(func) or ""
    return bool(_CATCHING.search(name.rsplit(".", 1)[-1]))


def expr_call(line: Line) -> Optional[cst.Call]:
    """The call of an expression statement ``f(...)``."""
    if isinstance(line.small, cst.Expr) and isinstance(line.small.value, cst.Call):
        return line.small.value
    return None


def scopes(module: cst.Module) -> Iterator[Union[cst.Module, cst.FunctionDef]]:
    """The module and every function in it (each a separate def-use scope)."""
    yield module
    stack: List[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        for child in _children(node):
            if isinstance(child, cst.FunctionDef):
                yield child
            if isinstance(child, (cst.BaseStatement, cst.BaseSuite, cst.Module)):
                stack.append(child)


def blocks(scope: Union[cst.Module, cst.FunctionDef]) -> Iterator[Tuple[cst.CSTNode, list]]:
    """``(owner, body)`` of every statement block of ``scope``, not entering nested functions.

    ``with`` blocks are left out: :func:`linear_block` flattens them into their parent.
    """
    body = scope.body if isinstance(scope, cst.Module) else _block_body(scope.body)
    yield scope, list(body)
    stack = list(body)
    while stack:
        stmt = stack.pop()
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            continue
        for child in _child_blocks(stmt):
            inner = list(_block_body(child))
            if not isinstance(stmt, cst.With):
                yield stmt, inner
            stack.extend(inner)


def _child_blocks(stmt: cst.CSTNode) -> Iterator[cst.CSTNode]:
    if isinstance(stmt, cst.SimpleStatementLine):
        return
    for name in ("body", "orelse", "finalbody"):
        part = getattr(stmt, name, None)
        if part is None or isinstance(part, (list, tuple)):
            continue
        if isinstance(part, cst.BaseSuite):
            yield part
        elif isinstance(part, (cst.If, cst.Else, cst.Finally)):
            if isinstance(part, cst.If):
                yield from _child_blocks_if(part)
            else:
                yield part.body
    for handler in getattr(stmt, "handlers", ()) or ():
        yield handler.body
    for case in getattr(stmt, "cases", ()) or ():
        yield case.body


def _child_blocks_if(node: cst.If) -> Iterator[cst.CSTNode]:
    yield node.body
    if isinstance(node.orelse, cst.If):
        yield from _child_blocks_if(node.orelse)
    elif isinstance(node.orelse, cst.Else):
        yield node.orelse.body


def has_keyword_true(call: cst.Call, name: str) -> bool:
    arg = keyword(call, name)
    return arg is not None and not (isinstance(arg.value, cst.Name) and arg.value.value in ("False", "None"))


def scope_uses_create_graph(scope: cst.CSTNode) -> bool:
    """Second-order code anywhere in the function (gradient penalty, MAML, HVP)."""
    return any(has_keyword_true(call, "create_graph") for call in iter_calls(scope))


def names_in(node: cst.CSTNode) -> Set[str]:
    """Plain names an expression reads from its scope (for reassignment checks).

    A comprehension's own ``for`` targets are its locals: ``{k: v.item() for k, v in d.items()}``
    reads ``d``, not ``k`` or ``v``.
    """
    found: Set[str] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Name):
            found.add(current.value)
        elif isinstance(current, cst.Attribute):
            stack.append(current.value)
        elif isinstance(current, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
            found |= _comprehension_reads(current)
        else:
            stack.extend(_children(current))
    return found


def _comprehension_reads(comp: Union[cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp]) -> Set[str]:
    # The first iterable is evaluated in the enclosing scope; everything else sees the targets.
    outer = names_in(comp.for_in.iter)
    local: Set[str] = set()
    inner: Set[str] = set()
    for comp_for in _generators(comp.for_in):
        local |= _roots(comp_for.target)
        if comp_for is not comp.for_in:
            inner |= names_in(comp_for.iter)
        for condition in comp_for.ifs:
            inner |= names_in(condition.test)
    parts = (comp.key, comp.value) if isinstance(comp, cst.DictComp) else (comp.elt,)
    for part in parts:
        inner |= names_in(part)
    return outer | (inner - local)


def assigned_names(node: cst.CSTNode) -> Set[str]:
    """Names (roots of dotted targets) bound anywhere in ``node``."""
    found: Set[str] = set()

    class Visitor(cst.CSTVisitor):
        def visit_AssignTarget(self, n: cst.AssignTarget) -> None:
            found.update(_roots(n.target))

        def visit_AugAssign(self, n: cst.AugAssign) -> None:
            found.update(_roots(n.target))

        def visit_AnnAssign(self, n: cst.AnnAssign) -> None:
            found.update(_roots(n.target))

        def visit_For(self, n: cst.For) -> None:
            found.update(_roots(n.target))

        def visit_NamedExpr(self, n: cst.NamedExpr) -> None:
            found.update(_roots(n.target))

    node.visit(Visitor())
    return found


