"""AF103 inplace-autograd: snippets that are fixed, reported without a fix, or left alone."""

from __future__ import annotations

import importlib.util
import re
import textwrap
from pathlib import Path

import pytest

from autofix.api import fix_source
from autofix.registry import get_rule
from autofix.types import Applicability, Options

ROOT = Path(__file__).resolve().parent.parent

HEADER = """\
import torch
import torch.nn as nn
import torch.nn.functional as F


"""

MODULE = """\
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.skip = nn.Linear(4, 4)
        self.bn = nn.BatchNorm1d(4)
        self.act = nn.ReLU(inplace=True)
        self.drop = nn.Dropout(0.1, inplace=True)
        self.scale = nn.Parameter(torch.ones(4))

    def forward(self, x):
{body}
"""


def _forward(body: str) -> str:
    return HEADER + MODULE.format(body=textwrap.indent(textwrap.dedent(body), " " * 8))


def _run(src: str, unsafe: bool = True):
    return fix_source(src, "t.py", Options(select=("AF103",), unsafe_fixes=unsafe))


# --------------------------------------------------------------------------- fixes

_fixes = [
    pytest.param(
        "p = torch.sigmoid(self.fc(x))\np.mul_(self.scale)\nreturn p",
        "p = torch.sigmoid(self.fc(x))\np = p.mul(self.scale)\nreturn p",
        Applicability.SAFE,
        id="mul_ on a sigmoid output uses the out-of-place method",
    ),
    pytest.param(
        "h = torch.tanh(self.fc(x))\nh += self.skip(x)\nreturn h",
        "h = torch.tanh(self.fc(x))\nh = h + self.skip(x)\nreturn h",
        Applicability.SAFE,
        id="augmented assignment on a tanh output",
    ),
    pytest.param(
        "h = torch.exp(self.fc(x))\nh *= 2 + self.scale\nreturn h",
        "h = torch.exp(self.fc(x))\nh = h * (2 + self.scale)\nreturn h",
        Applicability.SAFE,
        id="augmented assignment keeps precedence with parentheses",
    ),
    pytest.param(
        "h = torch.exp(self.fc(x))\nh -= 2 * self.scale  # keep me\nreturn h",
        "h = torch.exp(self.fc(x))\nh = h - 2 * self.scale  # keep me\nreturn h",
        Applicability.SAFE,
        id="no parentheses when the operand binds tighter; the comment survives",
    ),
    pytest.param(
        "p = self.fc(x).softmax(-1)\nq = p.clamp_(1e-4, 1.0)\nreturn q",
        "p = self.fc(x).softmax(-1)\np = p.clamp(1e-4, 1.0)\nq = p\nreturn q",
        Applicability.SAFE,
        id="result of the in-place call bound to a new name keeps both names equal",
    ),
    pytest.param(
        "p = self.fc(x).softmax(-1)\np = p.clamp_(1e-4, 1.0)\nreturn p",
        "p = self.fc(x).softmax(-1)\np = p.clamp(1e-4, 1.0)\nreturn p",
        Applicability.SAFE,
        id="result rebound to the same name needs only the call changed",
    ),
    pytest.param(
        "p = self.fc(x).softmax(-1)\nreturn p.mul_(2).add_(1)",
        "p = self.fc(x).softmax(-1)\np = p.mul(2).add(1)\nreturn p",
        Applicability.SAFE,
        id="returned chain of in-place calls is rebound before the return",
    ),
    pytest.param(
        "h = torch.tanh(self.fc(x))\nout = F.relu(h, inplace=True)\nreturn out",
        "h = torch.tanh(self.fc(x))\nout = F.relu(h)\nreturn out",
        Applicability.SAFE,
        id="functional inplace=True is dropped when the input is not read again",
    ),
    pytest.param(
        "h = torch.tanh(self.fc(x))\nF.leaky_relu(h, 0.1, True)\nreturn h",
        "h = torch.tanh(self.fc(x))\nh = F.leaky_relu(h, 0.1)\nreturn h",
        Applicability.SAFE,
        id="positional inplace True as a statement becomes a rebinding",
    ),
    pytest.param(
        "h = torch.sigmoid(self.fc(x))\nh[h > 0.9] = 1.0\nreturn h",
        "h = torch.sigmoid(self.fc(x))\nh = h.masked_fill(h > 0.9, 1.0)\nreturn h",
        Applicability.SAFE,
        id="indexed assignment with a mask computed from the tensor itself becomes masked_fill",
    ),
    pytest.param(
        "h = torch.sigmoid(self.fc(x))\nbig = h > 0.9\nh[big] = -1\nreturn h",
        "h = torch.sigmoid(self.fc(x))\nbig = h > 0.9\nh = h.masked_fill(big, -1)\nreturn h",
        Applicability.SAFE,
        id="named mask of the tensor's own shape is exact too",
    ),
    pytest.param(
        "h = self.fc(x)\ns = self.skip(h)\nh.zero_()\nreturn h + s",
        "h = self.fc(x)\ns = self.skip(h)\nh = torch.zeros_like(h)\nreturn h + s",
        Applicability.SAFE,
        id="zero_ on a Linear's saved input becomes zeros_like",
    ),
    pytest.param(
        "h = torch.exp(self.fc(x))\ntorch.clamp_(h, max=5.0)\nreturn h",
        "h = torch.exp(self.fc(x))\nh = torch.clamp(h, max=5.0)\nreturn h",
        Applicability.SAFE,
        id="torch namespace in-place function",
    ),
    pytest.param(
        "h = torch.exp(self.fc(x))\ncache = [h]\nh.add_(1)\nreturn h, cache",
        "h = torch.exp(self.fc(x))\ncache = [h]\nh = h.add(1)\nreturn h, cache",
        Applicability.UNSAFE,
        id="tensor stored in a list before the write makes the fix unsafe",
    ),
]


