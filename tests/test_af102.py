"""AF102 carried-state: snippets that must be fixed, and correct code that must be left alone."""

from __future__ import annotations

import textwrap

import pytest

from test_af105 import _fixed_scripts, run_fixed_script

from autofix.api import fix_source
from autofix.types import Options

HEADER = """\
import torch
import torch.nn as nn
"""


def run(src: str, unsafe: bool = False):
    source = HEADER + textwrap.dedent(src)
    result = fix_source(source, "t.py", Options(select=("AF102",), unsafe_fixes=unsafe))
    assert result.error is None, result.error
    return source, result


_fixes = [
    pytest.param(
        """
        rnn = nn.GRU(8, 16, batch_first=True)
        opt = torch.optim.SGD(rnn.parameters(), lr=0.1)
        h = torch.zeros(1, 4, 16)
        for x in batches:
            out, h = rnn(x, h)
            loss = out.mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        """,
        ["    h = h.detach()\n    out, h = rnn(x, h)\n"],
        id="GRU hidden tensor carried across batches",
    ),
    pytest.param(
        """
        lstm = nn.LSTM(8, 16)
        opt = torch.optim.Adam(lstm.parameters())
        h, c = torch.zeros(1, 4, 16), torch.zeros(1, 4, 16)
        for step in range(10):
            out, (h, c) = lstm(torch.randn(5, 4, 8), (h, c))
            out.sum().backward()
            opt.step()
        """,
        ["    h, c = h.detach(), c.detach()\n    out, (h, c) = lstm("],
        id="LSTM state unpacked into h and c detaches both in one statement",
    ),
    pytest.param(
        """
        lstm = nn.LSTM(8, 16)
        opt = torch.optim.Adam(lstm.parameters())
        hidden = (torch.zeros(1, 4, 16), torch.zeros(1, 4, 16))
        for step in range(10):
            out, hidden = lstm(torch.randn(5, 4, 8), hidden)
            out.sum().backward()
            opt.step()
        """,
        ["    hidden = tuple(t.detach() for t in hidden)\n"],
        id="LSTM state kept as a tuple is detached element by element",
    ),
    pytest.param(
        """
        class CharModel(nn.Module):
            def __init__(self):
                super().__init__()
                self.lstm = nn.LSTM(8, 16)
                self.head = nn.Linear(16, 4)

            def forward(self, x, hidden):
                out, hidden = self.lstm(x, hidden)
                return self.head(out), hidden

        model = CharModel()
        opt = torch.optim.Adam(model.parameters())
        hidden = model.init_hidden(4)
        for x, y in loader:
            logits, hidden = model(x, hidden)
            loss = logits.sum()
            loss.backward()
            opt.step()
        """,
        ["    hidden = tuple(t.detach() for t in hidden)\n"],
        id="state unpacked from a custom model whose forward returns an LSTM's (h, c)",
    ),
    pytest.param(
        """
        import torch as th
        cell = th.nn.RNNCell(8, 16)
        opt = th.optim.SGD(cell.parameters(), lr=0.1)
        state = None
        for x in batches:
            out, state = cell.forward(x), cell(x, state)
            (out.sum() + state.sum()).backward()
        """,
        ["    if state is not None:\n        state = state.detach()\n"],
        id="state that starts as None is guarded",
    ),
    pytest.param(
        """
        W = torch.randn(8, 16, requires_grad=True)
        U = torch.randn(16, 16, requires_grad=True)
        opt = torch.optim.SGD([W, U], lr=0.1)
        h = torch.zeros(4, 16)
        for x in batches:
            h = torch.tanh(x @ W + h @ U)
            loss = h.pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        """,
        ["    h = h.detach()\n    h = torch.tanh(x @ W + h @ U)\n"],
        id="manual RNN cell with leaf weights",
    ),
    pytest.param(
        """
        class Trainer:
            def __init__(self):
                self.rnn = nn.GRU(8, 16)
                self.opt = torch.optim.SGD(self.rnn.parameters(), lr=0.1)
                self.hidden = torch.zeros(1, 4, 16)

            def train_step(self, x):
                out, self.hidden = self.rnn(x, self.hidden)
                loss = out.mean()
                self.opt.zero_grad()
                loss.backward()
                self.opt.step()
        """,
        ["        self.hidden = self.hidden.detach()\n        out, self.hidden = self.rnn(x, self.hidden)\n"],
        id="attribute state carried across calls of a training-step method",
    ),
    pytest.param(
        """
        gru = nn.GRU(8, 16)
        opt = torch.optim.SGD(gru.parameters(), lr=0.1)
        h = torch.zeros(1, 4, 16)
        step = 0
        while step < 5:
            out, h = gru(torch.randn(3, 4, 8), h)
            out.mean().backward()
            opt.step()
            step += 1
        """,
        ["    h = h.detach()\n    out, h = gru("],
        id="while loop",
    ),
    pytest.param(
        """
        rnn = nn.RNN(8, 16)
        opt = torch.optim.SGD(rnn.parameters(), lr=0.1)
        for epoch in range(3):
            h = torch.zeros(1, 4, 16)
            for x in batches:
                out, h = rnn(x, h)
                out.mean().backward()
                opt.step()
        """,
        ["        h = h.detach()\n        out, h = rnn(x, h)\n"],
        id="state reset per epoch but carried across the batch loop",
    ),
    pytest.param(
        """
        cell = nn.GRUCell(8, 16)
        opt = torch.optim.SGD(cell.parameters(), lr=0.1)
        h = torch.zeros(4, 16)
        for epoch in range(3):
            loss = 0
            for t in range(5):
                h = cell(torch.randn(4, 8), h)
                loss = loss + h.pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        """,
        ["    loss = 0\n    h = h.detach()\n    for t in range(5):\n"],
        id="sequence loop inside the epoch loop, backward per epoch, state never reset",
    ),
]


