"""AF105 graph-accumulation: snippets that must be fixed, and correct code that must be left alone."""

from __future__ import annotations

import textwrap

import pytest

from autofix.api import fix_source
from autofix.types import Options

HEADER = """\
import torch
import torch.nn as nn
model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
"""


def run(src: str):
    source = HEADER + textwrap.dedent(src)
    result = fix_source(source, "t.py", Options(select=("AF105",)))
    assert result.error is None, result.error
    return source, result


_fixes = [
    pytest.param(
        """
        total_loss = 0.0
        for x, y in loader:
            opt.zero_grad()
            loss = (model(x) - y).pow(2).mean()
            loss.backward()
            opt.step()
            total_loss += loss
        print(total_loss / len(loader))
        """,
        ["    total_loss += loss.item()\n"],
        id="running float total of the loss",
    ),
    pytest.param(
        """
        losses = []
        for x, y in loader:
            opt.zero_grad()
            loss = (model(x) - y).pow(2).mean()
            loss.backward()
            opt.step()
            losses.append(loss)
        print(sum(losses) / len(losses))
        """,
        ["    losses.append(loss.item())\n"],
        id="list of losses only summed and counted",
    ),
    pytest.param(
        """
        losses = []
        for x, y in loader:
            opt.zero_grad()
            loss = (model(x) - y).pow(2).mean()
            loss.backward()
            opt.step()
            losses.append(loss)
        print(torch.stack(losses).mean())
        """,
        ["    losses.append(loss.detach())\n"],
        id="list of losses later stacked keeps tensors",
    ),
    pytest.param(
        """
        running = torch.zeros(())
        for x, y in loader:
            opt.zero_grad()
            loss = (model(x) - y).pow(2).mean()
            loss.backward()
            opt.step()
            running = running + loss
        print(running.item())
        """,
        ["    running = running + loss.detach()\n"],
        id="tensor total updated by assignment",
    ),
    pytest.param(
        """
        stats = {"loss": 0.0}
        for x, y in loader:
            opt.zero_grad()
            loss = (model(x) - y).pow(2).mean()
            loss.backward()
            opt.step()
            stats["loss"] += loss
        print(stats)
        """,
        ["    stats[\"loss\"] += loss.detach()\n"],
        id="dictionary entry total",
    ),
    pytest.param(
        """
        def train_epoch(net, batches, optimizer):
            net.train()
            epoch_loss = 0
            for x, y in batches:
                optimizer.zero_grad()
                loss = nn.functional.mse_loss(net(x), y)
                loss.backward()
                optimizer.step()
                epoch_loss += loss
            return epoch_loss / len(batches)
        """,
        ["        epoch_loss += loss.detach()\n"],
        id="returned average of losses whose graph the loop already freed",
    ),
    pytest.param(
        """
        def fit(net, batches, optimizer, history):
            for x, y in batches:
                optimizer.zero_grad()
                loss = nn.functional.mse_loss(net(x), y)
                loss.backward()
                optimizer.step()
                history.append(loss)
        """,
        ["        history.append(loss.detach())\n"],
        id="list owned by the caller keeps tensors",
    ),
    pytest.param(
        """
        predictions = []
        for x, y in loader:
            opt.zero_grad()
            out = model(x)
            loss = (out - y).pow(2).mean()
            loss.backward()
            opt.step()
            predictions.append(out)
        all_predictions = torch.cat(predictions)
        """,
        ["    predictions.append(out.detach())\n"],
        id="model outputs collected for later",
    ),
    pytest.param(
        """
        for epoch in range(3):
            total = 0.0
            for x, y in loader:
                opt.zero_grad()
                loss = (model(x) - y).pow(2).mean()
                loss.backward()
                opt.step()
                total += loss * x.size(0)
            print(epoch, total)
        """,
        ["        total += (loss * x.size(0)).detach()\n"],
        id="weighted total in a nested epoch loop",
    ),
]


