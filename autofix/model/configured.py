"""What one configured instance of a project block does with its input.

A block like ``ConvBlock(cin, cout, activation="none", pad_type="zero")`` decides in
``__init__``, from its constructor's arguments, which modules its attributes hold
(``self.pad = nn.ZeroPad2d(p)`` in one branch of an ``if pad_type == ...`` chain,
``self.activation = None`` in another), and its ``forward`` then branches on those
attributes (``if self.activation_first:``, ``if self.activation:``). Read with the
arguments of one constructor call, both bodies become straight-line code; where a
test cannot be decided, nothing is concluded.

:func:`input_only_padded` answers one question for AF103: does ``forward`` hand its
input only to padding modules (which return a new tensor, so whatever the block's
layers save is that new tensor, not the caller's), and read it nowhere else?
Read from Python's :mod:`ast` alone.
"""

from __future__ import annotations

import ast
from typing import Dict, List, Optional, Sequence, Union

FunctionAst = Union[ast.FunctionDef, ast.AsyncFunctionDef]

#: ``nn`` modules that return a new tensor made from their input and save nothing of it.
PADDING_MODULES = frozenset(
    {
        "ZeroPad1d", "ZeroPad2d", "ZeroPad3d", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d",
        "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d", "ConstantPad1d", "ConstantPad2d",
        "ConstantPad3d", "CircularPad1d", "CircularPad2d", "CircularPad3d",
    }
)


class _Unknown:
    """A value the reading cannot tell."""


UNKNOWN = _Unknown()


class _Module:
    """An attribute holding a module built by ``constructor`` (its last name): a true object."""

    def __init__(self, constructor: str) -> None:
        self.constructor = constructor


def input_only_padded(cls: ast.ClassDef, call: ast.Call) -> bool:
    """The ``forward`` of ``cls``, configured by constructor ``call``, reads its first parameter only
    as the argument of padding modules, before rebinding it. False when anything is not known."""
    methods = {s.name: s for s in cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
    init, forward = methods.get("__init__"), methods.get("forward")
    if init is None or forward is None or any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return False
    params = _arguments(init, call)
    if params is None:
        return False
    attributes: Dict[str, object] = {}
    if not _run_init(init.body, params, attributes):
        return False
    for name, method in methods.items():
        if name != "__init__":
            # Set again by another method (``set_activation``): what ``__init__`` left is not what runs.
            for node in ast.walk(method):
                for attr in _self_targets(node):
                    attributes[attr] = UNKNOWN
    names = [a.arg for a in [*forward.args.posonlyargs, *forward.args.args]]
    if len(names) < 2 or forward.args.vararg is not None:
        return False
    self_name, x = names[0], names[1]
    body = _straight(forward.body, self_name, attributes)
    if body is None:
        return False
    for statement in body:
        if isinstance(statement, (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try)):
            return False  # compound statements left: not straight-line
        value = statement.value if isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Return, ast.Expr)) else None
        reads = [n for n in ast.walk(statement) if isinstance(n, ast.Name) and n.id == x and isinstance(n.ctx, ast.Load)]
        if isinstance(statement, ast.AugAssign) and isinstance(statement.target, ast.Name) and statement.target.id == x:
            return False  # ``x += y`` writes the input in place
        allowed = _padded_reads(value, self_name, x, attributes) if value is not None else []
        if len(reads) != len(allowed):
            return False
        if isinstance(statement, ast.Return):
            return True
        if isinstance(statement, ast.Assign) and any(isinstance(t, ast.Name) and t.id == x for t in statement.targets):
            return True  # rebound: later reads are of the new value
    return True


def _padded_reads(value: ast.expr, self_name: str, x: str, attributes: Dict[str, object]) -> List[ast.Name]:
    """The reads of ``x`` in ``value`` that are the sole argument of ``self.<pad>(x)``."""
    found: List[ast.Name] = []
    for node in ast.walk(value):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == self_name
            and len(node.args) == 1
            and not node.keywords
            and isinstance(node.args[0], ast.Name)
            and node.args[0].id == x
        ):
            held = attributes.get(node.func.attr)
            if isinstance(held, _Module) and held.constructor in PADDING_MODULES:
                found.append(node.args[0])
    return found


def _arguments(init: FunctionAst, call: ast.Call) -> Optional[Dict[str, object]]:
    """Each parameter of ``__init__``: the constant the call passes, its constant default, or unknown."""
    args = init.args
    positional = [*args.posonlyargs, *args.args][1:]
    defaults: Dict[str, ast.expr] = dict(zip([a.arg for a in positional][len(positional) - len(args.defaults):], args.defaults))
    defaults.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
    values: Dict[str, object] = {name: _constant(expr) for name, expr in defaults.items()}
    for name in [a.arg for a in positional] + [a.arg for a in args.kwonlyargs]:
        values.setdefault(name, UNKNOWN)
    if len(call.args) > len(positional) and args.vararg is None:
        return None
    for param, expr in zip(positional, call.args):
        values[param.arg] = _constant(expr)
    for keyword in call.keywords:
        if keyword.arg not in values:
            if args.kwarg is None:
                return None
            continue
        values[keyword.arg] = _constant(keyword.value)
    return values