@pytest.mark.parametrize(("src", "expected"), _fixes)
def test_fixes(src, expected):
    source, result = run(src)
    assert [f.code for f in result.findings] == ["AF102"]
    assert result.findings[0].fix is not None
    fixed = result.fixed.decode()
    for fragment in expected:
        assert fragment in fixed, fixed
    again = fix_source(result.fixed, "t.py", Options(select=("AF102",)))
    assert again.findings == () and again.fixed == result.fixed


def test_unknown_state_is_reported_without_a_fix():
    # The model's forward hands back whatever it was given: a dict, a number, an object.
    src = """
    class Passthrough(nn.Module):
        def forward(self, x, memory):
            return x, memory

    model = Passthrough()
    opt = torch.optim.Adam(model.parameters())
    memory = model.init_memory(4)
    for x, y in loader:
        logits, memory = model(x, memory)
        logits.sum().backward()
        opt.step()
    """
    source, result = run(src)
    assert [f.code for f in result.findings] == ["AF102"]
    assert result.findings[0].fix is None
    assert "(no fix: `memory` is not known to be a tensor" in result.findings[0].message
    assert result.fixed.decode() == source


@pytest.mark.parametrize(
    ("src", "why"),
    [
        pytest.param(
            """
            cell = nn.GRUCell(4, 8)
            opt = torch.optim.SGD(cell.parameters(), lr=0.1)
            state = {"h": torch.zeros(2, 8), "steps": 0}
            for x in batches:
                state["h"] = cell(x, state["h"])
                state["h"].sum().backward()
                opt.step()
            """,
            "`state[\"h\"]` is not known to be a tensor",
            id="dict that also holds a number",
        ),
        pytest.param(
            """
            cell = nn.GRUCell(4, 8)
            opt = torch.optim.SGD(cell.parameters(), lr=0.1)
            h = torch.zeros(3, 2, 8)
            for x in batches:
                for layer in range(3):
                    h[layer] = cell(x, h[layer])
                h.sum().backward()
                opt.step()
            """,
            "`h[layer]` is not known to be a tensor",
            id="rows of a tensor written in place",
        ),
        pytest.param(
            """
            cell = nn.GRUCell(4, 8)
            opt = torch.optim.SGD(cell.parameters(), lr=0.1)
            state = {"h": torch.zeros(2, 8)}
            for x in batches:
                if x.numel():
                    state["h"] = cell(x, state["h"])
                state["h"].sum().backward()
                opt.step()
            """,
            "not read on every way",
            id="entry read under a branch",
        ),
    ],
)
def test_carried_entry_of_unproven_kind_is_reported_without_a_fix(src, why):
    source, result = run(src)
    assert [f.code for f in result.findings] == ["AF102"]
    assert result.findings[0].fix is None
    assert why in result.findings[0].message, result.findings[0].message
    assert result.fixed.decode() == source


