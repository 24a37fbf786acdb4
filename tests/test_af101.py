"""AF101 double-backward: snippets that must be fixed, and snippets that must stay silent."""

from __future__ import annotations

import textwrap

import pytest

from autofix.api import fix_source
from autofix.registry import get_rule
from autofix.types import Applicability, Expectation, Options

PRELUDE = "import torch\nimport torch.nn.functional as F\n"


def run(body: str, unsafe: bool = False):
    src = PRELUDE + textwrap.dedent(body)
    result = fix_source(src, "t.py", Options(select=("AF101",), unsafe_fixes=unsafe))
    assert result.error is None, result.error
    return src, result


def fixed_body(result) -> str:
    return result.fixed.decode()[len(PRELUDE):]


_fixes = [
    pytest.param(
        """
        for x, y in loader:
            out1, out2 = model(x)
            loss1 = F.mse_loss(out1, y)
            loss2 = out2.abs().mean()
            loss1.backward()
            loss2.backward()  # note
            opt.step()
            print(loss1.item())
        """,
        """
        for x, y in loader:
            out1, out2 = model(x)
            loss1 = F.mse_loss(out1, y)
            loss2 = out2.abs().mean()
            (loss1 + loss2).backward()  # note
            opt.step()
            print(loss1.item())
        """,
        id="two heads of one model call, trailing comment kept",
    ),
    pytest.param(
        """
        def step(x, y):
            features = backbone(x)
            loss_cls = ce(cls_head(features), y)
            loss_reg = reg_head(features).pow(2).mean()
            loss_cls.backward(retain_graph=True)
            loss_reg.backward()
        """,
        """
        def step(x, y):
            features = backbone(x)
            loss_cls = ce(cls_head(features), y)
            loss_reg = reg_head(features).pow(2).mean()
            (loss_cls + loss_reg).backward()
        """,
        id="retain_graph on the earlier call is dropped",
    ),
    pytest.param(
        """
        out = net(x)
        a = out.sum()
        b = out.mean()
        (0.5 * a).backward(retain_graph=True)
        b.backward()
        """,
        """
        out = net(x)
        a = out.sum()
        b = out.mean()
        (0.5 * a + b).backward()
        """,
        id="weights kept",
    ),
    pytest.param(
        """
        out = net(x)
        a = out.sum()
        b = out.mean()
        a.backward(retain_graph=True)
        (b - a).backward()
        """,
        """
        out = net(x)
        a = out.sum()
        b = out.mean()
        (a + (b - a)).backward()
        """,
        id="a difference on the right keeps its parentheses",
    ),
    pytest.param(
        """
        h = encoder(x)
        l1 = head1(h).sum()
        l2 = head2(h).sum()
        l3 = head3(h).sum()
        l1.backward()
        l2.backward()
        l3.backward()
        """,
        """
        h = encoder(x)
        l1 = head1(h).sum()
        l2 = head2(h).sum()
        l3 = head3(h).sum()
        (l1 + l2 + l3).backward()
        """,
        id="three losses",
    ),
    pytest.param(
        """
        losses = [crit(o, y) for o in model(x)]
        for l in losses:
            l.backward(retain_graph=True)
        opt.step()
        """,
        """
        losses = [crit(o, y) for o in model(x)]
        sum(losses).backward()
        opt.step()
        """,
        id="loop over a list of losses",
    ),
    pytest.param(
        """
        feat = body(x)
        terms = {}
        terms["a"] = feat.sum()
        terms["b"] = feat.pow(2).mean()
        for name, term in terms.items():
            term.backward(retain_graph=True)
        """,
        """
        feat = body(x)
        terms = {}
        terms["a"] = feat.sum()
        terms["b"] = feat.pow(2).mean()
        sum(terms.values()).backward()
        """,
        id="dict of losses iterated with items",
    ),
    pytest.param(
        """
        ce_loss, aux_loss = compute_losses(model, x, y)
        ce_loss.backward()
        aux_loss.backward()
        """,
        """
        ce_loss, aux_loss = compute_losses(model, x, y)
        (ce_loss + aux_loss).backward()
        """,
        id="losses returned by a helper",
    ),
    pytest.param(
        """
        out = model(x)
        a, b = out.sum(), out.mean()
        torch.autograd.backward(a)
        torch.autograd.backward(b)
        """,
        """
        out = model(x)
        a, b = out.sum(), out.mean()
        torch.autograd.backward(a + b)
        """,
        id="torch.autograd.backward spelling",
    ),
    pytest.param(
        """
        outputs = model(**batch)
        aux = outputs.hidden.pow(2).mean()
        accelerator.backward(outputs.loss)
        accelerator.backward(aux)
        optimizer.step()
        """,
        """
        outputs = model(**batch)
        aux = outputs.hidden.pow(2).mean()
        accelerator.backward(outputs.loss + aux)
        optimizer.step()
        """,
        id="accelerate's accelerator.backward(loss) spelling",
    ),
    pytest.param(
        """
        out = model(x)
        a, b = out.sum(), out.mean()
        scaler.scale(a).backward(retain_graph=True)
        scaler.scale(b).backward()
        scaler.step(opt)
        """,
        """
        out = model(x)
        a, b = out.sum(), out.mean()
        (scaler.scale(a) + scaler.scale(b)).backward()
        scaler.step(opt)
        """,
        id="AMP scaled losses",
    ),
    pytest.param(
        """
        out = model(x)
        a, b = out.sum(), out.mean()
        a.backward(retain_graph=True)
        b.backward()
        c = out.max()
        opt.step()
        c.backward()
        """,
        """
        out = model(x)
        a, b = out.sum(), out.mean()
        (a + b).backward(retain_graph=True)
        c = out.max()
        opt.step()
        c.backward()
        """,
        id="retain_graph kept when a later backward still uses the graph",
    ),
    pytest.param(
        """
        with torch.autocast("cpu"):
            z = enc(x)
            l1 = z.sum()
        l2 = z.mean()
        l1.backward()
        l2.backward()
        """,
        """
        with torch.autocast("cpu"):
            z = enc(x)
            l1 = z.sum()
        l2 = z.mean()
        (l1 + l2).backward()
        """,
        id="forward under autocast",
    ),
]


