"""The syntactic screens (autofix.analysis.screen) never hide a finding.

A screen may let through a file its rule then finds nothing in, never the
reverse: wherever a rule, run without its screen, reports something, the
screen must pass. Checked on every corpus case, on generated training code and
on a sample of torch's own sources; then the screens' effect on the engine.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Dict, List, Set

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autofix import api, engine, registry
from autofix.analysis.screen import parse_python, set_origin
from autofix.model.project import FIND_PROJECT
from autofix.types import Options
from conftest import without_screens
from corpus_cases import CORPUS
from test_fuzz import CI, training_fragment
from test_sweep import sample, torch_sources

RULES = registry.all_rules()
ALL = Options(select=("ALL",), unsafe_fixes=True)


def codes_found(source: bytes, path: str = "case.py") -> Set[str]:
    result = engine.check_source(source, path, RULES, ALL)
    assert not (result.error or "").startswith("internal error"), result.error
    return {f.code for f in result.findings}


def assert_screens_pass(source: bytes, codes: Set[str], where: str) -> None:
    if not codes:
        return
    tree = parse_python(source)
    if tree is None:
        return  # the engine screens nothing Python cannot parse
    if "\n" not in where and os.path.isfile(where):
        # As the engine screens it: helpers imported from the project write what the model says they do.
        set_origin(tree, where, FIND_PROJECT)
    for code in sorted(codes):
        assert registry.get_rule(code).may_fire_in(tree), f"{where}: {code} fires but its screen says it cannot"


def corpus_files() -> List[Path]:
    here = Path(__file__).resolve().parent
    files = sorted(p for p in CORPUS.rglob("*.py") if not p.name.endswith(".fixed.py"))
    return files + sorted((here / "verify_cases").glob("*.py"))


# --------------------------------------------------------------------------- soundness


def test_screens_pass_wherever_a_rule_fires_in_the_corpus(unscreened):
    fired: Dict[str, int] = {}
    for path in corpus_files():
        source = path.read_bytes()
        codes = codes_found(source, str(path))
        assert_screens_pass(source, codes, str(path))
        for code in codes:
            fired[code] = fired.get(code, 0) + 1
    # Every rule was exercised, so every screen was checked on real findings.
    assert set(fired) == {rule.CODE for rule in RULES}


@CI
@given(training_fragment())
def test_screens_pass_wherever_a_rule_fires_in_generated_code(source):
    data = source.encode("utf-8")
    with pytest.MonkeyPatch.context() as patch:
        without_screens(patch)
        codes = codes_found(data)
    assert_screens_pass(data, codes, source)


# Forward bodies made of the moves that decide an in-place finding: bindings
# (fresh, saved outputs, views, aliases, parameters, loops, ``with``), saves
# before and after the write, rebinding, and every in-place form.
_NAMES = ["x", "h", "y", "attn", "p"]
_EXPRESSIONS = [
    "self.fc({a})", "torch.sigmoid({a})", "{a}.softmax(-1)", "{a}.view(-1)", "{a}[0]", "{a}.detach()",
    "{a}", "{a}.relu_()", "torch.zeros(3)", "{a}.new_zeros(3)", "torch.ones(3, requires_grad=True)",
    "nn.Parameter(torch.randn(3))", "{a} * self.w", "{a} + 1", "len({a})", "0", "helper({a})",
    "self.act({a})", "({a}, {b})", "self.other({a})",
]
_STATEMENTS = [
    "{t} = {e}", "{t}, {u} = {e}", "{t} += {a}", "{t} *= 2", "{t}[0] = 0", "{t}.add_(1)", "{t}.mul_({a}).add_(1)",
    "torch.relu_({t})", "F.relu({t}, inplace=True)", "self.act({t})", "helper({t})", "y2 = {a} @ {b}",
    "z = torch.log({a})", "{t} -= 0.1 * {t}.grad", "del {t}", "print({a})",
    "for {t} in {a}:\n    {t} += 1", "with ctx() as {t}:\n    {t}.zero_()", "if cond:\n    {t} = {e}",
    "for _ in range(2):\n    {t} = {e}\n    {u}.add_(1)",
]


@st.composite
def inplace_module(draw) -> str:
    body = []
    for _ in range(draw(st.integers(1, 8))):
        names = {k: draw(st.sampled_from(_NAMES)) for k in ("t", "u", "a", "b")}
        expression = draw(st.sampled_from(_EXPRESSIONS)).format(**names)
        body.append(draw(st.sampled_from(_STATEMENTS)).format(e=expression, **names))
    code = "\n".join(body) + "\nreturn x\n"
    indented = "".join("        " + line + "\n" for line in code.splitlines())
    params = draw(st.sampled_from(["x", "x, h", "x: torch.Tensor, h=None", "x, *, attn: Tensor"]))
    return (
        "import torch\nfrom torch import nn\nimport torch.nn.functional as F\n\n\n"
        "def helper(t):\n    t.mul_(2)\n    return t\n\n\n"
        "class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.fc = nn.Linear(3, 3)\n        self.act = nn.ReLU(inplace=True)\n"
        "        self.w = nn.Parameter(torch.randn(3))\n\n"
        f"    def forward(self, {params}):\n" + indented
    )


@pytest.mark.parametrize("code", ["AF103", "AF107"])
@settings(CI, max_examples=CI.max_examples * 3)
@given(source=inplace_module())
def test_the_inplace_screen_passes_wherever_the_analysis_reports(code, source):
    # AF103 and AF107 ask different questions of the same facts (autograd's objections, the caller's tensor).
    data = source.encode("utf-8")
    rule = registry.get_rule(code)
    with pytest.MonkeyPatch.context() as patch:
        without_screens(patch, [rule])
        found = engine.check_source(data, "net.py", [rule], ALL)
    assert not (found.error or "").startswith("internal error"), found.error
    if found.findings:
        assert rule.may_fire_in(parse_python(data)), source


def test_screens_pass_wherever_a_rule_fires_in_torch_sources(unscreened):
    root = torch_sources()
    files = sample(sorted(str(p) for p in root.rglob("*.py")))
    for name in files:
        source = Path(name).read_bytes()
        assert_screens_pass(source, codes_found(source, name), name)


# --------------------------------------------------------------------------- what the screens skip


MODEL_WITHOUT_HAZARD = b"""\
import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.act = nn.ReLU(inplace=True)
        self.steps = 0

    def reset_parameters(self):
        self.fc.weight.data.mul_(0.5)

    def forward(self, x):
        self.steps += 1
        return self.fc(x) + x