@pytest.mark.parametrize("body, fixed, applicability", _fixes)
def test_fixes(body, fixed, applicability):
    result = _run(_forward(body))
    assert result.error is None
    assert [f.code for f in result.findings] == ["AF103"]
    assert result.findings[0].fix is not None
    assert result.findings[0].fix.applicability is applicability
    assert result.fixed.decode() == _forward(fixed)


def test_unsafe_fix_not_applied_without_unsafe_fixes():
    src = _forward("h = torch.exp(self.fc(x))\nkept = [h]\nh.add_(1)\nreturn h, kept")
    result = _run(src, unsafe=False)
    assert len(result.findings) == 1
    assert result.fixed.decode() == src


def test_torch_alias_is_used_in_the_fix():
    src = textwrap.dedent(
        """\
        import torch as th
        from torch import nn


        class Head(nn.Module):
            def forward(self, x):
                h = th.exp(x)
                h.sigmoid_()
                return h
        """
    )
    result = _run(src)
    assert "h = th.sigmoid(h)" in result.fixed.decode()


def test_module_level_script_leaf_is_reported_without_fix():
    src = textwrap.dedent(
        """\
        import torch

        w = torch.randn(3, requires_grad=True)
        for _ in range(2):
            loss = (w * 2).sum()
            loss.backward()
            w -= 0.1 * w.grad
        """
    )
    result = _run(src)
    assert [(f.line, f.fix) for f in result.findings] == [(7, None)]
    assert "leaf" in result.findings[0].message


# --------------------------------------------------------------------------- reported without a fix

_reported = [
    pytest.param("h = self.bn(x)\nalias = h\nh.relu_()\nreturn self.fc(h) + alias", "alias", id="plain alias read after the write"),
    pytest.param("p = torch.sigmoid(self.fc(x))\np[:, 0] = 0.0\nreturn p", "sigmoid", id="slice assignment has no exact out-of-place form"),
    pytest.param("p = torch.sigmoid(self.fc(x))\nv = p.view(-1)\nv.mul_(2)\nreturn p", "view", id="write through a view of a saved output"),
    pytest.param("a = self.fc(x).softmax(-1)\na = self.drop(a)\nreturn a", "softmax", id="in-place dropout module on a softmax output"),
    pytest.param("w = nn.Parameter(torch.ones(4))\nw.mul_(2)\nreturn x * w", "leaf", id="local nn.Parameter is a leaf"),
]


@pytest.mark.parametrize("body, word", _reported)
def test_reported_without_fix(body, word):
    result = _run(_forward(body))
    assert [f.code for f in result.findings] == ["AF103"]
    assert result.findings[0].fix is None
    assert word in result.findings[0].message
    assert not result.changed