@pytest.mark.parametrize("before, after", _fixes)
def test_fixes(before, after):
    _, result = run(before)
    assert len(result.findings) == 1
    assert result.findings[0].fix.applicability is Applicability.SAFE
    assert fixed_body(result) == textwrap.dedent(after)


_unsafe_fixes = [
    pytest.param(
        """
        loss = crit(model(x), y)
        loss.backward()
        opt.step()
        loss.backward()
        opt.step()
        print(loss)
        """,
        """
        loss = crit(model(x), y)
        loss.backward()
        opt.step()
        print(loss)
        """,
        id="duplicated backward and step pair",
    ),
    pytest.param(
        """
        loss = crit(model(x), y)
        loss.backward()
        loss.backward()
        opt.step()
        """,
        """
        loss = crit(model(x), y)
        loss.backward()
        opt.step()
        """,
        id="duplicated backward line",
    ),
]


@pytest.mark.parametrize("before, after", _unsafe_fixes)
def test_unsafe_fixes(before, after):
    src, result = run(before)
    assert [f.fix.applicability for f in result.findings] == [Applicability.UNSAFE]
    assert result.fixed.decode() == src, "unsafe fixes need --unsafe-fixes"
    _, result = run(before, unsafe=True)
    assert fixed_body(result) == textwrap.dedent(after)


_report_only = [
    pytest.param(
        """
        out = model(x)
        loss = out.sum()
        loss.backward()
        loss = out.mean()
        loss.backward()
        """,
        id="loss name reassigned between the calls",
    ),
    pytest.param(
        """
        out = model(x)
        b = out.mean()
        crit(out, y).backward()
        b.backward()
        """,
        id="earlier loss is an inline forward call",
    ),
    pytest.param(
        """
        y = model(x)
        z = y * 2
        y.backward(torch.ones_like(y))
        z.backward(torch.ones_like(z))
        """,
        id="explicit gradient on non-scalar outputs without retain_graph",
    ),
]


@pytest.mark.parametrize("body", _report_only)
def test_reported_without_fix(body):
    src, result = run(body, unsafe=True)
    assert len(result.findings) == 1
    assert result.findings[0].fix is None
    assert result.fixed.decode() == src