"""


def test_a_model_file_without_a_possible_finding_is_never_parsed_by_libcst(monkeypatch):
    # Trigger words (forward, inplace=True, ``+=``, ``mul_(``) pass the text
    # pre-filter; the screen sees the writes sit in initialisation code or
    # on an attribute, so LibCST is never asked.
    def no_libcst(source):
        raise AssertionError("LibCST parse of a screened-out file")

    monkeypatch.setattr(engine, "parse", no_libcst)
    result = api.fix_source(MODEL_WITHOUT_HAZARD, "block.py", ALL)
    assert result.findings == () and result.error is None
    assert result.skipped_by_prefilter
    assert result.fixed == MODEL_WITHOUT_HAZARD


def test_the_same_file_with_a_hazard_in_forward_is_parsed_and_reported():
    source = MODEL_WITHOUT_HAZARD.replace(b"return self.fc(x) + x", b"y = torch.sigmoid(x)\n        y.mul_(2)\n        return self.fc(y)")
    result = api.fix_source(source, "block.py", ALL)
    assert not result.skipped_by_prefilter
    assert [f.code for f in result.findings] == ["AF103"]


def test_a_training_script_without_backward_is_screened_out_for_the_step_rules():
    source = b"import torch\n# we never call backward here\nfor x in loader:\n    total += model(x)\n"
    result = api.fix_source(source, "eval.py", ALL)
    assert result.skipped_by_prefilter and result.findings == ()


def test_a_file_python_cannot_parse_goes_on_to_libcst_and_is_reported():
    # Python's parser refuses it; the engine must not treat that as "nothing to find".
    source = b"import torch\nloss.backward(\n"
    result = api.fix_source(source, "broken.py", ALL)
    assert not result.skipped_by_prefilter
    assert result.error is not None and "syntax error" in result.error


# --------------------------------------------------------------------------- each reason the analysis reports, through the screens

# One program per way a write becomes reportable; the screen has to let each through.
SCREENED_IN = {
    "aliased_functional": """\
