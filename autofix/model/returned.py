"""What a ``forward`` returns: for each ``return`` run under autograd, what produced the value.

Recorded on each :class:`~autofix.model.summaries.FunctionSummary` of a forward as
``returned_outputs``; :meth:`ModuleModel.forward_output` turns them into what
saved a module's output (AF103 asks it of ``self.block(x)`` when ``x`` is then
written in place). Read from Python's :mod:`ast` alone.
"""

from __future__ import annotations

import ast
from typing import AbstractSet, Callable, Dict, FrozenSet, Iterable, List, Optional, Sequence, Set, Tuple, Union

from autofix.model.inplace_ops import INPLACE_METHODS
from autofix.model.nodes import dotted
from autofix.model.vocabulary import (
    CUT_ATTRIBUTES, CUT_METHODS, KEEP_METHODS, LIBRARIES, SAVES_OUTPUT, TENSOR_METHODS, Effect, function_effect,
)

FunctionAst = Union[ast.FunctionDef, ast.AsyncFunctionDef]


def torch_names_of(tree: ast.Module) -> Set[str]:
    """The names an op of torch may be called through in ``tree`` (:func:`_torch_names` of its
    imports at any depth), for :func:`returned_outputs`."""
    imports: List[Union[ast.Import, ast.ImportFrom]] = []
    # Imports are statements: only statement lists are walked, never expressions.
    stack: List[ast.AST] = list(tree.body)
    while stack:
        stmt = stack.pop()
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            imports.append(stmt)
        for name in stmt._fields:
            value = getattr(stmt, name, None)
            if isinstance(value, list):
                for child in value:
                    if isinstance(child, ast.stmt):
                        stack.append(child)
                    elif isinstance(child, (ast.ExceptHandler, ast.match_case)):
                        stack.extend(child.body)
    return _torch_names(imports)


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
                    for name in stored_names(target):
                        bound[name] = what if isinstance(target, ast.Name) else ""
            elif isinstance(stmt, ast.If):
                training = tests_training(stmt.test)
                before = dict(bound)
                visit(stmt.body, quiet or training is False)
                taken = dict(bound)
                bound.clear()
                bound.update(before)
                visit(stmt.orelse, quiet or training is True)
                other = dict(bound)
                # After the ``if``, a name holds what both ways left in it (``if self.act: x = self.act(x)``
                # may leave the previous value); a way that returns, raises or runs only in eval leaves nothing.
                left_taken = not _leaves(stmt.body) and training is not False
                left_other = not _leaves(stmt.orelse) and training is not True
                if left_taken and not left_other:
                    merged = taken
                elif left_other and not left_taken:
                    merged = other
                else:
                    merged = {k: taken.get(k, "") if taken.get(k, "") == other.get(k, "") else "" for k in {*taken, *other}}
                bound.clear()
                bound.update(merged)
            elif isinstance(stmt, (ast.With, ast.AsyncWith)):
                off = any(
                    (dotted(i.context_expr.func if isinstance(i.context_expr, ast.Call) else i.context_expr) or "")
                    .rsplit(".", 1)[-1] in ("no_grad", "inference_mode")
                    for i in stmt.items
                )
                visit(stmt.body, quiet or off)
            elif isinstance(stmt, (ast.For, ast.AsyncFor, ast.While)):
                if isinstance(stmt, (ast.For, ast.AsyncFor)):
                    for name in stored_names(stmt.target):
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


#: calls true only while a model is traced or exported for inference, where no backward runs
_EXPORTING_TESTS = frozenset({"is_tracing", "is_in_onnx_export", "is_exporting"})


def _leaves(body: List[ast.stmt]) -> bool:
    """The block ends by leaving the function (``return``, ``raise``): what it binds is not seen after it."""
    return bool(body) and isinstance(body[-1], (ast.Return, ast.Raise))


def tests_training(test: ast.expr) -> Optional[bool]:
    """True for ``if self.training:``, False for ``if not self.training:`` and for ``if is_tracing():``
    (``torch.jit.is_tracing()``, ``torch.onnx.is_in_onnx_export()``: an export path), else None."""
    negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
    if negated:
        test = test.operand  # type: ignore[attr-defined]
    if isinstance(test, ast.Attribute) and test.attr == "training":
        return not negated
    if isinstance(test, ast.Call) and not test.args and (dotted(test.func) or "").rsplit(".", 1)[-1] in _EXPORTING_TESTS:
        return negated
    return None


