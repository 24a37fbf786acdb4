"""AF104 zero-grad-placement: snippets that must be fixed, and snippets that must stay silent."""

from __future__ import annotations

import textwrap

import pytest

from autofix.api import fix_source
from autofix.registry import get_rule
from autofix.types import Applicability, Expectation, Options

PRELUDE = "import torch\nmodel = torch.nn.Linear(2, 1)\nopt = torch.optim.SGD(model.parameters(), lr=0.1)\n"


def run(body: str, unsafe: bool = False):
    src = PRELUDE + textwrap.dedent(body)
    result = fix_source(src, "t.py", Options(select=("AF104",), unsafe_fixes=unsafe))
    assert result.error is None, result.error
    return src, result


def fixed_body(result) -> str:
    return result.fixed.decode()[len(PRELUDE):]


_fixes = [
    pytest.param(
        """
        for x in data:
            loss = model(x).sum()
            loss.backward()
            opt.zero_grad()
            opt.step()
        """,
        """
        for x in data:
            loss = model(x).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
        """,
        id="zero_grad between backward and step moves before backward",
    ),
    pytest.param(
        """
        for x in data:
            opt.zero_grad()
            loss = model(x).sum()
            loss.backward()
            opt.zero_grad()
            opt.step()
        """,
        """
        for x in data:
            opt.zero_grad()
            loss = model(x).sum()
            loss.backward()
            opt.step()
        """,
        id="extra zero_grad before step is removed when one already runs before backward",
    ),
    pytest.param(
        """
        def train_step(x):
            loss = model(x).sum()
            loss.backward()
            model.zero_grad()
            opt.step()
        """,
        """
        def train_step(x):
            loss = model(x).sum()
            model.zero_grad()
            loss.backward()
            opt.step()
        """,
        id="model.zero_grad matched to the optimizer over model.parameters()",
    ),
    pytest.param(
        """
        for x in data:
            loss = model(x).sum()
            loss.backward()
            for p in model.parameters():
                p.grad = None
            opt.step()
        """,
        """
        for x in data:
            loss = model(x).sum()
            for p in model.parameters():
                p.grad = None
            loss.backward()
            opt.step()
        """,
        id="p.grad = None loop spelling",
    ),
    pytest.param(
        """
        for i, x in enumerate(data):
            opt.zero_grad(set_to_none=True)
            loss = model(x).sum() / accum
            loss.backward()
            if (i + 1) % accum == 0:
                opt.step()
        """,
        """\
        opt.zero_grad(set_to_none=True)

        for i, x in enumerate(data):
            loss = model(x).sum() / accum
            loss.backward()
            if (i + 1) % accum == 0:
                opt.step()
                opt.zero_grad(set_to_none=True)
        """,
        id="accumulation: zero_grad every micro-batch moves into the guard and before the loop",
    ),
    pytest.param(
        """
        def fit():
            for i, x in enumerate(data):
                loss = model(x).sum()
                scaler.scale(loss).backward()
                opt.zero_grad()
                if i % grad_accum_steps == 0:
                    scaler.step(opt)
                    scaler.update()
        """,
        """
        def fit():
            opt.zero_grad()
            for i, x in enumerate(data):
                loss = model(x).sum()
                scaler.scale(loss).backward()
                if i % grad_accum_steps == 0:
                    scaler.step(opt)
                    scaler.update()
                    opt.zero_grad()
        """,
        id="accumulation with GradScaler keeps step and update together",
    ),
    pytest.param(
        """
        opt.zero_grad()
        for i, x in enumerate(data):
            opt.zero_grad()
            model(x).sum().backward()
            if i % 4 == 3:
                opt.step()
                opt.zero_grad()
        """,
        """
        opt.zero_grad()
        for i, x in enumerate(data):
            model(x).sum().backward()
            if i % 4 == 3:
                opt.step()
                opt.zero_grad()
        """,
        id="accumulation already zeroed after the step and before the loop: only the extra call goes",
    ),
]


@pytest.mark.parametrize("before, after", _fixes)
def test_fixes(before, after):
    _, result = run(before)
    assert len(result.findings) == 1
    assert result.findings[0].fix.applicability is Applicability.SAFE
    assert fixed_body(result) == textwrap.dedent(after)