import torch
from torch import nn
from torch.nn.functional import relu as act


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, inp):
        h = torch.sigmoid(self.fc(inp))
        act(h, inplace=True)
        return h.sum()
""",
    "alias_read": """\
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, inp):
        x = self.fc(inp)
        kept = x
        x.mul_(2)
        return kept.sum() + x.sum()
""",
    "dropout_module": """\
import torch
from torch import nn


class Attn(nn.Module):
    def __init__(self):
        super().__init__()
        self.drop = nn.Dropout(0.1, inplace=True)

    def forward(self, q, k):
        attn = (q @ k.transpose(-2, -1)).softmax(dim=-1)
        attn = self.drop(attn)
        return attn
""",
    "helper_mutates": """\
import torch
from torch import nn


def clip_inplace(t):
    t.clamp_(min=0)
    return t


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, inp):
        h = torch.sigmoid(self.fc(inp))
        clip_inplace(h)
        return h.sum()
""",
    "leaf_factory": """\
import torch

w = torch.zeros(3, requires_grad=True)
for step in range(3):
    loss = (w * torch.randn(3)).sum()
    loss.backward()
    w.add_(1.0)
""",
    "saved_in_loop": """\
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.w = nn.Parameter(torch.randn(4, 4))

    def forward(self, inp):
        h = self.fc(inp)
        for _ in range(3):
            out = h @ self.w
            h += out
        return h.sum()
""",
    "sgd_grad": """\
import torch


def train(model, data, lr):
    for x, y in data:
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        for p in model.parameters():
            p -= lr * p.grad
""",
    "loop_carried_saved_output": """\
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, inp):
        b = self.fc(inp)
        for i in range(3):
            b[:, i] = b[:, i] + 1
            b = torch.sigmoid(b)
        return b.sum()
""",
    "view_saved": """\
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.w = nn.Parameter(torch.randn(4))

    def forward(self, inp):
        x = self.fc(inp)
        v = x.view(-1, 4)
        y = v * self.w
        x += 1
        return y.sum()
""",
}


@pytest.mark.parametrize("name", sorted(SCREENED_IN))
def test_every_reason_for_an_inplace_finding_passes_the_screen(name):
    source = SCREENED_IN[name].encode()
    assert registry.get_rule("AF103").may_fire_in(parse_python(source))
    result = api.fix_source(source, f"{name}.py", Options(select=("AF103",), unsafe_fixes=True))
    assert [f.code for f in result.findings] == ["AF103"]


def test_the_inplace_screen_asks_the_project_what_an_imported_helper_writes(tmp_path):
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "helpers.py").write_text(
        "def rescale(x, m):\n    return x * m\n\n\ndef zero_masked(x, m):\n    x[m] = 0\n    return x\n"
    )
    net = (
        "import torch\nfrom torch import nn\nfrom helpers import {name}\n\n\nclass Net(nn.Module):\n"
        "    def forward(self, x):\n        p = torch.softmax(x, -1)\n        return {name}(p, x > 0)\n"
    )
    rule = registry.get_rule("AF103")
    for name, writes in (("rescale", False), ("zero_masked", True)):
        path = tmp_path / f"net_{name}.py"
        path.write_text(net.format(name=name))
        source = path.read_bytes()
        tree = parse_python(source)
        assert tree is not None
        set_origin(tree, str(path), FIND_PROJECT)
        assert rule.may_fire_in(tree) is writes, name
        # Without the file's path the file stands alone: nothing is known of what the helper writes.
        assert not rule.may_fire_in(parse_python(source)), name
        found = engine.check_source(source, str(path), [rule], ALL).findings
        assert [f.line for f in found] == ([9] if writes else []), name