@pytest.mark.parametrize(("src", "expected"), _fixes)
def test_fixes(src, expected):
    source, result = run(src)
    assert [f.code for f in result.findings] == ["AF105"]
    assert result.findings[0].fix is not None
    fixed = result.fixed.decode()
    for fragment in expected:
        assert fragment in fixed, fixed
    again = fix_source(result.fixed, "t.py", Options(select=("AF105",)))
    assert again.findings == () and again.fixed == result.fixed


_noop = [
    pytest.param(
        """
        total_loss = 0.0
        for x, y in loader:
            opt.zero_grad()
            loss = (model(x) - y).pow(2).mean()
            loss.backward()
            opt.step()
            total_loss += loss.item()
        """,
        id="item already taken",
    ),
    pytest.param(
        """
        losses = []
        for x, y in loader:
            opt.zero_grad()
            loss = (model(x) - y).pow(2).mean()
            loss.backward()
            opt.step()
            losses.append(loss.detach())
            losses.append(float(loss))
        """,
        id="detached or converted values",
    ),
    pytest.param(
        """
        for step in range(10):
            total = 0
            for x, y in micro_batches:
                total = total + (model(x) - y).pow(2).mean()
            opt.zero_grad()
            total.backward()
            opt.step()
        """,
        id="sum the losses then one backward",
    ),
    pytest.param(
        """
        losses = []
        for x, y in loader:
            losses.append((model(x) - y).pow(2).mean())
        opt.zero_grad()
        torch.stack(losses).mean().backward()
        opt.step()
        """,
        id="list of losses back-propagated after the loop",
    ),
    pytest.param(
        """
        model.eval()
        val_loss = 0.0
        with torch.no_grad():
            for x, y in loader:
                val_loss += (model(x) - y).pow(2).mean()
        print(val_loss)
        """,
        id="evaluation loop under no_grad",
    ),
    pytest.param(
        """
        correct = 0
        for x, y in loader:
            opt.zero_grad()
            out = model(x)
            loss = (out - y).pow(2).mean()
            loss.backward()
            opt.step()
            correct += (out.argmax(1) == y).sum()
            seen = x.size(0)
        """,
        id="accuracy from argmax comparison carries no graph",
    ),
    pytest.param(
        """
        for x, y in loader:
            opt.zero_grad()
            batch_loss = 0
            for part in x.chunk(2):
                batch_loss += model(part).mean()
            batch_loss.backward()
            opt.step()
        """,
        id="per-iteration total reset each batch and back-propagated",
    ),
    pytest.param(
        """
        def collect(net, batches):
            outputs = []
            for x in batches:
                outputs.append(net(x))
            return outputs

        for x in loader:
            loss = torch.stack(collect(model, x)).sum()
            loss.backward()
        """,
        id="outputs returned to a caller that back-propagates them",
    ),
    pytest.param(
        """
        total = 0
        for x, y in loader:
            loss = (model(x) - y).pow(2).mean()
            total += loss
        print(total)
        """,
        id="loop without backward is not a training loop",
    ),
    pytest.param(
        """
        history = []
        for x, y in loader:
            opt.zero_grad()
            loss = (model(x) - y).pow(2).mean()
            loss.backward(retain_graph=True)
            history.append(loss)
            register(history)
        """,
        id="total escapes to an unknown function and graph retained",
    ),
    pytest.param(
        """
        net = build_network(config)
        wrapped = nn.DataParallel(net) if multi else net
        bare = wrapped.module if multi else wrapped
        torch.save(bare.state_dict(), "ckpt.pt")
        rate = -1.0
        for x, y in loader:
            opt.zero_grad()
            loss = (wrapped(x) - y).pow(2).mean()
            loss.backward()
            opt.step()
            current = bare.throughput(x.shape[0], 0.1)
            rate = current if rate == -1.0 else 0.9 * rate + 0.1 * current
        """,
        id="a method of a module whose class cannot be told returns no proven graph",
    ),
    pytest.param(
        """
        import numpy as np

        class Saliency:
            def input_gradient(self, x):
                x = x.clone().requires_grad_(True)
                model.zero_grad()
                model(x).sum().backward()
                return x.grad.cpu().numpy()[0]

            def integrated(self, x, steps):
                total = np.zeros(x.shape[1])
                for k in range(steps + 1):
                    total = total + self.input_gradient(x * k / steps) / steps
                return total
        """,
        id="a numpy array a method hands back after its own backward holds no graph",
    ),
]