def test_training_step_write_before_backward_is_reported():
    src = HEADER + textwrap.dedent(
        """\
        def train(model, opt, x):
            model.train()
            out = model(x)
            pred = out.sigmoid()
            pred[pred > 0.5] = 1.0
            pred.sum().backward()
            opt.step()
        """
    )
    result = _run(src)
    assert [(f.line, f.fix is not None) for f in result.findings] == [(10, True)]


def test_helper_writing_its_argument_is_reported_at_the_call():
    src = HEADER + textwrap.dedent(
        """\
        def scale_(t):
            t.mul_(2)


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)

            def forward(self, x):
                h = torch.tanh(self.fc(x))
                scale_(h)
                return h
        """
    )
    result = _run(src)
    assert [(f.line, f.fix) for f in result.findings] == [(17, None)]
    assert "scale_()" in result.findings[0].message


# --------------------------------------------------------------------------- left alone

_noop = [
    pytest.param("out = self.bn(self.fc(x))\nout = self.act(out)\nreturn out", id="inplace ReLU module right after batch norm"),
    pytest.param("out = self.bn(self.fc(x))\nout += self.skip(x)\nreturn F.relu(out, inplace=True)", id="residual add and functional relu on a batch-norm output"),
    pytest.param("h = self.fc(x)\nh = F.dropout(h, 0.1, self.training, inplace=True)\nreturn h", id="functional dropout on a Linear output"),
    pytest.param("with torch.no_grad():\n    x.clamp_(0, 1)\nreturn self.fc(x)", id="write under torch.no_grad"),
    pytest.param("with torch.inference_mode():\n    x.mul_(2)\nreturn x", id="write under inference_mode"),
    pytest.param("x.data.clamp_(0, 1)\nreturn self.fc(x)", id="write through .data"),
    pytest.param("self.scale.data.fill_(1.0)\nreturn self.fc(x)", id="parameter reset through .data"),
    pytest.param("buf = torch.zeros(4, 4)\nbuf[0] = 1.0\nbuf.add_(1)\nreturn self.fc(x) + buf", id="fresh tensor filled in place"),
    pytest.param("y = x.clone()\ny.mul_(2)\nreturn self.fc(y)", id="clone of the input written in place"),
    pytest.param("x = x.clone()\nx[x < 0] = 0\nreturn self.fc(x)", id="input rebound to its clone first"),
    pytest.param("s = self.fc(x) @ self.fc(x).t()\ns.masked_fill_(s > 1, 0.0)\nreturn s.softmax(-1)", id="masked_fill_ on raw scores before softmax"),
    pytest.param("y = x.mul_(self.scale) if self.inplace else x * self.scale\nreturn y", id="in-place chosen by an inplace flag"),
    pytest.param("h = self.fc(x)\nh = h * 2\nh.add_(1)\nreturn h", id="product by a literal saves nothing of h"),
    pytest.param("p = torch.sigmoid(self.fc(x))\np = p * 2\np.add_(1)\nreturn p", id="rebinding drops the saved sigmoid output"),
    pytest.param("n = x.size(0)\nn += 1\nreturn self.fc(x) * n", id="augmented assignment on a Python int"),
    pytest.param(
        "y = self.fc(x).sigmoid()\nif not self.training:\n    y[..., :2] = y[..., :2] * 2 - 0.5\nreturn y",
        id="decoding a sigmoid output in place in an inference-only branch",
    ),
    pytest.param("feats = [self.fc(x)]\nfeats[0] = feats[0] + 1\nreturn feats[0]", id="item assignment on a list"),
]


@pytest.mark.parametrize("body", _noop)
def test_noop(body):
    src = _forward(body)
    result = _run(src)
    assert result.error is None
    assert result.findings == ()
    assert result.fixed.decode() == src