def test_missing_zero_grad_is_an_unsafe_insertion():
    body = """
    for x in data:
        loss = model(x).sum()
        loss.backward()
        opt.step()
    """
    src, result = run(body)
    assert [f.fix.applicability for f in result.findings] == [Applicability.UNSAFE]
    assert result.fixed.decode() == src
    _, result = run(body, unsafe=True)
    assert fixed_body(result) == textwrap.dedent(
        """
        for x in data:
            loss = model(x).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
        """
    )


def test_several_optimizers_each_matched_to_its_step():
    src = textwrap.dedent(
        """
        import torch
        G, D = torch.nn.Linear(2, 2), torch.nn.Linear(2, 1)
        opt_g = torch.optim.Adam(G.parameters())
        opt_d = torch.optim.Adam(D.parameters())
        for z in data:
            d_loss = D(G(z).detach()).mean()
            d_loss.backward()
            opt_g.zero_grad()
            opt_d.zero_grad()
            opt_d.step()
            g_loss = -D(G(z)).mean()
            g_loss.backward()
            opt_g.step()
        """
    )
    result = fix_source(src, "t.py", Options(select=("AF104",)))
    assert [f.message.split("`")[1] for f in result.findings] == ["opt_d.zero_grad()"]


_noop = [
    pytest.param(
        """
        for x in data:
            opt.zero_grad()
            loss = model(x).sum()
            loss.backward()
            opt.step()
        """,
        id="zero_grad before backward",
    ),
    pytest.param(
        """
        for x in data:
            loss = model(x).sum()
            loss.backward()
            opt.step()
            opt.zero_grad()
        """,
        id="zero_grad right after step",
    ),
    pytest.param(
        """
        opt.zero_grad()
        for i, x in enumerate(data):
            loss = model(x).sum() / accum
            loss.backward()
            if (i + 1) % accum == 0:
                opt.step()
                opt.zero_grad()
        """,
        id="correct accumulation",
    ),
    pytest.param(
        """
        for i, x in enumerate(data):
            if i % accum == 0:
                opt.zero_grad()
            model(x).sum().backward()
            if i % accum == accum - 1:
                opt.step()
        """,
        id="accumulation with a guarded zero_grad",
    ),
    pytest.param(
        """
        for x in data:
            model.zero_grad()
            model(x).max().backward()
            maps.append(x.grad)
        """,
        id="loop without step",
    ),
    pytest.param(
        """
        for x in data:
            opt.zero_grad()
            model(x).sum().backward()
            norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            if torch.isfinite(norm):
                opt.step()
        """,
        id="step skipped on non-finite gradients is not accumulation",
    ),
    pytest.param(
        """
        for x in data:
            loss = model(x).sum()
            loss.backward(retain_graph=True)
            g = [p.grad.clone() for p in model.parameters()]
            opt.zero_grad()
            for p, gi in zip(model.parameters(), g):
                p.grad = project(gi)
            opt.step()
        """,
        id="gradients written back by hand after zero_grad",
    ),
    pytest.param(
        """
        def closure():
            opt.zero_grad()
            loss = model(x).sum()
            loss.backward()
            return loss

        for _ in range(3):
            opt.step(closure)
        """,
        id="LBFGS closure",
    ),
    pytest.param(
        """
        def reset():
            opt.zero_grad()

        for x in data:
            reset()
            model(x).sum().backward()
            opt.step()
        """,
        id="zero_grad in a helper called by the loop",
    ),
    pytest.param(
        """
        def train(optimizer):
            for x in data:
                model(x).sum().backward()
                optimizer.step()
        """,
        id="missing zero_grad on an optimizer known only by its name is not reported",
    ),
]


@pytest.mark.parametrize("body", _noop)
def test_noop(body):
    src, result = run(body, unsafe=True)
    assert result.findings == ()
    assert result.fixed.decode() == src


def test_declares_contract():
    rule = get_rule("AF104")
    assert rule.NAME == "zero-grad-placement"
    assert rule.EXPECTATION is Expectation.INTENDED_CHANGE
    doc = rule.documentation()
    for section in ("## What it does", "## Why is this bad?", "## Example", "Use instead:", "## Fix safety", "## References"):
        assert section in doc


# ------------------------------------------------------------------ steps spread over methods and frameworks


def test_a_method_inlined_into_two_loops_is_reported_once():
    _, result = run(
        """
        class T:
            def __init__(self):
                self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

            def step(self, x):
                loss = model(x).sum()
                loss.backward()
                self.optimizer.zero_grad()
                self.optimizer.step()

            def fit(self, xs):
                for x in xs:
                    self.step(x)

            def finetune(self, xs):
                for x in xs:
                    self.step(x)
        """
    )
    assert [f.line for f in result.findings] == [12]