def _constant(expr: ast.expr) -> object:
    if isinstance(expr, ast.Constant):
        return expr.value
    return UNKNOWN


def _run_init(body: Sequence[ast.stmt], params: Dict[str, object], attributes: Dict[str, object]) -> bool:
    """Read ``__init__`` straight through with the call's constants: which value each ``self.<attr>``
    ends with. A branch whose test cannot be decided makes every attribute it assigns unknown."""
    for statement in body:
        if isinstance(statement, ast.If):
            taken = _truth(statement.test, params, attributes, None)
            if taken is None:
                for node in ast.walk(statement):
                    for attr in _self_targets(node):
                        attributes[attr] = UNKNOWN
                continue
            if not _run_init(statement.body if taken else statement.orelse, params, attributes):
                return False
        elif isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None:
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            for target in targets:
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
                    attributes[target.attr] = _held(statement.value, params)
                elif isinstance(target, ast.Name) and target.id in params:
                    params[target.id] = UNKNOWN  # a parameter rebound
                else:
                    for node in ast.walk(target):
                        for name in _self_targets(node):
                            attributes[name] = UNKNOWN
        else:
            for node in ast.walk(statement):
                for attr in _self_targets(node):
                    attributes[attr] = UNKNOWN
                if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load) and node.id in params:
                    params[node.id] = UNKNOWN
    return True


def _self_targets(node: ast.AST) -> List[str]:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self" and not isinstance(node.ctx, ast.Load):
        return [node.attr]
    return []


def _held(value: ast.expr, params: Dict[str, object]) -> object:
    if isinstance(value, ast.Constant):
        return value.value
    if isinstance(value, ast.Name):
        return params.get(value.id, UNKNOWN)
    if isinstance(value, ast.Call):
        func = value.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
        if name is not None and name[:1].isupper():
            return _Module(name)
    return UNKNOWN


def _truth(test: ast.expr, params: Dict[str, object], attributes: Dict[str, object], self_name: Optional[str]) -> Optional[bool]:
    """Whether ``test`` holds for this configuration; None when it cannot be told."""
    value = _evaluate(test, params, attributes, self_name)
    if value is UNKNOWN:
        return None
    return bool(value)


def _evaluate(node: ast.expr, params: Dict[str, object], attributes: Dict[str, object], self_name: Optional[str]) -> object:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name) and self_name is None:
        return params.get(node.id, UNKNOWN)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == (self_name or "self"):
        return attributes.get(node.attr, UNKNOWN)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        inner = _evaluate(node.operand, params, attributes, self_name)
        return UNKNOWN if inner is UNKNOWN else not inner
    if isinstance(node, ast.BoolOp):
        values = [_evaluate(v, params, attributes, self_name) for v in node.values]
        if any(v is UNKNOWN for v in values):
            return UNKNOWN
        return all(values) if isinstance(node.op, ast.And) else any(values)
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        left = _evaluate(node.left, params, attributes, self_name)
        right = _evaluate(node.comparators[0], params, attributes, self_name)
        op = node.ops[0]
        if isinstance(op, (ast.Is, ast.IsNot)):
            if left is UNKNOWN or right is not None:
                return UNKNOWN
            return (left is None) == isinstance(op, ast.Is)
        if left is UNKNOWN or right is UNKNOWN or isinstance(left, _Module) or isinstance(right, _Module):
            return UNKNOWN
        if isinstance(op, ast.Eq):
            return left == right
        if isinstance(op, ast.NotEq):
            return left != right
        if isinstance(op, (ast.In, ast.NotIn)) and isinstance(node.comparators[0], (ast.Tuple, ast.List, ast.Set)):
            options = [_evaluate(e, params, attributes, self_name) for e in node.comparators[0].elts]
            if any(o is UNKNOWN for o in options):
                return UNKNOWN
            return (left in options) == isinstance(op, ast.In)
    return UNKNOWN


def _straight(body: Sequence[ast.stmt], self_name: str, attributes: Dict[str, object]) -> Optional[List[ast.stmt]]:
    """``forward``'s statements with every ``if`` on the configuration replaced by the branch it takes
    (None when a test on ``self`` attributes cannot be decided; tests on anything else are kept)."""
    out: List[ast.stmt] = []
    for statement in body:
        if isinstance(statement, ast.If) and _reads_only_self(statement.test, self_name):
            taken = _truth(statement.test, {}, attributes, self_name)
            if taken is None:
                return None
            inner = _straight(statement.body if taken else statement.orelse, self_name, attributes)
            if inner is None:
                return None
            out.extend(inner)
        else:
            out.append(statement)
    return out


def _reads_only_self(test: ast.expr, self_name: str) -> bool:
    names = [n for n in ast.walk(test) if isinstance(n, ast.Name)]
    return bool(names) and all(n.id == self_name for n in names)
