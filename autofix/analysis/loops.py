"""Loop-carried names: a def-use walk over one iteration of a loop body.

A name is *carried* by a loop when an iteration may read it before assigning
it, and the body assigns it somewhere: the value read then comes from the
previous iteration. Names are dotted (``h``, ``self.hidden``); an attribute
read also reads each prefix of its chain.

The walk is syntactic and conservative about definite assignment: a branch
assigns a name only when every branch does, a nested loop or ``try`` body may
not run at all. Closures and comprehension variables are ignored.

One exception to "every branch": an ``if``/``elif`` chain whose tests no iteration can change
(``if self.loss_kind == "hinge": ... elif ...:``, on names the body never assigns and attributes
the caller vouches for) takes the same branch in every iteration. A name that only that chain
assigns is then either assigned before the read in every iteration or in none, so no iteration
reads the previous one's value through it.

Tests no iteration changes are also facts of the way that passed them: past ``assert c`` (or
inside ``if c:``, or past ``if not c: continue``) ``c`` holds, so a later ``if`` on the negation of
``c`` (``not c``, ``a >= b`` after ``a < b``, ``x is not None`` after ``x is None``) does not take its
body there, and one on ``c`` takes only its body. Where ways join, what is assigned on every way on
which such a test may hold is kept as assigned under that test: ``if isinstance(out, T): assert
cost < 0; a = out`` ``else: a, b = out`` followed by ``if cost >= 0: use(a, b)`` reads no ``b``
of a previous iteration.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import (
    Callable,
    Dict,
    FrozenSet,
    Iterable,
    Iterator,
    List,
    Optional,
    Sequence,
    Set,
    Tuple,
)

import libcst as cst

from autofix.analysis.names import children, dotted_name


@dataclass
class Carried:
    """What one iteration of a loop body reads from the previous one."""

    #: dotted name → the first read that may see the previous iteration's value
    first_read: Dict[str, cst.CSTNode] = field(default_factory=dict)
    #: dotted name → the statements of the body (at any depth) that assign it
    assignments: Dict[str, List[cst.CSTNode]] = field(default_factory=dict)

    @property
    def names(self) -> Set[str]:
        return set(self.first_read) & set(self.assignments)


def walk(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """``node`` and every node below it, depth first."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(children(current)))


def block_statements(block: cst.CSTNode) -> Sequence[cst.CSTNode]:
    """The statements of an ``IndentedBlock``, or the one-line ``SimpleStatementSuite`` itself
    (``if h is not None: h.detach_()``), which reads as one simple statement line."""
    if isinstance(block, cst.SimpleStatementSuite):
        return (block,)
    body = getattr(block, "body", ())
    return body if isinstance(body, (list, tuple)) else ()


def carried_names(
    body: cst.CSTNode,
    test: Optional[cst.BaseExpression] = None,
    fixed: Optional[Callable[[str, FrozenSet[str]], bool]] = None,
    target: Optional[cst.BaseExpression] = None,
    unbound: Callable[[str], bool] = lambda name: False,
) -> Carried:
    """Names the loop body ``body`` (the loop's ``IndentedBlock``) carries across iterations.

    ``test`` is a ``while`` loop's condition, read before every iteration. ``fixed`` says of a
    dotted name (``self.loss_kind``, ``args.mode``) that nothing run during the loop rebinds it,
    given the names whose objects the loop body may change in place (``_touched``); plain names
    neither the body nor the ``for`` loop's ``target`` assigns are then fixed too. Without
    ``fixed`` no test counts as fixed. ``unbound`` says of a name that nothing binds it before the
    loop: a read that would see no assignment of the first iteration raises NameError there.
    """
    first = _Walker()
    if target is not None:
        first.define((n for n, _ in target_names(target)), body, frozenset())
    first.block(block_statements(body), frozenset())
    walker = _Walker(
        first.assigned if fixed is not None else None, fixed, _touched(body) if fixed is not None else frozenset(), unbound
    )
    walker.read(test, frozenset())
    walker.block(block_statements(body), frozenset())
    return Carried(walker.exposed, walker.assigned)


