"""The program model's in-place facts (autofix.model.writes) and what it says saved a module's output.

AF103's screen is a query over these facts and AF103's analysis asks the model
for module outputs, so the facts themselves are pinned here on small programs.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path
from typing import Dict

import pytest

from autofix.model import clear_cache
from autofix.model.project import ModuleModel, Project
from autofix.model.summaries import summarize
from autofix.model.writes import (
    ALIAS,
    ARGUMENT,
    LEAF,
    SAVED_INPUT,
    SAVED_OUTPUT,
    SHARED,
    VIEW,
    module_writes,
)


@pytest.fixture(autouse=True)
def _fresh_cache():
    clear_cache()
    yield
    clear_cache()


def facts_of(code: str, qualname: str = "Net.forward"):
    summary = summarize(ast.parse(textwrap.dedent(code)), "net")
    return {(w.target, w.form, w.line): w.facts for w in summary.functions[qualname].inplace_writes}


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


def forward(body: str, qualname: str = "Net.forward"):
    return facts_of(NET.format(body=textwrap.indent(textwrap.dedent(body), " " * 8)), qualname)


def test_each_kind_of_target_gets_its_fact():
    facts = forward(
        """\
        x.add_(1)
        s = torch.sigmoid(self.fc(x))
        s.mul_(2)
        a = self.act(x)
        a += 1
        v = s.view(-1)
        v.zero_()
        k = s
        k.clamp_(0, 1)
        p = torch.ones(4, requires_grad=True)
        p.add_(1)
        h = self.fc(x)
        y = h * self.w
        h += 1
        return y
        """
    )
    assert facts[("x", "method", 13)] == {ARGUMENT}
    assert SAVED_OUTPUT in facts[("s", "method", 15)] and SHARED in facts[("s", "method", 15)]
    assert SAVED_OUTPUT in facts[("a", "augassign", 17)]
    assert VIEW in facts[("v", "method", 19)]
    assert ALIAS in facts[("k", "method", 21)]
    assert LEAF in facts[("p", "method", 23)]
    assert facts[("h", "augassign", 26)] == {SAVED_INPUT}


def test_a_counter_and_a_fresh_buffer_have_no_fact():
    facts = forward(
        """\
        n = 0
        n += 1
        buf = torch.zeros(4)
        buf[0] = 1.0
        buf.add_(2)
        return x
        """
    )
    assert set(facts.values()) == {frozenset()}


def test_a_loop_write_sees_a_save_further_down_the_body():
    facts = forward(
        """\
        b = torch.zeros(3, 4)
        out = x
        for i in range(3):
            b[i] = b[i] + 1
            out = out + b * self.w
        return out
        """
    )
    assert facts[("b", "setitem", 16)] == {SAVED_INPUT}


def test_a_call_of_a_helper_of_this_file_is_a_write_only_when_the_helper_writes_its_argument():
    code = """\
    import torch


    def scale_(t):
        t.mul_(2)


    def peek(t):
        return t.sum()


    def step(model, x, opt):
        s = torch.softmax(model(x), -1)
        scale_(s)
        peek(s)
        s.sum().backward()
    """
    facts = facts_of(code, "step")
    assert list(facts) == [("s", "call", 14)]
    assert SAVED_OUTPUT in facts[("s", "call", 14)]


def test_the_screen_walks_forwards_and_what_they_call_and_skips_initialisation():
    code = NET.format(body="        return self.helper(x)\n") + textwrap.dedent(
        """\

            def helper(self, x):
                y = torch.sigmoid(x)
                y.mul_(2)
                return y

            def reset_parameters(self):
                self.w.data.mul_(0.5)
                t = torch.sigmoid(self.w)
                t.mul_(2)
        """
    ).replace("\n", "\n    ")
    writes = module_writes(ast.parse(code))
    assert [s.qualname for s in writes.reachable()] == ["Net.forward", "Net.helper"]
    assert [s.excluded for s in writes.all() if s.qualname == "Net.reset_parameters"] == [True]


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