def test_retain_graph_makes_the_fix_unsafe():
    src = """
    rnn = nn.GRU(8, 16)
    opt = torch.optim.SGD(rnn.parameters(), lr=0.1)
    h = torch.zeros(1, 4, 16)
    for x in batches:
        out, h = rnn(x, h)
        out.mean().backward(retain_graph=True)
        opt.step()
    """
    source, result = run(src)
    assert result.findings[0].fix.applicability.value == "unsafe"
    assert result.fixed.decode() == source
    _, unsafe = run(src, unsafe=True)
    assert "    h = h.detach()\n" in unsafe.fixed.decode()


_noop = [
    pytest.param(
        """
        rnn = nn.GRU(8, 16)
        opt = torch.optim.SGD(rnn.parameters(), lr=0.1)
        h = torch.zeros(1, 4, 16)
        for x in batches:
            h = h.detach()
            out, h = rnn(x, h)
            out.mean().backward()
            opt.step()
        """,
        id="already detached at the top of the iteration",
    ),
    pytest.param(
        """
        def repackage_hidden(h):
            if isinstance(h, torch.Tensor):
                return h.detach()
            return tuple(repackage_hidden(v) for v in h)

        lstm = nn.LSTM(8, 16)
        opt = torch.optim.SGD(lstm.parameters(), lr=0.1)
        hidden = None
        for x in batches:
            if hidden is not None:
                hidden = repackage_hidden(hidden)
            out, hidden = lstm(x, hidden)
            out.mean().backward()
            opt.step()
        """,
        id="local repackage_hidden helper that detaches",
    ),
    pytest.param(
        """
        from utils import detach_hidden
        lstm = nn.LSTM(8, 16)
        opt = torch.optim.SGD(lstm.parameters(), lr=0.1)
        hidden = None
        for x in batches:
            out, hidden = lstm(x, hidden)
            out.mean().backward()
            opt.step()
            hidden = detach_hidden(hidden)
        """,
        id="well-known helper name imported from elsewhere, after the step",
    ),
    pytest.param(
        """
        from engine_utils import _detach_hidden
        lstm = nn.LSTM(8, 16)
        opt = torch.optim.SGD(lstm.parameters(), lr=0.1)
        hidden = None
        for x in batches:
            if hidden is not None:
                hidden = _detach_hidden(hidden)
            out, hidden = lstm(x, hidden)
            out.mean().backward()
            opt.step()
        """,
        id="imported helper whose name says it detaches (ignite's tbptt shape)",
    ),
    pytest.param(
        """
        rnn = nn.GRU(8, 16)
        opt = torch.optim.SGD(rnn.parameters(), lr=0.1)
        for x in batches:
            h = torch.zeros(1, 4, 16)
            out, h = rnn(x, h)
            out.mean().backward()
            opt.step()
        """,
        id="state re-created every iteration",
    ),
    pytest.param(
        """
        class Net(nn.Module):
            pass
        model = Net()
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for x in batches:
            hidden = model.init_hidden(4)
            out, hidden = model(x, hidden)
            out.mean().backward()
            opt.step()
        """,
        id="init_hidden at the top of the iteration",
    ),
    pytest.param(
        """
        cell = nn.GRUCell(8, 16)
        opt = torch.optim.SGD(cell.parameters(), lr=0.1)
        for x, y in loader:
            h = torch.zeros(4, 16)
            loss = 0
            for t in range(x.size(0)):
                h = cell(x[t], h)
                loss = loss + (h - y[t]).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        """,
        id="full BPTT: backward once after the time loop",
    ),
    pytest.param(
        """
        rnn = nn.GRU(8, 16)
        h = torch.zeros(1, 4, 16)
        for x in batches:
            out, h = rnn(x, h)
        print(out.sum())
        """,
        id="no backward in the loop",
    ),
    pytest.param(
        """
        rnn = nn.GRU(8, 16)
        opt = torch.optim.SGD(rnn.parameters(), lr=0.1)
        h = torch.zeros(1, 4, 16)
        for x in batches:
            with torch.no_grad():
                _, h = rnn(x, h)
            out, _ = rnn(x, h)
            out.mean().backward()
            opt.step()
        """,
        id="state produced under no_grad",
    ),
    pytest.param(
        """
        model = nn.Linear(4, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        ema = None
        prev = None
        for x in batches:
            loss = model(x).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            ema = loss if ema is None else 0.9 * ema + 0.1 * loss
            if prev is not None and loss > prev:
                print("worse")
            prev = loss
        """,
        id="carried loss statistics never flow into backward",
    ),
    pytest.param(
        """
        lstm = nn.LSTM(8, 16)
        opt = torch.optim.SGD(lstm.parameters(), lr=0.1)
        hidden = (torch.zeros(1, 4, 16), torch.zeros(1, 4, 16))
        for x in batches:
            hidden = tuple(h.detach() for h in hidden)
            out, hidden = lstm(x, hidden)
            out.mean().backward()
            opt.step()
        """,
        id="tuple detached with a generator",
    ),
    pytest.param(
        """
        lstm = nn.LSTM(8, 16)
        opt = torch.optim.SGD(lstm.parameters(), lr=0.1)
        hidden = (torch.zeros(1, 4, 16), torch.zeros(1, 4, 16))
        for x in batches:
            out, hidden = lstm(x, hidden)
            out.mean().backward()
            opt.step()
            for part in hidden:
                part.detach_()
        """,
        id="tuple detached in place after the step",
    ),
    pytest.param(
        """
        gru = nn.GRU(8, 16)
        opt = torch.optim.SGD(gru.parameters(), lr=0.1)
        h = torch.zeros(1, 4, 16)
        for x in batches:
            out, h = gru(x, h)
            h.detach_()
            out.mean().backward()
            opt.step()
        """,
        id="detach_ in place before backward",
    ),
    pytest.param(
        """
        decoder = nn.GRUCell(8, 8)
        opt = torch.optim.SGD(decoder.parameters(), lr=0.1)
        for x in batches:
            token = torch.zeros(4, 8)
            h = torch.zeros(4, 8)
            loss = 0
            for t in range(5):
                h = decoder(token, h)
                token = torch.nn.functional.one_hot(h.argmax(-1), 8).float()
                loss = loss + h.mean()
            loss.backward()
            opt.step()
        """,
        id="greedy decoding feeds argmax back, backward per sequence",
    ),
    pytest.param(
        """
        policy = nn.Linear(4, 2)
        opt = torch.optim.Adam(policy.parameters())
        obs = env.reset()
        for t in range(100):
            logits = policy(torch.as_tensor(obs))
            action = torch.distributions.Categorical(logits=logits).sample()
            obs, reward, done, info = env.step(action.item())
            loss = -logits[action] * reward
            opt.zero_grad()
            loss.backward()
            opt.step()
        """,
        id="reinforcement learning observation from the environment",
    ),
    pytest.param(
        """
        class Trainer:
            def __init__(self):
                self.rnn = nn.GRU(8, 16)
                self.opt = torch.optim.SGD(self.rnn.parameters(), lr=0.1)
                self.hidden = None

            def train_step(self, x):
                out, hidden = self.rnn(x, self.hidden)
                self.hidden = hidden.detach()
                out.mean().backward()
                self.opt.step()
        """,
        id="attribute state stored detached",
    ),
    pytest.param(
        """
        cell = nn.RNNCell(4, 4)
        opt = torch.optim.SGD(cell.parameters(), lr=0.1)

        def run(xs, train):
            h = torch.zeros(1, 4)
            for step, x in enumerate(xs):
                if step > 0 and train:
                    h = h.detach()
                h = cell(x, h)
                if train:
                    h.sum().backward()
                    opt.step()
        """,
        id="detached on every pass after the first that back-propagates",
    ),
    pytest.param(
        """
        net = nn.Linear(4, 2)
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        outputs = [torch.zeros(3, 2) for _ in range(5)]
        for t in range(5):
            outputs[t] = net(torch.randn(3, 4)) + outputs[t]
            outputs[t].pow(2).mean().backward()
            opt.step()
        """,
        id="a list slot keyed by the loop's own counter is a new entry on every pass",
    ),
    pytest.param(
        """
        cell = nn.GRUCell(4, 8)
        opt = torch.optim.SGD(cell.parameters(), lr=0.1)
        state = {"h": torch.zeros(2, 8), "steps": 0}
        for x in batches:
            state["h"] = cell(x, state["h"].detach())
            state["steps"] = state["steps"] + 1
            state["h"].sum().backward()
            opt.step()
        """,
        id="dict entry detached where it is read, a counter entry beside it",
    ),
    pytest.param(
        """
        class CentreLoss(nn.Module):
            def __init__(self):
                super().__init__()
                self.register_buffer("centre", torch.zeros(1, 4))

            def forward(self, s, t):
                loss = (s - t + self.centre).pow(2).mean()
                self.centre = 0.9 * self.centre + 0.1 * t.mean(0, keepdim=True)
                return loss

        student, teacher = nn.Linear(4, 4), nn.Linear(4, 4)
        crit = CentreLoss()
        opt = torch.optim.SGD(student.parameters(), lr=0.1)
        for x in batches:
            with torch.no_grad():
                target = teacher(x)
            loss = crit(student(x), target)
            loss.backward()
            opt.step()
        """,
        id="running centre of a forward argument the caller made under no_grad",
    ),
]