_noop_modules = [
    pytest.param(
        """\
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)
                self.fc.weight.mul_(0.1)
                nn.init.zeros_(self.fc.bias)

            def forward(self, x):
                return self.fc(x)
        """,
        id="in-place writes in __init__",
    ),
    pytest.param(
        """\
        class Net(nn.Module):
            def reset_parameters(self):
                self.w.uniform_(-1, 1)

            def _init_weights(self, m):
                m.weight.normal_(0, 0.02)

            def forward(self, x):
                return x @ self.w
        """,
        id="in-place writes in reset_parameters and _init_weights",
    ),
    pytest.param(
        """\
        class Sgd(torch.optim.Optimizer):
            def step(self, closure=None):
                for group in self.param_groups:
                    for p in group["params"]:
                        p.add_(p.grad, alpha=-group["lr"])

        def forward(x):
            return x
        """,
        id="optimizer implementation",
    ),
    pytest.param(
        """\
        class Square(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x.mul_(x)

            @staticmethod
            def backward(ctx, grad):
                grad.mul_(2)
                return grad
        """,
        id="autograd.Function forward and backward",
    ),
    pytest.param(
        """\
        def train(model, opt, x):
            loss = model(x).sum()
            loss.backward()
            with torch.no_grad():
                for p in model.parameters():
                    p -= 0.1 * p.grad
            opt.step()
        """,
        id="manual parameter update under no_grad",
    ),
    pytest.param(
        """\
        @torch.no_grad()
        def ema_update(ema, model):
            for e, p in zip(ema.parameters(), model.parameters()):
                e.mul_(0.9).add_(p, alpha=0.1)

        def train(model, ema, x):
            model(x).sum().backward()
            ema_update(ema, model)
        """,
        id="EMA update decorated with torch.no_grad",
    ),
    pytest.param(
        """\
        def train(model, opt, x):
            probs = model(x).softmax(-1)
            loss = -probs.log().mean()
            loss.backward()
            opt.step()
            probs.mul_(100)
            return probs
        """,
        id="write after backward has consumed the graph",
    ),
    pytest.param(
        """\
        def train(model, opt, x):
            out = model(x)
            out.sum().backward()
            opt.step()
            pred = out.sigmoid()
            pred[pred > 0.5] = 1.0
            return pred
        """,
        id="metrics thresholded in place after the last backward of the step",
    ),
    pytest.param(
        """\
        def normalize(t, mean, std, inplace: bool = False):
            if not inplace:
                t = t.clone()
            t.sub_(mean).div_(std)
            return t

        class Net(nn.Module):
            def forward(self, x):
                return normalize(x, 0.5, 0.2)
        """,
        id="function with an inplace parameter",
    ),
    pytest.param(
        """\
        def helper(x):
            y = torch.sigmoid(x)
            y.mul_(2)
            return y
        """,
        id="function not reached from a forward or a training step",
    ),
]


@pytest.mark.parametrize("src", _noop_modules)
def test_noop_modules(src):
    src = HEADER + textwrap.dedent(src)
    result = _run(src)
    assert result.error is None
    assert result.findings == ()


# --------------------------------------------------------------------------- docs and table


def test_explain_page_has_ruff_sections():
    doc = get_rule("AF103").documentation()
    for section in ("## What it does", "## Why is this bad?", "## Example", "Use instead:", "## Fix safety", "## References"):
        assert section in doc