_noop = [
    pytest.param(
        """
        l1 = crit(model(x1), y1)
        l1.backward()
        l2 = crit(model(x2), y2)
        l2.backward()
        opt.step()
        """,
        id="separate forward passes (accumulation)",
    ),
    pytest.param(
        """
        x, y = get_batch()
        la = crit(model_a(x), y)
        lb = crit(model_b(x), y)
        la.backward()
        lb.backward()
        """,
        id="two models on the same data batch",
    ),
    pytest.param(
        """
        fake = G(z)
        d_loss = crit(D(real), ones) + crit(D(fake.detach()), zeros)
        d_loss.backward()
        g_loss = crit(D(fake), ones)
        g_loss.backward()
        opt_d.step()
        opt_g.step()
        """,
        id="GAN with fake.detach() for the discriminator",
    ),
    pytest.param(
        """
        out = model(x)
        a, b = out.sum(), out.mean()
        a.backward(retain_graph=True)
        opt.step()
        b.backward()
        """,
        id="step between the calls",
    ),
    pytest.param(
        """
        out = model(x)
        a, b = out.sum(), out.mean()
        g = torch.autograd.grad(a, params, create_graph=True)
        a.backward(retain_graph=True)
        b.backward()
        """,
        id="create_graph second-order code",
    ),
    pytest.param(
        """
        out = model(x)
        a, b = out.sum(), out.mean()
        a.backward(retain_graph=True)
        grads = [p.grad.clone() for p in params]
        b.backward()
        """,
        id="gradients read between the calls",
    ),
    pytest.param(
        """
        out = model(x)
        a, b = out.sum(), out.mean()
        a.backward(inputs=enc_params, retain_graph=True)
        b.backward(inputs=dec_params)
        """,
        id="inputs= splits parameters on purpose",
    ),
    pytest.param(
        """
        y = model(x)
        y.backward(g1, retain_graph=True)
        y.backward(g2)
        """,
        id="vector-Jacobian rows with retained graph",
    ),
    pytest.param(
        """
        with torch.no_grad():
            target = teacher(x)
        a = crit(student_a(x), target)
        b = crit(student_b(x), target)
        a.backward()
        b.backward()
        """,
        id="shared teacher output computed under no_grad",
    ),
    pytest.param(
        """
        feat = backbone(x).detach()
        a = head_a(feat).sum()
        b = head_b(feat).sum()
        a.backward()
        b.backward()
        """,
        id="shared features detached",
    ),
    pytest.param(
        """
        out = model(x)
        a, b = out.sum(), out.mean()
        if use_aux:
            a.backward(retain_graph=True)
        b.backward()
        """,
        id="conditional backward is not merged",
    ),
    pytest.param(
        """
        loss = model(x).sum()
        loss.backward()
        with pytest.raises(RuntimeError, match="second time"):
            loss.backward()
        """,
        id="a test that expects the second backward to raise",
    ),
    pytest.param(
        """
        for batch in loader:
            loss = model(batch).sum()
            loss.backward()
            opt.step()
        """,
        id="one backward per iteration",
    ),
    pytest.param(
        """
        out_a = model_a(**batch)
        accelerator.backward(out_a.loss)
        out_b = model_b(**batch)
        accelerator.backward(out_b.loss)
        """,
        id="accelerator.backward of two separate models",
    ),
    pytest.param(
        """
        losses = [crit(model(b), y) for b in batches]
        for l in losses:
            l.backward()
        """,
        id="loop over losses of separate forward passes",
    ),
    pytest.param(
        """
        import torchvision as tv
        import tqdm

        def train(root):
            data = tv.datasets.ImageFolder(root, transform=tv.transforms.ToTensor())
            loader = torch.utils.data.DataLoader(data, batch_size=8)
            for i, (img, _) in tqdm.tqdm(enumerate(loader)):
                opt_d.zero_grad()
                loss_d = netd(img).mean() + netd(netg(z).detach()).mean()
                loss_d.backward()
                opt_d.step()
                opt_g.zero_grad()
                loss_g = netd(netg(z)).mean() - netd(img).mean()
                loss_g.backward()
                opt_g.step()
        """,
        id="a library's progress bar over a library dataset's loader yields data, no forward pass",
    ),
    pytest.param(
        """
        from tqdm import tqdm
        from torchvision.datasets import ImageFolder

        def train(root):
            loader = torch.utils.data.DataLoader(ImageFolder(root), batch_size=8)
            for i, (img, _) in tqdm(enumerate(loader)):
                loss_d = netd(img).mean()
                loss_d.backward()
                loss_g = -netd(img).mean()
                loss_g.backward()
        """,
        id="the same with the names imported from the libraries",
    ),
]