def _is_self_attr(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"


def stored_names(target: ast.AST) -> List[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for e in target.elts for n in stored_names(e)]
    if isinstance(target, ast.Starred):
        return stored_names(target.value)
    return []


#: One element of a returned tuple that only hands back what came in: the parameters it may be,
#: and the callees (as spelled) whose whole result, or a part of it, it may be.
PassThrough = Tuple[FrozenSet[str], FrozenSet[str]]


def returned_pass_through(
    params: Sequence[str], nodes: Iterable[ast.AST], tensor_returns: Set[int]
) -> Dict[int, Tuple[Optional[PassThrough], ...]]:
    """For each length of the tuple literals ``func`` returns, position by position: the
    parameters and callees the element may come from when it is nothing but one of them (a
    parameter handed back, rebound only from other parameters or from a callee's result),
    None where it may be anything else.

    ``return images, latents, deltas, codes`` where ``codes`` is the caller's ``codes``, ``x``, or
    what ``self.initial_codes(x)`` returns: unpacking a call into four names runs only the
    four-element returns, and the fourth name gets the caller's argument (or what the callee
    hands back), not a graph made here. Read flow-insensitively: every binding of a name counts.
    Empty when some ``return`` is not a tuple literal (its length is not known), unless it is known
    to hand back one tensor (ids in ``tensor_returns``): that is no tuple a caller unpacks.
    """
    bindings, returns = _bindings_and_returns(nodes)
    memo: Dict[str, Optional[PassThrough]] = {}
    found: Dict[int, List[Optional[PassThrough]]] = {}
    for node in returns:
        value = node.value
        if not isinstance(value, ast.Tuple) or any(isinstance(e, ast.Starred) for e in value.elts):
            if value is None or isinstance(value, ast.Constant) and value.value is None or id(node) in tensor_returns:
                continue
            return {}
        elements = [_pass_of(e, params, bindings, set(), memo) for e in value.elts]
        known = found.get(len(elements))
        found[len(elements)] = elements if known is None else [_join_pass(a, b) for a, b in zip(known, elements)]
    return {length: tuple(parts) for length, parts in found.items()}


#: ``(callee, position, length)``: the element at ``position`` of the ``length`` names a call of
#: ``callee`` (as spelled, qualified by the caller's ``qualify``) was unpacked into
Unpacked = Tuple[str, int, int]


def returned_unpacked(
    params: Sequence[str], nodes: Iterable[ast.AST], self_name: Optional[str], qualify: Callable[[str], str]
) -> Dict[int, Tuple[Optional[Unpacked], ...]]:
    """For each length of the tuple literals a function returns, position by position: the call
    whose result the element is one part of, when the element is a local bound nowhere else than
    by unpacking that call (``critic_loss, q1_loss, q2_loss = self.update_critic(obs)`` then
    ``return info, q1_loss, q2_loss``), None otherwise. What the callee returns in that position
    is then what this function returns there."""
    nodes = list(nodes)
    bindings, returns = _bindings_and_returns(nodes)
    origin: Dict[str, Unpacked] = {}
    for node in nodes:
        if not isinstance(node, ast.Assign) or len(node.targets) != 1 or not isinstance(node.value, ast.Call):
            continue
        target = node.targets[0]
        spelled = _spelled(node.value.func)
        if spelled is None or not isinstance(target, (ast.Tuple, ast.List)) or any(isinstance(e, ast.Starred) for e in target.elts):
            continue
        if self_name is None or not spelled.startswith(f"{self_name}."):
            spelled = qualify(spelled)
        for index, element in enumerate(target.elts):
            if isinstance(element, ast.Name):
                origin[element.id] = (spelled, index, len(target.elts))
    found: Dict[int, List[Optional[Unpacked]]] = {}
    for node in returns:
        value = node.value
        if not isinstance(value, ast.Tuple) or any(isinstance(e, ast.Starred) for e in value.elts):
            continue
        elements: List[Optional[Unpacked]] = []
        for element in value.elts:
            name = element.id if isinstance(element, ast.Name) else None
            single = name is not None and name not in params and len(bindings.get(name, ())) == 1
            elements.append(origin.get(name) if single and name is not None else None)
        known = found.get(len(elements))
        found[len(elements)] = elements if known is None else [a if a == b else None for a, b in zip(known, elements)]
    return {length: tuple(parts) for length, parts in found.items()}


def _bindings_and_returns(
    nodes: Iterable[ast.AST], augmented: bool = False
) -> Tuple[Dict[str, List[Optional[ast.expr]]], List[ast.Return]]:
    """Every binding of each name (its value, None where not an expression: a loop target, an
    import), and the ``return`` statements, read flow-insensitively. ``augmented``: ``x += v`` binds
    ``x + v`` (else None)."""
    bindings: Dict[str, List[Optional[ast.expr]]] = {}
    returns: List[ast.Return] = []
    for node in nodes:
        if isinstance(node, ast.Return):
            returns.append(node)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                _bind_pass(target, node.value, bindings)
                stored = _stored_into(target) if augmented else None
                if stored is not None:
                    # ``losses["gan"] = value``: the container now holds that value's graph too.
                    bindings.setdefault(stored, []).append(node.value)
        elif augmented and isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            call = node.value
            if (
                isinstance(call.func, ast.Attribute) and call.func.attr in _FILLING_METHODS
                and isinstance(call.func.value, ast.Name) and (call.args or call.keywords)
            ):
                # ``out.update({"kp": kp})``, ``losses.append(l)``: what is put in is held too.
                values = [a.value if isinstance(a, ast.Starred) else a for a in call.args] + [k.value for k in call.keywords]
                bindings.setdefault(call.func.value.id, []).append(ast.Tuple(elts=values, ctx=ast.Load()))
        elif augmented and isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            _bind_pass(node.target, ast.BinOp(ast.Name(node.target.id, ast.Load()), node.op, node.value), bindings)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor, ast.comprehension)):
            _bind_pass(node.target, None, bindings)
        elif isinstance(node, ast.NamedExpr):
            _bind_pass(node.target, None, bindings)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                if item.optional_vars is not None:
                    _bind_pass(item.optional_vars, None, bindings)
        elif isinstance(node, (ast.Global, ast.Nonlocal, ast.Import, ast.ImportFrom, ast.Delete, ast.ExceptHandler)):
            names = getattr(node, "names", None) or ([node.name] if isinstance(node, ast.ExceptHandler) and node.name else [])
            for name in names:
                bindings.setdefault(name if isinstance(name, str) else (name.asname or name.name), []).append(None)
    return bindings, returns


