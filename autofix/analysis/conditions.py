"""Path conditions: what the test of an ``if`` tells about the names it reads.

A step trace (:mod:`autofix.analysis.steps`) records, for each event, the
literal facts of the ``if`` arms it sits in (``flag`` true, ``x is None``
false). Two events whose facts hold one atom with opposite signs never run in
one call, provided the atom reads the same values at both tests: the walk
keys each name by a version that every binding of it bumps, and only builds
atoms from plain names (never attributes, which any call may change) and
literals. Truthiness, ``==`` and ``in`` are taken only of names whose value
is known to be immutable (a bool, number, string or None assigned here), so
that no mutation through an alias changes the answer; ``is`` compares
identities, which only rebinding changes.

Syntax only: no rule imports this directly.
"""

from __future__ import annotations

from typing import Callable, FrozenSet, Hashable, List, Optional, Set, Tuple

import libcst as cst

from autofix.analysis.names import bound_roots as _roots, children

#: (atom, sign): the atom is true (sign True) or false on this path
Literal = Tuple[Hashable, bool]
#: key of an operand at the test: a name's (frame, name, version), or a constant
Operand = Callable[[cst.BaseExpression, bool], Optional[Hashable]]

_CONSTANT_NAMES = frozenset({"True", "False", "None"})
#: builtins whose result is always a bool, number or string
_IMMUTABLE_BUILTINS = frozenset({"bool", "isinstance", "issubclass", "callable", "hasattr", "len", "int", "float", "str"})


def arm_literals(tests: List[cst.BaseExpression], has_else: bool, operand: Operand) -> List[Tuple[Literal, ...]]:
    """The literals each arm of ``if t0: … elif t1: … else: …`` holds on entry: arm ``k`` has its
    own test true and every earlier test false."""
    arms: List[Tuple[Literal, ...]] = []
    earlier: List[Literal] = []
    if any(_binds(test) for test in tests):
        # A walrus: the tests after it read another binding than the one keyed at the chain's entry.
        return [()] * (len(tests) + has_else)
    for test in tests:
        arms.append(tuple(earlier) + tuple(literals(test, True, operand)))
        earlier = earlier + literals(test, False, operand)
    if has_else:
        arms.append(tuple(earlier))
    return arms


def literals(test: cst.BaseExpression, sign: bool, operand: Operand) -> List[Literal]:
    """Literals that hold where ``test`` evaluates to ``sign``."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return literals(test.expression, not sign, operand)
    if isinstance(test, cst.BooleanOperation):
        # ``A and B`` true: both are; ``A or B`` false: neither is. Otherwise nothing certain.
        if isinstance(test.operator, cst.And) and sign or isinstance(test.operator, cst.Or) and not sign:
            return literals(test.left, sign, operand) + literals(test.right, sign, operand)
        return []
    if isinstance(test, cst.Name) and test.value not in _CONSTANT_NAMES:
        key = operand(test, True)
        return [(("truth", key), sign)] if key is not None else []
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        target = test.comparisons[0]
        op = target.operator
        if isinstance(op, (cst.Is, cst.IsNot)):
            kind, negated, immutable = "is", isinstance(op, cst.IsNot), False
        elif isinstance(op, (cst.Equal, cst.NotEqual)):
            kind, negated, immutable = "eq", isinstance(op, cst.NotEqual), True
        elif isinstance(op, (cst.In, cst.NotIn)):
            kind, negated, immutable = "in", isinstance(op, cst.NotIn), True
        else:
            return []
        left, right = _key(test.left, immutable, operand), _key(target.comparator, immutable, operand)
        if left is None or right is None:
            return []
        return [((kind, left, right), sign != negated)]
    return []


def _key(node: cst.BaseExpression, immutable: bool, operand: Operand) -> Optional[Hashable]:
    constant = constant_key(node)
    if constant is not None:
        return constant
    if isinstance(node, cst.Name):
        return operand(node, immutable)
    return None


def constant_key(node: cst.BaseExpression) -> Optional[Hashable]:
    """A literal's identity: ``None``, ``True``, a number, a string, a tuple of those."""
    if isinstance(node, cst.Name) and node.value in _CONSTANT_NAMES:
        return ("const", node.value)
    if isinstance(node, (cst.Integer, cst.Float)):
        return ("const", type(node).__name__, node.evaluated_value)
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return ("const", "str", value) if isinstance(value, str) else None
    if isinstance(node, cst.Tuple):
        parts = [constant_key(e.value) if isinstance(e, cst.Element) else None for e in node.elements]
        return ("tuple", tuple(parts)) if all(p is not None for p in parts) else None
    return None


