"""AF103's and AF107's analysis on Python's parse tree, and what the program model says saved a module's output.

The analysis is also the rules' screen: the engine runs it on the tree its
screens parse, keeps the events on the tree, and parses with LibCST only a
file with events, where the rule finds the LibCST node of each one.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path
from typing import Dict, List, Tuple

import pytest

from autofix import engine, registry
from autofix.analysis import inplace
from autofix.analysis.inplace import inplace_events
from autofix.model import clear_cache
from autofix.model.project import ModuleModel, Project, model_for_source
from autofix.types import Options

AF103 = registry.get_rule("AF103")
AF107 = registry.get_rule("AF107")
BOTH = Options(select=("AF103", "AF107"), unsafe_fixes=True)


@pytest.fixture(autouse=True)
def _fresh_cache():
    clear_cache()
    yield
    clear_cache()


def events_of(code: str) -> List[Tuple[str, str, int, str]]:
    """(target, form, line, reason) of each event, in the order the analysis finds them."""
    code = textwrap.dedent(code)
    tree = ast.parse(code)
    found = inplace_events(tree, lambda: model_for_source(code, "<string>", None, tree), None)  # type: ignore[arg-type,return-value]
    return [(e.target, e.form, e.line, e.reason) for e in found]


NET = """\
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.act = nn.Sigmoid()
        self.w = nn.Parameter(torch.ones(4))

    def forward(self, x):
{body}
"""


def forward(body: str) -> List[Tuple[str, str, int, str]]:
    return events_of(NET.format(body=textwrap.indent(textwrap.dedent(body), " " * 8)))


def test_each_kind_of_target_gets_its_reason():
    found = forward(
        """\
        x.add_(1)
        s = torch.sigmoid(self.fc(x))
        s.mul_(2)
        a = self.act(x)
        a += 1
        p = torch.ones(4, requires_grad=True)
        p.add_(1)
        h = self.fc(x)
        y = h * self.w
        h += 1
        v = y[0]
        k = v
        v.zero_()
        return y + k
        """
    )
    assert found == [
        ("x", "method", 13, "argument"),
        ("s", "method", 15, "saved"),
        ("a", "augassign", 17, "saved"),
        ("p", "method", 19, "leaf"),
        ("h", "augassign", 22, "saved"),
        ("v", "method", 25, "alias"),
    ]


def test_a_counter_and_a_fresh_buffer_are_not_reported():
    assert forward(
        """\
        n = 0
        n += 1
        buf = torch.zeros(4)
        buf[0] = 1.0
        buf.add_(2)
        return x
        """
    ) == []


def test_a_loop_write_sees_a_save_further_down_the_body():
    found = forward(
        """\
        b = torch.zeros(3, 4)
        out = x
        for i in range(3):
            b[i] = b[i] + 1
            out = out + b * self.w
        return out
        """
    )
    assert found == [("b", "setitem", 16, "saved")]


def test_a_call_of_a_helper_of_this_file_is_a_write_only_when_the_helper_writes_its_argument():
    found = events_of(
        """\
        import torch


        def scale_(t):
            t.mul_(2)


        def peek(t):
            return t.sum()


        def step(model, x, opt):
            model.train()
            s = torch.softmax(model(x), -1)
            scale_(s)
            peek(s)
            s.sum().backward()
        """
    )
    assert found == [("s", "call", 15, "saved")]


def test_forwards_and_what_they_call_are_walked_and_initialisation_is_not():
    code = NET.format(body="        return self.helper(x)\n") + textwrap.indent(
        textwrap.dedent(
            """\

            def helper(self, x):
                y = torch.sigmoid(x)
                y.mul_(2)
                return y

            def reset_parameters(self):
                t = torch.sigmoid(self.w)
                t.mul_(2)
            """
        ),
        "    ",
    )
    assert events_of(code) == [("y", "method", 18, "saved")]


def test_the_screen_runs_the_analysis_once_and_the_rules_reuse_it(monkeypatch):
    walked = []
    real = inplace._Analysis.run

    def counted(self):
        walked.append((id(self.tree), self.caller_only))
        return real(self)

    monkeypatch.setattr(inplace._Analysis, "run", counted)
    code = NET.format(body="        x.add_(1)\n        s = torch.sigmoid(self.fc(x))\n        s.mul_(2)\n        return s\n")
    for rules, codes in (([AF103], ["AF103"]), ([AF107], ["AF107"])):
        walked.clear()
        result = engine.check_source(code.encode(), "net.py", rules, BOTH)
        assert [f.code for f in result.findings] == codes
        # Once per tree: the one checked, and the fixed text the engine checks again.
        assert len(walked) == len({tree for tree, _ in walked})
    # AF107 (opt-in) asks for the writes only a caller sees, which AF103's walk leaves out: one
    # more walk of the same tree, finding both kinds, which AF107's check reuses.
    walked.clear()
    result = engine.check_source(code.encode(), "net.py", [AF103, AF107], BOTH)
    assert sorted(f.code for f in result.findings) == ["AF103", "AF107"]
    first = walked[0][0]
    assert [caller_only for tree, caller_only in walked if tree == first] == [False, True]


def test_each_write_is_found_on_libcsts_tree_whatever_the_line_holds():
    # Characters of several bytes before the write (ast counts bytes, LibCST characters), several
    # statements on one line, a statement after a colon, a write in an ``if`` test, a chain of
    # writes, a statement over several lines and a decorated function.
    code = NET.format(
        body=textwrap.indent(
            textwrap.dedent(
                """\
                label = "ü→"; s = torch.sigmoid(self.fc(x)); s.mul_(2)
                t = torch.tanh(self.fc(x))
                if t.clamp_(0, 1).sum() > 0: u = torch.exp(x); u.add_(
                    1,
                )
                e = torch.exp(self.fc(x))
                e.mul_(2).add_(1)
                return s + t + u + e + self.twice(x)
                """
            ),
            " " * 8,
        )
    ) + textwrap.indent(
        textwrap.dedent(
            """\

            @torch.jit.ignore
            def twice(self, x):
                w = torch.sigmoid(x)
                w.relu_()
                return w
            """
        ),
        "    ",
    )
    result = engine.check_source(code.encode(), "net.py", [AF103], BOTH)
    spots = [(f.line, f.column, f.message.split(":")[0]) for f in result.findings]
    lines = code.splitlines()
    assert spots == [
        (13, lines[12].index("s.mul_") + 1, "in-place `mul_()` on `s`"),
        (15, lines[14].index("t.clamp_") + 1, "in-place `clamp_()` on `t`"),
        (15, lines[14].index("u.add_") + 1, "in-place `add_()` on `u`"),
        (19, lines[18].index("e.mul_") + 1, "in-place `mul_()` on `e`"),
        (26, lines[25].index("w.relu_") + 1, "in-place `relu_()` on `w`"),
    ]


def write(root: Path, files: Dict[str, str]) -> None:
    (root / "pyproject.toml").write_text("")
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def model_of(root: Path, name: str) -> ModuleModel:
    path = root / name
    project = Project.for_path(path)
    summary = project.summary_of_file(path)
    assert summary is not None
    return ModuleModel(summary, project, path)


BLOCKS = """\
import torch
from torch import nn