def test_recursive_self_calls_do_not_loop():
    _, result = run(
        """
        class T:
            def __init__(self):
                self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

            def step(self, x, depth=0):
                if depth:
                    self.step(x, depth - 1)
                loss = model(x).sum()
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()

            def fit(self, xs):
                for x in xs:
                    self.step(x)
        """
    )
    assert not result.findings


def test_method_inherited_from_a_base_class_of_the_module():
    _, result = run(
        """
        class Base:
            def update(self, loss):
                loss.backward()
                self.optimizer.step()

        class T(Base):
            def __init__(self):
                self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

            def fit(self, xs):
                for x in xs:
                    self.update(model(x).sum())
        """,
        unsafe=True,
    )
    assert [f.line for f in result.findings] == [8]
    assert "self.optimizer.zero_grad()\n        loss.backward()" in result.fixed.decode()


def test_lightning_training_step_is_a_loop_body_only_in_a_lightning_module():
    lightning = """
        import lightning.pytorch as pl

        class M({base}):
            def training_step(self, batch, batch_idx):
                opt = self.optimizers()
                opt.zero_grad()
                self.manual_backward(self.layer(batch).sum())
                if (batch_idx + 1) % 4 == 0:
                    opt.step()
        """
    _, result = run(lightning.format(base="pl.LightningModule"))
    assert [f.code for f in result.findings] == ["AF104"]
    # A plain class' training_step may be called from anywhere: no loop is known.
    _, result = run(lightning.format(base="object"))
    assert not result.findings


# ------------------------------------------------------------------- the step and its loop in two files

_MIXIN = """\
import torch


class StepMixin:
    def update(self, loss):
        loss.backward()
        self.opt.step()
"""

_LOOPING = """\
import torch
from mixin import StepMixin


class Runner(StepMixin):
    def __init__(self, net):
        self.net = net
        self.opt = torch.optim.SGD(net.parameters(), lr=0.1)
{extra}
    def run(self, batches):
        for x in batches:
{body}            self.update(self.net(x).sum())
"""


def _project(tmp_path, body: str = "", extra: str = "", loop_file: str = "runner.py"):
    from autofix.model import clear_cache
    from autofix.model.callers import clear_index

    clear_cache()
    clear_index()
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (tmp_path / "mixin.py").write_text(_MIXIN)
    (tmp_path / loop_file).write_text(_LOOPING.format(body=body, extra=extra))
    path = tmp_path / "mixin.py"
    return fix_source(path.read_bytes(), str(path), Options(select=("AF104",), unsafe_fixes=True))


def test_mixin_step_looped_by_a_subclass_in_another_file(tmp_path):
    # The looping file mentions zero_grad only in a comment: nothing zeroes.
    result = _project(tmp_path, body="            # no zero_grad() here\n")
    assert [d.code for d in result.findings] == ["AF104"]
    assert "`Runner.run` (runner.py:10)" in result.findings[0].message
    assert "        self.opt.zero_grad()\n        loss.backward()\n" in result.fixed.decode()


@pytest.mark.parametrize(
    "body, extra",
    [
        pytest.param("            self.opt.zero_grad()\n", "", id="loop-zeroes"),
        pytest.param("            for p in self.net.parameters():\n                p.grad = None\n", "", id="loop-clears-grad"),
        pytest.param("", "    def update(self, loss):\n        loss.backward()\n", id="subclass-overrides-update"),
    ],
)
def test_mixin_step_silent_when_the_loop_file_accounts_for_it(tmp_path, body, extra):
    result = _project(tmp_path, body=body, extra=extra)
    assert not result.findings


def test_mixin_step_not_in_a_loop_is_silent(tmp_path):
    from autofix.model import clear_cache
    from autofix.model.callers import clear_index

    clear_cache()
    clear_index()
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (tmp_path / "mixin.py").write_text(_MIXIN)
    (tmp_path / "once.py").write_text(
        "import torch\nfrom mixin import StepMixin\n\n\nclass Once(StepMixin):\n"
        "    def __init__(self, net):\n        self.net = net\n        self.opt = torch.optim.SGD(net.parameters(), lr=0.1)\n\n"
        "    def go(self, x):\n        self.update(self.net(x).sum())\n"
    )
    path = tmp_path / "mixin.py"
    result = fix_source(path.read_bytes(), str(path), Options(select=("AF104",), unsafe_fixes=True))
    assert not result.findings