def immutable_value(node: cst.BaseExpression, known: Callable[[str], bool], shadowed: FrozenSet[str]) -> bool:
    """``node`` surely evaluates to a bool, number, string, None or tuple of those: nothing that a
    mutation through another name could change. ``known`` says which plain names hold such values."""
    if constant_key(node) is not None or isinstance(node, (cst.ConcatenatedString, cst.FormattedString, cst.Imaginary)):
        return True
    if isinstance(node, cst.Name):
        return known(node.value)
    if isinstance(node, cst.UnaryOperation):
        return isinstance(node.operator, cst.Not) or immutable_value(node.expression, known, shadowed)
    if isinstance(node, cst.Comparison):
        # ``is`` and ``in`` always give a bool; ``==`` of immutable operands too.
        if all(isinstance(c.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) for c in node.comparisons):
            return not _binds(node)
        return immutable_value(node.left, known, shadowed) and all(immutable_value(c.comparator, known, shadowed) for c in node.comparisons)
    if isinstance(node, (cst.BooleanOperation, cst.BinaryOperation)):
        return immutable_value(node.left, known, shadowed) and immutable_value(node.right, known, shadowed)
    if isinstance(node, cst.IfExp):
        return immutable_value(node.body, known, shadowed) and immutable_value(node.orelse, known, shadowed)
    if isinstance(node, cst.Tuple):
        return all(isinstance(e, cst.Element) and immutable_value(e.value, known, shadowed) for e in node.elements)
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
        name = node.func.value
        return name in _IMMUTABLE_BUILTINS and name not in shadowed and not _binds(node)
    return False


def _binds(node: cst.CSTNode) -> bool:
    return bool(bound_names(node))


def bound_names(node: cst.CSTNode) -> Set[str]:
    """Every plain name a statement (or expression) may bind anywhere inside it: assignment
    targets' roots, ``for``/``with``/``except``/``import``/``del`` names, walrus targets, nested
    ``def``/``class`` names, ``match`` captures. An over-approximation: more is only safer."""
    found: Set[str] = set()
    stack: List[cst.CSTNode] = [node]
    while stack:
        current = stack.pop()
        kind = type(current)
        if kind is cst.AssignTarget or kind is cst.AugAssign or kind is cst.AnnAssign or kind is cst.For:
            found |= _roots(current.target)  # type: ignore[attr-defined]
        elif kind is cst.NamedExpr or kind is cst.Del:
            found |= _roots(current.target)  # type: ignore[attr-defined]
        elif kind is cst.AsName:
            found |= _roots(current.name)  # type: ignore[attr-defined]
        elif kind is cst.ImportAlias and current.asname is None:  # type: ignore[attr-defined]
            root: cst.BaseExpression = current.name  # type: ignore[attr-defined]
            while isinstance(root, cst.Attribute):
                root = root.value
            if isinstance(root, cst.Name):
                found.add(root.value)
        elif kind is cst.FunctionDef or kind is cst.ClassDef:
            found.add(current.name.value)  # type: ignore[attr-defined]
        elif kind is cst.MatchAs or kind is cst.MatchStar:
            if current.name is not None:  # type: ignore[attr-defined]
                found.add(current.name.value)  # type: ignore[attr-defined]
        elif kind is cst.MatchMapping and current.rest is not None:  # type: ignore[attr-defined]
            found.add(current.rest.value)  # type: ignore[attr-defined]
        stack.extend(children(current))
    return found


def declared_names(module: cst.Module) -> FrozenSet[str]:
    """Names some ``global`` or ``nonlocal`` statement of the module declares: another function
    may rebind them between two tests, so no test of them counts."""
    found: Set[str] = set()
    stack: List[cst.CSTNode] = [module]
    while stack:
        current = stack.pop()
        if isinstance(current, (cst.Global, cst.Nonlocal)):
            found.update(item.name.value for item in current.names)
        stack.extend(children(current))
    return frozenset(found)