@pytest.mark.parametrize("body", _noop)
def test_noop(body):
    src, result = run(body, unsafe=True)
    assert result.findings == ()
    assert result.fixed.decode() == src


def test_declares_contract():
    rule = get_rule("AF101")
    assert rule.NAME == "double-backward"
    assert rule.EXPECTATION is Expectation.IDENTICAL_OR_REPAIRED
    doc = rule.documentation()
    for section in ("## What it does", "## Why is this bad?", "## Example", "Use instead:", "## Fix safety", "## References"):
        assert section in doc


def test_file_without_backward_is_not_parsed():
    result = fix_source("x = (", "t.py", Options(select=("AF101",)))
    assert result.skipped_by_prefilter


# ------------------------------------------------------------------ one step across methods and optimizer steps


def test_backward_in_one_branch_and_another_in_the_else_are_not_a_pair():
    _, result = run(
        """
        out = model(x)
        loss = out.sum()
        if use_amp:
            scaler.scale(loss).backward()
            scaler.step(opt)
        else:
            loss.backward()
            opt.step()
        """
    )
    assert not result.findings


def test_a_return_after_the_first_backward_ends_the_step():
    _, result = run(
        """
        def train(x):
            out = model(x)
            if warmup:
                out.sum().backward()
                opt.step()
                return
            out.mean().backward()
            opt.step()
        """
    )
    assert not result.findings


def test_data_loaders_and_constructed_objects_are_not_a_shared_graph():
    _, result = run(
        """
        state = RunState()
        loader = make_loader(state.world_size)
        for batch in loader:
            loss = model(batch).sum()
            loss.backward()
            opt.step()
        for batch in loader:
            loss = model(batch).mean()
            loss.backward()
            opt.step()
        """
    )
    assert not result.findings


@pytest.mark.parametrize("where", ["in main", "at module level"])
def test_an_object_of_a_lowercase_project_class_is_no_shared_graph(where):
    # ``init = uniform_initializer(0.01)`` handed to a module's constructor: building it runs no
    # forward pass, so the two losses of separate forward passes share nothing through it.
    helper = """
    class uniform_initializer(object):
        def __init__(self, stdv):
            self.stdv = stdv

        def __call__(self, tensor):
            torch.nn.init.uniform_(tensor, -self.stdv, self.stdv)
    """
    inner = textwrap.indent(textwrap.dedent(helper), "    ") if where == "in main" else ""
    outer = textwrap.dedent(helper) if where == "at module level" else ""
    _, result = run(
        outer
        + """
class Net(torch.nn.Module):
    def __init__(self, init):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)
        for p in self.parameters():
            init(p)

    def loss(self, x):
        return self.lin(x).pow(2).mean()


def main():
"""
        + inner
        + """
    net = Net(uniform_initializer(0.01))
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    for _ in range(3):
        while flag:
            opt.zero_grad()
            loss = net.loss(torch.randn(2, 4))
            loss.backward()
            opt.step()
        opt.zero_grad()
        loss = net.loss(torch.randn(2, 4))
        loss.backward()
        opt.step()
"""
    )
    assert not result.findings


_TWO_RUNS = """
class {outer}(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = {inner}

    def forward(self, a, b):
{body}


pair = {outer}()
first, second = pair(a, b)
first.backward()
second.backward()
"""

_STATEFUL = """
class Cell(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)
        self.h = torch.zeros(1, 4)

    def forward(self, x):
        self.h = torch.tanh(self.lin(x) + self.h)
        return self.h


class Encoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x):
        self.hidden = torch.tanh(self.lin(x))
        return self.hidden * 2
"""