@pytest.mark.parametrize("src", _noop)
def test_noop(src):
    source, result = run(src)
    assert result.findings == ()
    assert result.fixed.decode() == source


_STEP_TOTAL = """
d_nets = [nn.Linear(4, 1), nn.Linear(4, 1)]
for step in range(3):
    x = torch.randn(8, 4)
    total = 0
    for d in d_nets:
        d_loss = d(x).mean()
        {inner}
        total += d_loss
    {outer}
    print(total)
"""


@pytest.mark.parametrize(
    "inner, outer, reported",
    [
        pytest.param("d_loss.backward()", "model(x).mean().backward()", False, id="one step's freed graphs"),
        pytest.param("d_loss.backward(retain_graph=True)", "model(x).mean().backward()", True, id="kept by retain_graph"),
        pytest.param("d_loss.backward()", "pass", True, id="an epoch around the steps"),
    ],
)
def test_total_started_afresh_by_each_step(inner, outer, reported):
    """A total the outer loop starts afresh holds one step's graphs only when that loop is a step
    of its own (a backward outside the inner loop) and the inner backward went through each value."""
    _, result = run(_STEP_TOTAL.format(inner=inner, outer=outer))
    assert bool(result.findings) is reported


def test_no_detach_on_what_a_loss_objects_method_returns():
    """``loss.average()`` on a loss object the step back-propagated through its own ``backward()``
    is no tensor operation: ``.detach()`` must not be added to the float it returns."""
    src = """
        class SequenceLoss:
            def reset(self):
                self.summed = 0
            def add(self, out, target):
                self.summed = self.summed + (out - target).pow(2).mean()
            def backward(self):
                self.summed.backward()
            def average(self):
                return self.summed.item()

        class Trainer:
            def __init__(self):
                self.criterion = SequenceLoss()

            def train_batch(self, x, y):
                loss = self.criterion
                loss.reset()
                loss.add(model(x), y)
                opt.zero_grad()
                loss.backward()
                opt.step()
                return loss.average()

            def train(self, loader):
                total = 0
                for x, y in loader:
                    loss = self.train_batch(x, y)
                    total += loss
                return total
        """
    source, result = run(src)
    # Not known to be the graph the step back-propagated either: nothing is reported.
    assert result.findings == ()
    assert result.fixed.decode() == source


# --------------------------------------------------------------------------- fixed scripts run


def _fixed_scripts(code: str):
    from corpus_cases import cases

    return [pytest.param(case, id=case.id) for case in cases(code) if case.fixed_path.exists()]


def run_fixed_script(case) -> None:
    """A fix must never make code raise: the fixed corpus script runs to the end."""
    import subprocess
    import sys

    pytest.importorskip("torch")
    done = subprocess.run(
        [sys.executable, str(case.fixed_path)],
        cwd=case.fixed_path.parent,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]


@pytest.mark.slow
@pytest.mark.parametrize("case", _fixed_scripts("AF105"))
def test_fixed_corpus_script_runs(case):
    run_fixed_script(case)


# --------------------------------------------------------------------------- sweep10


_NUMPY_SLOT = """
import numpy as np
import torch
import torch.nn as nn

model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
num_epochs, num_batches = 3, 4
hist = {hist}
for t in range(num_epochs):
    epoch_loss = {epoch}
    for i in range(num_batches):
        x, y = torch.randn(8, 4), torch.randn(8, 1)
        loss = torch.mean((model(x) - y) ** 2)
        {store}
        opt.zero_grad()
        loss.backward()
        opt.step()
    loss = np.mean(epoch_loss)
    {keep}
print(hist)
"""