def _ends_the_way(statements: Sequence[cst.CSTNode]) -> bool:
    """The block's last statement is ``raise``, ``return``, ``continue`` or ``break``: nothing after
    the block runs on this way."""
    if not statements or not isinstance(statements[-1], (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
        return False
    body = statements[-1].body
    return bool(body) and isinstance(body[-1], (cst.Raise, cst.Return, cst.Continue, cst.Break))


def _touched(body: cst.CSTNode) -> FrozenSet[str]:
    """Dotted names whose object the loop body may change without rebinding the name: a method's
    receiver (``flags.append(x)``), an argument handed to a call (``update(cfg)``), the object of a
    subscript or attribute store (``cfg["mode"] = m``, ``state.phase = p``)."""
    found: Set[str] = set()
    for node in walk(body):
        if isinstance(node, cst.Call) and not _type_test(node):
            if isinstance(node.func, cst.Attribute):
                found.add(dotted_name(node.func.value) or "")
            found.update(dotted_name(arg.value) or "" for arg in node.args)
        elif isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            for target in targets:
                for part in target_parts(target):
                    if isinstance(part, (cst.Subscript, cst.Attribute)):
                        found.add(dotted_name(part.value) or "")
    found.discard("")
    return frozenset(found)


# --------------------------------------------------------------------------- reads and writes


def target_parts(target: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    """The single targets an assignment target unpacks into (each of ``a, (b, c)``, ``*rest``, ``d[k]``)."""
    if isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from target_parts(element.value)
    elif isinstance(target, cst.StarredElement):
        yield from target_parts(target.value)
    else:
        yield target


def binding_targets(node: cst.CSTNode) -> List[cst.BaseExpression]:
    """What a node binds: the targets of ``a = b = v``, ``a: T = v``, ``a += v``, ``for a in ...``,
    ``with ... as a``; none for any other node."""
    if isinstance(node, cst.Assign):
        return [t.target for t in node.targets]
    if isinstance(node, (cst.AnnAssign, cst.AugAssign, cst.For, cst.CompFor)):
        return [node.target]
    if isinstance(node, cst.WithItem) and node.asname is not None:
        return [node.asname.name]
    return []


def target_names(target: cst.BaseExpression) -> Iterator[Tuple[str, cst.BaseExpression]]:
    """Dotted names a target binds outright (``a``, ``self.h``, each of ``a, (b, c)``)."""
    for part in target_parts(target):
        name = dotted_name(part)
        if name is not None:
            yield name, part


def iter_reads(node: Optional[cst.CSTNode]) -> Iterator[Tuple[str, cst.CSTNode]]:
    """Dotted names read by an expression, in source order, with every prefix of a chain."""
    if node is None:
        return
    bound = _comprehension_targets(node)
    yield from _reads(node, bound)


def _reads(node: cst.CSTNode, bound: FrozenSet[str]) -> Iterator[Tuple[str, cst.CSTNode]]:
    if isinstance(node, (cst.Lambda, cst.FunctionDef, cst.ClassDef)):
        return
    if isinstance(node, (cst.Name, cst.Attribute)):
        name = dotted_name(node)
        if name is not None:
            if name.split(".", 1)[0] in bound:
                return
            prefixes: List[Tuple[str, cst.CSTNode]] = []
            current: cst.BaseExpression = node
            while isinstance(current, cst.Attribute):
                prefixes.append((dotted_name(current) or "", current))
                current = current.value
            prefixes.append((dotted_name(current) or "", current))
            yield from reversed(prefixes)
            return
    if isinstance(node, cst.Attribute):
        # ``f(x).attr``: only the inner expression reads names.
        yield from _reads(node.value, bound)
        return
    for child in children(node):
        yield from _reads(child, bound)


def _comprehension_targets(node: cst.CSTNode) -> FrozenSet[str]:
    names: Set[str] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.CompFor):
            names.update(n for n, _ in target_names(current.target))
        stack.extend(children(current))
    return frozenset(names)


_EMPTY = cst.Module([])


_CHANGING = (cst.Call, cst.Await, cst.NamedExpr, cst.Yield, cst.Lambda, cst.Subscript)
#: builtins whose call changes nothing and answers the same for an object as long as no name it
#: reads is rebound (an object's type does not change when it is changed in place)
_TYPE_TESTS = frozenset({"type", "isinstance"})


def _type_test(node: cst.CSTNode) -> bool:
    """``type(x)``, ``isinstance(x, list)``: plain arguments, no ``*``/``**``."""
    return (
        isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in _TYPE_TESTS
        and all(arg.star == "" and arg.keyword is None for arg in node.args)
    )

# Besides names, a way's set of what is assigned holds facts of that way (see the module's doc):
#: ``_FACT + key``: the test spelled ``key`` (:func:`_key`) holds on this way
_FACT = "\x00"
#: ``_UNDER + key + _FACT + name``: on this way, ``name`` is assigned wherever the test ``key`` holds
_UNDER = "\x01"

#: a comparison operator → the one that holds exactly where it does not
_OPPOSITE = {
    "<": ">=", ">=": "<", ">": "<=", "<=": ">", "==": "!=", "!=": "==",
    "is": "is not", "is not": "is", "in": "not in", "not in": "in",
}
_OPERATOR = {
    cst.LessThan: "<", cst.GreaterThanEqual: ">=", cst.GreaterThan: ">", cst.LessThanEqual: "<=",
    cst.Equal: "==", cst.NotEqual: "!=", cst.Is: "is", cst.IsNot: "is not", cst.In: "in", cst.NotIn: "not in",
}


def _bare(node: cst.BaseExpression) -> cst.BaseExpression:
    return node.with_changes(lpar=[], rpar=[]) if getattr(node, "lpar", None) else node


def _compared(test: cst.BaseExpression) -> Optional[Tuple[str, str, str]]:
    """``a < b`` as its left operand, operator and right operand; None for anything else."""
    test = _bare(test)
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        operator = _OPERATOR.get(type(test.comparisons[0].operator))
        if operator is not None:
            return _key(test.left), operator, _key(test.comparisons[0].comparator)
    return None


def _key(test: cst.BaseExpression) -> str:
    """The text a test is known by: one spelling for the same test (``a<b``, ``(a < b)``,
    ``not a >= b``), and :func:`_negated_key` of it for its negation."""
    test = _bare(test)
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return _negated_key(test.expression)
    compared = _compared(test)
    if compared is not None:
        return " ".join(compared)
    return _spelling(test)


def _spelling(node: cst.BaseExpression) -> str:
    """One text for an expression however it is spaced or wrapped (``a>0  and b`` as ``a > 0 and
    b``): Python's own rendering of it, or its source text where that cannot be had."""
    code = _EMPTY.code_for_node(node)
    try:
        return ast.unparse(ast.parse(f"({code})", mode="eval"))
    except (SyntaxError, ValueError, RecursionError):
        return code


def _negated_key(test: cst.BaseExpression) -> str:
    """The key of the test that holds exactly where ``test`` does not."""
    test = _bare(test)
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return _key(test.expression)
    compared = _compared(test)
    if compared is not None:
        left, operator, right = compared
        return f"{left} {_OPPOSITE[operator]} {right}"
    return f"not ({_key(test)})"


def _conjuncts(test: cst.BaseExpression) -> List[cst.BaseExpression]:
    """``a``, ``b`` and ``c`` of ``a and b and c``; the test itself otherwise."""
    test = _bare(test)
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return _conjuncts(test.left) + _conjuncts(test.right)
    return [test]


def _plain(defined: FrozenSet[str]) -> FrozenSet[str]:
    """The names of a way's set, without its facts."""
    return frozenset(n for n in defined if n[:1] not in (_FACT, _UNDER))


class _Walker:
    def __init__(
        self,
        loop_assigned: Optional[Dict[str, List[cst.CSTNode]]] = None,
        fixed: Optional[Callable[[str, FrozenSet[str]], bool]] = None,
        touched: FrozenSet[str] = frozenset(),
        unbound: Callable[[str], bool] = lambda name: False,
    ) -> None:
        self.exposed: Dict[str, cst.CSTNode] = {}
        self.assigned: Dict[str, List[cst.CSTNode]] = {}
        #: every assignment of the whole loop body (a first walk), when known
        self.loop_assigned = loop_assigned
        self.fixed = fixed
        #: names whose object the loop body may change in place (:func:`_touched`)
        self.touched = touched
        #: names nothing binds before the loop (see :func:`carried_names`)
        self.unbound = unbound
        #: the text of an ``if`` test → names its body assigns: a later ``if`` on the same test
        #: (``if self.output_hidden:`` twice in one iteration) sees them assigned
        self.under_test: Dict[str, FrozenSet[str]] = {}
        #: the key of each test a fact was made of → the key of its negation, both ways
        self.negation: Dict[str, str] = {}
        #: inside a branch no way takes (its test contradicts a fact of every way reaching it)
        self.dead = 0

    def read(self, node: Optional[cst.CSTNode], defined: FrozenSet[str]) -> None:
        if self.dead:
            return
        for name, where in iter_reads(node):
            if name not in defined and name not in self.exposed:
                self.exposed[name] = where

    def define(self, names: Iterable[str], stmt: cst.CSTNode, defined: FrozenSet[str]) -> FrozenSet[str]:
        names = list(names)
        for name in names if not self.dead else ():
            self.assigned.setdefault(name, []).append(stmt)
        return defined | frozenset(names)

    def block(self, statements: Sequence[cst.CSTNode], defined: FrozenSet[str]) -> FrozenSet[str]:
        for stmt in statements:
            defined = self.statement(stmt, defined)
        return defined

    def statement(self, stmt: cst.CSTNode, defined: FrozenSet[str]) -> FrozenSet[str]:
        if isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            for small in stmt.body:
                defined = self.small(small, stmt, defined)
            return defined
        if isinstance(stmt, cst.If) and self._invariant_chain(stmt):
            return self._invariant_if(stmt, defined)
        if isinstance(stmt, cst.If):
            after = self._if(stmt, defined)
            return defined if after is None else after
        if isinstance(stmt, cst.For):
            self.read(stmt.iter, defined)
            inner = self.define((n for n, _ in target_names(stmt.target)), stmt, defined)
            statements = block_statements(stmt.body)
            after = self.block(statements, inner)
            if stmt.orelse is not None:
                self.block(block_statements(stmt.orelse.body), defined)
            if _ends_the_way(statements) or any(isinstance(n, cst.Break) for n in walk(stmt.body)):
                return defined
            # ``for t in range(seq_len): out = cell(x[t], h)``, then ``out`` read: the inner loop is
            # taken to run (an empty sequence fails elsewhere), so what its body assigns for sure is
            # assigned after it; a body that may ``break`` first promises nothing. What its last
            # iteration found true (``if c: continue`` leaves ``not c``) is not known after it.
            return defined | _plain(after)
        if isinstance(stmt, cst.While):
            self.read(stmt.test, defined)
            self.block(block_statements(stmt.body), defined)
            if stmt.orelse is not None:
                self.block(block_statements(stmt.orelse.body), defined)
            return defined
        if isinstance(stmt, cst.With):
            for item in stmt.items:
                self.read(item.item, defined)
                if item.asname is not None:
                    defined = self.define((n for n, _ in target_names(item.asname.name)), stmt, defined)
            return self.block(block_statements(stmt.body), defined)
        if isinstance(stmt, (cst.Try, cst.TryStar)):
            # Past the ``try``: the body and its ``else`` ran whole, or a handler ran from where the
            # body may have stopped (anywhere: what the body assigns is not known there) and went on.
            body = block_statements(stmt.body)
            completed = self.block(body, defined)
            if stmt.orelse is not None:
                completed = self.block(block_statements(stmt.orelse.body), completed)
            ways = [] if _ends_the_way(body) and stmt.orelse is None else [completed]
            for handler in stmt.handlers:
                statements = block_statements(handler.body)
                handled = self.block(statements, defined)
                if not _ends_the_way(statements):
                    ways.append(handled)
            after = self._join(ways) if ways else defined
            if stmt.finalbody is not None:
                after = self.block(block_statements(stmt.finalbody.body), after)
            return after
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            return self.define([stmt.name.value], stmt, defined)
        return defined

    def _under(self, test: cst.BaseExpression, defined: FrozenSet[str]) -> FrozenSet[str]:
        """Names assigned wherever ``test`` holds: by an earlier ``if`` on ``test`` or on one of its
        conjuncts (``if a and b`` runs only where ``if a`` did), and, on this way, on every way
        joined into it on which ``test`` may hold (see :meth:`_join`)."""
        key = _key(test)
        found = self.under_test.get(key, frozenset())
        bare = _bare(test)
        if isinstance(bare, cst.BooleanOperation) and isinstance(bare.operator, cst.And):
            found = found | self._under(bare.left, defined) | self._under(bare.right, defined)
        prefix = _UNDER + key + _FACT
        return found | frozenset(n[len(prefix):] for n in defined if n.startswith(prefix))

    def _holds(self, test: cst.BaseExpression) -> FrozenSet[str]:
        """The facts a way that finds ``test`` true goes on with: ``test`` and each of its conjuncts,
        where no iteration changes it (so nothing rebinds what it reads while the way goes on)."""
        if not self._invariant(test):
            return frozenset()
        facts = set()
        for part in [test, *_conjuncts(test)]:
            key, negated = _key(part), _negated_key(part)
            self.negation[key], self.negation[negated] = negated, key
            facts.add(_FACT + key)
        return frozenset(facts)

    def _fails(self, test: cst.BaseExpression) -> FrozenSet[str]:
        """The fact a way that finds ``test`` false goes on with: its negation (see :meth:`_holds`)."""
        if not self._invariant(test):
            return frozenset()
        key, negated = _key(test), _negated_key(test)
        self.negation[key], self.negation[negated] = negated, key
        return frozenset({_FACT + negated})

    @staticmethod
    def _refuted(test: cst.BaseExpression, defined: FrozenSet[str]) -> bool:
        """Every way reaching here finds ``test`` false: its negation, or that of one of its
        conjuncts, is a fact of the way."""
        return any(_FACT + _negated_key(part) in defined for part in [test, *_conjuncts(test)])

    @staticmethod
    def _confirmed(test: cst.BaseExpression, defined: FrozenSet[str]) -> bool:
        """Every way reaching here finds ``test`` true: it, or each of its conjuncts, is a fact of the way."""
        return _FACT + _key(test) in defined or all(_FACT + _key(part) in defined for part in _conjuncts(test))

    def _join(self, ways: Sequence[FrozenSet[str]]) -> FrozenSet[str]:
        """What is assigned, and known, where ``ways`` join: what each way assigns, the facts each way
        has, and, for each test whose negation is a fact of some way, what every way on which the
        test may hold assigns, as assigned under that test (``_UNDER``)."""
        result = frozenset.intersection(*ways)
        tests: Set[str] = set()
        for way in ways:
            for item in way - result:
                if item[:1] == _FACT and item[1:] in self.negation:
                    tests.add(self.negation[item[1:]])
                elif item[:1] == _UNDER:
                    tests.add(item[1:].split(_FACT, 1)[0])
        for test in sorted(tests):
            refuting = _FACT + self.negation.get(test, "")
            prefix = _UNDER + test + _FACT
            possible = [
                _plain(way) | frozenset(n[len(prefix):] for n in way if n.startswith(prefix))
                for way in ways
                if refuting not in way
            ]
            if possible:
                result |= frozenset(prefix + name for name in frozenset.intersection(*possible) - result)
        return result

    def _if(self, stmt: cst.If, defined: FrozenSet[str]) -> Optional[FrozenSet[str]]:
        """What is assigned after an ``if``/``elif``/``else`` chain on the ways that go on past it;
        None when none does (every branch ends in ``raise``, ``return``, ``continue`` or ``break``,
        or is taken on no way)."""
        self.read(stmt.test, defined)
        key = _key(stmt.test)
        statements = block_statements(stmt.body)
        body_taken = not self._refuted(stmt.test, defined)
        else_taken = not self._confirmed(stmt.test, defined)
        self.dead += not body_taken
        after_body = self.block(statements, defined | self._under(stmt.test, defined) | self._holds(stmt.test))
        self.dead -= not body_taken
        if not self.dead and body_taken:
            self.under_test[key] = self.under_test.get(key, frozenset()) | (_plain(after_body) - defined)
        ways = [after_body] if body_taken and not _ends_the_way(statements) else []
        failing = defined | self._fails(stmt.test)
        after_else: Optional[FrozenSet[str]] = failing
        self.dead += not else_taken
        if isinstance(stmt.orelse, cst.If):
            after_else = self._if(stmt.orelse, failing)
        elif stmt.orelse is not None:
            else_statements = block_statements(stmt.orelse.body)
            after_else = self.block(else_statements, failing)
            if _ends_the_way(else_statements):
                after_else = None  # ``else: raise ValueError(mode)``: no way on past the chain there
        self.dead -= not else_taken
        if else_taken and after_else is not None:
            ways.append(after_else)
        return self._join(ways) if ways else None

    def _invariant(self, test: cst.BaseExpression) -> bool:
        """``test`` has the same value in every iteration: it calls nothing, and reads only names the
        loop body never assigns (attributes only where ``fixed`` vouches for them)."""
        if self.loop_assigned is None or any(isinstance(n, _CHANGING) and not _type_test(n) for n in walk(test)):
            return False
        reads = [name for name, _ in iter_reads(test)]
        for name in reads:
            if name in self.loop_assigned:
                return False
            whole = not any(other.startswith(name + ".") for other in reads)
            if whole and name in self.touched:
                return False
            if "." in name and (self.fixed is None or not self.fixed(name, self.touched)):
                return False
        return True

    def _invariant_chain(self, stmt: cst.If) -> bool:
        current: Optional[cst.CSTNode] = stmt
        while isinstance(current, cst.If):
            if not self._invariant(current.test):
                return False
            current = current.orelse
        return True

    def _invariant_if(self, stmt: cst.If, defined: FrozenSet[str]) -> FrozenSet[str]:
        """An ``if``/``elif``/``else`` chain on tests no iteration changes: each iteration takes the same
        branch, so a name only this chain assigns, and that each branch assigning it assigns for sure,
        is assigned before what follows in every iteration or in none."""
        branches: List[Sequence[cst.CSTNode]] = []
        afters: List[FrozenSet[str]] = []
        taken: List[bool] = []
        current: Optional[cst.CSTNode] = stmt
        reaching = defined  # with the facts of the tests found false so far
        closed = False  # an earlier test holds on every way: no later branch is taken
        while isinstance(current, cst.If):
            self.read(current.test, reaching)
            key = _key(current.test)
            statements = block_statements(current.body)
            is_taken = not closed and not self._refuted(current.test, reaching)
            self.dead += not is_taken
            after = self.block(statements, reaching | self._under(current.test, reaching) | self._holds(current.test))
            self.dead -= not is_taken
            if not self.dead and is_taken:
                self.under_test[key] = self.under_test.get(key, frozenset()) | (_plain(after) - defined)
            branches.append(statements)
            afters.append(after)
            taken.append(is_taken)
            closed = closed or self._confirmed(current.test, reaching)
            reaching = reaching | self._fails(current.test)
            current = current.orelse
        self.dead += closed
        if isinstance(current, cst.Else):
            statements = block_statements(current.body)
            branches.append(statements)
            afters.append(self.block(statements, reaching))
        else:
            branches.append(())
            afters.append(reaching)
        self.dead -= closed
        taken.append(not closed)
        # A branch that ends in ``raise``/``return``/``continue``/``break``, or that no way takes, has
        # no way on past the chain.
        going = [i for i, statements in enumerate(branches) if taken[i] and not _ends_the_way(statements)]
        going_on = [afters[i] for i in going]
        if not going_on:
            return defined
        result = self._join(going_on)
        inside = {id(n) for n in walk(stmt)}
        per_branch = [{id(n) for s in branches[i] for n in walk(s)} for i in going]
        assert self.loop_assigned is not None
        for name in _plain(frozenset.union(*going_on)) - result:
            where = [id(n) for n in self.loop_assigned.get(name, ())]
            # Assigned after the chain too, it may be read from the previous iteration there, unless
            # nothing binds it before the loop: an iteration taking no branch that assigns it then
            # fails on the first one (NameError) instead of carrying anything.
            if not where or (not all(w in inside for w in where) and not self.unbound(name)):
                continue
            if all(name in after or not any(w in ids for w in where) for after, ids in zip(going_on, per_branch)):
                result |= {name}
        return result

    def small(self, small: cst.CSTNode, line: cst.CSTNode, defined: FrozenSet[str]) -> FrozenSet[str]:
        if isinstance(small, cst.Assign):
            self.read(small.value, defined)
            names: List[str] = []
            for target in small.targets:
                names.extend(n for n, _ in target_names(target.target))
                self._read_target_parts(target.target, defined)
            return self.define(names, line, defined)
        if isinstance(small, cst.AnnAssign):
            if small.value is None:
                return defined
            self.read(small.value, defined)
            return self.define((n for n, _ in target_names(small.target)), line, defined)
        if isinstance(small, cst.AugAssign):
            self.read(small.value, defined)
            self.read(small.target, defined)
            return self.define((n for n, _ in target_names(small.target)), line, defined)
        if isinstance(small, cst.Assert):
            # ``assert args.cost < 0``: the way goes on only where the test holds.
            self.read(small, defined)
            return defined | self._holds(small.test)
        self.read(small, defined)
        return defined

    def _read_target_parts(self, target: cst.BaseExpression, defined: FrozenSet[str]) -> None:
        # ``acc[k] = v`` and ``obj.attr.x = v`` read ``acc`` / ``obj.attr``.
        if isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._read_target_parts(element.value, defined)
        elif isinstance(target, cst.Subscript):
            self.read(target, defined)
        elif isinstance(target, cst.Attribute) and not isinstance(target.value, cst.Name):
            self.read(target.value, defined)


# --------------------------------------------------------------------------- entries of containers


@dataclass(frozen=True)
class CarriedEntry:
    """One entry of a container (``state["h"]``, ``hiddens[i]``) that an iteration reads before it
    stores a new value there: the read sees what the previous iteration stored.

    The container itself is never rebound by the loop, so the name-level walk above does not
    carry it; only entries under the same key in every iteration count: a literal key, or a name
    bound by an inner ``for`` over ``range(...)``/``enumerate(...)`` (each pass of the outer loop
    walks the same keys again, each inner pass another one). A key the loop's own target binds
    (``outputs[t]``) names a new entry every iteration, and any other key may do so."""

    #: the container's dotted name
    container: str
    #: the key as spelled (``"h"``, ``i``)
    key: str
    #: the first read of the entry in an iteration, before the store
    read: cst.Subscript
    #: the loop whose body is the block the read sits in at top level: the loop carrying the
    #: entry, or the inner loop binding its key
    owner: cst.CSTNode
    #: the body also stores into the container under a key no iteration reads first (``state[0]``
    #: beside ``state[i]``): that store may be the entry this one reads in the same iteration
    others_stored: bool

    @property
    def name(self) -> str:
        """How the program model names the entry (``state["h"]``), beside dotted names."""
        return f"{self.container}[{self.key}]"


def carried_entries(loop: cst.CSTNode, rebound: Iterable[str]) -> List[CarriedEntry]:
    """The entries ``loop`` (a ``for`` or ``while``) carries from one iteration to the next through
    containers its body never rebinds (``rebound``: the names it does assign)."""
    rebound = set(rebound)
    if isinstance(loop, cst.For):
        rebound |= {name for name, _ in target_names(loop.target)}  # a new key on every pass
    body = getattr(loop, "body", None)
    if body is None:
        return []
    #: (container, key text) → the first event: ("read" | "store", node, owner loop)
    first: Dict[Tuple[str, str], Tuple[str, cst.Subscript, cst.CSTNode]] = {}

    def key_owner(subscript: cst.Subscript, inner: Sequence[cst.CSTNode]) -> Optional[cst.CSTNode]:
        """The loop whose iterations walk the same key again: ``loop`` for a literal, the inner
        ``for`` over ``range``/``enumerate`` binding a plain-name key."""
        if len(subscript.slice) != 1 or not isinstance(subscript.slice[0].slice, cst.Index):
            return None
        key = subscript.slice[0].slice.value
        if isinstance(key, (cst.SimpleString, cst.Integer)):
            return loop
        if not isinstance(key, cst.Name):
            return None
        if key.value not in rebound:
            return loop  # a name the loop never rebinds: the same entry every time
        if key.value not in _inner_targets(inner):
            return None
        for candidate in reversed(inner):
            if isinstance(candidate, cst.For) and key.value in _counter_targets(candidate):
                return candidate
        return None

    def event(kind: str, node: cst.Subscript, inner: Sequence[cst.CSTNode]) -> None:
        container = dotted_name(node.value)
        if container is None or container in rebound:
            return
        owner = key_owner(node, inner)
        index = node.slice[0].slice
        if owner is None or not isinstance(index, cst.Index):
            return
        entry = (container, _EMPTY.code_for_node(index.value))
        first.setdefault(entry, (kind, node, owner))

    def visit(node: cst.CSTNode, inner: Tuple[cst.CSTNode, ...]) -> None:
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            return
        if isinstance(node, (cst.For, cst.While)):
            inner = (*inner, node)
        if isinstance(node, cst.Assign):
            # The value is evaluated before the targets are stored.
            visit(node.value, inner)
            for target in node.targets:
                for part in target_parts(target.target):
                    if isinstance(part, cst.Subscript):
                        for element in part.slice:
                            visit(element, inner)
                        event("store", part, inner)
                    else:
                        visit(part, inner)
            return
        if isinstance(node, cst.AugAssign) and isinstance(node.target, cst.Subscript):
            visit(node.value, inner)
            event("read", node.target, inner)
            return
        if (
            isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
            and node.func.attr.value in ("detach", "detach_") and isinstance(node.func.value, cst.Subscript)
        ):
            # ``state["h"].detach()`` reads no graph: for what follows, the entry is cut as by a store.
            event("store", node.func.value, inner)
            for element in node.func.value.slice:
                visit(element, inner)
            return
        if isinstance(node, cst.Subscript):
            event("read", node, inner)
        for child in children(node):
            visit(child, inner)

    visit(body, ())
    stored = stored_keys(body)
    carried = {entry for entry, (kind, _, _) in first.items() if kind == "read" and entry[1] in stored.get(entry[0], ())}
    return [
        CarriedEntry(
            entry[0], entry[1], first[entry][1], first[entry][2],
            any((entry[0], key) not in carried for key in stored[entry[0]]),
        )
        for entry in carried
    ]


def stored_keys(body: cst.CSTNode) -> Dict[str, Set[Optional[str]]]:
    """Container → the keys (as spelled; None for a slice or several) ``body`` stores into with a plain
    or augmented assignment (``state["h"] = ...``, ``hiddens[i] += ...``)."""
    found: Dict[str, Set[Optional[str]]] = {}
    for node in walk(body):
        targets: List[cst.BaseExpression] = []
        if isinstance(node, cst.Assign):
            targets = [part for t in node.targets for part in target_parts(t.target)]
        elif isinstance(node, cst.AugAssign):
            targets = [node.target]
        for target in targets:
            container = dotted_name(target.value) if isinstance(target, cst.Subscript) else None
            if container is None or not isinstance(target, cst.Subscript):
                continue
            index = target.slice[0].slice if len(target.slice) == 1 else None
            found.setdefault(container, set()).add(
                _EMPTY.code_for_node(index.value) if isinstance(index, cst.Index) else None
            )
    return found


def _counter_targets(loop: cst.For) -> Set[str]:
    """The index a ``for`` over ``range(...)`` (its target) or ``enumerate(...)`` (the first name of
    its target) binds: a different value on each pass."""
    iterable = loop.iter
    if not isinstance(iterable, cst.Call):
        return set()
    called = dotted_name(iterable.func)
    if called == "range" and isinstance(loop.target, cst.Name):
        return {loop.target.value}
    if called == "enumerate" and isinstance(loop.target, (cst.Tuple, cst.List)) and loop.target.elements:
        first = loop.target.elements[0].value
        return {first.value} if isinstance(first, cst.Name) else set()
    return set()


def _inner_targets(inner: Sequence[cst.CSTNode]) -> Set[str]:
    return {name for loop in inner if isinstance(loop, cst.For) for name, _ in target_names(loop.target)}