_UPDATE = """\
def update(optimizer, loss):
    loss.backward()
    optimizer.step()
"""


@pytest.mark.parametrize(
    "script, fires",
    [
        pytest.param("opt = torch.optim.SGD(net.parameters(), lr=0.1)\nfor x in data:\n    update(opt, net(x).sum())\n", True, id="looped"),
        pytest.param("opt = torch.optim.SGD(net.parameters(), lr=0.1)\nupdate(opt, net(data[0]).sum())\n", False, id="called-once"),
        pytest.param("opt = make_optimizer(net)\nfor x in data:\n    update(opt, net(x).sum())\n", False, id="optimizer-from-a-library"),
        pytest.param(
            "opt = torch.optim.SGD(net.parameters(), lr=0.1)\nfor x in data:\n    opt.zero_grad()\n    update(opt, net(x).sum())\n",
            False,
            id="loop-zeroes",
        ),
    ],
)
def test_update_function_looped_in_another_file(tmp_path, script, fires):
    from autofix.model import clear_cache
    from autofix.model.callers import clear_index

    clear_cache()
    clear_index()
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (tmp_path / "algo.py").write_text(_UPDATE)
    prelude = "import torch\nfrom algo import update\nfrom lib import make_optimizer\nnet = torch.nn.Linear(2, 1)\ndata = [torch.randn(3, 2)] * 2\n"
    (tmp_path / "main.py").write_text(prelude + script)
    path = tmp_path / "algo.py"
    result = fix_source(path.read_bytes(), str(path), Options(select=("AF104",), unsafe_fixes=True))
    assert [f.code for f in result.findings] == (["AF104"] if fires else [])
    if fires:
        assert "a loop at the top level of `main.py`" in result.findings[0].message
        assert result.fixed.decode().startswith("def update(optimizer, loss):\n    optimizer.zero_grad()\n    loss.backward()\n")


def test_mixin_step_in_a_root_too_large_to_index_is_silent(tmp_path, monkeypatch):
    import autofix.model.callers as callers

    monkeypatch.setattr(callers, "_MAX_ENTRIES", 2)
    result = _project(tmp_path)
    assert not result.findings


def _shared_grads_worker(optimizer_params: str, guard: str) -> str:
    return f"""
    shared = torch.nn.Linear(2, 1)
    local_opt = torch.optim.SGD({optimizer_params}.parameters(), lr=0.1)
    for x in data:
        loss = model(x).sum()
        local_opt.zero_grad()
        loss.backward()
        for param, shared_param in zip(model.parameters(), shared.parameters()):
    {guard}        shared_param._grad = param.grad
        local_opt.step()
    """


@pytest.mark.parametrize(
    "optimizer_params, guard, reported",
    [
        # The optimizer steps the shared model: nothing zeroes the local gradients handed over.
        ("shared", "", True),
        # Built from the local model's parameters, it sets them to None every step, and they are
        # handed over afresh every step: right.
        ("model", "", False),
        # ... but skipped once the shared gradient is set, the shared model keeps the first ones.
        ("model", "        if shared_param.grad is not None:\n                break\n    ", True),
    ],
)
def test_shared_grads_follow_what_the_optimizer_zeroes(optimizer_params, guard, reported):
    _, result = run(_shared_grads_worker(optimizer_params, guard))
    found = [f for f in result.findings if "hands `model`'s gradient tensors" in f.message]
    assert bool(found) == reported


_HAND_OVER_ONCE = """
def ensure_shared_grads(model, shared_model):
    for param, shared_param in zip(model.parameters(), shared_model.parameters()):
        if shared_param.grad is not None:
            return
        shared_param._grad = param.grad
"""


@pytest.mark.parametrize(
    "spelling, call",
    [
        pytest.param("from .utils import ensure_shared_grads", "ensure_shared_grads(local, shared)", id="relative"),
        pytest.param("from pkg.utils import ensure_shared_grads", "ensure_shared_grads(shared_model=shared, model=local)",
                     id="absolute-keywords"),
        pytest.param("from pkg import utils", "utils.ensure_shared_grads(local, shared)", id="module"),
    ],
)
def test_hand_over_helper_imported_from_another_file(tmp_path, spelling, call):
    from autofix.model import clear_cache

    clear_cache()
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "utils.py").write_text(_HAND_OVER_ONCE)
    source = textwrap.dedent(f"""\
        import torch
        {spelling}


        def train(shared, optimizer, data):
            local = torch.nn.Linear(2, 1)
            for x in data:
                local.zero_grad()
                local(x).sum().backward()
                {call}
                optimizer.step()
        """)
    path = package / "train.py"
    path.write_text(source)
    result = fix_source(source.encode(), str(path), Options(select=("AF104",), unsafe_fixes=True))
    assert [f.message.split(" sets ")[0] for f in result.findings] == ["`local.zero_grad()`"]
    assert "local.zero_grad(set_to_none=False)" in result.fixed.decode()


