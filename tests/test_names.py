"""``names.children`` reads dataclass fields instead of LibCST's visitor: same code-carrying children, same order."""

from __future__ import annotations

from pathlib import Path

import libcst as cst

from autofix.analysis.names import children
from corpus_cases import CORPUS
from test_sweep import sample, torch_sources

# What children() leaves out on purpose: layout, never looked at by an analysis.
LAYOUT = (
    cst.BaseParenthesizableWhitespace, cst.TrailingWhitespace, cst.EmptyLine, cst.Newline, cst.Comment,
    cst.Comma, cst.LeftParen, cst.RightParen, cst.LeftSquareBracket, cst.RightSquareBracket,
    cst.LeftCurlyBrace, cst.RightCurlyBrace, cst.Semicolon, cst.Colon, cst.Dot, cst.AssignEqual,
    cst.Asynchronous, cst.ParamStar, cst.ParamSlash, cst.ImportStar,
)

SYNTAX = """\
@decorator(arg)
async def f[T](a, /, b: int = 1, *args, c, d=2, **kw) -> T:
    async with ctx() as (x, y), other:
        y = x if cond else (lambda q: q)(a)
    match subject:
        case Point(x=0) if guard: pass
        case [1, *rest]: pass
    try:
        pass
    except* ValueError as e:
        raise X from e
    return [i async for i in g(k=v, *s, **m) if i], {k: v for k, v in d}, f"{a!r:>{w}}"

class C[T](Base, metaclass=M):
    x: int = (yield from z)
"""


def assert_same_children(module: cst.Module) -> int:
    count = 0
    stack = [module]
    while stack:
        node = stack.pop()
        count += 1
        if not isinstance(node, LAYOUT):
            expected = [c for c in node.children if not isinstance(c, LAYOUT)]
            got = [c for c in children(node) if not isinstance(c, LAYOUT)]
            assert [id(c) for c in got] == [id(c) for c in expected], type(node).__name__
        stack.extend(node.children)
    return count


def test_children_match_libcst_on_every_kind_of_statement():
    assert assert_same_children(cst.parse_module(SYNTAX)) > 100


def test_children_leave_out_layout():
    call = cst.parse_expression("f( a ,  b )")
    assert [type(c).__name__ for c in children(call)] == ["Name", "Arg", "Arg"]


def test_children_match_libcst_on_the_corpus():
    for path in sorted(CORPUS.rglob("*.py")):
        assert_same_children(cst.parse_module(path.read_bytes()))


def test_children_match_libcst_on_torch_sources():
    files = sample(sorted(str(p) for p in torch_sources().rglob("*.py")))[:40]
    for name in files:
        try:
            module = cst.parse_module(Path(name).read_bytes())
        except cst.ParserSyntaxError:
            continue
        assert_same_children(module)