#: methods of a container that put their arguments into it
_FILLING_METHODS = frozenset({"update", "append", "extend", "insert", "setdefault", "add", "appendleft"})


def _stored_into(target: ast.expr) -> Optional[str]:
    """The local name a subscript assignment stores into (``d["k"] = v``, ``d["a"]["b"] = v``); None
    for any other target (an attribute, ``self.cache[k] = v``, is no local's binding)."""
    if not isinstance(target, ast.Subscript):
        return None
    inner = target.value
    while isinstance(inner, ast.Subscript):
        inner = inner.value
    return inner.id if isinstance(inner, ast.Name) else None


def forwards_in_every_element(params: Sequence[str], nodes: Iterable[ast.AST]) -> FrozenSet[str]:
    """The parameters whose forward pass (``d(x)``, ``d.forward(x)``) every element of every tuple
    ``func`` returns is surely computed from: ``return d_loss, g_loss`` where both go through
    ``d(fake)``. A step of that module's optimizer between two of the elements' backward calls
    rewrites weights the later one's graph saved. Empty when a ``return`` is not a tuple literal.
    """
    bindings, returns = _bindings_and_returns(nodes)
    #: name → what it surely comes through (None while being read: a name read again meanwhile
    #: counts for nothing, as does a loop)
    memo: Dict[str, Optional[FrozenSet[str]]] = {}
    found: Optional[FrozenSet[str]] = None
    for node in returns:
        value = node.value
        if not isinstance(value, ast.Tuple) or not value.elts or any(isinstance(e, ast.Starred) for e in value.elts):
            return frozenset()
        for element in value.elts:
            runs = _runs(element, params, bindings, memo)
            found = runs if found is None else found & runs
    return found or frozenset()


