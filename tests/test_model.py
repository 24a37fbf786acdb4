"""The program model: import resolution, summaries, cross-file lookups, the cache."""

from __future__ import annotations

import ast
import os
import textwrap
import time
from pathlib import Path
from typing import Dict

import pytest

from autofix.model import (
    AttrKind,
    ClassSummary,
    Framework,
    FunctionSummary,
    Kind,
    ModuleModel,
    Project,
    Target,
    clear_cache,
    find_root,
    model_for_source,
)
from autofix.model.returned import sources_share
from autofix.model.summaries import may_hold_graph, resolve_relative, summarize
from autofix.model.vocabulary import Effect, function_effect, is_optimizer_constructor, method_effect


@pytest.fixture(autouse=True)
def _fresh_cache():
    clear_cache()
    yield
    clear_cache()


def write(root: Path, files: Dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def model_of(root: Path, name: str) -> ModuleModel:
    path = root / name
    model = model_for_source(path.read_bytes(), str(path), Project.for_path(path))
    assert model is not None
    return model


def alone(code: str) -> ModuleModel:
    model = model_for_source(textwrap.dedent(code), "<stdin>")
    assert model is not None
    return model


def test_script_imports_the_module_beside_it_over_its_package(tmp_path):
    """``from NGCF import NGCF`` in ``NGCF/main.py`` run as a script from its folder (NGCF-PyTorch):
    Python finds ``NGCF/NGCF.py`` first, not the package ``NGCF/__init__.py``, which defines no
    ``NGCF``; the model resolves the class in the sibling file."""
    write(
        tmp_path,
        {
            "NGCF/__init__.py": "",
            "NGCF/NGCF.py": """
                import torch.nn as nn
                class NGCF(nn.Module):
                    def create_bpr_loss(self, users, pos_items):
                        return users, pos_items
            """,
            "NGCF/main.py": "from NGCF import NGCF\nmodel = NGCF()\n",
        },
    )
    model = model_of(tmp_path, "NGCF/main.py")
    found = model.resolve("NGCF")
    assert isinstance(found, ClassSummary) and found.qualname == "NGCF"
    assert model.resolve("Missing") is None


def test_element_sources_of_a_module_made_inline_and_of_a_comparison():
    """``nn.LogSigmoid()(x)`` runs a module made there (one run of its own, reading ``x``); a
    comparison's result holds no graph, so the parameters it reads are no sources."""
    model = alone(
        """
        import torch
        import torch.nn as nn
        def loss(users, pos, neg):
            pos_scores = torch.sum(users * pos, axis=1)
            neg_scores = torch.sum(users * neg, axis=1)
            mf = -torch.mean(nn.LogSigmoid()(pos_scores - neg_scores))
            acc = (pos_scores > neg_scores).float().mean()
            return mf, acc
        """
    )
    mf, acc = model.function("loss").returned_param_sources[2]
    assert mf is not None and {"users", "pos", "neg"} <= mf and any(s.startswith("nn.LogSigmoid()@") for s in mf)
    assert acc == frozenset()


# --------------------------------------------------------------------------- vocabulary


def test_vocabulary_integer_and_number_results_cut_the_graph():
    for method in ("argmax", "long", "int", "bool", "item", "detach", "eq"):
        assert method_effect(method) is Effect.CUT
    for method in ("float", "view", "sum", "clone", "to"):
        assert method_effect(method) is Effect.KEEP
    assert function_effect("float") is Effect.CUT
    assert function_effect("torch.argmax", "torch.argmax") is Effect.CUT
    assert function_effect("torch.cat", "torch.cat") is Effect.KEEP
    assert function_effect("nn.Linear", "torch.nn.Linear") is Effect.MAKE
    assert function_effect("helper") is Effect.UNKNOWN
    assert is_optimizer_constructor("torch.optim.AdamW")
    assert not is_optimizer_constructor("torch.optim.lr_scheduler.StepLR")


# --------------------------------------------------------------------------- project and imports


def test_root_is_the_nearest_folder_with_a_marker(tmp_path):
    write(tmp_path, {"pyproject.toml": "", "pkg/__init__.py": "", "pkg/sub/mod.py": ""})
    assert find_root(tmp_path / "pkg/sub/mod.py") == tmp_path.resolve()
    lone = tmp_path / "elsewhere"
    lone.mkdir()
    (lone / "x.py").write_text("")
    # No marker between the file and tmp_path's pyproject: still found upward.
    assert find_root(lone / "x.py") == tmp_path.resolve()


def test_root_without_marker_is_the_files_folder(tmp_path):
    folder = tmp_path / "a" / "b"
    folder.mkdir(parents=True)
    (folder / "x.py").write_text("")
    found = find_root(folder / "x.py")
    assert found == folder.resolve() or (found / ".git").exists() or (found / "pyproject.toml").exists()


def test_module_names_follow_packages(tmp_path):
    write(tmp_path, {"setup.py": "", "pkg/__init__.py": "", "pkg/sub/__init__.py": "", "pkg/sub/mod.py": "", "script.py": ""})
    project = Project.for_path(tmp_path / "script.py")
    assert project.module_name(tmp_path / "pkg/sub/mod.py")[0] == "pkg.sub.mod"
    assert project.module_name(tmp_path / "pkg/sub/__init__.py")[0] == "pkg.sub"
    assert project.module_name(tmp_path / "script.py")[0] == "script"


def test_relative_import_arithmetic():
    assert resolve_relative("models", 1, "pkg.train") == "pkg.train.models"
    assert resolve_relative("models", 1, "pkg") == "pkg.models"
    assert resolve_relative(None, 2, "pkg.sub") == "pkg"
    assert resolve_relative("x", 3, "pkg") is None
    assert resolve_relative("torch.nn", 0, "pkg") == "torch.nn"


def test_resolution_relative_absolute_package_init_and_missing(tmp_path):
    write(
        tmp_path,
        {
            "pyproject.toml": "",
            "pkg/__init__.py": "",
            "pkg/utils/__init__.py": "from .meters import AverageMeter\n",
            "pkg/utils/meters.py": """
                class AverageMeter:
                    def update(self, val, n=1):
                        self.sum += val * n
            """,
            "pkg/models.py": "def build():\n    return None\n",
            "pkg/train.py": """
                from .models import build
                from pkg.utils import AverageMeter
                from . import models
                from .missing import Nothing
                import torch.nn as nn
            """,
        },
    )
    model = model_of(tmp_path, "pkg/train.py")
    assert isinstance(model.resolve("build"), FunctionSummary)
    assert isinstance(model.resolve("models.build"), FunctionSummary)
    meter = model.resolve("AverageMeter")  # re-exported by the package's __init__
    assert isinstance(meter, ClassSummary) and meter.module == "pkg.utils.meters"
    assert model.resolve("Nothing") is None
    assert model.resolve("nn.Linear") is None
    assert model.qualify("nn.Linear") == "torch.nn.Linear"


def test_src_layout(tmp_path):
    write(
        tmp_path,
        {
            "pyproject.toml": "",
            "src/lib/__init__.py": "",
            "src/lib/blocks.py": "class Block:\n    pass\n",
            "scripts/train.py": "from lib.blocks import Block\n",
        },
    )
    model = model_of(tmp_path, "scripts/train.py")
    assert isinstance(model.resolve("Block"), ClassSummary)


def test_script_imports_its_neighbour(tmp_path):
    write(tmp_path, {".git/HEAD": "", "exp/net.py": "def forward_fn(x):\n    return x\n", "exp/run.py": "from net import forward_fn\n"})
    model = model_of(tmp_path, "exp/run.py")
    assert isinstance(model.resolve("forward_fn"), FunctionSummary)


def test_namespace_package_import_beside_the_importer_without_a_marker(tmp_path):
    # No marker anywhere: the root is train/, yet ``train.metrics`` is the file beside the importer.
    files = {"train/metrics.py": "def accuracy(s, t):\n    return 0.5\n", "train/train_epoch.py": "from train.metrics import accuracy\n"}
    write(tmp_path, files)
    model = model_of(tmp_path, "train/train_epoch.py")
    assert isinstance(model.resolve("accuracy"), FunctionSummary)
    # A folder not named like the import's first part is no such package.
    write(tmp_path, {"other/run.py": "from train.metrics import accuracy\n"})
    assert model_of(tmp_path, "other/run.py").resolve("accuracy") is None


def test_star_import_binds_what_the_module_defines_and_its_all_lists(tmp_path):
    write(
        tmp_path,
        {
            ".git/HEAD": "",
            "scores.py": "def dice(a, b):\n    return 1.0\ndef _hidden(a):\n    return a\nclass Meter:\n    pass\n",
            "listed.py": "__all__ = ['kept']\ndef kept(a):\n    return 2.0\ndef left_out(a):\n    return a\n",
            "run.py": "from scores import *\nfrom listed import *\n",
        },
    )
    model = model_of(tmp_path, "run.py")
    assert isinstance(model.resolve("dice"), FunctionSummary)
    assert isinstance(model.resolve("Meter"), ClassSummary)
    assert isinstance(model.resolve("kept"), FunctionSummary)
    assert model.resolve("_hidden") is None  # a private name: not bound by ``import *``
    assert model.resolve("left_out") is None  # not in ``__all__``
    assert model.resolve("missing") is None


def test_package_of_star_imports_resolves_each_module_once(tmp_path):
    # A package ``__init__`` star-importing its eight modules, each star-importing the others (residual-flows'
    # ``resflows/layers``): a name none defines took minutes when each re-export was searched again from the
    # package down; each star-imported module is now looked into once.
    names = [f"m{i}" for i in range(8)]
    files = {".git/HEAD": "", "pkg/layers/__init__.py": "".join(f"from .{n} import *\n" for n in names)}
    for n in names:
        others = "".join(f"from .{o} import *\n" for o in names if o != n)
        files[f"pkg/layers/{n}.py"] = others + f"class Block{n[1:]}:\n    pass\n"
    files["train.py"] = "import pkg.layers as layers\n"
    write(tmp_path, files)
    model = model_of(tmp_path, "train.py")
    started = time.process_time()
    assert isinstance(model.resolve("layers.Block7"), ClassSummary)
    assert model.resolve("layers.Missing") is None
    assert time.process_time() - started < 5


def test_returned_calls_of_helpers_are_followed_in_their_own_module(tmp_path):
    write(
        tmp_path,
        {
            ".git/HEAD": "",
            "metrics.py": """
                def recall(p, t):
                    return float((p > 0).sum()) / 4
                def precision(p, t):
                    return float((t > 0).sum()) / 4
                def passed_on(p, t):
                    return recall(p, t)
                def f1(p, t):
                    r = recall(p, t)
                    q = precision(p, t)
                    score = 2 * r * q / (r + q + 1e-6)
                    return score
                def scaled(p, t):
                    r = recall(p, t)
                    return r * p
            """,
            "run.py": "from metrics import passed_on, f1, scaled\n",
        },
    )
    model = model_of(tmp_path, "run.py")
    for name in ("passed_on", "f1"):
        function = model.resolve_function(name)
        assert function is not None
        assert model.returns(function).kinds == {Kind.NUMBER}
        assert {shape.kind for shape in model.returned_shapes(function)} == {Kind.NUMBER}
    scaled = model.resolve_function("scaled")
    assert scaled is not None and Kind.NUMBER not in {s.kind for s in model.returned_shapes(scaled)}  # a parameter: unknown


def test_returned_arithmetic_on_own_methods_results_follows_them():
    model = alone(
        """
        class Scorer:
            def rate(self, x):
                return float(x.sum())
            def blended(self, x):
                first = self.rate(x)
                return 0.5 * first + self.rate(x)
            def through_param(self, net, x):
                return 2 * net(x)
        """
    )
    blended = model.function("Scorer.blended")
    assert blended is not None and {s.kind for s in model.returned_shapes(blended)} == {Kind.NUMBER}
    through = model.function("Scorer.through_param")
    assert through is not None and not through.returns.via_calls  # a parameter called: not followed


def test_a_returned_element_unpacked_from_a_project_call_has_that_calls_shape():
    model = alone(
        """
        class Agent:
            def fit(self, x):
                loss = self.net(x).mean()
                return loss.detach(), loss.item(), loss
            def update(self, x):
                total, value, raw = self.fit(x)
                info = {}
                return info, total, value, raw
        """
    )
    update = model.function("Agent.update")
    assert update is not None
    assert update.returned_unpacked[4][1:3] == (("self.fit", 0, 3), ("self.fit", 1, 3))
    (shape,) = model.returned_shapes(update)
    assert [part.kind for part in shape.parts[1:3]] == [Kind.TENSOR, Kind.NUMBER]
    assert shape.parts[3].kind is not Kind.TENSOR


def test_a_method_of_an_object_held_on_self_or_built_here_is_followed():
    model = alone(
        """
        import torch.nn as nn
        class Net(nn.Module):
            def step(self, loss, opt):
                loss.backward()
                opt.step()
        class Agent:
            def __init__(self):
                self.net = Net()
            def train(self, loss, opt):
                self.net.step(loss, opt)
        def fit(loss, opt):
            net = Net()
            net.step(loss, opt)
        def unknown(net, loss, opt):
            net.step(loss, opt)
        """
    )
    for name in ("Agent.train", "fit"):
        function = model.function(name)
        assert function is not None and model.runs_backward(function)
    unknown = model.function("unknown")
    assert unknown is not None and not model.runs_backward(unknown)  # a parameter's class is not known


def test_a_file_given_alone_resolves_nothing_else():
    model = alone(
        """
        from utils import helper
        def train(x):
            return helper(x)
        """
    )
    assert model.resolve("helper") is None
    assert model.returns(model.function("train")).kinds == {Kind.UNKNOWN}


def test_user_code_is_never_imported(tmp_path):
    write(tmp_path, {"pyproject.toml": "", "boom.py": "raise SystemExit('imported!')\nclass A:\n    pass\n", "main.py": "from boom import A\n"})
    assert isinstance(model_of(tmp_path, "main.py").resolve("A"), ClassSummary)


# --------------------------------------------------------------------------- cache


def test_cache_follows_content(tmp_path):
    write(tmp_path, {"pyproject.toml": "", "helpers.py": "def f(x):\n    return x.item()\n", "main.py": "from helpers import f\n"})
    model = model_of(tmp_path, "main.py")
    assert model.returns(model.resolve_function("f")).kinds == {Kind.NUMBER}
    again = model_of(tmp_path, "main.py").resolve_function("f")
    assert again is model.resolve_function("f")  # unchanged: the cached summary
    helpers = tmp_path / "helpers.py"
    helpers.write_text("def f(x):\n    return {'loss': x}\n")
    stat = helpers.stat()
    os.utime(helpers, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    changed = model_of(tmp_path, "main.py").resolve_function("f")
    assert changed is not None and changed.returns.kinds == {Kind.DICT}


def test_overlay_text_wins_over_the_disk(tmp_path):
    write(tmp_path, {"pyproject.toml": "", "helpers.py": "def f(x):\n    return x\n", "main.py": "from helpers import f\n"})
    project = Project.for_path(tmp_path / "main.py")
    project.set_overlay(tmp_path / "helpers.py", "def f(x):\n    return float(x)\n")
    model = model_of(tmp_path, "main.py")
    assert model.resolve_function("f").returns.kinds == {Kind.NUMBER}


def test_unparsable_project_file_resolves_to_nothing(tmp_path):
    write(tmp_path, {"pyproject.toml": "", "bad.py": "def f(:\n", "main.py": "from bad import f\n"})
    assert model_of(tmp_path, "main.py").resolve("f") is None


# --------------------------------------------------------------------------- function summaries


def test_backward_step_zero_grad_and_receivers():
    model = alone(
        """
        class Trainer:
            def train_step(self, batch, optimizer):
                self.optimizer.zero_grad()
                loss = self.model(batch).mean()
                loss.backward(retain_graph=True)
                self.scaler.scale(loss).backward()
                self.accelerator.backward(loss)
                torch.autograd.backward(loss)
                optimizer.step()
                self.scaler.step(self.optimizer)
                self.lr_scheduler.step()
        """
    )
    step = model.function("Trainer.train_step")
    assert [(b.tensor, b.via, b.retain_graph) for b in step.backward_calls] == [
        (Target("local", "loss"), None, True),
        (Target("local", "loss"), "scaler", False),
        (Target("local", "loss"), "accelerator", False),
        (Target("local", "loss"), "torch.autograd", False),
    ]
    assert [s.optimizer for s in step.steps] == [Target("param", "optimizer"), Target("self", "optimizer")]
    assert [(z.target, z.line) for z in step.zero_grads] == [(Target("self", "optimizer"), 4)]


def test_self_calls_in_order_and_attributes_read_and_written():
    model = alone(
        """
        class GAN:
            def optimize_parameters(self):
                self.forward()
                self.backward_D()
                self.backward_G()
                self.fake = self.netG(self.real)
                self.count += 1
        """
    )
    function = model.function("GAN.optimize_parameters")
    assert function.self_calls == ["forward", "backward_D", "backward_G", "netG"]
    assert {"netG", "real"} <= function.self_reads
    assert {"fake", "count"} <= function.self_writes


@pytest.mark.parametrize(
    "body, kinds",
    [
        ("return model(x)", None),
        ("out = self(x)\n    return out.sum()", {Kind.GRAPH}),
        ("return loss.item()", {Kind.NUMBER}),
        ("return float(loss), math.sqrt(2)", {Kind.TUPLE}),
        ("return {'loss': loss}", {Kind.DICT}),
        ("return", {Kind.NONE}),
        ("pass", {Kind.NONE}),
        ("return loss.detach()", {Kind.TENSOR}),
        ("return torch.relu(self.forward(x))", {Kind.GRAPH}),
    ],
)
def test_returns(body, kinds):
    model = alone(f"import math, torch\nclass M:\n  def f(self, model, x, loss):\n    {body}\n")
    returns = model.function("M.f").returns
    assert returns.kinds == (kinds or {Kind.UNKNOWN})


def test_returned_tuple_and_dict_details():
    model = alone(
        """
        def metrics(pred, target):
            err = (pred - target).abs().mean()
            return err.item(), float(err)

        def step(batch):
            return {"loss": batch, "log": 1}
        """
    )
    assert model.function("metrics").returns.tuple_kinds == (frozenset({Kind.NUMBER}), frozenset({Kind.NUMBER}))
    assert model.function("step").returns.dict_keys == {"loss", "log"}
    assert model.function("metrics").number_params == {"pred", "target"}


def test_param_facts_numbers_accumulation_inplace_detach():
    model = alone(
        """
        class AverageMeter:
            def update(self, val, n=1):
                self.sum += val * n
                self.vals.append(val)
                self.table[n] = val

        class SafeMeter:
            def update(self, val, n=1):
                v = val.item()
                self.sum += v * n
                self.seen.append(float(val))

        def scale_(x, y, z, w):
            x.mul_(2)
            y[0] = 1
            z += 1
            F.relu(w, inplace=True)

        def cut(a, b, c):
            a = a.detach()
            return b.tolist(), c.data
        """
    )
    update = model.function("AverageMeter.update")
    assert update.accumulated_params["val"] == {"sum", "vals", "table"}
    safe = model.function("SafeMeter.update")
    assert "val" not in safe.accumulated_params
    assert safe.number_params == {"val"}
    assert model.function("scale_").inplace_params == {"x", "y", "z", "w"}
    cut = model.function("cut")
    assert cut.detached_params == {"a", "c"}
    assert cut.number_params == {"b"}


def test_local_constructors_lead_to_methods_in_other_files(tmp_path):
    write(
        tmp_path,
        {
            "pyproject.toml": "",
            "meters.py": """
                class AverageMeter:
                    def update(self, val):
                        self.total += val
            """,
            "train.py": """
                from meters import AverageMeter
                def train(loader, model):
                    meter = AverageMeter()
                    for x in loader:
                        loss = model(x)
                        meter.update(loss)
            """,
        },
    )
    model = model_of(tmp_path, "train.py")
    train = model.function("train")
    assert train.has_loop
    update = model.callee(train, "meter.update")
    assert isinstance(update, FunctionSummary) and update.accumulated_params == {"val": {"total"}}


def test_running_sums_kept_params_and_detaching_helpers():
    model = alone(
        """
        class Meter:
            def update(self, val, n=1):
                self.last = val
                self.sum = self.sum + val * n
                self.ema = 0.9 * self.ema + 0.1 * val

        def log_only(value, logger):
            logger.info(f"{value}")
            print(value.mean())

        def keep(value, history, obj):
            history.append(value)
            obj.last = value

        def repackage(h):
            if isinstance(h, torch.Tensor):
                return h.detach()
            return tuple(repackage(v) for v in h)

        def mapped(state):
            return apply(state, torch.Tensor.detach)

        def in_place(state):
            for t in state:
                t.detach_()
        """
    )
    assert model.function("Meter.update").accumulated_params["val"] == {"sum", "ema"}
    assert model.function("log_only").kept_params == set()
    assert model.function("keep").kept_params == {"value"}
    assert model.function("repackage").returns_detached
    assert model.function("mapped").returns_detached
    assert not model.function("keep").returns_detached
    assert model.function("in_place").detached_in_place == {"state"}


def test_returned_shapes_of_layers_tuples_and_dicts():
    from autofix.model.summaries import Shape

    graph = Shape(Kind.GRAPH)
    model = alone(
        """
        import torch
        import torch.nn as nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.lstm = nn.LSTM(4, 8)
                self.head = nn.Linear(8, 2)

            def forward(self, x, state=None):
                out, (h, c) = self.lstm(x, state)
                return self.head(out), (h, c)

            def step(self, x, y):
                logits = self.head(x)
                loss = torch.nn.functional.cross_entropy(logits, y)
                return {"loss": loss, "logits": logits}

            def halves(self, x):
                mu, logvar = self.head(x).chunk(2, dim=-1)
                return mu, logvar, mu.mean().item()
        """
    )
    forward = model.function("Net.forward")
    assert forward.returns.shapes == {Shape(Kind.TUPLE, (graph, Shape(Kind.TUPLE, (graph, graph))))}
    assert model.function("Net.step").returns.shapes == {Shape(Kind.DICT, values=graph)}
    assert model.function("Net.halves").returns.shapes == {Shape(Kind.TUPLE, (graph, graph, Shape(Kind.NUMBER)))}


def test_a_dict_filled_entry_by_entry_has_the_values_stored_in_it():
    from autofix.model.summaries import Shape

    model = alone(
        """
        import torch

        class Learner:
            def numbers(self, x):
                log = {}
                log["entropy"] = float(x.mean())
                log["accuracy"] = x.argmax().item()
                log["probs"] = x.softmax(0).detach()
                return log

            def numbers_and_loss(self, x):
                log = {"n": 0}
                log["loss"] = x.sum().item()
                return x.sum(), log

            def one_graph(self, x):
                log = {}
                log["entropy"] = float(x.mean())
                log["loss"] = torch.relu(self.net(x)).sum()
                return log

            def updated(self, x, extra):
                log = {}
                log["entropy"] = float(x.mean())
                log.update(extra)
                return log

            def handed_on(self, x):
                log = {}
                log["entropy"] = float(x.mean())
                self.fill(log)
                return log

            def literal_then_loss(self, x):
                log = {"steps": 0}
                log["loss"] = torch.relu(self.net(x)).sum()
                return log

            def literal_updated(self, x, extra):
                log = {"steps": 0}
                log.update(extra)
                return log

            def literal_handed_on_then_filled(self, x):
                log = {"steps": 0}
                self.fill(log)
                log["steps"] = 1
                return log

            def stored_after_a_return(self, xs):
                log = {}
                for x in xs:
                    if x is None:
                        return log
                    log["last"] = x
                return log
        """
    )
    assert model.function("Learner.numbers").returns.shapes == {Shape(Kind.DICT, values=Shape(Kind.PLAIN))}
    (pair,) = model.function("Learner.numbers_and_loss").returns.shapes
    assert pair.parts[1] == Shape(Kind.DICT, values=Shape(Kind.NUMBER))
    # A value that may hold a graph, one changed through a method or a call, or stored after the
    # dict is handed back: not all its values are known to hold none.
    names = ("one_graph", "updated", "handed_on", "stored_after_a_return", "literal_then_loss", "literal_updated",
             "literal_handed_on_then_filled")
    for name in names:
        assert any(may_hold_graph(s) for s in model.function(f"Learner.{name}").returns.shapes), name


def test_element_and_module_level_constructors_lead_to_methods(tmp_path):
    write(
        tmp_path,
        {
            "pyproject.toml": "",
            "utils/meters.py": """
                class AverageMeter:
                    def update(self, val, n=1):
                        self.sum += val * n
            """,
            "train.py": """
                from collections import defaultdict
                from utils.meters import AverageMeter
                meters = {k: AverageMeter() for k in ("a", "b")}
                totals = defaultdict(AverageMeter)
                overall = AverageMeter()

                def train(loader, model):
                    for x in loader:
                        loss = model(x)
                        meters["a"].update(loss)
                        totals["b"].update(loss)
                        overall.update(loss)
            """,
        },
    )
    model = model_of(tmp_path, "train.py")
    train = model.function("train")
    for spelled in ("meters[].update", "totals[].update", "overall.update"):
        update = model.callee(train, spelled)
        assert isinstance(update, FunctionSummary) and update.accumulated_params["val"] == {"sum"}, spelled


# --------------------------------------------------------------------------- classes


def test_attribute_kinds():
    model = alone(
        """
        import torch
        import torch.nn as nn
        from torch import optim
        from torch.cuda.amp import GradScaler

        def act_fn(x):
            return x

        class Net(nn.Module):
            def __init__(self, act, c=8):
                super().__init__()
                layers = []
                for _ in range(2):
                    layers += [nn.Conv2d(c, c, 3)]
                    layers.append(nn.ReLU(True))
                self.block = nn.Sequential(*layers)
                self.head = nn.Sequential(nn.Linear(c, c), nn.ReLU())
                self.tail = nn.Sequential(nn.Linear(c, c), nn.LeakyReLU(0.1, inplace=True))
                self.hidden = None
                self.act = act
                self.f = torch.sigmoid
                self.g = act_fn
                self.h = lambda x: x
                self.w = nn.Parameter(torch.zeros(3))
                self.z = torch.zeros(3, requires_grad=True)
                self.register_buffer("running", torch.zeros(3))
                self.stats = {}
                self.history = []
                self.steps = 0
                self.opt = optim.SGD(self.parameters(), lr=0.1)
                self.sched = optim.lr_scheduler.StepLR(self.opt, 1)
                self.scaler = GradScaler()

            def reset(self):
                self.hidden = torch.zeros(3)
        """
    )
    net = model.cls("Net")
    kinds = {name: a.kind for name, a in net.attributes.items()}
    assert kinds == {
        "block": AttrKind.MODULE, "head": AttrKind.MODULE, "tail": AttrKind.MODULE, "hidden": AttrKind.TENSOR,
        "act": AttrKind.UNKNOWN, "f": AttrKind.CALLABLE, "g": AttrKind.CALLABLE, "h": AttrKind.CALLABLE,
        "w": AttrKind.PARAMETER, "z": AttrKind.TENSOR, "running": AttrKind.TENSOR, "stats": AttrKind.DICT,
        "history": AttrKind.LIST, "steps": AttrKind.NUMBER, "opt": AttrKind.OPTIMIZER,
        "sched": AttrKind.SCHEDULER, "scaler": AttrKind.SCALER,
    }
    assert net.attributes["block"].ends_inplace and net.attributes["block"].last_layer == "torch.nn.ReLU"
    assert not net.attributes["head"].ends_inplace
    assert net.attributes["tail"].ends_inplace
    assert net.attributes["hidden"].kinds == {AttrKind.NONE, AttrKind.TENSOR}
    assert net.attributes["hidden"].assigned_in == ["__init__", "reset"]
    assert net.attributes["act"].from_param == "act"
    # what a call of the attribute returns that autograd saved: the model's answer for AF103
    saved = {name: a.saved_output for name, a in net.attributes.items() if a.saved_output}
    assert saved == {"block": "relu", "head": "relu", "f": "sigmoid"}
    assert net.attributes["z"].requires_grad and net.attributes["running"].buffer
    assert model.framework(net) is Framework.MODULE


def test_module_attributes_that_hold_parameters():
    model = alone(
        """
        import torch
        from torch import nn

        class Table(nn.Module):
            def __init__(self):
                super().__init__()
                self.table = nn.parameter.Parameter(torch.zeros(3))
                self.register_parameter("scale", nn.Parameter(torch.ones(3)))
                self.hidden = torch.zeros(3)

            def forward(self, x):
                self.table = self.table.to(x.device)
                return self.table + self.scale + self.hidden

        class Plain:
            def __init__(self):
                self.w = nn.Parameter(torch.zeros(3))
        """
    )
    table, plain = model.cls("Table"), model.cls("Plain")
    # a module stores only a Parameter under a registered parameter's name: it stays a leaf
    assert model.holds_parameter(table, "table") and model.holds_parameter(table, "scale")
    assert not model.holds_parameter(table, "hidden") and not model.holds_parameter(table, "missing")
    # a plain object's attribute may be rebound to anything
    assert not model.holds_parameter(plain, "w")


def test_retained_backward_and_steps_through_callees():
    model = alone(
        """
        def probe(image, out):
            out.sum().backward(retain_graph=True)
            return image.grad

        def probe_twice(image, out):
            probe(image, out)
            return probe(image, out * 2)

        def train(loss, opt):
            loss.backward()
            opt.step()

        def mixed(image, out, opt):
            probe(image, out)
            train(out.sum(), opt)

        def nothing(x):
            return x
        """
    )
    f = model.summary.functions
    assert model.retains_graph(f["probe"]) and model.retains_graph(f["probe_twice"])
    assert not model.retains_graph(f["train"]) and not model.retains_graph(f["mixed"])
    assert not model.retains_graph(f["nothing"])  # runs no backward at all
    assert model.runs_step(f["train"]) and model.runs_step(f["mixed"])
    assert not model.runs_step(f["probe_twice"])


def test_functions_decorated_to_disable_grad():
    model = alone(
        """
        import torch
        from torch import no_grad

        class Controller:
            @torch.no_grad()
            def update(self, scores):
                return scores.mean().item()

            @torch.inference_mode()
            def probe(self, x):
                return x * 2

            def train(self, x):
                return x * 2

        @no_grad()
        def heatmap(net, x):
            return net(x)
        """
    )
    f = model.summary.functions
    assert f["Controller.update"].grad_disabled and f["Controller.probe"].grad_disabled
    assert f["heatmap"].grad_disabled and not f["Controller.train"].grad_disabled


def test_forward_output_follows_both_ways_of_an_if():
    model = alone(
        """
        import torch
        from torch import nn

        class Block(nn.Module):
            def __init__(self, activation="relu"):
                super().__init__()
                self.conv = nn.Conv2d(4, 4, 3)
                self.act = nn.ReLU(inplace=True) if activation == "relu" else None

            def forward(self, x):
                x = self.conv(x)
                if self.act:
                    x = self.act(x)
                return x

        class Always(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv2d(4, 4, 3)
                self.act = nn.Sigmoid()

            def forward(self, x):
                if x.dim() == 3:
                    x = x.unsqueeze(0)
                else:
                    x = x * 1
                x = self.act(self.conv(x))
                if not self.training:
                    x = x.clone()
                return x

        class Early(nn.Module):
            def __init__(self):
                super().__init__()
                self.act = nn.Sigmoid()

            def forward(self, x):
                y = self.act(x)
                if x.dim() == 3:
                    y = x * 2
                    return y
                return y
        """
    )
    # the activation may not run: the output is not known to be the activation's
    assert model.forward_output(model.cls("Block")) is None
    # every training path ends in the sigmoid (an eval-only branch and a branch that returns do not count)
    assert model.forward_output(model.cls("Always")) == "the output of `self.act` (sigmoid)"
    assert model.forward_output(model.cls("Early")) is None


def test_methods_by_name_across_imports_and_grad_disabled_results(tmp_path):
    write(tmp_path, {
        "pyproject.toml": "",
        "nets/__init__.py": "",
        "nets/landmarks.py": """
            import torch

            class Landmarks(torch.nn.Module):
                @torch.no_grad()
                def heatmap(self, x):
                    return torch.sigmoid(x)

                @torch.no_grad()
                def passthrough(self, x, y):
                    return x, y * 2
        """,
        "nets/build.py": """
            from nets.landmarks import Landmarks

            def build():
                return {"fan": Landmarks()}
        """,
        "solver.py": """
            from nets.build import build

            class Solver:
                def heatmap(self, x):
                    return x
        """,
    })
    model = model_of(tmp_path, "solver.py")
    found = {m.qualname for m in model.methods_named("heatmap")}
    # this module's classes, and those of the modules it imports and of theirs
    assert found == {"Solver.heatmap", "Landmarks.heatmap"}
    landmarks = [m for m in model.methods_named("heatmap") if m.qualname == "Landmarks.heatmap"][0]
    assert landmarks.returns_no_graph
    passthrough = model.methods_named("passthrough")[0]
    # it hands back an argument as given: that keeps the caller's graph
    assert passthrough.grad_disabled and passthrough.returns_argument and not passthrough.returns_no_graph


def test_factories_build_objects():
    model = alone(
        """
        import torch
        from torch import nn

        class Net(nn.Module):
            pass

        def build(wide):
            if wide:
                return Net()
            return nn.Linear(2, 2)

        def forward_pass(net, x):
            return net(x)

        def mixed(x):
            if x:
                return Net()
            return x * 2
        """
    )
    f = model.summary.functions
    assert model.returns_instances(f["build"])
    assert not model.returns_instances(f["forward_pass"]) and not model.returns_instances(f["mixed"])


def test_saved_output_of_configurable_callables_and_modules():
    model = alone(
        """
        import torch
        import torch.nn as nn
        import torch.nn.functional as F

        class Head(nn.Module):
            def __init__(self, squash=torch.sigmoid, train=True, act=None):
                super().__init__()
                self.squash = squash
                self.pick = F.softmax if train else torch.softmax
                self.mixed = torch.tanh if train else torch.sigmoid
                self.act = act
                self.gate = nn.Sigmoid()
                self.stack = nn.Sequential(nn.Linear(2, 2), nn.Tanh())
                self.plain = nn.Sequential(nn.Tanh(), nn.Linear(2, 2))
        """
    )
    saved = {name: a.saved_output for name, a in model.cls("Head").attributes.items()}
    assert saved == {
        "squash": "sigmoid", "pick": "softmax", "mixed": None, "act": None, "gate": "sigmoid", "stack": "tanh",
        "plain": None,
    }


def test_optimizer_assigned_in_another_method_is_an_optimizer():
    model = alone(
        """
        import torch
        class Trainer:
            def __init__(self):
                self.optimizer = None
            def setup(self):
                self.optimizer = torch.optim.Adam(self.model.parameters())
        """
    )
    attribute = model.attribute(model.cls("Trainer"), "optimizer")
    assert attribute.kind is AttrKind.OPTIMIZER and attribute.assigned_in == ["__init__", "setup"]


def test_project_class_bases_attributes_and_modules_across_files(tmp_path):
    write(
        tmp_path,
        {
            "pyproject.toml": "",
            "models/__init__.py": "",
            "models/blocks.py": """
                import torch.nn as nn
                class Block(nn.Module):
                    def __init__(self):
                        super().__init__()
                        self.body = nn.Sequential(nn.Linear(2, 2), nn.ReLU(inplace=True))
                    def forward(self, x):
                        return self.body(x)
            """,
            "models/base.py": """
                from .blocks import Block
                class BaseNet(Block):
                    def __init__(self):
                        super().__init__()
                        self.extra = Block()
            """,
            "train.py": """
                from models.base import BaseNet
                class Net(BaseNet):
                    def forward(self, x):
                        out = self.body(x)
                        out += x
                        return self.extra(out)
            """,
        },
    )
    model = model_of(tmp_path, "train.py")
    net = model.cls("Net")
    assert [c.qualname for c in model.mro(net)] == ["Net", "BaseNet", "Block"]
    assert "torch.nn.Module" in model.all_bases(net)
    assert model.framework(net) is Framework.MODULE
    body = model.attribute(net, "body")
    assert body.kind is AttrKind.MODULE and body.ends_inplace
    assert model.attribute(net, "extra").kind is AttrKind.MODULE  # a project nn.Module
    forward = model.callee(model.function("Net.forward"), "self.extra")
    assert isinstance(forward, ClassSummary) and forward.name == "Block"
    assert model.method(net, "forward") is model.function("Net.forward")


# --------------------------------------------------------------------------- frameworks


def test_lightning_automatic_and_manual():
    model = alone(
        """
        import lightning.pytorch as pl
        import pytorch_lightning
        class Auto(pl.LightningModule):
            def training_step(self, batch, batch_idx):
                return {"loss": self(batch).sum()}
        class Base(pytorch_lightning.LightningModule):
            pass
        class Manual(Base):
            def __init__(self):
                super().__init__()
                self.automatic_optimization = False
            def training_step(self, batch, i):
                opt = self.optimizers()
                loss = self(batch).sum()
                self.manual_backward(loss)
                opt.step()
                opt.zero_grad()
        """
    )
    auto = model.loop_contract(model.function("Auto.training_step"))
    assert auto.framework is Framework.LIGHTNING and auto.backward_returned and auto.steps_and_zero_grads
    assert auto.counter == "batch_idx" and auto.loss_key == "loss"
    manual_step = model.function("Manual.training_step")
    manual = model.loop_contract(manual_step)
    assert manual.framework is Framework.LIGHTNING and not manual.backward_returned and manual.counter == "i"
    assert manual_step.backward_calls[0].via == "manual_backward"
    assert manual_step.steps[0].known and [z.target for z in manual_step.zero_grads] == [Target("local", "opt")]


def test_hf_trainer_and_ignite():
    model = alone(
        """
        from transformers import Trainer
        from ignite.engine import Engine, Events

        class MyTrainer(Trainer):
            def compute_loss(self, model, inputs, return_outputs=False):
                return model(**inputs).loss

        def run():
            def update(engine, batch):
                return 0.0
            trainer = Engine(update)

        def update_fn(engine, batch):
            pass

        trainer = Engine(update_fn)

        @trainer.on(Events.ITERATION_COMPLETED)
        def log(engine):
            pass
        """
    )
    cls = model.cls("MyTrainer")
    assert model.framework(cls) is Framework.HF_TRAINER
    assert model.loop_contract(model.function("MyTrainer.compute_loss")).backward_returned
    ignite = model.loop_contract(model.function("update_fn"))
    assert ignite.framework is Framework.IGNITE and ignite.counter == "engine.state.iteration"
    assert model.loop_contract(model.function("log")) is not None
    assert model.loop_contract(model.function("run.update")) is not None


def test_unknown_library_base_is_unknown_not_plain():
    model = alone("from somelib import Base\nclass A(Base):\n    pass\nclass B:\n    pass\n")
    assert model.framework(model.cls("A")) is Framework.UNKNOWN
    assert model.framework(model.cls("B")) is Framework.NONE


# --------------------------------------------------------------------------- through the engine


def test_rule_context_model_is_lazy_and_linked(tmp_path):
    from autofix.context import FIND_PROJECT, RuleContext
    import libcst as cst
    from libcst.metadata import MetadataWrapper

    write(tmp_path, {"pyproject.toml": "", "lib.py": "def f(x):\n    return x.item()\n", "main.py": "from lib import f\n"})
    code = (tmp_path / "main.py").read_text()
    context = RuleContext(MetadataWrapper(cst.parse_module(code)), str(tmp_path / "main.py"), code)
    assert context.project_setting is FIND_PROJECT
    assert context.model.resolve_function("f").returns.kinds == {Kind.NUMBER}
    assert context.project is not None and context.project.root == tmp_path.resolve()
    stand_alone = RuleContext(MetadataWrapper(cst.parse_module(code)), str(tmp_path / "main.py"), code, project=None)
    assert stand_alone.model.resolve("f") is None


def test_summaries_are_plain_data():
    import pickle

    tree = ast.parse("import torch\nclass A:\n    def f(self, x):\n        return x.item()\n")
    summary = summarize(tree, "m", "m.py")
    assert pickle.loads(pickle.dumps(summary)).functions["A.f"].returns.kinds == {Kind.NUMBER}


def test_summarising_a_large_module_is_fast():
    source = "\n".join(
        f"class C{i}:\n    def f(self, x):\n        y = self.m(x)\n        y.backward()\n        self.opt.step()\n        return y.item()\n"
        for i in range(400)
    )
    start = time.perf_counter()
    model = alone(source)
    assert len(list(model.classes())) == 400
    # Linear and a few times Python's own parse; generous for a loaded machine.
    assert time.perf_counter() - start < 10.0


def test_accelerate_backward_accumulate_and_prepare():
    model = alone(
        """
        from accelerate import Accelerator
        acc = Accelerator(gradient_accumulation_steps=4)
        model, opt, loader = acc.prepare(model, opt, loader)
        for batch in loader:
            with acc.accumulate(model):
                loss = model(batch)
                acc.backward(loss)
                opt.step()
                opt.zero_grad()
            out = model(batch)
            out.backward(grad)
        """
    )
    body = model.function("<module>")
    assert [(b.tensor.name, b.via) for b in body.backward_calls] == [("loss", "accelerator"), ("out", None)]
    assert body.prepared == {"model", "opt", "loader"}
    assert body.sync_gated == [(6, 10)]
    assert [z.line for z in body.zero_grads] == [10]
    assert body.in_sync_gated(10) and not body.in_sync_gated(12)
    assert body.has_loop


def test_recording_lists_the_project_files_consulted(tmp_path):
    write(tmp_path, {"pyproject.toml": "", "lib.py": "def f(x):\n    return x\n", "other.py": "", "main.py": "from lib import f\n"})
    project = Project.for_path(tmp_path / "main.py")
    with project.recording() as consulted:
        model = model_of(tmp_path, "main.py")
        model.resolve("f")
    assert consulted == {str((tmp_path / "main.py").resolve()), str((tmp_path / "lib.py").resolve())}
    assert project.bytes_of(tmp_path / "lib.py") == (tmp_path / "lib.py").read_bytes()


def test_cached_result_is_dropped_when_an_imported_file_changes(tmp_path, monkeypatch):
    from autofix import api, engine
    from autofix.types import FileResult, Options

    write(tmp_path, {"pyproject.toml": "", "lib.py": "def f(x):\n    return x\n", "main.py": "from lib import f\n\nf(1).backward()\n"})
    real = engine.check_source

    def check_asking_about_lib(source, path, rules, options=None, project=None):
        # Stands for a rule that resolves an imported name through the project.
        model = model_for_source(source, path, project)
        assert model is not None and model.resolve("f") is not None
        return real(source, path, rules, options, project)

    monkeypatch.setattr(engine, "check_source", check_asking_about_lib)
    options = Options(cache_dir=str(tmp_path / "cache"))
    main = str(tmp_path / "main.py")
    assert isinstance(api.check_file(main, options), FileResult)
    assert api.cached_result(main, options) is not None
    (tmp_path / "lib.py").write_text("def f(x):\n    return x.item()\n")
    assert api.cached_result(main, options) is None  # lib.py changed: the stored result is stale


def test_function_at_a_line():
    model = alone(
        """
        import torch

        class Trainer:
            @staticmethod
            def helper(x):
                return x

            def fit(self, loader):
                def inner(batch):
                    return batch
                for batch in loader:
                    inner(batch)

        for step in range(3):
            pass
        """
    )
    assert model.function_at(6).qualname == "Trainer.helper"
    assert model.function_at(11).qualname == "Trainer.fit.inner"
    assert model.function_at(13).qualname == "Trainer.fit"
    assert model.function_at(16).qualname == "<module>"


def test_mutually_recursive_returns_terminate():
    model = alone(
        """
        def even(n):
            return odd(n - 1)

        def odd(n):
            return even(n - 1)

        def loss_of(x):
            return x.sum().item()

        def outer(x):
            return middle(x)

        def middle(x):
            return loss_of(x)
        """
    )
    assert model.returns(model.function("even")).kinds == {Kind.UNKNOWN}
    assert model.returns(model.function("outer")).kinds == {Kind.NUMBER}


# --------------------------------------------------------------------------- state a module carries across calls


def _carried(code: str) -> frozenset:
    model = alone(code)
    forward = model.function("Net.forward")
    assert forward is not None
    return forward.carried_self


def test_forward_rebuilding_an_attribute_from_its_old_value_carries_it():
    assert _carried(
        """
        import torch.nn as nn
        class Net(nn.Module):
            def forward(self, x):
                if self.h is None:
                    self.h = self.cell(x, self.h0)
                else:
                    self.h = self.cell(x, self.h)
                h = self.mem
                h = self.cell(x, h)
                self.mem = h
                self.steps += 1
                return self.h
        """
    ) == {"h", "mem"}


def test_forward_cutting_or_rebuilding_first_carries_nothing():
    assert _carried(
        """
        import torch, torch.nn as nn
        class Net(nn.Module):
            def forward(self, x):
                self.a = self.cell(x, self.a.detach())
                self.b = torch.zeros(3)
                self.b = self.cell(x, self.b)
                self.c.detach_()
                self.c = self.cell(x, self.c)
                with torch.no_grad():
                    self.d = self.d * 0.9 + x.mean()
                self.e = self.e.data + x
                return x
        """
    ) == frozenset()


def test_carried_state_follows_submodules_into_other_files(tmp_path):
    write(tmp_path, {
        ".git/HEAD": "",
        "pkg/__init__.py": "from .layers import Evolving\n",
        "pkg/layers.py": """
            import torch.nn as nn
            class Evolving(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.w = None
                    self.count = 0
                def reset(self):
                    self.w = None
                def forward(self, x):
                    self.w = x if self.w is None else self.gru(self.w, self.w)
                    self.count = self.count + 1
                    return x @ self.w
            """,
        "train.py": """
            import torch.nn as nn
            from pkg import Evolving
            class Wrapper(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.inner = Evolving()
                def forward(self, x):
                    return self.inner(x)
            model = Wrapper().to("cpu")
            """,
    })
    model = model_of(tmp_path, "train.py")
    body = model.function("<module>")
    assert body is not None
    wrapper = model.instance_class(body, "model")
    assert wrapper is not None and wrapper.name == "Wrapper"
    assert model.carried_state(wrapper) == {"inner.w": ("reset",)}
    inner = model.instance_class(body, "model.inner")
    assert inner is not None and inner.name == "Evolving"


# --------------------------------------------------------------------------- epochs


def test_an_imported_epoch_loops_backward_through_a_step_of_its_own_module(tmp_path):
    # ``run_epoch`` (in ``loops.py``) loops over ``train_batch``, which back-propagates; the module
    # that imports ``run_epoch`` defines no ``train_batch``, so the looped call is resolved in
    # ``loops.py``.
    write(tmp_path, {
        "pyproject.toml": "",
        "loops.py": """
            def train_batch(model, batch, opt):
                loss = model(batch).sum()
                loss.backward()
                opt.step()
                return loss.item()

            def run_epoch(model, batches, opt):
                total = 0.0
                for batch in batches:
                    total += train_batch(model, batch, opt)
                return total

            def one_step(model, batch, opt):
                return train_batch(model, batch, opt)
        """,
        "train.py": """
            from loops import run_epoch, one_step

            def fit(model, batches, opt):
                history = []
                for epoch in range(3):
                    history.append(run_epoch(model, batches, opt))
                    one_step(model, batches[0], opt)
                return history
        """,
    })
    model = model_of(tmp_path, "train.py")
    run_epoch = model.resolve("run_epoch")
    one_step = model.resolve("one_step")
    assert isinstance(run_epoch, FunctionSummary) and isinstance(one_step, FunctionSummary)
    assert model.loops_backward(run_epoch)
    assert model.runs_backward(one_step) and not model.loops_backward(one_step)


def test_a_run_calling_an_epoch_loops_backward(tmp_path):
    # ``run`` trains through ``epoch`` (whose loop back-propagates) and hands back what it kept after
    # that loop; so does whatever calls ``run`` in turn.
    write(tmp_path, {
        "pyproject.toml": "",
        "train.py": """
            def epoch(model, batches, opt):
                history = []
                for batch in batches:
                    loss = model(batch).sum()
                    loss.backward()
                    opt.step()
                    history.append(loss.item())
                return history

            def run(model, batches, opt):
                history = epoch(model, batches, opt)
                return {"losses": history, "steps": len(history)}

            def sweep(model, batches, opt):
                return run(model, batches, opt)

            def once(model, batch, opt):
                loss = model(batch).sum()
                loss.backward()
                return loss
        """,
    })
    model = model_of(tmp_path, "train.py")
    for name in ("epoch", "run", "sweep"):
        function = model.resolve(name)
        assert isinstance(function, FunctionSummary) and model.loops_backward(function), name
    once = model.resolve("once")
    assert isinstance(once, FunctionSummary) and model.runs_backward(once) and not model.loops_backward(once)


def test_configuration_reads_and_data_elements_hold_no_graph():
    model = alone(
        """
        import argparse
        import math
        import timm
        import torch
        from torch import nn

        parser = argparse.ArgumentParser()
        args = parser.parse_args()
        net = nn.Linear(2, 1)
        holder = Holder()
        backbone = timm.create_model("resnet18")

        def as_number(loss):
            loss.backward()
            return loss.item() / args.steps

        def as_element(loss):
            loss.backward()
            return loss.data[0] / args.steps

        def as_tensor(loss):
            loss.backward()
            return loss.data / args.steps * math.pi

        def scaled(loss):
            loss.backward()
            return loss * args.scale

        def of_object(loss):
            loss.backward()
            return loss.item() * holder.scale

        def of_param(loss, steps):
            return loss.item() / steps.count

        def rebound(loss, args):
            return loss.item() / args.steps

        def of_layer(loss):
            return loss.item() * net.weight

        def of_built_model(loss):
            return loss.item() * backbone.scale

        def bound_twice(batch):
            if batch is None:
                loss = 0.0
            else:
                loss = compute(batch)
                loss.backward()
            return loss * args.scale
        """
    )
    from autofix.model.summaries import Shape

    plain, tensor, graph, unknown = Kind.PLAIN, Kind.TENSOR, Kind.GRAPH, Kind.UNKNOWN
    expected = {
        "as_number": plain, "as_element": plain, "as_tensor": tensor, "scaled": graph,
        # an object of a class, or a value the caller passes, may hold tensors
        "of_object": unknown, "of_param": unknown, "rebound": unknown,
        # a module's weight is a leaf: arithmetic on it makes a graph; a library model may hold tensors
        "of_layer": unknown, "of_built_model": unknown,
        # back-propagated on one path only: a number on the other
        "bound_twice": unknown,
    }
    for name, kind in expected.items():
        function = model.function(name)
        assert function is not None
        assert function.returns.shapes == {Shape(kind)}, name


def test_a_run_with_many_helpers_before_its_epoch_loops_backward(tmp_path):
    # The search follows calls depth-first and forgets each branch it leaves: ten helpers called
    # before the epoch do not use up the depth limit.
    helpers = "".join(f"def helper{i}(x):\n    return x + {i}\n\n" for i in range(10))
    calls = "".join(f"    helper{i}(1)\n" for i in range(10))
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "train.py").write_text(
        helpers
        + "def epoch(model, batches):\n    for b in batches:\n        model(b).sum().backward()\n    return 1.0\n\n"
        + "def stage(model, batches):\n    return epoch(model, batches)\n\n"
        + "def run(model, batches):\n" + calls + "    return {'last': stage(model, batches)}\n"
    )
    model = model_of(tmp_path, "train.py")
    run = model.resolve("run")
    assert isinstance(run, FunctionSummary) and model.loops_backward(run)


def test_returned_pass_through_by_length_and_no_grad_returns():
    source = textwrap.dedent(
        """
        import torch
        from torch import nn

        class Refiner(nn.Module):
            def __init__(self):
                super().__init__()
                self.enc = nn.Linear(4, 4)
                self.dec = nn.Linear(4, 4)

            def first(self, x):
                with torch.no_grad():
                    return self.enc(x), x.mean()

            def forward(self, x, codes=None, full=False, *rest):
                if codes is None:
                    _, codes = self.first(x)
                out = self.dec(codes)
                if full:
                    return out, codes, rest
                return out

        class Holder:
            def __init__(self):
                self.net = Refiner().to("cpu")
        """
    )
    module = summarize(ast.parse(source), "m", "m.py")
    refiner = module.classes["Refiner"]
    assert refiner.methods["first"].returns_under_no_grad and refiner.methods["first"].returns_no_graph
    forward = refiner.methods["forward"]
    # ``return out`` is a tensor, no tuple: only the three-element return counts for three names.
    parts = forward.returned_pass_through[3]
    assert parts[0] == (frozenset(), frozenset({"self.dec"}))
    assert parts[1] == (frozenset({"codes"}), frozenset({"self.first"}))
    assert parts[2] is None  # ``*rest``: not a parameter passed through
    assert module.classes["Holder"].attributes["net"].constructor == "m.Refiner"


def test_configured_block_only_pads_its_input():
    from autofix.model.configured import input_only_padded

    source = textwrap.dedent(
        """
        class Block(nn.Module):
            def __init__(self, cin, cout, pad="zero", act="relu", act_first=False):
                super().__init__()
                if pad == "reflect":
                    self.pad = nn.ReflectionPad2d(1)
                else:
                    self.pad = nn.ZeroPad2d(1)
                if act == "relu":
                    self.act = nn.ReLU(inplace=True)
                elif act == "none":
                    self.act = None
                self.act_first = act_first
                self.conv = nn.Conv2d(cin, cout, 3)

            def forward(self, x):
                if self.act_first and self.act:
                    x = self.act(x)
                return self.conv(self.pad(x))

        a = Block(1, 2, act="none")
        b = Block(1, 2, act_first=True)
        c = Block(1, 2, act=kind, act_first=True)
        """
    )
    tree = ast.parse(source)
    block = tree.body[0]
    calls = [stmt.value for stmt in tree.body[1:]]
    assert input_only_padded(block, calls[0])
    assert not input_only_padded(block, calls[1])  # the in-place activation reads the input first
    assert not input_only_padded(block, calls[2])  # ``act`` is not a constant: undecidable


def test_every_element_of_a_returned_tuple_runs_the_modules_it_surely_comes_through():
    summary = summarize(ast.parse(textwrap.dedent("""
        def gan(d, g, real):
            fake = g(noise())
            on_fake = d(fake)
            return softplus(on_fake) + softplus(-d(real)), softplus(-on_fake)

        def vae_gan(d, g, real):
            fake = g.forward(noise())
            return softplus(d(fake)), mse(fake, real)

        def detached(d, g, real):
            fake = g(noise())
            return d(fake.detach()), d(fake).detach()

        def one(d, x):
            return d(x)
    """)))
    runs = {name: summary.functions[name].every_element_runs for name in ("gan", "vae_gan", "detached", "one")}
    # both losses of gan go through d's and g's forward; vae_gan's reconstruction never meets d
    assert runs["gan"] == {"d", "g"}
    assert runs["vae_gan"] == {"g"}
    # a detached value carries no forward: the second element comes through nothing
    assert runs["detached"] == set()
    # not a tuple: nothing to unpack
    assert runs["one"] == set()


def test_returned_element_sources_name_the_modules_each_element_may_come_through():
    module = ast.parse(textwrap.dedent("""
        import torch

        class Heads(torch.nn.Module):
            def forward(self, x):
                return self.actor(x), self.critic(x)

        class Trunk(torch.nn.Module):
            def forward(self, x):
                h = self.body(x)
                return self.pi(h), self.v(h)

        class Adversarial(torch.nn.Module):
            def forward(self, z):
                fake = self.gen(z)
                return self.disc(fake.detach()).mean(), self.disc(fake).mean(), self.h.pow(2), self.loss.critic(z)

        def rollout(actor, critic, n):
            values = torch.empty(0)
            total = 0
            for _ in range(n):
                s = torch.randn(1, 4)
                values = torch.cat((values, critic(s)))
                total += actor(torch.tensor(s)).sum().item()
            return values, actor(s), total, [c for c in s]
    """))
    functions = summarize(module).functions
    # a self attribute called is one run of it, spelled with the line and column of its call
    assert functions["Heads.forward"].returned_element_sources == {2: (frozenset({"self.actor@6:15"}), frozenset({"self.critic@6:30"}))}
    assert functions["Trunk.forward"].returned_element_sources == {
        2: (frozenset({"self.pi@11:15", "self.body@10:12"}), frozenset({"self.v@11:27", "self.body@10:12"}))
    }
    # two runs of one critic are two sources; a tensor's method on what self holds reads it;
    # a method of a held object is a run of it
    assert functions["Adversarial.forward"].returned_element_sources == {
        4: (
            frozenset({"self.disc@16:15"}), frozenset({"self.disc@16:48", "self.gen@15:15"}), frozenset({"self.h"}),
            frozenset({"self.loss@16:87"}),
        )
    }
    sources = functions["Adversarial.forward"].returned_element_sources[4]
    assert not sources_share(sources[0], sources[1])
    assert sources_share(sources[0], frozenset({"self.disc"}))  # a run and what the attribute holds
    # a loop's rebinding adds its own module; .item() and torch.tensor cut; a comprehension is not read
    assert functions["rollout"].returned_element_sources == {
        4: (frozenset({"critic"}), frozenset({"actor"}), frozenset(), None)
    }


def test_parameter_class_is_what_every_call_in_the_file_binds():
    model = model_for_source(textwrap.dedent("""
        import torch

        class Agent(torch.nn.Module):
            def forward(self, x):
                return self.actor(x), self.critic(x)

        def update(policy, states):
            return policy(states)

        def train(policy, states):
            update(policy, states)

        def other(model, states):
            update(model, states)

        agent = Agent()
        train(agent, torch.randn(2))
    """), "m.py", project=None)
    assert model is not None
    update = model.function("update")
    train = model.function("train")
    assert update is not None and train is not None
    found = model.parameter_class(train, "policy")
    assert found is not None and found.name == "Agent"
    # ``other`` passes a parameter no call binds: what ``update`` gets cannot be told
    assert model.parameter_class(update, "policy") is None
    assert model.returned_element_graphs(model.method(found, "forward")) == (frozenset({"self.actor@6:15"}), frozenset({"self.critic@6:30"}))


def test_returned_elements_are_read_once_per_name_however_often_each_is_bound():
    # a0 = x; a1 = a0; a1 = a0; ... each name bound twice: read path by path, 2**40 readings
    lines = ["def f(x, net):", "    a0 = x"]
    for i in range(1, 41):
        lines += [f"    a{i} = a{i - 1}", f"    a{i} = a{i - 1}"]
    lines.append("    return a40, net(a40)")
    summary = summarize(ast.parse("\n".join(lines) + "\n")).functions["f"]
    first, second = summary.returned_pass_through[2]
    assert first == (frozenset({"x"}), frozenset())
    assert second == (frozenset(), frozenset({"net"}))
    assert summary.every_element_runs == frozenset()


def test_a_factory_returning_a_name_it_built_constructs_and_its_module_runs_unknown_code():
    model = model_for_source(textwrap.dedent("""
        import torch
        import torch.nn as nn

        class Net(nn.Module):
            def forward(self, x):
                return x

        def create_model(opt):
            if opt.small:
                model = Net()
            else:
                model = Net()
            model = nn.DataParallel(model)
            return model

        def build(opt):
            return Net()

        def train(policy, x):
            return policy(x)

        wrapped = create_model(None)
        net = Net()
        layer = nn.Linear(2, 2)
    """), "m.py", project=None)
    assert model is not None
    create, build = model.function("create_model"), model.function("build")
    body = model.function("<module>")
    train = model.function("train")
    assert create is not None and build is not None and body is not None and train is not None
    assert model.returns_instances(create) and model.returns_instances(build)
    # what a DataParallel built by a factory wraps is not known; a project class or a torch.nn layer is
    assert not model.forward_readable(body, "wrapped")
    assert model.forward_readable(body, "net") and model.forward_readable(body, "layer")
    assert not model.forward_readable(train, "policy")


def test_returned_param_sources_leave_out_what_only_autograd_off_code_reads():
    summary = summarize(ast.parse(textwrap.dedent("""
        import torch

        def batch_norm(X, gamma, moving_mean, net):
            if not torch.is_grad_enabled():
                X_hat = X - moving_mean
            else:
                mean = X.mean(dim=0)
                X_hat = X - mean
                moving_mean = 0.9 * moving_mean + 0.1 * mean
            return gamma * X_hat, moving_mean, net(X)
    """)), "m")
    function = summary.functions["batch_norm"]
    (elements,) = function.returned_param_sources.values()
    assert elements[0] == frozenset({"gamma", "X"})  # moving_mean is read only with autograd off
    assert elements[1] == frozenset({"moving_mean", "X"})
    assert elements[2] == frozenset({"net()", "X"})  # a module handed in runs a graph of its own


def test_grad_hand_over_is_a_function_fact_found_through_a_base_class_in_another_file(tmp_path):
    write(tmp_path, {
        "pyproject.toml": "[project]\nname = 'p'\n",
        "workers/__init__.py": "",
        "workers/base.py": """
            def hand_over(model, shared, gpu=False):
                for param, shared_param in zip(model.parameters(), shared.parameters()):
                    shared_param._grad = param.grad

            class Base:
                def push(self):
                    for shared_param, param in zip(self.shared.parameters(), self.local.parameters()):
                        if shared_param.grad is not None:
                            return
                        shared_param._grad = param.grad

                def copy(self):
                    for shared_param, param in zip(self.shared.parameters(), self.local.parameters()):
                        shared_param._grad = param.grad.clone()
            """,
        "workers/a3c.py": """
            from .base import Base, hand_over

            class Worker(Base):
                def run(self):
                    self.push()
                    self.copy()
                    hand_over(self.local, self.shared)
            """,
    })
    model = model_of(tmp_path, "workers/a3c.py")
    run = model.function("Worker.run")
    assert run is not None
    push, copy, helper = (model.callee(run, spelled) for spelled in ("self.push", "self.copy", "hand_over"))
    assert isinstance(push, FunctionSummary) and [(h.local, h.conditional) for h in push.grad_hand_overs] == [
        (Target("self", "local"), True)
    ]
    # A copy of the gradients is not the local tensors: zeroing them later does not reach it.
    assert isinstance(copy, FunctionSummary) and not copy.grad_hand_overs
    assert isinstance(helper, FunctionSummary) and [(h.local, h.conditional, h.line) for h in helper.grad_hand_overs] == [
        (Target("param", "model"), False, 3)
    ]


def test_parameter_entry_read_through_a_local_alias_is_cut_when_every_read_is():
    """``kp = drawn["kp"]`` bound once, then only handed to a helper returning detached copies: the
    parameter is cut (first-order-model DiscriminatorFullModel.forward); a second binding of the
    local, or a read of it kept as it is, leaves it uncut."""
    model = alone("""
        import torch.nn as nn

        def frozen(d):
            return {k: v.detach() for k, v in d.items()}

        class Judge(nn.Module):
            def forward(self, real, drawn):
                kp = drawn["kp"]
                return self.score(real, frozen(kp)) + self.score(real, kp=frozen(kp))

        class Keeps(nn.Module):
            def forward(self, real, drawn):
                kp = drawn["kp"]
                return self.score(real, frozen(kp)) + kp["x"].sum()

        class Rebinds(nn.Module):
            def forward(self, real, drawn):
                kp = drawn["kp"]
                kp = drawn["other"]
                return self.score(real, frozen(kp))
    """)
    cut = {name: model.cut_params(model.summary.functions[f"{name}.forward"]) for name in ("Judge", "Keeps", "Rebinds")}
    assert "drawn" in cut["Judge"]
    assert "drawn" not in cut["Keeps"]
    assert "drawn" not in cut["Rebinds"]


def test_data_parallel_wrapper_runs_the_wrapped_class():
    """``net = Wrapper(net, device_ids=ids)`` where ``Wrapper`` derives from ``nn.DataParallel`` and
    defines no ``__init__``/``forward``/``__call__``: ``net`` still runs ``Net.forward``. Not a
    wrapper with a ``forward`` of its own, nor a wrapper of a wrapper."""
    model = alone("""
        import torch.nn as nn

        class Net(nn.Module):
            def forward(self, x):
                return x

        class Hooked(nn.DataParallel):
            def replicate(self, module, device_ids):
                return super().replicate(module, device_ids)

        class Own(nn.DataParallel):
            def forward(self, x):
                return x

        def train():
            a = Net()
            a = Hooked(a, device_ids=[])
            b = nn.DataParallel(Net())
            c = Own(Net())
            d = Hooked(nn.DataParallel(Net()))
            return a, b, c, d
    """)
    train = model.summary.functions["train"]
    found = {name: model.instance_class(train, name) for name in "abcd"}
    assert found["a"] is not None and found["a"].name == "Net"
    assert found["b"] is not None and found["b"].name == "Net"
    assert found["c"] is not None and found["c"].name == "Own"
    assert found["d"] is None


# --------------------------------------------------------------------------- state a holder re-creates per call

_HOLDER = """
    import torch
    import torch.nn as nn
    class Decoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.cell = nn.GRUCell(4, 4)
            self.state = None
        def init_state(self, n):
            self.state = torch.zeros(n, 4)
        def ensure_state(self, n):
            if self.state is None:
                self.state = torch.zeros(n, 4)
        def peek(self):
            return self.state
        def forward(self, x):
            self.state = self.cell(x, self.state)
            return self.state
    class Holder(nn.Module):
        def __init__(self, use_dec=True):
            super().__init__()
            self.use_dec = use_dec
            self.dec = Decoder()
    """


def _holder(body: str) -> ModuleModel:
    return alone(textwrap.dedent(_HOLDER) + textwrap.indent(body, " " * 4))


@pytest.mark.parametrize("body, reset", [
    # re-created at the start of every call
    ("def forward(self, x):\n    self.dec.init_state(x.size(0))\n    return self.dec(x)\n", True),
    # behind a flag only __init__ sets, which guards every use of the decoder
    ("def forward(self, x):\n    if self.use_dec:\n        self.dec.init_state(x.size(0))\n        x = self.dec(x)\n    return x\n", True),
    # a use outside the flag's branch reads the state where it was not re-created
    ("def forward(self, x):\n    if self.use_dec:\n        self.dec.init_state(x.size(0))\n    return self.dec(x)\n", False),
    # a method that reads the state, called outside the flag's branch
    ("def forward(self, x):\n    if self.use_dec:\n        self.dec.init_state(x.size(0))\n        x = self.dec(x)\n    return x\n"
     "def look(self):\n    return self.dec.peek()\n", False),
    # the flag is rebound after __init__
    ("def forward(self, x):\n    if self.use_dec:\n        self.dec.init_state(x.size(0))\n        x = self.dec(x)\n    return x\n"
     "def stream(self):\n    self.use_dec = False\n", False),
    # ``training`` changes with train()/eval()
    ("def forward(self, x):\n    if self.training:\n        self.dec.init_state(x.size(0))\n        x = self.dec(x)\n    return x\n", False),
    # only the first call creates it: a lazy start, not a reset
    ("def forward(self, x):\n    self.dec.ensure_state(x.size(0))\n    return self.dec(x)\n", False),
    # on some calls only (an argument decides), or after an early return
    ("def forward(self, x, fresh=False):\n    if fresh:\n        self.dec.init_state(x.size(0))\n    return self.dec(x)\n", False),
    ("def forward(self, x):\n    if x.dim() > 2:\n        return self.dec(x[0])\n    self.dec.init_state(x.size(0))\n    return self.dec(x)\n", False),
    # assigned a fresh value through the holder
    ("def forward(self, x):\n    self.dec.state = None\n    return self.dec(x)\n", True),
])
def test_holder_forward_resets_a_submodules_state_each_call(body, reset):
    model = _holder(body)
    holder = model.cls("Holder")
    assert holder is not None
    assert ("state" in model.reset_each_call(holder, "dec")) is reset
    assert ("dec.state" in model.carried_state(holder)) is not reset