@pytest.mark.parametrize(
    "guard, backward",
    [("step % 2 == 0", "h.sum().backward()"), ("train", "h.sum().backward()"), ("step > 1", "h.sum().backward()"),
     ("step > 0 and train", "h.sum().backward()")],
)
def test_a_detach_guard_that_misses_back_propagating_passes_is_reported(guard, backward):
    _, result = run(
        f"""
        cell = nn.RNNCell(4, 4)

        def run(xs, train):
            h = torch.zeros(1, 4)
            for step, x in enumerate(xs):
                if {guard}:
                    h = h.detach()
                h = cell(x, h)
                {backward}
        """
    )
    assert [f.code for f in result.findings] == ["AF102"]


@pytest.mark.parametrize("src", _noop)
def test_noop(src):
    source, result = run(src)
    assert result.findings == ()
    assert result.fixed.decode() == source


# --------------------------------------------------------------------------- the loop-carried analysis


def _carried(src: str):
    import libcst as cst

    from autofix.analysis.loops import carried_names

    loop = cst.parse_module(textwrap.dedent(src)).body[0]
    return carried_names(loop.body, getattr(loop, "test", None)).names


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        pytest.param("for x in xs:\n    out, h = rnn(x, h)\n", {"h"}, id="read then reassigned"),
        pytest.param("for x in xs:\n    h = zeros()\n    out, h = rnn(x, h)\n", set(), id="reset before the read"),
        pytest.param(
            "for x in xs:\n    if first:\n        h = zeros()\n    out, h = rnn(x, h)\n",
            {"h"},
            id="reset in one branch only",
        ),
        pytest.param(
            "for x in xs:\n    if a:\n        h = zeros()\n    else:\n        h = ones()\n    h = f(h)\n",
            set(),
            id="reset in every branch",
        ),
        pytest.param(
            "while go:\n    for t in ts:\n        s = cell(t, s)\n    go = s.sum() > 0\n",
            {"s", "go"},
            id="read inside a nested loop",
        ),
        pytest.param(
            "for x in xs:\n    y, self.hidden = self.rnn(x, self.hidden)\n",
            {"self.hidden"},
            id="attribute state",
        ),
        pytest.param(
            "for x in xs:\n    total += x\n    hs = [h for h in hs]\n",
            {"total", "hs"},
            id="augmented assignment and comprehension",
        ),
        pytest.param("for x in xs:\n    acc.append(x)\n", set(), id="mutation is not an assignment"),
    ],
)
def test_carried_names(src, expected):
    assert _carried(src) == expected