def test_hand_over_in_a_step_method_zeroed_by_its_loop_too_has_no_fix():
    # `run` zeroes the local model before `update`, which zeroes it again: making only one of the two
    # zero in place still drops the tensors the shared model holds.
    _, result = run(
        """
        class Worker:
            def __init__(self, shared, optimizer):
                self.shared, self.optimizer = shared, optimizer
                self.model = torch.nn.Linear(2, 1)

            def ensure_shared_grads(self):
                for param, shared_param in zip(self.model.parameters(), self.shared.parameters()):
                    if shared_param.grad is not None:
                        return
                    shared_param._grad = param.grad

            def update(self, x):
                self.model.zero_grad()
                self.model(x).sum().backward()
                self.ensure_shared_grads()
                self.optimizer.step()

            def run(self, data):
                for x in data:
                    self.model.zero_grad()
                    self.update(x)
        """,
        unsafe=True,
    )
    [finding] = result.findings
    assert "another `self.model.zero_grad()` in this file" in finding.message
    assert finding.fix is None


# ------------------------------------------------------------------- a part of the model zeroed on purpose

def _findings(src: str):
    result = fix_source(textwrap.dedent(src), "t.py", Options(select=("AF104",)))
    assert result.error is None, result.error
    return result


@pytest.mark.parametrize(
    "src",
    [
        pytest.param(
            """
            import torch
            class Trainer:
                def __init__(self, net):
                    self.net = net
                    self.opt = self.make_opt()
                def make_opt(self):
                    return torch.optim.SGD(self.net.parameters(), lr=0.1)
                def train_batch(self, x):
                    self.opt.zero_grad()
                    loss = self.net(x).sum()
                    loss.backward()
                    self.net.encoder.zero_grad()
                    self.opt.step()
            """,
            id="optimizer built elsewhere, a submodule of the called model zeroed",
        ),
        pytest.param(
            """
            import torch
            net = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Linear(2, 1))
            net.body = net[0]
            opt = torch.optim.SGD(net.parameters(), lr=0.1)
            for x in data:
                opt.zero_grad()
                net(x).sum().backward()
                net.body.zero_grad()
                for p in net.body.parameters():
                    p.grad = None
                opt.step()
            """,
            id="optimizer over the whole model, a part of it zeroed",
        ),
    ],
)
def test_a_part_of_the_stepped_model_zeroed_before_the_step_is_a_freeze(src):
    result = _findings(src)
    assert result.findings == ()
    assert result.fixed is None or result.fixed.decode() == textwrap.dedent(src)


def test_each_late_zero_grad_is_reported_and_moves_only_itself():
    src = """
    import torch
    class Trainer:
        def __init__(self, net):
            self.net = net
            self.opt = self.make_opt()
        def make_opt(self):
            return torch.optim.SGD(self.net.parameters(), lr=0.1)
        def train_batch(self, x):
            loss = self.net(x).sum()
            loss.backward()
            self.net.zero_grad()
            self.opt.zero_grad()
            self.opt.step()
    """
    result = _findings(src)
    lines = sorted(f.line for f in result.findings)
    assert lines == [12, 13]
    # Both fixes insert before the backward pass: one pass moves the first, the next pass finds
    # the gradients already zeroed before the backward and removes the second.
    fixed = result.fixed.decode()
    backward = fixed.index("loss.backward()")
    assert fixed.index("self.net.zero_grad()") < backward
    assert "zero_grad()" not in fixed[backward:]


def test_the_wrapped_model_zeroed_before_the_step_is_still_reported():
    src = """
    import torch
    class Trainer:
        def __init__(self, net):
            self.net = torch.nn.DataParallel(net)
            self.opt = self.make_opt()
        def make_opt(self):
            return torch.optim.SGD(self.net.parameters(), lr=0.1)
        def train_batch(self, x):
            loss = self.net(x).sum()
            loss.backward()
            self.net.module.zero_grad()
            self.opt.step()
    """
    result = _findings(src)
    assert [f.line for f in result.findings] == [12]