@pytest.mark.parametrize(
    "inner, body, reported",
    [
        pytest.param(
            "torch.nn.Linear(4, 1)",
            "        return self.inner(a.detach()).sum(), self.inner(b.detach()).sum()",
            False,
            id="two runs of one module on detached inputs build two graphs",
        ),
        pytest.param(
            "torch.nn.Linear(4, 1)",
            "        h = self.inner(a)\n        return h.sum(), h.mean()",
            True,
            id="one run read by both elements",
        ),
        pytest.param(
            "Cell()",
            "        return self.inner(a.detach()).sum(), self.inner(b.detach()).sum()",
            True,
            id="the second run reads the state the first left on the module",
        ),
        pytest.param(
            "Encoder()",
            "        out = self.inner(a.detach())\n        return out.sum(), self.inner.hidden.pow(2).sum()",
            True,
            id="a run and what the module holds after it",
        ),
    ],
)
def test_runs_of_one_submodule_in_a_returned_tuple(inner, body, reported):
    # The elements of a tuple a module's forward returns share a graph only through one run of
    # a submodule, what it holds, or state it carries from one run into the next.
    outer = "Pair"
    src, result = run(_STATEFUL + _TWO_RUNS.format(outer=outer, inner=inner, body=body))
    assert bool(result.findings) is reported, result.findings


_NORMALIZER = """
class Stats(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.on = False

    def standardize(self, x):
        with torch.no_grad():
            return x if not self.on else x / x.std()


class Agent:
    def __init__(self, builder):
        self.model = builder.build()
        self.pi_opt = torch.optim.SGD(self.model.pi.parameters(), lr=0.1)
        self.v_opt = torch.optim.SGD(self.model.v.parameters(), lr=0.1)

    def pi_step(self, states):
        actions = torch.tanh(self.model.pi(states))
        loss = -self.model.v(torch.cat([states, actions], -1)).mean()
        self.pi_opt.zero_grad()
        loss.backward()
        self.pi_opt.step()

    def v_step(self, states):
        loss = self.model.v(states).mean()
        self.v_opt.zero_grad()
        loss.backward()
        self.v_opt.step()

    def states_of(self, obs):
        return self.model.standardize({states})

    def learn(self, obs):
        states = self.states_of(obs)
        self.v_step(states)
        self.pi_step(states)
"""


@pytest.mark.parametrize(
    "states, reported",
    [
        pytest.param("obs", False, id="states with no graph, standardized under no_grad"),
        pytest.param("self.model.encode(obs)", True, id="an encoding handed back as given keeps its graph"),
    ],
)
def test_a_method_every_class_runs_under_no_grad_hands_back_only_its_arguments_graph(states, reported):
    # ``self.model`` comes from a builder: every project method named ``standardize`` computes under
    # ``torch.no_grad()``, but may hand back its argument, graph and all.
    src, result = run(_NORMALIZER.format(states=states))
    assert bool(result.findings) is reported, result.findings


def test_later_backward_through_graph_follows_methods():
    from autofix.analysis.steps import later_backward_through_graph
    from autofix.context import RuleContext
    import libcst as cst

    source = textwrap.dedent(
        """
        class Trainer:
            def forward(self):
                self.features = self.backbone(self.x)

            def first(self):
                self.features.sum().backward(retain_graph=True)

            def second(self):
                self.features.mean().backward()

            def step(self):
                self.forward()
                self.first()
                self.second()
        """
    )
    module = cst.parse_module(source)
    context = RuleContext(cst.MetadataWrapper(module, unsafe_skip_copy=True), "t.py", source)
    calls = [n for n in context.walk(context.module) if isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute) and n.func.attr.value == "backward"]
    assert later_backward_through_graph(context, calls[0]) is calls[1]
    assert later_backward_through_graph(context, calls[1]) is None


# ---------------------------------------------------------------- the walk's environment

from hypothesis import given, strategies as st  # noqa: E402

from autofix.analysis.steps import _Env, _Value  # noqa: E402

_NAMES = st.sampled_from(["self", "self.x", "self.x.y", "self.y", "opt", "opt.state", "x", "x.y.z"])


@given(st.lists(st.tuples(st.sampled_from(["set", "del", "copy"]), _NAMES), max_size=40))
def test_the_environment_knows_every_dotted_extension_of_a_name(operations):
    env = _Env()
    for operation, name in operations:
        if operation == "set":
            env[name] = _Value()
        elif operation == "del" and name in env:
            del env[name]
        elif operation == "copy":
            env = _Env(env)
        for prefix in ("self", "self.x", "opt", "x", "x.y"):
            assert sorted(env.extensions(prefix)) == sorted(k for k in env if k.startswith(prefix + "."))