def _runs(
    expr: Optional[ast.AST], params: Sequence[str], bindings: Dict[str, List[Optional[ast.expr]]],
    memo: Dict[str, Optional[FrozenSet[str]]],
) -> FrozenSet[str]:
    """The parameters whose forward ``expr``'s value surely comes through (see :func:`forwards_in_every_element`)."""
    if expr is None or isinstance(expr, (ast.Lambda, ast.Constant)):
        return frozenset()
    if isinstance(expr, ast.Name):
        values = bindings.get(expr.id)
        if not values or expr.id in memo:
            # A parameter as given, a global, or a name being read (a loop): nothing run here for sure.
            return memo.get(expr.id) or frozenset()
        memo[expr.id] = None
        each = [_runs(v, params, bindings, memo) if v is not None else frozenset() for v in values]
        memo[expr.id] = frozenset.intersection(*each)
        return memo[expr.id] or frozenset()
    if isinstance(expr, ast.Attribute) and expr.attr in CUT_ATTRIBUTES:
        return frozenset()
    found: FrozenSet[str] = frozenset()
    if isinstance(expr, ast.Call):
        func = expr.func
        if isinstance(func, ast.Attribute) and func.attr in CUT_METHODS:
            return frozenset()
        if isinstance(func, ast.Name) and func.id in params:
            found = frozenset({func.id})
        elif isinstance(func, ast.Attribute) and func.attr == "forward" and isinstance(func.value, ast.Name) and func.value.id in params:
            found = frozenset({func.value.id})
    for child in ast.iter_child_nodes(expr):
        found |= _runs(child, params, bindings, memo)
    return found


#: a builtin called by name: it runs no module and hands back what it was given
_BUILTIN_CALLS = frozenset({
    "len", "range", "enumerate", "zip", "list", "tuple", "dict", "set", "sum", "min", "max", "abs",
    "float", "int", "bool", "str", "isinstance", "sorted", "reversed", "map", "filter", "round",
})


#: methods of a tensor or a container: called on what ``self`` holds, they read it (``self.h.pow(2)``)
_VALUE_METHODS = TENSOR_METHODS | KEEP_METHODS

#: joins a ``self`` attribute called to where it is called: one run of that module
#: (:func:`returned_element_sources`)
RUN_MARK = "@"


def held_source(source: str) -> str:
    """The attribute a source reads or runs: ``self.disc`` for ``self.disc`` and ``self.disc@12:8``."""
    return source.partition(RUN_MARK)[0]


def sources_share(a: AbstractSet[str], b: AbstractSet[str]) -> bool:
    """Two elements' sources (:func:`returned_element_sources`) may share a node of a graph: a source
    in common (one run, a value held, a module handed in), or a run of a module whose attribute
    the other reads as it is held (what the instance holds may be a graph both runs read)."""
    if a & b:
        return True
    # A run's held name meets only the other's held reads (those carry no mark).
    return bool({held_source(s) for s in a if RUN_MARK in s} & b or {held_source(s) for s in b if RUN_MARK in s} & a)


def returned_element_sources(
    params: Sequence[str], nodes: Iterable[ast.AST], self_name: Optional[str], qualify: Callable[[str], str]
) -> Dict[int, Tuple[Optional[FrozenSet[str]], ...]]:
    """Per length of the returned tuple literals, per position: what the element's graph may come
    from when the arguments carry none. Each source is a module run (a parameter called,
    ``critic(s)``, or an attribute of ``self`` called, ``self.actor(state)``: spelled ``critic``,
    ``self.actor``), a ``self`` attribute or global read (``self`` itself, handed on whole), or a
    global called (``helper(x)``); None where it cannot be told (a loop target, a comprehension).
    Read flow-insensitively: every binding of a name counts, a loop's rebinding (``values =
    torch.cat((values, critic(s)))``, ``total += r``) included. What a function that cuts the graph
    makes (``torch.tensor(state)``, ``x.item()``) has none; ``qualify`` gives a callee's qualified
    name (``th.tensor`` → ``torch.tensor``).

    Elements with no source in common share no node of a graph: ``return self.actor(state),
    self.critic(state)`` on a batch, but not ``h = self.body(x); return self.pi(h), self.v(h)``.
    An attribute of ``self`` called (``self.disc(x)``, ``self.loss.discriminator(x)``; not a
    tensor's or a container's method, ``self.h.pow(2)``) is one run of it, spelled with where it
    is called (``self.disc@12:8``, :data:`RUN_MARK`): two runs of one module build two graphs,
    which share only its parameters (``d_loss`` from ``self.disc(fake.detach())``, ``g_loss`` from
    ``self.disc(fake)``), as two calls of a module in a training loop are taken to; a run still
    shares with what the attribute holds when read (see :func:`sources_share`), and
    :meth:`ModuleModel.returned_element_graphs` joins the runs of a module that carries state.
    Empty when some ``return`` is not a tuple literal.
    """
    bindings, returns = _bindings_and_returns(nodes, augmented=True)
    return _element_sources(returns, _SourceReader(params, bindings, self_name, qualify))