_NUMPY_CASES = [
    pytest.param("np.zeros(num_epochs)", "np.zeros(num_batches)", "epoch_loss[i] = loss", "hist[t] = loss", 0,
                 id="relational-rnn: numpy arrays filled by index"),
    pytest.param("[]", "np.zeros(num_batches)", "epoch_loss[i] = loss", "hist.append(loss)", 0,
                 id="a list of np.mean results"),
    pytest.param("[]", "[]", "epoch_loss.append(loss)", "hist.append(loss)", 1,
                 id="a list of losses averaged by numpy: only the list of losses is reported"),
    pytest.param("np.zeros(num_epochs)", "np.empty(num_batches, dtype=object)", "epoch_loss[i] = loss",
                 "hist[t] = loss", 1, id="an object array keeps the tensors as they are"),
]


@pytest.mark.parametrize("hist, epoch, store, keep, findings", _NUMPY_CASES)
def test_numpy_containers_and_results(hist, epoch, store, keep, findings):
    """An entry stored into a numpy array of numbers is converted to a number (no graph is kept),
    and what a numpy function returns is never a tensor: a name rebound to it (``loss =
    np.mean(...)``) is not the tensor ``loss.backward()`` proved it was elsewhere."""
    source = _NUMPY_SLOT.format(hist=hist, epoch=epoch, store=store, keep=keep)
    result = fix_source(source, "t.py", Options(select=("AF105",)))
    assert result.error is None, result.error
    assert len(result.findings) == findings, [f.message for f in result.findings]
    assert "np.mean(epoch_loss).detach()" not in result.fixed.decode()
    assert not any("hist" in f.message for f in result.findings)


# A stand-in for numpy where the test environment lacks it: what these scripts use, with
# numpy's behaviour (an entry stored into a float array is converted with ``float``; the mean
# is a float subclass, with no ``detach``).
_FAKE_NUMPY = '''
class float64(float):
    pass

class ndarray(list):
    dtype = "float64"
    def __setitem__(self, index, value):
        list.__setitem__(self, index, float64(value))

def zeros(n):
    return ndarray([float64(0.0)] * n)

def mean(values):
    values = [float(v) for v in values]
    return float64(sum(values) / len(values))
'''


@pytest.mark.parametrize("hist, epoch, store, keep, findings", _NUMPY_CASES[:3])
def test_numpy_script_fixed_to_a_fixpoint_runs(hist, epoch, store, keep, findings, tmp_path):
    """Fix safety: the script fixed to a fixpoint (as ``--diff`` and ``--write`` do) runs to the
    end; no ``.detach()`` lands on a numpy value (relational-rnn-pytorch's ``hist[t] = loss``)."""
    import subprocess
    import sys

    pytest.importorskip("torch")
    source = _NUMPY_SLOT.format(hist=hist, epoch=epoch, store=store, keep=keep)
    result = fix_source(source, "t.py", Options(select=("AF105",), fix=True))
    assert result.error is None, result.error
    fixed = result.fixed.decode()
    try:
        import numpy  # noqa: F401
    except ImportError:
        # Not named numpy: torch imports numpy when it can, and must not find the stand-in.
        (tmp_path / "fake_numpy.py").write_text(_FAKE_NUMPY)
        fixed = fixed.replace("import numpy as np", "import fake_numpy as np")
    script = tmp_path / "train.py"
    script.write_text(fixed)
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]


_TUPLE_LOSSES = """
class NGCF(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 4)
        self.decay = 1e-4

    def forward(self, u, p, n):
        return self.emb(u), self.emb(p), self.emb(n)

    def create_bpr_loss(self, users, pos_items, neg_items):
        pos_scores = torch.sum(torch.mul(users, pos_items), axis=1)
        neg_scores = torch.sum(torch.mul(users, neg_items), axis=1)
        mf_loss = -1 * torch.mean(nn.LogSigmoid()(pos_scores - neg_scores))
        emb_loss = self.decay * (torch.norm(users) ** 2 + torch.norm(pos_items) ** 2) / 2
        return mf_loss + emb_loss, {returned}


model = NGCF()
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
for epoch in range(2):
    loss, mf_loss, emb_loss = 0., 0., 0.
    for idx in range(5):
        ue, pe, ne = model(u, p, n)
        batch_loss, batch_mf_loss, batch_emb_loss = model.create_bpr_loss(ue, pe, ne)
        optimizer.zero_grad()
        batch_loss.backward()
        optimizer.step()
        loss += batch_loss.detach()
        mf_loss += batch_mf_loss
        emb_loss += batch_emb_loss
    print(epoch, loss, mf_loss, emb_loss)
"""


