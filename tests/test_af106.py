"""AF106 retain-graph: flags that must go, flags that must stay, and the band-aid for carried state."""

from __future__ import annotations

import textwrap

import pytest

from autofix.analysis.retain import may_retain_graph
from autofix.analysis.screen import parse_python
from autofix.api import fix_source
from autofix.types import Options

HEADER = """\
import torch
import torch.nn as nn
model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
"""


def run(src: str, select=("AF106",), unsafe: bool = False):
    source = HEADER + textwrap.dedent(src)
    result = fix_source(source, "t.py", Options(select=select, unsafe_fixes=unsafe))
    assert result.error is None, result.error
    return source, result


def fixed_text(result) -> str:
    return (result.fixed or b"").decode() if isinstance(result.fixed, bytes) else (result.fixed or "")


_NEEDLESS = [
    pytest.param(
        """
        for x, y in loader:
            loss = (model(x) - y).pow(2).mean()
            opt.zero_grad()
            loss.backward(retain_graph=True)
            opt.step()
        """,
        "loss.backward()",
        id="plain loop",
    ),
    pytest.param(
        """
        def step(batch):
            x, y = batch
            loss = (model(x) - y).abs().mean()
            loss.backward(retain_graph=True)
            opt.step()
            return loss.item()
        """,
        "loss.backward()",
        id="helper returning a number",
    ),
    pytest.param(
        """
        options = dict(retain_graph=True)
        for x in loader:
            loss = model(x).sum()
            loss.backward(**options)
            opt.step()
        """,
        "options = dict()",
        id="dict() passed as kwargs",
    ),
    pytest.param(
        """
        keep = True
        for x in loader:
            loss = model(x).sum()
            loss.backward(gradient=None, retain_graph=keep)
            opt.step()
        """,
        "loss.backward(gradient=None)",
        id="flag in a variable, other argument kept",
    ),
    pytest.param(
        """
        for x in loader:
            loss = model(x).sum()
            grads = torch.autograd.grad(loss, list(model.parameters()), retain_graph=True)
            with torch.no_grad():
                for p, g in zip(model.parameters(), grads):
                    p -= 0.1 * g
        """,
        "torch.autograd.grad(loss, list(model.parameters()))",
        id="autograd.grad",
    ),
    pytest.param(
        """
        class Module(nn.Module):
            def training_step(self, batch, batch_idx):
                x, y = batch
                loss = (self.net(x) - y).pow(2).mean()
                self.manual_backward(loss, retain_graph=True)
                self.optimizers().step()
        """,
        "self.manual_backward(loss)",
        id="Lightning manual_backward",
    ),
    pytest.param(
        """
        history = []
        for x in loader:
            loss = model(x).sum()
            loss.backward(retain_graph=True)
            opt.step()
            history.append(loss.item())
            print(f"{loss.item():.3f}")
        """,
        "loss.backward()",
        id="logged as numbers",
    ),
]


@pytest.mark.parametrize("src, expected", _NEEDLESS)
def test_needless_flag_is_dropped(src, expected):
    source, result = run(src)
    assert [f.code for f in result.findings] == ["AF106"]
    finding = result.findings[0]
    assert finding.fix is not None and finding.fix.applicability.value == "safe"
    assert "nothing back-propagates through it again" in finding.message
    assert expected in fixed_text(result)
    assert "retain_graph" not in fixed_text(result)