class _SourceReader:
    """What an expression's graph may come from (see :func:`returned_element_sources`)."""

    def __init__(
        self, params: Sequence[str], bindings: Dict[str, List[Optional[ast.expr]]], self_name: Optional[str],
        qualify: Callable[[str], str],
    ) -> None:
        self.params = params
        self.bindings = bindings
        self.self_name = self_name
        self.qualify = qualify
        #: name → its sources
        self.memo: Dict[str, Optional[FrozenSet[str]]] = {}
        self.reading: Set[str] = set()
        #: names being read that the name being read met again (a loop of bindings)
        self.hit: Set[str] = set()

    def read(self, expr: Optional[ast.AST]) -> Optional[FrozenSet[str]]:
        if expr is None:
            return None
        if isinstance(expr, (ast.Constant, ast.Lambda, ast.Compare)):
            return frozenset()  # ``users > 0``: a comparison's result holds no graph
        if isinstance(expr, ast.Name):
            return self._name(expr.id)
        if isinstance(expr, ast.Attribute):
            if expr.attr in CUT_ATTRIBUTES:
                return frozenset()
            parts = (_spelled(expr) or "").split(".")
            head = parts[0] or None
            if head is not None and head == self.self_name:
                # ``self.log_std``: what the instance holds (a parameter, or a graph kept from a call before).
                return frozenset({".".join(parts[:2])})
            if head is not None and head not in self.params and head not in self.bindings:
                return frozenset()  # ``torch.float32``, ``np.pi``: a constant of an imported module
            return self.read(expr.value)
        if isinstance(expr, ast.Call):
            return self._call(expr)
        if isinstance(expr, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            return None
        found: FrozenSet[str] = frozenset()
        for child in ast.iter_child_nodes(expr):
            if isinstance(child, (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)):
                continue
            part = self.read(child)
            if part is None:
                return None
            found |= part
        return found

    def _name(self, name: str) -> Optional[FrozenSet[str]]:
        if name in self.reading:
            # A loop of bindings: its other bindings give the rest.
            self.hit.add(name)
            return frozenset()
        if name in self.memo:
            return self.memo[name]
        values = self.bindings.get(name)
        if not values:
            if name == self.self_name:
                return frozenset({name})
            # A parameter as given carries no graph here (the caller checks its arguments); a global may.
            return frozenset() if name in self.params else frozenset({name})
        outer, self.hit = self.hit, set()
        self.reading.add(name)
        found: Optional[FrozenSet[str]] = frozenset()
        for value in values:
            part = self.read(value)
            found = None if part is None or found is None else found | part
        self.reading.discard(name)
        self.hit.discard(name)
        if not self.hit:
            # Kept only when complete: read inside a loop through an outer name, it lacks that name's rest.
            self.memo[name] = found
        self.hit |= outer
        return found

    def _call(self, call: ast.Call) -> Optional[FrozenSet[str]]:
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr in CUT_METHODS:
            return frozenset()
        spelled = _spelled(func)
        if spelled is not None and function_effect(spelled, self.qualify(spelled)) is Effect.CUT:
            return frozenset()
        found: Optional[FrozenSet[str]] = self._callee(func)
        for arg in [*call.args, *(k.value for k in call.keywords)]:
            part = self.read(arg.value if isinstance(arg, ast.Starred) else arg)
            found = None if part is None or found is None else found | part
        return found

    def _callee(self, func: ast.expr) -> Optional[FrozenSet[str]]:
        """The module a call runs: a parameter (``critic``), an attribute of ``self`` (``self.actor``),
        a global called by name; nothing for a library function (``torch.cat``) or a builtin."""
        spelled = _spelled(func)
        if spelled is None and isinstance(func, ast.Call):
            # ``nn.LogSigmoid()(x)``: a module made here runs, one run of its own (its parameters, if any).
            made = self.read(func)
            inner = _spelled(func.func) or "call"
            return None if made is None else made | {f"{inner}(){RUN_MARK}{func.lineno}:{func.col_offset}"}
        if spelled is None:
            # ``actor(s).squeeze(0)``: a method of a value made here.
            return self.read(func.value) if isinstance(func, ast.Attribute) else None
        head = spelled.split(".", 1)[0]
        if head in self.bindings:
            return self.read(func)
        if head == self.self_name:
            parts = spelled.split(".")
            held = ".".join(parts[:2])
            if len(parts) == 1 or len(parts) > 2 and parts[-1] in _VALUE_METHODS:
                # ``self.h.pow(2)``, ``self.cache.get(k)``: a method of the value held, not a run.
                return frozenset({held})
            return frozenset({f"{held}{RUN_MARK}{func.lineno}:{func.col_offset}"})
        if head in self.params:
            return frozenset({head})
        if "." in spelled or spelled in _BUILTIN_CALLS or self.qualify(spelled).split(".", 1)[0] in LIBRARIES:
            # A function of an imported module (``F.relu``, ``log_softmax`` from torch), or a builtin.
            return frozenset()
        return frozenset({spelled})


def returned_param_sources(
    params: Sequence[str], nodes: Iterable[ast.AST], self_name: Optional[str], qualify: Callable[[str], str],
    graph_free: AbstractSet[int],
) -> Dict[int, Tuple[Optional[FrozenSet[str]], ...]]:
    """:func:`returned_element_sources` with the parameters read counted too (a parameter called,
    ``net(x)``, is spelled ``net()``: it runs a module), and bindings made where autograd is off
    (ids in ``graph_free``: a ``no_grad`` block, the ``not torch.is_grad_enabled()`` branch) taken
    to carry no graph. An element whose sources are all parameters read carries the graph of those
    arguments only: ``return gamma * x_hat + beta, moving_mean, moving_var`` of a hand-written batch
    norm, whose first element never reads ``moving_mean`` where gradients flow."""
    bindings, returns = _bindings_and_returns(nodes, augmented=True)
    return _element_sources(returns, _ParamSourceReader(params, bindings, self_name, qualify, graph_free))


def _element_sources(returns: List[ast.Return], reader: "_SourceReader") -> Dict[int, Tuple[Optional[FrozenSet[str]], ...]]:
    """Per length of the returned tuple literals, per position, what ``reader`` says of the element,
    joined over the returns of that length; empty when some ``return`` is not a tuple literal."""
    found: Dict[int, List[Optional[FrozenSet[str]]]] = {}
    for node in returns:
        value = node.value
        if value is None or isinstance(value, ast.Constant) and value.value is None:
            continue
        if not isinstance(value, ast.Tuple) or any(isinstance(e, ast.Starred) for e in value.elts):
            return {}
        elements = [reader.read(e) for e in value.elts]
        known = found.get(len(elements))
        found[len(elements)] = elements if known is None else [_join_sources(a, b) for a, b in zip(known, elements)]
    return {length: tuple(parts) for length, parts in found.items()}


class _ParamSourceReader(_SourceReader):
    def __init__(
        self, params: Sequence[str], bindings: Dict[str, List[Optional[ast.expr]]], self_name: Optional[str],
        qualify: Callable[[str], str], graph_free: AbstractSet[int],
    ) -> None:
        # A binding made where autograd is off reads as a constant: it brings no graph.
        graph_bearing = {
            name: [ast.Constant(0) if value is not None and id(value) in graph_free else value for value in values]
            for name, values in bindings.items()
        }
        super().__init__(params, graph_bearing, self_name, qualify)
        self.graph_free = graph_free

    def read(self, expr: Optional[ast.AST]) -> Optional[FrozenSet[str]]:
        if expr is not None and id(expr) in self.graph_free:
            return frozenset()
        return super().read(expr)

    def _name(self, name: str) -> Optional[FrozenSet[str]]:
        if name in self.params and name != self.self_name and name not in self.bindings:
            return frozenset({name})
        found = super()._name(name)
        if found is not None and name in self.params and name != self.self_name:
            found = found | {name}  # rebound in some ways, given as is in others
        return found

    def _callee(self, func: ast.expr) -> Optional[FrozenSet[str]]:
        found = super()._callee(func)
        spelled = _spelled(func)
        head = spelled.split(".", 1)[0] if spelled else None
        if (
            found is not None and head in self.params and head != self.self_name and head not in self.bindings
            and spelled in (head, f"{head}.forward")
        ):
            return frozenset({f"{head}()"})  # a module handed in runs a graph of its own
        return found


def _join_sources(a: Optional[FrozenSet[str]], b: Optional[FrozenSet[str]]) -> Optional[FrozenSet[str]]:
    return None if a is None or b is None else a | b


def _bind_pass(target: ast.expr, value: Optional[ast.expr], bindings: Dict[str, List[Optional[ast.expr]]]) -> None:
    if isinstance(target, ast.Name):
        bindings.setdefault(target.id, []).append(value)
    elif isinstance(target, (ast.Tuple, ast.List)):
        literal = isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts)
        for index, element in enumerate(target.elts):
            if literal:
                assert isinstance(value, (ast.Tuple, ast.List))
                _bind_pass(element, value.elts[index], bindings)
            else:
                # ``y_hat, codes = self.initial(x)``: a part of the callee's result.
                _bind_pass(element, value if isinstance(value, ast.Call) else None, bindings)
    elif isinstance(target, ast.Starred):
        _bind_pass(target.value, None, bindings)


