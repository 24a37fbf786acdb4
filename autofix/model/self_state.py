"""Which attributes a ``forward`` carries from one call into the next (ast only).

``out, self.hidden = self.rnn(x, self.hidden)`` rebuilds ``self.hidden`` from
the value the previous call left there: when that value holds a graph, every
call's output depends on the graph of every earlier call, and a training loop
that back-propagates once per iteration reaches, from the second iteration on,
a graph the previous ``backward()`` already freed. The same holds when the old
value reaches the new one through locals (``h = self.h; h = cell(x, h);
self.h = h``).

An attribute is *not* carried when, on every path to the read, this call has
already rebuilt it (``if self.h is None: self.h = init`` only covers one path,
so it does not count), when the read is cut (``self.h.detach()``, ``.data``,
``.item()``), when the rebuilding runs under ``torch.no_grad()``, or when the
new value is plainly no graph (a number, ``None``, a fresh or detached tensor).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Callable, Dict, FrozenSet, Iterable, List, Optional, Set, Tuple

from autofix.model.vocabulary import CUT_ATTRIBUTES, CUT_FUNCTIONS, CUT_METHODS, GRAD_DISABLING_CONTEXTS



def carried_attributes(function: ast.FunctionDef | ast.AsyncFunctionDef, self_name: str,
                       is_graphless: Callable[[ast.expr], bool],
                       branches: Dict[Tuple[int, int], bool]) -> FrozenSet[str]:
    """The ``self`` attributes ``function`` reassigns from their value of the previous call.

    ``is_graphless`` tells a value that cannot hold a graph (a number, ``None``,
    a factory or detached tensor), as the caller's summary knows it; ``branches`` are the
    function's :func:`opt_in_branches`, whose opted-in ways a default call never takes.
    """
    walker = _Walker(self_name, is_graphless, branches)
    walker.block(function.body, set(), {}, grad=True)
    return frozenset(walker.carried)


class _Walker:
    def __init__(self, self_name: str, is_graphless: Callable[[ast.expr], bool], skipped: Dict[Tuple[int, int], bool]) -> None:
        self.self_name = self_name
        self.is_graphless = is_graphless
        #: ``if`` statements (by position) a default call takes one way only (:func:`opt_in_branches`)
        self.skipped = skipped
        self.carried: Set[str] = set()

    def block(self, statements: Iterable[ast.stmt], fresh: Set[str], derived: Dict[str, Set[str]], grad: bool) -> Set[str]:
        """Walk ``statements``; ``fresh``: attributes this call already rebuilt on every path so far;
        ``derived``: local name → the attributes of the previous call its value comes from."""
        for statement in statements:
            fresh = self.statement(statement, fresh, derived, grad)
        return fresh

    def statement(self, node: ast.stmt, fresh: Set[str], derived: Dict[str, Set[str]], grad: bool) -> Set[str]:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return fresh
        if isinstance(node, ast.If):
            opted = self.skipped.get((node.lineno, node.col_offset))
            if opted is not None:
                # A cache kept only by calls that opt in (``if use_cache: self.cache_k = cat(...)``, a
                # generation under no_grad): the default call, a training step's, never takes that branch.
                return self.block(node.orelse if opted else node.body, fresh, derived, grad)
            taken = self.block(node.body, set(fresh), derived, grad)
            other = self.block(node.orelse, set(fresh), derived, grad)
            return taken & other
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)):
            # The body may not run: what it rebuilds is not rebuilt on every path.
            self.block(node.body, set(fresh), derived, grad)
            self.block(node.orelse, set(fresh), derived, grad)
            return fresh
        if isinstance(node, (ast.With, ast.AsyncWith)):
            stops = any(_disables_grad(item.context_expr) for item in node.items)
            return self.block(node.body, fresh, derived, grad and not stops)
        if isinstance(node, ast.Try):
            after = self.block(node.body, set(fresh), derived, grad)
            for handler in node.handlers:
                after &= self.block(handler.body, set(fresh), derived, grad)
            after = self.block(node.orelse, after, derived, grad)
            return self.block(node.finalbody, after, derived, grad)
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            if node.value is None:
                return fresh
            targets: List[ast.expr] = list(node.targets) if isinstance(node, ast.Assign) else [node.target]
            reads: Set[str] = set()
            if grad and not self.is_graphless(node.value):
                reads = self.reads(node.value, fresh, derived)
                if isinstance(node, ast.AugAssign):
                    reads |= self.reads(node.target, fresh, derived)
            for target in targets:
                for part in _target_parts(target):
                    if isinstance(part, ast.Name):
                        derived[part.id] = set(reads)
                    elif self._self_attribute(part):
                        assert isinstance(part, ast.Attribute)
                        if part.attr in reads:
                            self.carried.add(part.attr)
                        fresh = fresh | {part.attr}
            return fresh
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            func = node.value.func
            # ``self.h.detach_()``: cut in place for the rest of the call.
            if isinstance(func, ast.Attribute) and func.attr == "detach_" and self._self_attribute(func.value):
                assert isinstance(func.value, ast.Attribute)
                return fresh | {func.value.attr}
        return fresh

    def reads(self, expr: ast.expr, fresh: Set[str], derived: Dict[str, Set[str]]) -> Set[str]:
        """Attributes of the previous call whose graph the value of ``expr`` may hold."""
        found: Set[str] = set()
        stack: List[ast.AST] = [expr]
        while stack:
            node = stack.pop()
            if isinstance(node, ast.Call):
                func = node.func
                if isinstance(func, ast.Attribute) and func.attr in CUT_METHODS:
                    continue
                if isinstance(func, ast.Name) and func.id in CUT_FUNCTIONS:
                    continue
            elif isinstance(node, ast.Attribute):
                if node.attr in CUT_ATTRIBUTES:
                    continue
                if self._self_attribute(node) and isinstance(node.ctx, ast.Load):
                    if node.attr not in fresh:
                        found.add(node.attr)
                    continue
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                found |= derived.get(node.id, set())
            elif isinstance(node, (ast.Compare, ast.Lambda)):
                # ``self.h is None`` and friends test the old value, they do not pass it on.
                continue
            stack.extend(ast.iter_child_nodes(node))
        return found

    def _self_attribute(self, node: ast.AST) -> bool:
        return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == self.self_name


def opt_in_branches(function: ast.FunctionDef | ast.AsyncFunctionDef, self_name: str) -> Dict[Tuple[int, int], bool]:
    """The ``if`` statements of a ``forward`` (by line and column) whose branch runs only on calls that
    opt in with a flag off by default, and that keep state of their own there: every ``self``
    attribute the branch assigns is read nowhere else in the function (``if use_cache: self.cache_k =
    cat([self.cache_k, k])``, a cache generation fills under no_grad). The value is True where the
    opted-in branch is the body (``if use_cache:``), False where it is the ``else`` (``if not use_cache:``).
    A default call, a training step's, takes the other way. State assigned there and read on every call
    (``if refresh: self.scale = ...`` then ``x * self.scale``) is not such a branch."""
    flags = opt_in_flags(function)
    if not flags:
        return {}
    candidates: Dict[ast.If, bool] = {}
    for node in _own_statements(function.body):
        if isinstance(node, ast.If):
            opted = opted_in(node.test, flags)
            if opted is not None:
                candidates[node] = opted
    if not candidates:
        return {}
    inside: Set[int] = set()
    for node, opted in candidates.items():
        for stmt in node.body if opted else node.orelse:
            inside.update(id(n) for n in ast.walk(stmt))
    # ``self.cache_k is not None`` tests the old value; it does not pass it on.
    inside.update(id(n) for c in ast.walk(function) if isinstance(c, ast.Compare) for n in ast.walk(c))
    outside_reads = {
        n.attr for n in ast.walk(function)
        if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load) and isinstance(n.value, ast.Name)
        and n.value.id == self_name and id(n) not in inside
    }
    found: Dict[Tuple[int, int], bool] = {}
    for node, opted in candidates.items():
        written = {
            n.attr for stmt in (node.body if opted else node.orelse) for n in ast.walk(stmt)
            if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store) and isinstance(n.value, ast.Name) and n.value.id == self_name
        }
        if written and not written & outside_reads:
            found[(node.lineno, node.col_offset)] = opted
    return found


def _own_statements(body: List[ast.stmt]) -> Iterable[ast.stmt]:
    """Every statement of ``body``, nested blocks included, not entering nested functions or classes."""
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        yield stmt
        for field in ("body", "orelse", "finalbody"):
            yield from _own_statements(getattr(stmt, field, []) or [])
        for handler in getattr(stmt, "handlers", []) or []:
            yield from _own_statements(handler.body)


def opt_in_flags(function: ast.FunctionDef | ast.AsyncFunctionDef) -> FrozenSet[str]:
    """The parameters whose default is ``False``, ``None`` or ``0``."""
    args = function.args
    positional = [*args.posonlyargs, *args.args]
    pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults))
    pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
    return frozenset(
        a.arg for a, d in pairs if isinstance(d, ast.Constant) and d.value in (False, None, 0) and not isinstance(d.value, float)
    )


def opted_in(test: ast.expr, flags: FrozenSet[str]) -> Optional[bool]:
    """True when ``test`` holds only on calls that pass an opt-in flag (``use_cache``, ``flag is not
    None``, ``flag and x``); False when it fails only on them (``not reverse``); None otherwise."""
    if isinstance(test, ast.Name):
        return True if test.id in flags else None
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = opted_in(test.operand, flags)
        return None if inner is None else not inner
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return True if any(opted_in(v, flags) is True for v in test.values) else None
    if (
        isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Name)
        and test.left.id in flags and isinstance(test.comparators[0], ast.Constant)
    ):
        op, constant = test.ops[0], test.comparators[0].value
        if isinstance(op, (ast.Is, ast.Eq)):
            return None if constant not in (None, False, True) else constant is True
        if isinstance(op, (ast.IsNot, ast.NotEq)):
            return None if constant not in (None, False, True) else constant is not True
    return None


def _target_parts(target: ast.expr) -> Iterable[ast.expr]:
    if isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _target_parts(element)
    elif isinstance(target, ast.Starred):
        yield from _target_parts(target.value)
    else:
        yield target


def _disables_grad(expr: ast.expr) -> bool:
    call: Optional[ast.expr] = expr.func if isinstance(expr, ast.Call) else expr
    while isinstance(call, ast.Attribute):
        if call.attr in GRAD_DISABLING_CONTEXTS:
            return True
        call = call.value
    return isinstance(call, ast.Name) and call.id in GRAD_DISABLING_CONTEXTS


@dataclass(frozen=True)
class MemberUse:
    """One use, in a method, of an object the instance holds (``self.decoder``)."""

    #: the attribute holding the object (``decoder``)
    member: str
    #: ``call``: a method called on it (:attr:`name`; ``forward`` for ``self.decoder(x)``); ``read``:
    #: an attribute of it read (:attr:`name`); ``store``: an attribute of it assigned (:attr:`name`);
    #: ``other``: the object itself handed on, bound or tested
    how: str
    name: str
    #: ``self`` flags that hold wherever it runs: ``(flag, True)`` under ``if self.flag:``,
    #: ``(flag, False)`` under its ``else`` or under ``if not self.flag:``
    guards: FrozenSet[Tuple[str, bool]]
    #: it runs on every call on which its guards hold: under no loop, ``try``, other ``if`` or nested
    #: function, and after no ``return`` of the method
    every_call: bool
    #: ``call``: no argument reads ``self``; ``store``: the value assigned holds no graph
    plain: bool


def member_uses(function: ast.FunctionDef | ast.AsyncFunctionDef, self_name: str,
                is_graphless: Callable[[ast.expr], bool]) -> Tuple[MemberUse, ...]:
    """Every use of ``self.<member>.…`` and ``self.<member>(…)`` in ``function``, with the flags guarding it."""
    returns = [n.lineno for n in _own_nodes(function.body) if isinstance(n, ast.Return)]
    first_return = min(returns) if returns else None
    found: List[MemberUse] = []

    def flag_of(test: ast.expr) -> Optional[Tuple[str, bool]]:
        if isinstance(test, ast.Attribute) and isinstance(test.value, ast.Name) and test.value.id == self_name:
            return (test.attr, True)
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            inner = flag_of(test.operand)
            return None if inner is None else (inner[0], not inner[1])
        return None

    def record(roots: Iterable[ast.AST], guards: FrozenSet[Tuple[str, bool]], every: bool) -> None:
        for root in roots:
            parents: Dict[int, ast.AST] = {}
            for node in ast.walk(root):
                for child in ast.iter_child_nodes(node):
                    parents[id(child)] = node
            for node in ast.walk(root):
                if not (
                    isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id == self_name and isinstance(node.ctx, ast.Load)
                ):
                    continue
                parent = parents.get(id(node))
                if parent is None:
                    continue
                deferred = False
                above: Optional[ast.AST] = parent
                while above is not None:
                    if isinstance(above, (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                        deferred = True
                    above = parents.get(id(above))
                use_guards, use_every = (frozenset(), False) if deferred else (guards, every)
                if use_every and first_return is not None and first_return < getattr(root, "lineno", 0):
                    use_every = False
                if isinstance(parent, ast.Call) and parent.func is node:
                    found.append(MemberUse(node.attr, "call", "forward", use_guards, use_every, _self_free(parent, self_name)))
                elif isinstance(parent, ast.Attribute) and parent.value is node:
                    grand = parents.get(id(parent))
                    if isinstance(grand, ast.Call) and grand.func is parent:
                        found.append(MemberUse(
                            node.attr, "call", parent.attr, use_guards, use_every, _self_free(grand, self_name)
                        ))
                    elif isinstance(parent.ctx, ast.Store):
                        plain = isinstance(grand, ast.Assign) and grand.targets == [parent] and (
                            is_graphless(grand.value) or isinstance(grand.value, ast.Tuple)
                            and all(is_graphless(e) for e in grand.value.elts)
                        )
                        found.append(MemberUse(node.attr, "store", parent.attr, use_guards, use_every, plain))
                    elif isinstance(parent.ctx, ast.Load):
                        found.append(MemberUse(node.attr, "read", parent.attr, use_guards, use_every, False))
                    else:
                        found.append(MemberUse(node.attr, "other", "", use_guards, use_every, False))
                else:
                    found.append(MemberUse(node.attr, "other", "", use_guards, use_every, False))

    def block(statements: Iterable[ast.stmt], guards: FrozenSet[Tuple[str, bool]], every: bool) -> None:
        for statement in statements:
            if isinstance(statement, ast.If):
                record([statement.test], guards, every)
                flag = flag_of(statement.test)
                if flag is not None:
                    block(statement.body, guards | {flag}, every)
                    block(statement.orelse, guards | {(flag[0], not flag[1])}, every)
                else:
                    block(statement.body, guards, False)
                    block(statement.orelse, guards, False)
            elif isinstance(statement, (ast.With, ast.AsyncWith)):
                record([item.context_expr for item in statement.items], guards, every)
                block(statement.body, guards, every)
            elif hasattr(statement, "body") or hasattr(statement, "cases"):
                # Loops, ``try``, ``match``: headers and bodies alike, as a body may not run, or runs more than once.
                record([statement], guards, False)
            else:
                record([statement], guards, every)

    block(function.body, frozenset(), True)
    return tuple(found)


def _self_free(call: ast.Call, self_name: str) -> bool:
    """No argument of ``call`` reads ``self``."""
    arguments: List[ast.AST] = [*call.args, *(k.value for k in call.keywords)]
    return not any(
        isinstance(n, ast.Name) and n.id == self_name for a in arguments for n in ast.walk(a)
    )


def reset_attributes(function: ast.FunctionDef | ast.AsyncFunctionDef, self_name: str,
                     is_graphless: Callable[[ast.expr], bool]) -> FrozenSet[str]:
    """The ``self`` attributes ``function`` assigns a value with no graph (``None``, a fresh tensor, a
    tuple of those) on every way through it that returns: a call of it re-creates them."""
    exits: List[Set[str]] = []

    def fresh_value(value: ast.expr) -> bool:
        if isinstance(value, ast.Tuple):
            return all(fresh_value(e) for e in value.elts)
        return is_graphless(value)

    def block(statements: Iterable[ast.stmt], fresh: Set[str]) -> Optional[Set[str]]:
        """The attributes fresh where ``statements`` fall through; None where they never do."""
        for statement in statements:
            after = step(statement, fresh)
            if after is None:
                return None
            fresh = after
        return fresh

    def step(node: ast.stmt, fresh: Set[str]) -> Optional[Set[str]]:
        if isinstance(node, ast.Return):
            exits.append(set(fresh))
            return None
        if isinstance(node, ast.Raise):
            return None
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return fresh
        if isinstance(node, ast.If):
            taken = block(node.body, set(fresh))
            other = block(node.orelse, set(fresh))
            if taken is None or other is None:
                return other if taken is None else taken
            return taken & other
        if isinstance(node, (ast.With, ast.AsyncWith)):
            return block(node.body, fresh)
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets: List[ast.expr] = list(node.targets) if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for part in _target_parts(target):
                    if isinstance(part, ast.Attribute) and isinstance(part.value, ast.Name) and part.value.id == self_name:
                        if (
                            target is part and not isinstance(node, ast.AugAssign) and node.value is not None
                            and fresh_value(node.value)
                        ):
                            fresh = fresh | {part.attr}
                        else:
                            fresh = fresh - {part.attr}
            return fresh
        if isinstance(node, (ast.Expr, ast.Pass, ast.Assert, ast.Global, ast.Nonlocal, ast.Delete, ast.Import, ast.ImportFrom)):
            return fresh
        # Loops, ``try`` and the rest: what their bodies assign may not run; what they assign may differ.
        for inner in ast.walk(node):
            if isinstance(inner, ast.Return):
                exits.append(set())
        written = {
            n.attr for n in ast.walk(node)
            if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store) and isinstance(n.value, ast.Name) and n.value.id == self_name
        }
        return fresh - written

    end = block(function.body, set())
    if end is not None:
        exits.append(end)
    return frozenset(set.intersection(*exits)) if exits else frozenset()


def _own_nodes(body: List[ast.stmt]) -> Iterable[ast.AST]:
    """Every node of ``body``, not entering nested functions, classes or lambdas."""
    stack: List[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                stack.append(child)