def test_generated_table_matches_installed_torch():
    pytest.importorskip("torch")
    spec = importlib.util.spec_from_file_location("gen_inplace_ops", ROOT / "scripts" / "gen_inplace_ops.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    expected = module.render()
    current = (ROOT / "autofix" / "model" / "inplace_ops.py").read_text(encoding="utf-8")
    if "from torch " + module.collect()["version"] not in current:
        pytest.skip("table generated from a different torch version")
    assert current == expected


def test_rule_never_imports_torch():
    for path in ("autofix/rules/inplace_autograd.py", "autofix/analysis/inplace.py", "autofix/model/inplace_ops.py"):
        text = (ROOT / path).read_text(encoding="utf-8")
        assert not re.search(r"^\s*(import torch|from torch\b)", text, re.MULTILINE), path


# --------------------------------------------------------------------------- fixed scripts run

_RUN_ALL = """\
import json, os, runpy, sys, warnings
warnings.simplefilter("ignore")
outcome = {}
for path in sys.argv[1:]:
    sys.path.insert(0, os.path.dirname(path))  # as `python script.py` does: its helper folders import
    try:
        runpy.run_path(path, run_name="__main__")
        outcome[path] = None
    except BaseException as exc:  # a script's failure is data here
        outcome[path] = f"{type(exc).__name__}: {exc}"[:300]
    finally:
        sys.path.pop(0)
print(json.dumps(outcome))
"""


def _run_scripts(paths):
    import json
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", _RUN_ALL, *map(str, paths)],
        capture_output=True, text=True, timeout=600, cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_every_fixed_inplace_corpus_script_runs_where_the_original_did():
    """No fix of AF103/AF107 makes code raise that ran before; every fixed script runs."""
    pytest.importorskip("torch")
    fixed = sorted(p for code in ("AF103", "AF107") for p in (ROOT / "corpus" / code).glob("*.fixed.py"))
    originals = [p.with_name(p.name[: -len(".fixed.py")] + ".py") for p in fixed]
    outcome = _run_scripts(fixed + originals)
    broken = {str(f): outcome[str(f)] for f in fixed if outcome[str(f)] is not None}
    assert not broken, broken
    # and the corpus still shows both kinds: some originals fail (AF103's crashes), some run (AF107).
    assert any(outcome[str(o)] is not None for o in originals)
    assert any(outcome[str(o)] is None for o in originals)


# --------------------------------------------------------------------------- across files of a project

_POOL = """\
import torch
import torch.nn as nn

from utils.attention import {name}


class Pool(nn.Module):
    def __init__(self):
        super().__init__()
        self.score = nn.Linear(4, 1)

    def forward(self, tokens, pad_mask):
        weights = torch.softmax(self.score(tokens).squeeze(-1), dim=-1)
        {call}
        return (weights.unsqueeze(-1) * tokens).sum(1)
"""

_HELPERS = """\
def drop_padding_(weights, pad_mask):
    weights.masked_fill_(pad_mask, 0.0)
    return weights


def drop_padding(weights, pad_mask):
    return weights.masked_fill(pad_mask, 0.0)
"""


def _project(tmp_path, name: str, call: str):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'proj'\n")
    (tmp_path / "utils").mkdir()
    (tmp_path / "utils" / "__init__.py").write_text("")
    (tmp_path / "utils" / "attention.py").write_text(_HELPERS)
    model = tmp_path / "model.py"
    model.write_text(_POOL.format(name=name, call=call))
    return fix_source(model.read_bytes(), str(model), Options(select=("AF103",), unsafe_fixes=True))


def test_helper_of_another_module_writing_a_softmax_output_is_reported_at_the_call(tmp_path):
    result = _project(tmp_path, "drop_padding_", "drop_padding_(weights, pad_mask)")
    assert [(f.line, f.fix) for f in result.findings] == [(14, None)]
    assert "`drop_padding_()`" in result.findings[0].message and "softmax" in result.findings[0].message
    assert "(no fix: the write is inside `drop_padding_()`" in result.findings[0].message


@pytest.mark.usefixtures("unscreened")
def test_helper_of_another_module_returning_a_new_tensor_is_silent(tmp_path):
    result = _project(tmp_path, "drop_padding", "weights = drop_padding(weights, pad_mask)")
    assert result.findings == ()


def test_a_block_writing_its_argument_through_an_alias_is_followed_without_crashing():
    # The block's forward writes ``inputs`` through the alias ``h`` (``h = inputs; h += …``): the call
    # writes the caller's softmax output (transformers' git/edgetam once made the analysis raise here).
    src = textwrap.dedent(
        """\
        import torch
        import torch.nn as nn


        class Shift(nn.Module):
            def __init__(self):
                super().__init__()
                self.bias = nn.Parameter(torch.zeros(4))

            def forward(self, inputs, extra=None):
                h = inputs
                h += self.bias
                return h


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(4, 4)
                self.shift = Shift()

            def forward(self, x):
                p = torch.softmax(self.fc(x), dim=-1)
                return self.shift(p)
        """
    )
    result = _run(src)
    assert result.error is None
    assert [(f.code, f.line) for f in result.findings] == [("AF103", 24)]


# --------------------------------------------------------------------------- how the project uses a module class

_CLIP = """\
import torch
import torch.nn as nn

__all__ = ["Clip"]


class Clip(nn.Module):
    \"\"\"Clip keeps boxes inside the frame.\"\"\"

    def __init__(self):
        super(Clip, self).__init__()

    def forward(self, boxes, size):
        boxes[:, 0] = torch.clamp(boxes[:, 0], min=0)
        boxes[:, 1] = torch.clamp(boxes[:, 1], max=size)
        return boxes
"""

_CLIP_LEAF = """\
import torch
import torch.nn as nn


class Clip(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(1))

    def forward(self, boxes, size):
        self.scale.clamp_(max=size)
        return boxes * self.scale
"""

_DETECTOR = """\
import torch.nn as nn
from boxes import Clip


class Detector(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)
        self.clip = Clip()

    def forward(self, x):
        boxes = self.fc(x)
        if self.training:
            return boxes.sum()
        else:
            return self.clip(boxes, 8.0)
"""

_NO_GRAD_USES = """\
import torch
import boxes

clip = boxes.Clip()


def preview(x):
    with torch.no_grad():
        return clip(x, 8.0)


@torch.inference_mode()
def preview_again(x):
    return clip(x, 8.0)
"""

_USES = [
    pytest.param({"detector.py": _DETECTOR}, False, id="called only in the inference branch of if self.training"),
    pytest.param({"preview.py": _NO_GRAD_USES}, False, id="a module-level instance called only under no_grad"),
    pytest.param({}, True, id="no use in the project"),
    pytest.param(
        {"detector.py": _DETECTOR, "train.py": "from boxes import Clip\n\n\ndef step(x):\n    Clip()(x, 8.0).sum().backward()\n"},
        True,
        id="also called where it is built, with grad",
    ),
    pytest.param(
        {"detector.py": _DETECTOR, "train.py": "from boxes import Clip\n\n\ndef step(x):\n    clip = Clip()\n    clip(x, 8.0).sum().backward()\n"},
        True,
        id="also called in a training step",
    ),
    pytest.param(
        {"preview.py": _NO_GRAD_USES, "post.py": "import torch\nfrom boxes import Clip\n\n\ndef run(x, post):\n    clip = Clip()\n    with torch.no_grad():\n        return post(x, clip)\n"},
        True,
        id="an instance passed on (what the callee does is not followed)",
    ),
    pytest.param(
        {"preview.py": _NO_GRAD_USES, "net.py": "import torch.nn as nn\nfrom boxes import Clip\n\nnet = nn.Sequential(nn.Linear(4, 2), Clip())\n"},
        True,
        id="an instance built into a Sequential",
    ),
    pytest.param(
        {"preview.py": _NO_GRAD_USES, "sub.py": "from boxes import Clip\n\n\nclass Wider(Clip):\n    pass\n"},
        True,
        id="a subclass",
    ),
    pytest.param(
        {"preview.py": "import torch\nfrom boxes import Clip as C\n\n\ndef run(x):\n    clip = C()\n    with torch.no_grad():\n        return clip(x, 8.0)\n"},
        True,
        id="imported under another name",
    ),
    pytest.param(
        {"detector.py": _DETECTOR, "registry.py": "BLOCKS = {'clip': 'Clip'}\n"},
        True,
        id="a registry spelling the name",
    ),
]


@pytest.mark.parametrize("files, reported", _USES)
def test_a_forward_whose_every_use_makes_no_backward_is_silent(tmp_path, files, reported):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'proj'\n")
    home = tmp_path / "boxes.py"
    home.write_text(_CLIP)
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    result = fix_source(home.read_bytes(), str(home), Options(select=("AF103",)))
    assert [f.line for f in result.findings] == ([15] if reported else [])


@pytest.mark.parametrize("files, reported", [
    pytest.param({"detector.py": _DETECTOR}, True, id="the inference branch may run in grad mode: a leaf write raises at once"),
    pytest.param({"preview.py": _NO_GRAD_USES}, False, id="under no_grad a leaf may be written"),
])
def test_a_leaf_written_in_a_forward_is_excused_only_by_no_grad(tmp_path, files, reported):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'proj'\n")
    home = tmp_path / "boxes.py"
    home.write_text(_CLIP_LEAF)
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    result = fix_source(home.read_bytes(), str(home), Options(select=("AF103",)))
    assert [f.line for f in result.findings] == ([11] if reported else [])


@pytest.mark.parametrize("train, reported", [
    pytest.param("", False, id="only the package's own inference branch"),
    pytest.param("from pkg.boxes import Clip\n\n\ndef step(x):\n    clip = Clip()\n    clip(x, 8.0).sum().backward()\n", True,
                 id="a script above the package trains through it"),
])
def test_uses_are_searched_from_the_folder_the_package_is_imported_from(tmp_path, train, reported):
    # No project marker: the root found for pkg/boxes.py is pkg/ itself, but its users sit above it.
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    home = tmp_path / "pkg" / "boxes.py"
    home.write_text(_CLIP)
    (tmp_path / "pkg" / "detector.py").write_text(_DETECTOR.replace("from boxes", "from pkg.boxes"))
    if train:
        (tmp_path / "train.py").write_text(train)
    result = fix_source(home.read_bytes(), str(home), Options(select=("AF103",)))
    assert [f.line for f in result.findings] == ([15] if reported else [])