class Gate(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc = nn.Linear(d, d)
        self.act = nn.Tanh()

    def forward(self, x):
        if not self.training:
            return self.fc(x)
        h = self.fc(x)
        return self.act(h)


class Plain(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.fc = nn.Linear(d, d)

    def forward(self, x):
        return self.fc(torch.sigmoid(x))
"""


def test_module_outputs_of_blocks_in_another_file_and_of_stacks_built_in_a_loop(tmp_path):
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/blocks.py": BLOCKS,
            "net.py": """\
            from torch import nn
            from pkg.blocks import Gate, Plain


            class Net(nn.Module):
                def __init__(self, d=4):
                    super().__init__()
                    self.gate = Gate(d)
                    self.plain = Plain(d)
                    self.relu = nn.ReLU()
                    self.head = nn.Sequential(nn.Linear(d, d), nn.Softmax(-1))
                    layers = []
                    for _ in range(2):
                        layers.append(nn.Linear(d, d))
                        layers.append(Gate(d))
                    self.tower = nn.Sequential(*layers)

                def forward(self, x):
                    return self.gate(x) + self.plain(x) + self.tower(x)
            """,
        },
    )
    model = model_of(tmp_path, "net.py")
    net = model.cls("Net")
    assert net is not None
    tanh = "the output of `self.act` (tanh)"
    assert model.module_output(net, "gate") == f"the output of `self.gate` (`Gate.forward` returns {tanh})"
    assert model.module_output(net, "plain") is None
    assert model.module_output(net, "relu") == "the output of `self.relu` (relu)"
    assert model.module_output(net, "head") == "the output of `self.head` (an `nn.Sequential` ending in `softmax`)"
    assert model.module_output(net, "tower") == f"the output of `self.tower` (an `nn.Sequential` whose last layer returns {tanh})"


_STEP = """\
import torch
import torch.nn.functional as F


def step(target, eng):
    x = torch.randn(4, 5, requires_grad=True)
    ce = F.cross_entropy(x, target)
    p = F.softmax(x, dim=1)
{body}
    ce.backward()
"""


@pytest.mark.parametrize(
    "body",
    [
        # the loss backward() runs on is built from the tensor
        "    loss = torch.log(p).sum()\n    p.mul_(2)\n    loss.backward()",
        # ... under a name the tensor had before (``s`` is rebound before the write)
        "    s = p\n    y = s.log()\n    g = s\n    s = None\n    g.mul_(2)\n    y.sum().backward()",
        # ... through a list
        "    out = []\n    out.append(p.log())\n    p.mul_(2)\n    torch.stack(out).sum().backward()",
        # ... by torch.autograd.grad
        "    y = p.log().sum()\n    p.mul_(2)\n    torch.autograd.grad(y, x)",
        # a project's helper may back-propagate through what it is given
        "    y = p.log().sum()\n    p.mul_(2)\n    eng.step(y)",
        # returned: the caller may back-propagate through it
        "    y = p.log()\n    p.mul_(2)\n    yield y",
        # kept on an argument
        "    eng.kept = p.log()\n    p.mul_(2)",
    ],
)
def test_training_step_write_reaching_a_backward_is_reported(body):
    assert [e[3] for e in events_of(_STEP.format(body=body))] == ["saved"]


@pytest.mark.parametrize(
    "body",
    [
        # only ``ce`` (of ``x``) is back-propagated: nothing reaches softmax
        "    y = p.log()\n    print(y.sum().item())\n    p.mul_(2)\n    assert torch.allclose(p, x.grad)",
        "    p[range(4), target] -= 1\n    p /= 4",
    ],
)
def test_training_step_write_no_backward_reaches_is_silent(body):
    assert events_of(_STEP.format(body=body)) == []