def _carried_fixed(src: str):
    import libcst as cst

    from autofix.analysis.loops import carried_names

    loop = cst.parse_module(textwrap.dedent(src)).body[0]
    return carried_names(loop.body, None, lambda name, touched: name == "self.kind", loop.target).names


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        pytest.param(
            "for x in xs:\n    if self.kind == 1:\n        t = f(x)\n    elif self.kind == 2:\n        t = g(x)\n    y = t\n",
            set(),
            id="if/elif on a fixed setting assigns in every iteration or in none",
        ),
        pytest.param(
            "for x in xs:\n    if mode:\n        t = f(x)\n    y = t\n", set(), id="a plain name the loop never assigns"
        ),
        pytest.param(
            "for x in xs:\n    if x % 2:\n        t = f(x)\n    y = t\n", {"t"}, id="a test on the loop variable"
        ),
        pytest.param(
            "for x in xs:\n    if self.other:\n        t = f(x)\n    y = t\n", {"t"}, id="an attribute not vouched for"
        ),
        pytest.param(
            "for x in xs:\n    if mode:\n        t = f(x)\n    y = t\n    mode = y > 0\n",
            {"t", "mode"},
            id="a setting the loop reassigns",
        ),
        pytest.param(
            "for x in xs:\n    if mode:\n        t = f(x)\n    y = t\n    t = y\n",
            {"t"},
            id="also assigned outside the chain",
        ),
        pytest.param(
            "for x in xs:\n    if check(mode):\n        t = f(x)\n    y = t\n", {"t"}, id="a test that calls something"
        ),
        pytest.param(
            "for x in xs:\n    if seen:\n        t = f(x)\n    y = t\n    seen.append(y)\n",
            {"t"},
            id="a list the loop fills: its truth changes",
        ),
        pytest.param(
            "for x in xs:\n    if self.kind:\n        t = f(x)\n    y = t\n    switch(self.kind)\n",
            {"t"},
            id="a setting handed to a call",
        ),
        pytest.param(
            "for x in xs:\n    if cfg[0]:\n        t = f(x)\n    y = t\n", {"t"}, id="a subscript in the test"
        ),
    ],
)
def test_carried_names_under_a_fixed_test(src, expected):
    assert _carried_fixed(src) == expected