_SILENT = [
    pytest.param(
        """
        out = model(x)
        loss = out.sum()
        loss.backward(retain_graph=True)
        penalty = torch.autograd.grad(out.sum(), x, create_graph=True)[0].pow(2).sum()
        penalty.backward()
        """,
        id="second order in the function",
    ),
    pytest.param(
        """
        def head_step(x):
            features = model(x)
            loss = features.sum()
            loss.backward(retain_graph=True)
            return features
        """,
        id="graph returned",
    ),
    pytest.param(
        """
        class Agent:
            def update(self, x):
                self.value = model(x)
                loss = self.value.pow(2).mean()
                loss.backward(retain_graph=True)
        """,
        id="graph stored on self",
    ),
    pytest.param(
        """
        class Agent:
            def update(self, x):
                out = model(x)
                self.buffer.append(out)
                out.sum().backward(retain_graph=True)
        """,
        id="graph put in an outside buffer",
    ),
    pytest.param(
        """
        def update(x, keep):
            out = model(x)
            keep(out)
            out.sum().backward(retain_graph=True)
        """,
        id="graph handed to an unknown call",
    ),
    pytest.param(
        """
        def update(x, outputs):
            out = model(x)
            outputs.append(out)
            out.sum().backward(retain_graph=True)
        """,
        id="graph put in the caller's list",
    ),
    pytest.param(
        """
        def update(x, outputs):
            out = model(x)
            outputs["last"] = out
            out.sum().backward(retain_graph=True)
        """,
        id="graph put in the caller's dict",
    ),
    pytest.param(
        """
        def update(x):
            out = model(x)
            out.sum().backward(retain_graph=True)
            def later():
                return out.mean()
            return later
        """,
        id="graph read by a nested function",
    ),
    pytest.param(
        """
        keep = True
        if args.fast:
            keep = False
        for x in loader:
            loss = model(x).sum()
            loss.backward(retain_graph=keep)
        """,
        id="flag variable with two values",
    ),
    pytest.param(
        """
        for x in loader:
            loss = model(x).sum()
            loss.backward(None, True)
        """,
        id="positional flag left alone",
    ),
    pytest.param(
        """
        def update(features):
            loss = model(features).sum()
            loss.backward(retain_graph=True)
        """,
        id="graph comes from the caller",
    ),
    pytest.param(
        """
        prior = model(anchor)
        for x in loader:
            loss = model(x).sum() + prior.sum()
            opt.zero_grad()
            loss.backward(retain_graph=True)
            opt.step()
        """,
        id="graph computed once before the loop",
    ),
    pytest.param(
        """
        class Trainer:
            def __init__(self):
                self.reg = model.weight.pow(2).sum()

            def step(self, x):
                loss = model(x).sum() + self.reg
                loss.backward(retain_graph=True)
        """,
        id="graph kept on self by another method",
    ),
]


@pytest.mark.parametrize("src", _SILENT)
def test_needed_or_unknowable_flag_is_left_alone(src):
    _, result = run(src)
    assert result.findings == ()


def test_kwargs_dict_used_by_another_call_is_reported_without_fix():
    _, result = run(
        """
        options = {"retain_graph": True}
        for x in loader:
            loss = model(x).sum()
            loss.backward(**options)
            log(options)
        """
    )
    assert [f.code for f in result.findings] == ["AF106"]
    assert result.findings[0].fix is None
    assert result.findings[0].message.endswith("where it is not needed)")


def test_two_losses_of_one_forward_are_af101s_not_af106s():
    src = """
    for x in loader:
        features = model(x)
        a = features.sum()
        b = features.pow(2).mean()
        a.backward(retain_graph=True)
        b.backward()
        opt.step()
    """
    _, result = run(src, select=("AF101", "AF106"))
    assert [f.code for f in result.findings] == ["AF101"]
    assert "(a + b).backward()" in fixed_text(result)


CARRIED = """
cell = nn.RNNCell(4, 4)
h = torch.zeros(2, 4)
for x in loader:
    h = cell(x, h)
    loss = h.pow(2).mean()
    opt.zero_grad()
    loss.backward(retain_graph=True)
    opt.step()
"""


def test_band_aid_for_carried_state_detaches_and_drops_the_flag():
    _, result = run(CARRIED, unsafe=True)
    assert [f.code for f in result.findings] == ["AF106"]
    finding = result.findings[0]
    assert finding.fix is not None and finding.fix.applicability.value == "unsafe"
    assert "carries each iteration's graph into the next" in finding.message
    text = fixed_text(result)
    assert "    h = h.detach()\n    h = cell(x, h)" in text
    assert "loss.backward()" in text


def test_band_aid_fix_needs_unsafe_fixes():
    source, result = run(CARRIED)
    assert [f.code for f in result.findings] == ["AF106"]
    assert fixed_text(result) in ("", source)


def test_band_aid_with_af102_converges_to_one_detach():
    _, result = run(CARRIED, select=("AF102", "AF106"), unsafe=True)
    assert sorted(f.code for f in result.findings) == ["AF102", "AF106"]
    text = fixed_text(result)
    assert text.count("h.detach()") == 1
    assert "retain_graph" not in text


def test_screen():
    assert may_retain_graph(parse_python("loss.backward(retain_graph=True)\n"))
    assert may_retain_graph(parse_python("kw = {'retain_graph': True}\nloss.backward(**kw)\n"))
    assert not may_retain_graph(parse_python("loss.backward()\n"))
    assert not may_retain_graph(parse_python("f(retain_graph=True)\n"))
