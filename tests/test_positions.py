"""LazyPositions gives exactly what LibCST's PositionProvider gives, for every node."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import CodePosition, MetadataWrapper, PositionProvider

from autofix.analysis.names import children
from autofix.positions import LazyPositions
from corpus_cases import CORPUS
from test_sweep import sample, torch_sources

SHAPES = {
    "decorators_and_comments": (
        "# header comment\n\nimport torch\n\n\n# before the decorator\n@first\n# between decorators\n"
        "@second(arg)\ndef f(x):\n    return x  # trailing\n    # footer of the block\n\n\n"
        "class C(\n    Base,\n):\n    '''doc'''\n\n    @property\n    def p(self):\n        return 1\n"
        "x = 1; y = 2\nif x:\n    pass\nelse:\n    y = [\n        1,\n    ]\n"
    ),
    "crlf": "import torch\r\n\r\ndef f(x):\r\n    return x\r\n\r\ny = f(1)\r\n",
    "no_trailing_newline": "a = 1\nb = 2",
    "tabs_and_continuations": "def f():\n\tx = 1 + \\\n\t    2\n\treturn x\n",
    "empty": "",
    "comments_only": "# nothing\n",
}


def assert_same_positions(code: str) -> bool:
    """True when LazyPositions had to fall back to the whole module."""
    module = cst.parse_module(code)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    lazy = LazyPositions(module, code)
    stack = list(module.body)
    while stack:
        node = stack.pop()
        assert lazy.get(node) == expected[node], (type(node).__name__, code[:60])
        stack.extend(children(node))
    return lazy._full is not None


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_positions_of_every_shape_of_module(name):
    assert_same_positions(SHAPES[name])


def test_positions_on_the_corpus():
    fell_back = [p.name for p in sorted(CORPUS.rglob("*.py")) if assert_same_positions(p.read_bytes().decode("utf-8"))]
    assert fell_back == []  # the statement anchors held everywhere


def test_positions_on_torch_sources():
    for name in sample(sorted(str(p) for p in torch_sources().rglob("*.py")))[:30]:
        code = Path(name).read_bytes().decode("utf-8")
        try:
            assert_same_positions(code)
        except cst.ParserSyntaxError:
            continue


def test_only_the_statements_asked_about_are_generated():
    code = "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(50))
    module = cst.parse_module(code)
    lazy = LazyPositions(module, code)
    target = module.body[30].body.body[0]
    assert lazy[target].start.line == 30 * 4 + 2
    assert set(lazy._done) | set(lazy._layouts) == {30} and lazy._full is None


def test_a_node_in_a_long_class_is_placed_from_its_own_statement():
    method = "    def m{i}(self, x):\n        '''doc\n        more'''\n        y = x + {i}\n        return y\n\n"
    code = "import torch\n\n\nclass Trainer:\n" + "".join(method.format(i=i) for i in range(40))
    assert not assert_same_positions(code)
    module = cst.parse_module(code)
    lazy = LazyPositions(module, code)
    body = module.body[1].body.body[25].body.body
    assert lazy[body[2]].start == CodePosition(4 + 25 * 6 + 5, 8)
    assert list(lazy._inner) == [id(body[2])] and not lazy._done  # neither the class nor the method was placed whole
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    assert lazy[body[0]] == expected[body[0]]  # a docstring over two lines: placed from the class