@pytest.mark.slow
@pytest.mark.parametrize("case", _fixed_scripts("AF102"))
def test_fixed_corpus_script_runs(case):
    run_fixed_script(case)


# --------------------------------------------------------------------------- across files

_RNN_MODEL = """\
import torch
import torch.nn as nn


class StatefulGRU(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(3, 8, batch_first=True)
        self.head = nn.Linear(8, 1)
        self.hidden = None

    def forward(self, x):
        out, self.hidden = self.gru(x, self.hidden)
        return self.head(out[:, -1])
"""

_LSTM_MODEL = """\
import torch.nn as nn

from .base import Base


class Tagger(Base):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(4, 6)
        self.state = None

    def forward(self, x):
        out, self.state = self.lstm(x, self.state)
        return out.sum()
"""

_TRAIN = """\
import torch
from models.rnn import StatefulGRU

model = StatefulGRU()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in zip(torch.randn(3, 2, 5, 3), torch.randn(3, 2, 1)):
    loss = ((model(x) - y) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
"""


def _project(tmp_path, files):
    from autofix.model import clear_cache

    clear_cache()
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


def test_module_state_in_a_model_file_whose_loop_is_in_another_file(tmp_path):
    from autofix.api import check_file

    root = _project(tmp_path, {"pyproject.toml": "", "models/__init__.py": "", "models/rnn.py": _RNN_MODEL, "train.py": _TRAIN})
    options = Options(select=("AF102",), fix=True, unsafe_fixes=True)
    model_file = check_file(str(root / "models/rnn.py"), options)
    (finding,) = model_file.findings
    assert finding.line == 13 and "not in this file" in finding.message and finding.fix is not None
    # The loop out of sight may re-create the state before each sequence and back-propagate once
    # (full BPTT, which runs): the detach would then change its gradients, so the fix is unsafe.
    assert finding.fix.applicability.value == "unsafe"
    assert b"self.hidden = self.hidden.detach()" in model_file.fixed  # a GRU's h_n is one tensor
    assert b"if self.hidden is not None:" in model_file.fixed
    # The loop's file carries nothing itself: the state lives on the module.
    assert check_file(str(root / "train.py"), options).findings == ()