@pytest.mark.parametrize(
    "returned, reported",
    [
        pytest.param("mf_loss, emb_loss", ["mf_loss", "emb_loss"], id="NGCF: the parts of the loss"),
        pytest.param("mf_loss.item(), emb_loss.item()", [], id="numbers"),
        pytest.param("mf_loss.detach(), float(emb_loss)", [], id="detached and converted"),
        pytest.param("(pos_scores > neg_scores).float().mean(), emb_loss", ["emb_loss"], id="an accuracy and a part"),
    ],
)
def test_other_parts_of_a_returned_tuple(returned, reported):
    """The parts of a tuple a project method returns that it computes, where gradients flow, from
    arguments carrying a graph carry that graph, back-propagated or not (NGCF's ``mf_loss +=
    batch_mf_loss``); their kind is not proven, so there is no fix."""
    _, result = run(_TUPLE_LOSSES.format(returned=returned))
    assert sorted(f.message.split("`")[1] for f in result.findings) == sorted(reported)
    assert all(f.fix is None for f in result.findings)


_PER_ITERATION_ENTRIES = """
def train_a_batch(x_, y_, n_replays, per_context):
    predL_r = [None] * n_replays
    loss_replay = [None] * n_replays
    for replay_id in range(n_replays):
        y_hat = model(x_[replay_id])
        if per_context:
            predL_r[replay_id] = (y_hat - y_[replay_id]).pow(2).mean()
        else:
            predL_r[replay_id] = (y_hat - y_[replay_id]).abs().mean()
        loss_replay[replay_id] = {read}
        if per_context:
            loss_replay[replay_id].backward()
    return loss_replay
"""


@pytest.mark.parametrize(
    "read, reported",
    [
        pytest.param("predL_r[replay_id]", False, id="continual-learning: each iteration's own entry"),
        pytest.param("predL_r[replay_id] + predL_r[replay_id - 1]", True, id="the previous iteration's entry"),
        pytest.param("sum(p for p in predL_r if p is not None)", True, id="every entry"),
    ],
)
def test_list_entry_per_iteration_is_no_replay_buffer(read, reported):
    """A local list made before the loop, written at the loop index of ``range`` and read only at
    that index: no iteration's backward goes through an entry an earlier one stored."""
    _, result = run(_PER_ITERATION_ENTRIES.format(read=read))
    assert any("predL_r" in f.message for f in result.findings) is reported


_GUARDED_ITEM = """
class Learner:
    def __init__(self):
        self.net = nn.Linear(4, 3)
        self._old_network = None
        self._cur_task = -1

    def _run(self, loader):
        flat_losses = 0.0
        for x, y in loader:
            out = self.net(x)
            lsc_loss = (out - y).pow(2).mean()
            {flat}
            loss = lsc_loss + flat_loss
            opt.zero_grad()
            loss.backward()
            opt.step()
            flat_losses += flat_loss.item() if self._cur_task != 0 else flat_loss
        print(flat_losses)
"""


@pytest.mark.parametrize(
    "flat, reported",
    [
        pytest.param(
            "flat_loss = 0.0\n            if self._old_network is not None:\n                "
            "flat_loss = (out - self._old_network(x).detach()).pow(2).mean()",
            False,
            id="PyCIL podnet: a number unless the old network ran",
        ),
        pytest.param(
            "flat_loss = 0.0\n            if self._old_network is not None:\n                "
            "flat_loss = pod_spatial_loss(out, self._old_network(x))",
            False,
            id="PyCIL podnet: a number unless a helper of unknown kind ran",
        ),
        pytest.param("flat_loss = (out - y).abs().mean()", True, id="always a tensor with a graph"),
    ],
)
def test_guarded_item(flat, reported):
    """``x.item() if c else x``: where ``x`` may be a Python number, the test tells which arm it
    is; the bare arm is not proven to carry a graph. Where ``x`` is always a graph tensor it does."""
    _, result = run(_GUARDED_ITEM.format(flat=flat))
    assert bool(result.findings) is reported