# ---------------------------------------------------------------- tests and their negations


def _guarded(setup: str, first: str, between: str, second: str) -> str:
    return f"""
    def step(x, y=None):
        h = model(x)
        {setup}
        if {first}:
            h.sum().backward()
        {between}
        if {second}:
            h.mean().backward()
    """


@pytest.mark.parametrize(
    "body, reported",
    [
        pytest.param(_guarded("per = x is not None and y is None", "per", "pass", "not per"), False, id="flag, not flag"),
        pytest.param(_guarded("pass", "y is not None", "print(y)", "y is None"), False, id="is not None, is None"),
        pytest.param(_guarded("mode = 'sum' if y is None else 'mean'", "mode == 'sum'", "pass", "mode != 'sum'"), False, id="==, !="),
        pytest.param(_guarded("per = y is None", "per and x is not None", "pass", "not per"), False, id="each part of an and"),
        pytest.param(
            """
            def step(x, y=None):
                h = model(x)
                per = y is None
                if per or x is None:
                    pass
                else:
                    h.sum().backward()
                if per:
                    h.mean().backward()
            """,
            False,
            id="no part of an or, in its else",
        ),
        pytest.param(_guarded("per = y is None", "per", "per = not per", "not per"), True, id="the flag rebound between"),
        pytest.param(_guarded("pass", "y", "pass", "not y"), True, id="a parameter's truth: its value may be mutable"),
        pytest.param(_guarded("items = []", "not items", "alias = items; alias.append(1)", "items"), True, id="a list filled through an alias"),
        pytest.param(_guarded("pass", "model.flag", "model.reset()", "not model.flag"), True, id="an attribute: a call may change it"),
        pytest.param(
            _guarded("per = True\n        def off():\n            nonlocal per\n            per = False", "per", "off()", "not per"),
            True,
            id="a name a nested function rebinds",
        ),
        pytest.param(
            """
            def step(x):
                h = model(x)
                for i in range(2):
                    first = i == 0
                    if first:
                        h.sum().backward()
                    if not first:
                        h.mean().backward()
            """,
            True,
            id="tests in a loop that binds the name",
        ),
        pytest.param(
            """
            class Learner:
                def part(self, h, first):
                    first = first is True
                    if first:
                        h.sum().backward()
                    if not first:
                        h.mean().backward()

                def step(self, x):
                    h = self.model(x)
                    for first in (True, False):
                        self.part(h, first)
            """,
            True,
            id="a method called in a loop",
        ),
    ],
)
def test_backward_calls_under_a_test_and_its_negation(body, reported):
    # Two arms whose tests contradict each other never both run, while the names tested keep
    # their values: bound once to a bool, number, string or None (truth, ==) or never rebound (is).
    result = run(body)[1]
    assert bool(result.findings) == reported


@pytest.mark.parametrize(
    "source",
    [
        pytest.param(
            """
            def step(x):
                h = model(x)
                e = None
                try:
                    if e is None:
                        h.sum().backward()
                    int("x")
                except ValueError as e:
                    if e is not None:
                        h.mean().backward()
            """,
            id="a handler binds the name after the body tested it",
        ),
        pytest.param(
            """
            def step(x, f):
                h = model(x)
                n = 0
                if n:
                    pass
                elif (n := f()):
                    if n:
                        h.sum().backward()
                    h.mean().backward()
            """,
            id="a walrus in an elif test",
        ),
    ],
)
def test_no_contradiction_between_tests_of_two_bindings(source):
    # The facts of the two calls' arms do not contradict: each test read another binding.
    import libcst as cst

    from autofix.analysis.steps import step_traces
    from autofix.context import RuleContext

    source = textwrap.dedent(source)
    module = cst.parse_module(source)
    context = RuleContext(cst.MetadataWrapper(module, unsafe_skip_copy=True), "t.py", source)
    [trace] = [t for t in step_traces(context) if isinstance(t.entry, cst.FunctionDef)]
    first, second = trace.backward_events()
    assert not any((atom, not sign) in second.facts for atom, sign in first.facts)