def test_module_state_with_a_project_base_class_and_a_tuple_state(tmp_path):
    from autofix.api import check_file

    base = "import torch.nn as nn\n\n\nclass Base(nn.Module):\n    pass\n"
    root = _project(tmp_path, {"pyproject.toml": "", "pkg/__init__.py": "", "pkg/base.py": base, "pkg/tagger.py": _LSTM_MODEL})
    result = check_file(str(root / "pkg/tagger.py"), Options(select=("AF102",), fix=True, unsafe_fixes=True))
    (finding,) = result.findings
    assert "`self.state`" in finding.message
    assert b"self.state = tuple(t.detach() for t in self.state)" in result.fixed


def test_model_file_alone_reports_module_state():
    source = _RNN_MODEL
    result = fix_source(source, "rnn.py", Options(select=("AF102",)))
    (finding,) = result.findings
    assert "not in this file" in finding.message


@pytest.mark.parametrize(
    "forward",
    [
        # detached before it is stored
        "        out, hidden = self.gru(x, self.hidden)\n        self.hidden = hidden.detach()\n        return out",
        # computed without a graph
        "        with torch.no_grad():\n            out, self.hidden = self.gru(x, self.hidden)\n        return out",
        # re-created on every call
        "        self.hidden = torch.zeros(1, x.size(0), 8)\n        out, self.hidden = self.gru(x, self.hidden)\n        return out",
        # kept but not used by the output
        "        out, h = self.gru(x)\n        self.hidden = h if self.hidden is None else self.hidden\n        return out",
    ],
)
def test_model_file_alone_silent(forward):
    head = _RNN_MODEL.split("    def forward")[0]
    source = head + "    def forward(self, x):\n" + forward + "\n"
    result = fix_source(source, "rnn.py", Options(select=("AF102",)))
    assert result.findings == (), forward


# State assigned after the iteration's backward() from what that backward went through holds the freed
# graph too. (Not corpus cases: the doctor's runtime evidence names the freed tensor `out`, not the
# alias `previous` the next iteration reads, and places its finding at the backward line.)
@pytest.mark.parametrize(
    "assignment, carried",
    [
        ("previous = out", "previous"),
        ("previous = 0.9 * previous + 0.1 * out.mean(0, keepdim=True)", "previous"),
    ],
)
def test_state_assigned_after_backward_from_its_graph_is_carried(assignment, carried):
    source, result = run(f"""
        model = nn.Linear(8, 4)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        previous = torch.zeros(2, 4)
        for x in batches:
            out = model(torch.cat([x, previous], 1))
            loss = out.pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            {assignment}
        """)
    assert [f.code for f in result.findings] == ["AF102"]
    assert f"    {carried} = {carried}.detach()\n    out = model(" in result.fixed.decode()


def test_state_assigned_after_backward_from_a_new_forward_is_not_carried():
    _, result = run("""
        model = nn.Linear(8, 4)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        previous = torch.zeros(2, 4)
        for x in batches:
            out = model(torch.cat([x, previous], 1))
            loss = out.pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            with torch.no_grad():
                previous = model(torch.cat([x, previous], 1))
        """)
    assert not result.findings


def test_entry_refreshed_by_a_fresh_forward_after_backward_is_not_carried_state():
    # The entry is rebuilt after each backward() from another entry of the dict (no graph): what
    # the next pass reads is that fresh forward, not the freed graph.
    _, result = run(
        """
        net = nn.Linear(3, 1)
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        store = {"x": torch.randn(4, 3), "y": torch.randn(4, 1)}
        store["pred"] = net(store["x"])
        for _ in range(3):
            loss = (store["pred"] - store["y"]).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            store["pred"] = net(store["x"])
        """
    )
    assert not any('store["pred"]' in f.message for f in result.findings), result.findings


# --------------------------------------------------------------------------- sweep12: an attribute set on one way