_FORWARD_STATS = '''
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 3)

    def forward(self, inpts):
        losses = []
        total_entropy, total_max_prob = 0, 0
        for x in inpts:
            q_z = F.softmax(self.lin(x), dim=1)
            losses.append(-q_z.log().mean())
            total_entropy += -(q_z * q_z.log()).sum(){item}
            total_max_prob += q_z.max(1, keepdim=True)[0].sum(){item}
        stats = (total_entropy, total_max_prob)
        return losses, stats


class Engine:
    def __init__(self):
        self.model = Model()
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)

    def _forward(self, batch):
        losses, stats = self.model.forward(batch)
        return losses, stats

    def train_batch(self, batch):
        losses, stats = self._forward(batch)
        loss = 0
        for l in losses:
            loss += l
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss.item(), stats

    def train_pass(self, trainset):
        total_loss, total_entropy, total_max_prob = 0, 0, 0
        for batch in trainset:
            loss, (entropy, max_prob) = self.train_batch(batch)
            total_loss += loss
            total_entropy += entropy
            total_max_prob += max_prob
        return total_loss, total_entropy, total_max_prob


trainset = [[torch.randn(2, 4) for _ in range(3)] for _ in range(4)]
out = Engine().train_pass(trainset)
assert {kept}(isinstance(v, torch.Tensor) for v in out[1:]), out
assert getattr(out[1], "grad_fn", None) is None, out
'''


@pytest.mark.parametrize("item, reported", [(".item()", False), ("", True)])
def test_forward_stats_unpacked_in_nested_tuple_fixed_runs(item, reported, tmp_path):
    """Fix safety (end-to-end-negotiator's latent clustering engine): the statistics a model's
    ``forward`` returns beside its losses, unpacked by the trainer in a nested tuple through two
    methods of its own. As ``.item()`` numbers they hold no graph: no finding, and above all no
    ``.detach()`` on a float. As tensors the epoch totals leak and are fixed. Either way the fixed
    script runs, and the fixed entropy total keeps no graph."""
    import subprocess
    import sys

    pytest.importorskip("torch")
    source = _FORWARD_STATS.format(item=item, kept="all" if reported else "not any")
    result = fix_source(source, "t.py", Options(select=("AF105",), fix=True))
    assert result.error is None, result.error
    assert bool(result.findings) is reported
    fixed = result.fixed.decode()
    assert ("entropy.detach()" in fixed) is reported
    assert "max_prob.detach()" not in fixed  # ``max(1, keepdim=True)`` may be a named tuple: no fix
    script = tmp_path / "train.py"
    script.write_text(fixed)
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]


def test_forward_stats_of_an_unresolved_model_get_no_fix(tmp_path):
    """Fix safety: where the trainer's model is handed in (``Engine(model)``), what its ``forward``
    returns is not known; the parts unpacked from it carry the graph of the call but are not
    proven tensors, so no ``.detach()`` is offered on them (they are floats here)."""
    import subprocess
    import sys

    pytest.importorskip("torch")
    source = _FORWARD_STATS.format(item=".item()", kept="not any")
    source = source.replace("def __init__(self):\n        self.model = Model()", "def __init__(self, model):\n        self.model = model")
    source = source.replace("Engine().train_pass", "Engine(Model()).train_pass")
    assert "self.model = model" in source
    result = fix_source(source, "t.py", Options(select=("AF105",), fix=True))
    assert result.error is None, result.error
    fixed = result.fixed.decode()
    assert ".detach()" not in fixed
    script = tmp_path / "train.py"
    script.write_text(fixed)
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