def _pass_of(
    expr: Optional[ast.expr], params: Sequence[str], bindings: Dict[str, List[Optional[ast.expr]]], visiting: Set[str],
    memo: Optional[Dict[str, Optional[PassThrough]]] = None,
) -> Optional[PassThrough]:
    """What ``expr`` may be (see :func:`returned_pass_through`). ``memo``: each name's answer, kept
    when it did not depend on a name being read (a loop of bindings); without it a chain of names
    bound twice each is read 2^n times."""
    return _PassReader(params, bindings, memo if memo is not None else {}).read(expr, visiting)[0]


class _PassReader:
    def __init__(
        self, params: Sequence[str], bindings: Dict[str, List[Optional[ast.expr]]], memo: Dict[str, Optional[PassThrough]]
    ) -> None:
        self.params = params
        self.bindings = bindings
        self.memo = memo

    def read(self, expr: Optional[ast.expr], visiting: Set[str]) -> Tuple[Optional[PassThrough], bool]:
        """The answer, and whether it depended on a name in ``visiting``."""
        if expr is None:
            return None, False
        if isinstance(expr, ast.Constant) and expr.value is None:
            return (frozenset(), frozenset()), False
        if _cuts_graph(expr):
            return (frozenset(), frozenset()), False
        if isinstance(expr, ast.Call):
            spelled = _spelled(expr.func)
            return ((frozenset(), frozenset({spelled})) if spelled is not None else None), False
        if not isinstance(expr, ast.Name):
            return None, False
        name = expr.id
        if name in visiting:
            return (frozenset(), frozenset()), True
        if name in self.memo:
            return self.memo[name], False
        if name not in self.params and name not in self.bindings:
            return None, False  # a global or a closure's name: not known
        found: Optional[PassThrough] = (frozenset({name}) if name in self.params else frozenset(), frozenset())
        looped = False
        for value in self.bindings.get(name, ()):
            part, hit = self.read(value, visiting | {name})
            looped = looped or hit
            found = _join_pass(found, part)
            if found is None:
                break
        if not looped:
            self.memo[name] = found
        return found, looped


#: Methods whose result holds no graph whatever they are called on; a buffer's ``sample()``
#: hands back what was stored in it, graph and all.
_NO_GRAPH_METHODS = CUT_METHODS - {"sample"}


def _cuts_graph(expr: ast.expr) -> bool:
    """``acc.detach()``, ``x.grad``, ``logits.argmax(1)``, ``out.item()``: a value with no graph,
    whatever it was computed from."""
    if isinstance(expr, ast.Attribute):
        return expr.attr in CUT_ATTRIBUTES
    func = expr.func if isinstance(expr, ast.Call) else None
    return isinstance(func, ast.Attribute) and func.attr in _NO_GRAPH_METHODS


def _join_pass(a: Optional[PassThrough], b: Optional[PassThrough]) -> Optional[PassThrough]:
    if a is None or b is None:
        return None
    return (a[0] | b[0], a[1] | b[1])


def _spelled(node: ast.expr) -> Optional[str]:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _spelled(node.value)
        return f"{inner}.{node.attr}" if inner is not None else None
    return None