_OPTIONAL_ATTR_LOSS = '''\
import sys

import torch
import torch.nn as nn


class Distiller:
    def __init__(self, every):
        self.net = nn.Linear(4, 4)
        self.style = nn.Linear(4, 2)
        self.crit = torch.nn.L1Loss()
        self.every = every
        self.opt = torch.optim.SGD(list(self.net.parameters()) + list(self.style.parameters()), lr=0.1)

    def backward_G(self, need_style):
        fake = self.net(torch.randn(3, 4))
        self.loss_x = fake.square().mean()
        if need_style:
            self.loss_s = 0.5 * self.crit(self.style(fake), torch.randn(3, 2))
        self.loss = self.loss_x + (self.loss_s if need_style else 0)
        self.loss.backward()

    def optimize(self, step):
        self.opt.zero_grad()
        self.backward_G(step % self.every != 0)
        self.opt.step()


d = Distiller(int(sys.argv[1]))
for step in range(1, 5):
    d.optimize(step)
print("ok")
'''


def test_attribute_set_on_one_way_gets_no_detach_that_could_raise(tmp_path):
    """gan-compression base_munit_distiller: ``self.loss_s`` is set only when the flag is on. A
    ``self.loss_s = self.loss_s.detach()`` before the ``if`` raises AttributeError on a first call
    with the flag off, so whatever the rule reports, its fixed file runs under both flag values."""
    import subprocess
    import sys

    pytest.importorskip("torch")
    result = fix_source(_OPTIONAL_ATTR_LOSS, "t.py", Options(select=("AF102",), unsafe_fixes=True))
    assert result.error is None, result.error
    assert b"self.loss_s.detach()" not in result.fixed
    path = tmp_path / "distiller.py"
    path.write_bytes(result.fixed)
    for every in ("1", "2", "3"):  # 1: the flag is always off; 2, 3: the first step has it on
        done = subprocess.run([sys.executable, str(path), every], capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]


def test_attribute_set_in_init_keeps_its_detach():
    _, result = run(
        """
        class Agent:
            def __init__(self):
                self.rnn = nn.GRUCell(4, 4)
                self.h = torch.zeros(2, 4)
                self.opt = torch.optim.SGD(self.rnn.parameters(), lr=0.1)

            def step(self, x):
                if x is not None:
                    self.h = self.rnn(x, self.h)
                loss = self.h.mean()
                self.opt.zero_grad()
                loss.backward()
                self.opt.step()
        """
    )
    assert [f.fix is not None for f in result.findings] == [True], [f.message for f in result.findings]
    assert b"self.h = self.h.detach()" in result.fixed


_GUARDED_READ = """
class T:
    def __init__(self):
        self.enc = nn.Linear(4, 4)
        self.crit = torch.nn.L1Loss()
        self.k = 0
        self.opt = torch.optim.SGD(self.enc.parameters(), lr=0.1)

    def update(self, x, flag):
        out = self.enc(x)
        self.a = self.crit(out, x)
        {setup}
        if {test}:
            {before}self.b = 0.5 * self.crit(out, x)
        self.loss = self.a + (self.b if {read_test} else 0)
        self.loss.backward()
        self.opt.step()
"""


@pytest.mark.parametrize(
    "setup, test, before, read_test",
    [
        ("pass", "flag", "", "not flag"),  # read under another test
        ("self.k += 1", "self.k > 1", "", "self.k > 1"),  # the test reads state the method changes
        ("flag = not flag", "flag", "", "flag"),  # a name the method rebinds
        ("pass", "flag", "print(self.b)\n            ", "flag"),  # read in the branch before it is set
    ],
)
def test_read_not_surely_this_calls_value_still_reported(setup, test, before, read_test):
    _, result = run(_GUARDED_READ.format(setup=setup, test=test, before=before, read_test=read_test))
    assert any("`self.b`" in f.message for f in result.findings), [f.message for f in result.findings]


def test_read_under_the_test_that_set_it_is_silent():
    _, result = run(_GUARDED_READ.format(setup="pass", test="flag", before="", read_test="flag"))
    assert not result.findings, [f.message for f in result.findings]
