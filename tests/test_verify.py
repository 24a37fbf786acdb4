"""The gradient verifier: verdicts on real runs of corpus scripts and of injected wrong patches.

Every run is a real subprocess (forked from the warm helper), on CPU unless a
test asks for CUDA, stopped after a few optimizer steps.

Cases of our own live in ``tests/verify_cases/``: ``<name>.patched.py`` is a
patch of ``<name>.py`` (or of ``original=<other>``) and its first line says
what the verifier must find, ``# verify: codes=AF101 verdict=diverged``.
Corpus cases (``corpus/<rule>/<case>.py`` with a ``.fixed.py`` golden) are
verified against their golden; the verdict they must get follows from the
applied rule's expectation unless the case says otherwise with a header
``# autofix-test: verdict=<verdict>``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from corpus_cases import cases

from autofix import registry
from autofix.api import fix_source
from autofix.types import Expectation
from autofix.verify import (
    ACCEPTED_VERDICTS,
    VerifySettings,
    verify_command,
    verify_file,
)
from autofix.verify.compare import Comparer, Run, grows, tolerance
from autofix.verify.verdict import decide

HERE = Path(__file__).resolve().parent
VERIFY_CASES = HERE / "verify_cases"
CPU = VerifySettings(device="cpu", max_steps=5, timeout=60.0)
_HEADER = re.compile(r"^#\s*verify:(.*)$", re.MULTILINE)
_CORPUS_VERDICT = re.compile(r"^#\s*autofix-test:.*\bverdict=([\w-]+)", re.MULTILINE)


def _own_cases():
    found = []
    for patched in sorted(VERIFY_CASES.glob("*.patched.py")):
        header = dict(re.findall(r"(\w+)=(\S+)", _HEADER.search(patched.read_text()).group(1)))
        name = patched.name[: -len(".patched.py")]
        original = VERIFY_CASES / (header.get("original", name) + ".py")
        found.append(pytest.param(original, patched, header, id=name))
    return found


@pytest.mark.parametrize("original, patched, header", _own_cases())
def test_verify_case(original, patched, header):
    settings = VerifySettings(device="cpu", max_steps=5, timeout=float(header.get("timeout", 60)))
    result = verify_file(original.read_bytes(), patched.read_bytes(), str(original), tuple(header["codes"].split(",")), settings)
    assert result.verdict == header["verdict"], result.detail
    if result.verdict == "diverged":
        # A diverged verdict names where: step, parameter, max abs difference.
        assert re.search(r"step \d+, parameter \S+: max abs diff", result.detail), result.detail
    if result.verdict in ("identical", "repaired") and result.steps_compared:
        assert result.max_abs_diff is not None and result.max_abs_diff < 1e-4


# ------------------------------------------------------------------- corpus

_RESULTS = {}


def _corpus_cases():
    return [c for c in cases() if not c.negative and c.fixed_path.exists()]


# Verdicts decided case by case, until the case carries the header itself.
def _expected(case, codes):
    explicit = _CORPUS_VERDICT.search(case.source.read_text(encoding="utf-8"))
    if explicit:
        return {explicit.group(1)}
    expectations = {registry.get_rule(code).EXPECTATION for code in codes}
    if Expectation.INTENDED_CHANGE in expectations:
        return {"intended-change", "identical"}
    # IDENTICAL_OR_REPAIRED and REPAIRED: which of the two depends on whether the original fails.
    return {"identical", "repaired"}


def _verify_corpus(case):
    if case.id not in _RESULTS:
        source = case.source.read_bytes()
        applied = fix_source(source, str(case.source), case.options()).applied_codes or (case.source.parent.name,)
        result = verify_file(source, case.fixed_path.read_bytes(), str(case.source), applied, CPU)
        _RESULTS[case.id] = (applied, result)
    return _RESULTS[case.id]


@pytest.mark.parametrize("case", _corpus_cases(), ids=lambda c: c.id)
def test_corpus_fix_verifies(case):
    applied, result = _verify_corpus(case)
    assert result.verdict in _expected(case, applied), f"{case.id}: {result.verdict}: {result.detail}"


# Rules whose bug makes the original fail, and the verdict one of their cases at least must show.
_PER_RULE = {"AF101": "repaired", "AF102": "repaired", "AF103": "repaired", "AF104": "intended-change", "AF106": "repaired", "AF107": "identical"}


@pytest.mark.parametrize("code, verdict", sorted(_PER_RULE.items()))
def test_each_rule_has_a_corpus_case_with_its_verdict(code, verdict):
    mine = [c for c in _corpus_cases() if c.source.parent.name == code]
    if not mine:
        pytest.skip(f"no corpus case with a .fixed.py golden for {code} yet")
    results = {c.id: _verify_corpus(c)[1] for c in mine}
    verdicts = {name: r.verdict for name, r in results.items()}
    # ... and compares at least one optimizer step while at it.
    assert any(r.verdict == verdict and r.steps_compared for r in results.values()), verdicts


# ------------------------------------------------------------- run hygiene

TRAIN = """\
import torch
model = torch.nn.Linear(2, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    loss = model(torch.ones(1, 2)).sum()
    optimizer.zero_grad()
    loss.backward(){extra}
    optimizer.step()
"""


def test_files_a_run_writes_stay_out_of_the_users_tree(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(TRAIN.format(extra="\n    torch.save(model.state_dict(), 'checkpoint.pt')"))
    result = verify_file(script.read_bytes(), script.read_bytes(), str(script), (), CPU)
    assert result.verdict == "identical", result.detail
    assert sorted(p.name for p in tmp_path.iterdir()) == ["train.py"]


def test_max_steps_stops_a_run_cleanly(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(TRAIN.replace("range(3)", "range(10**9)").format(extra=""))
    result = verify_file(script.read_bytes(), script.read_bytes(), str(script), (), VerifySettings(device="cpu", max_steps=4, timeout=60))
    assert (result.verdict, result.steps_compared) == ("identical", 4)


def test_recording_is_bounded_by_bytes_but_the_run_goes_on(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(TRAIN.format(extra=""))
    settings = VerifySettings(device="cpu", record_bytes=1)
    result = verify_file(script.read_bytes(), script.read_bytes(), str(script), (), settings)
    assert (result.verdict, result.steps_compared) == ("identical", 1), result.detail


def test_timeout_kills_the_whole_process_group(tmp_path):
    pid_file = tmp_path / "child.pid"
    script = tmp_path / "spawns.py"
    script.write_text(textwrap.dedent(f"""\
        import subprocess, sys, time
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        open({str(pid_file)!r}, "w").write(str(child.pid))
        time.sleep(600)
        """))
    result = verify_file(script.read_bytes(), script.read_bytes(), str(script), (), VerifySettings(device="cpu", timeout=3))
    assert result.verdict == "inconclusive" and "timed out" in result.detail
    pid = int(pid_file.read_text())
    # The grandchild was killed with its group (it may linger as a zombie of init).
    try:
        with open(f"/proc/{pid}/status") as handle:
            assert "State:\tZ" in handle.read()
    except FileNotFoundError:
        pass


def test_plain_subprocess_without_the_zygote(monkeypatch):
    # Fresh interpreters cost seconds each; this case needs no optimizer import.
    monkeypatch.setenv("AUTOFIX_VERIFY_ZYGOTE", "0")
    original = VERIFY_CASES / "manual_sgd.py"
    patched = VERIFY_CASES / "manual_sgd.patched.py"
    result = verify_file(original.read_bytes(), patched.read_bytes(), str(original), ("AF101",), CPU)
    assert result.verdict == "repaired", result.detail


def test_graph_growth_is_reported():
    original = VERIFY_CASES / "af105_total_loss.py"
    patched = VERIFY_CASES / "af105_total_loss.patched.py"
    result = verify_file(original.read_bytes(), patched.read_bytes(), str(original), ("AF105",), CPU)
    assert result.verdict == "identical"
    assert re.search(r"live graph after step: original growing \d+→\d+, patched flat at \d+", result.detail), result.detail


def test_dropping_a_needless_retain_graph_shows_the_memory_it_kept():
    original = VERIFY_CASES / "af106_needless.py"
    patched = VERIFY_CASES / "af106_needless.patched.py"
    result = verify_file(original.read_bytes(), patched.read_bytes(), str(original), ("AF106",), CPU)
    assert result.verdict == "identical", result.detail
    # Each retained backward left its activations alive; the patched run frees them all.
    assert re.search(r"saved tensors kept alive after backward: original [\d.]+ KiB in 5 of 5 backward calls, patched none", result.detail), result.detail


def _corpus_case(name):
    return next(c for c in _corpus_cases() if c.id == name)


@pytest.mark.parametrize("name", ["AF106/plain_loop_regression", "AF106/trainer_method", "AF106/flag_in_kwargs"])
def test_af106_needless_flag_verifies_identical_with_less_memory(name):
    applied, result = _verify_corpus(_corpus_case(name))
    assert applied == ("AF106",)
    assert result.verdict == "identical", result.detail
    # The original kept every backward's saved activations; the patched run keeps none.
    assert re.search(r"saved tensors kept alive after backward: original [\d.]+ KiB in (\d+) of \1 backward calls, patched none", result.detail), result.detail


def test_af106_band_aid_verifies_repaired_with_flat_growth():
    applied, result = _verify_corpus(_corpus_case("AF106/carried_hidden_bandaid"))
    assert "AF106" in applied
    assert result.verdict == "repaired", result.detail
    # Each backward of the original walks back through every earlier chunk; the patched one only its own.
    assert re.search(r"graph nodes per backward: original growing (\d+)→\d+, patched flat at \1", result.detail), result.detail


# ------------------------------------------------------------ --verify-cmd


def test_verify_command_on_a_library_module(tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "__init__.py").write_text("")
    before = textwrap.dedent("""\
        import torch

        def train(model, optimizer, batches):
            for x in batches:
                features = model[0](x)
                first = model[1](features).pow(2).mean()
                second = model[1](features).abs().mean()
                optimizer.zero_grad()
                first.backward()
                second.backward()
                optimizer.step()
        """)
    after = before.replace("first.backward()\n        second.backward()", "(first + second).backward()")
    assert after != before
    (tmp_path / "lib" / "loop.py").write_text(before)
    (tmp_path / "train.py").write_text(textwrap.dedent("""\
        import sys
        import torch
        from lib.loop import train

        model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Linear(4, 1))
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        train(model, optimizer, torch.randn(int(sys.argv[1]), 5, 3))
        """))
    command = f"{sys.executable} train.py 4"  # this interpreter and a script: forks from the helper
    changes = {"lib/loop.py": (before.encode(), after.encode())}
    result = verify_command(str(tmp_path), changes, command, ("AF101",), CPU)
    assert result.verdict == "repaired" and result.steps_compared == 4, result.detail
    assert (tmp_path / "lib" / "loop.py").read_text() == before


def test_verify_command_that_fails_after_the_patch(tmp_path):
    # No optimizer here: a fresh interpreter that imports torch.optim costs seconds more.
    script = textwrap.dedent("""\
        import torch
        w = torch.ones(3, requires_grad=True)
        for step in range(3):
            (w * step).pow(2).sum().backward()
        """)
    broken = script + "raise SystemExit(3)\n"
    (tmp_path / "train.py").write_text(script)
    # A shell command line: runs as is, recorded through sitecustomize.
    command = f"cd . && {sys.executable} train.py"
    result = verify_command(str(tmp_path), {"train.py": (script.encode(), broken.encode())}, command, (), CPU)
    assert result.verdict == "patched-failed" and "exit status 3" in result.detail, result.detail


# ------------------------------------------------------------------ units


def _run(label, steps, status="completed", backwards=None):
    return Run(label, status, steps=steps, backwards=backwards or [{"step": 0, "nodes": 3}])


def _step(grad, pending=None):
    return {"optimizer": 0, "grads": {"w": grad}, "pending": {"w": grad if pending is None else pending}}


def test_tolerance_is_dtype_and_device_aware():
    assert tolerance(torch.float32, "cpu", None, None) == (1.3e-6, 1e-5)
    assert tolerance(torch.float64, "cpu", None, None)[1] < 1e-5
    assert tolerance(torch.float32, "cuda:0", None, None)[1] > 1e-5
    assert tolerance(torch.float32, "cpu", 0.1, None) == (0.1, 1e-5)


def test_none_gradient_equals_zero_gradient_and_nan_must_match():
    comparer = Comparer()
    assert comparer.tensors(1, "w", None, torch.zeros(3)) is None
    assert comparer.tensors(1, "w", torch.tensor([float("nan"), 1.0]), torch.tensor([float("nan"), 1.0])) is None
    assert comparer.tensors(1, "w", torch.tensor([float("nan")]), torch.tensor([1.0])) is not None


def test_float32_noise_passes_a_real_difference_does_not():
    comparer = Comparer()
    base = torch.linspace(-1, 1, 100)
    assert comparer.tensors(1, "w", base, base + 1e-7) is None
    mismatch = comparer.tensors(2, "w", base, base + 1e-3)
    assert mismatch is not None and mismatch.step == 2 and abs(mismatch.max_abs_diff - 1e-3) < 1e-6


def test_intended_change_needs_the_invariant_in_the_patched_run():
    one, two = torch.ones(2), torch.full((2,), 2.0)
    # Original: gradients pile up (no zero_grad), so the invariant breaks at step 2.
    original = _run("original", [_step(one), _step(two, pending=one)])
    fixed = _run("patched", [_step(one), _step(one)])
    verdict = decide(original, fixed, {Expectation.INTENDED_CHANGE}, CPU)
    assert verdict.verdict == "intended-change", verdict.detail
    still_broken = _run("patched", [_step(one), _step(two * 2, pending=one)])
    assert decide(original, still_broken, {Expectation.INTENDED_CHANGE}, CPU).verdict == "diverged"
    # Without the rule's declaration the same change is a divergence.
    assert decide(original, fixed, {Expectation.IDENTICAL_OR_REPAIRED}, CPU).verdict == "diverged"


def test_graph_growth_detection():
    assert grows([10, 20, 30]) and not grows([10, 10, 10]) and not grows([10, 30, 20]) and not grows([10, 20])


# --------------------------------------------------------------- end to end


def _autofix(*args, cwd):
    return subprocess.run(
        [sys.executable, "-m", "autofix", *args],
        check=False,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _cli_has_verify():
    try:
        from autofix import cli
    except ImportError:
        return False
    return "--verify" in Path(cli.__file__).read_text()


needs_cli = pytest.mark.skipif(not _cli_has_verify(), reason="the CLI has no --verify yet")


@pytest.fixture
def good_and_bad(tmp_path):
    good = tmp_path / "good.py"
    good.write_bytes((VERIFY_CASES / "af101_two_losses.py").read_bytes())
    # The fix is right, but the script exits 3 once its loop survives the
    # fixed line: the patched run fails (the original failed earlier).
    bad = tmp_path / "bad.py"
    bad.write_text((VERIFY_CASES / "af101_two_losses.py").read_text() + "raise SystemExit(3)\n")
    return good, bad


@needs_cli
def test_cli_diff_verify_reports_the_verdicts(tmp_path, good_and_bad):
    before = [p.read_bytes() for p in good_and_bad]
    done = _autofix("--diff", "--verify", "--device", "cpu", "--max-steps", "10", "good.py", "bad.py", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert "+    (loss_a + loss_b).backward()" in done.stdout
    text = done.stdout + done.stderr
    assert "good.py: verification repaired" in text and "bad.py: verification patched-failed" in text, text
    assert [p.read_bytes() for p in good_and_bad] == before


@needs_cli
def test_cli_write_verify_writes_only_what_passes(tmp_path, good_and_bad):
    good, bad = good_and_bad
    source = bad.read_text()
    flags = ("--verify", "--device", "cpu", "--max-steps", "10", "--format", "json")
    done = _autofix("--write", *flags, "bad.py", "good.py", cwd=tmp_path)
    assert done.returncode == 1
    verdicts = {f["path"]: f["verification"]["verdict"] for f in json.loads(done.stdout)["files"]}
    assert verdicts == {"bad.py": "patched-failed", "good.py": "repaired"}, done.stderr
    assert "(loss_a + loss_b).backward()" in good.read_text()
    assert bad.read_text() == source, "a fix whose verification failed was written without --force"


@needs_cli
def test_cli_verify_cmd_runs_from_the_working_directory(tmp_path):
    # `autofix --diff lib/ --verify-cmd "python train.py"`: train.py sits next to
    # lib/, so the project copied for the command is the working directory.
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "__init__.py").write_text("")
    (tmp_path / "lib" / "loop.py").write_text(textwrap.dedent("""\
        def train(model, optimizer, batches):
            for x in batches:
                out_a, out_b = model(x).chunk(2, dim=1)
                loss_a = out_a.pow(2).mean()
                loss_b = out_b.abs().mean()
                optimizer.zero_grad()
                loss_a.backward()
                loss_b.backward()
                optimizer.step()
        """))
    (tmp_path / "train.py").write_text(textwrap.dedent("""\
        import torch
        from lib.loop import train

        model = torch.nn.Linear(3, 4)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        train(model, optimizer, torch.randn(3, 5, 3))
        """))
    done = _autofix("--diff", "--device", "cpu", "--format", "json", "--verify-cmd", f"{sys.executable} train.py", "lib", cwd=tmp_path)
    files = {f["path"]: f for f in json.loads(done.stdout)["files"]}
    verdict = files[os.path.join("lib", "loop.py")]["verification"]
    assert verdict is not None and verdict["verdict"] == "repaired", (verdict, done.stderr)


# -------------------------------------------------------------------- CUDA

cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")


@cuda
@pytest.mark.parametrize("original, patched, header", _own_cases())
def test_verify_case_on_cuda(original, patched, header):
    settings = VerifySettings(device="cuda", max_steps=5, timeout=float(header.get("timeout", 120)))
    result = verify_file(original.read_bytes(), patched.read_bytes(), str(original), tuple(header["codes"].split(",")), settings)
    assert result.verdict == header["verdict"], result.detail


@cuda
def test_scripts_without_a_device_land_on_cuda(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(TRAIN.format(extra="\n    assert loss.is_cuda, loss.device"))
    result = verify_file(script.read_bytes(), script.read_bytes(), str(script), (), VerifySettings(device="auto", max_steps=2))
    assert result.verdict == "identical", result.detail


def test_cuda_request_without_cuda_is_inconclusive(tmp_path):
    if torch.cuda.is_available():
        pytest.skip("a CUDA device is present")
    script = tmp_path / "train.py"
    script.write_text(TRAIN.format(extra=""))
    result = verify_file(script.read_bytes(), script.read_bytes(), str(script), (), VerifySettings(device="cuda", max_steps=2))
    assert result.verdict == "inconclusive" and "CUDA" in result.detail


def test_accepted_verdicts_match_design():
    assert ACCEPTED_VERDICTS == {"identical", "repaired", "intended-change"}


def test_importing_the_verifier_does_not_import_torch():
    code = "import sys, autofix.verify; assert 'torch' not in sys.modules, 'torch imported'"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


_IN_PLACE_DRAWS = r"""
import torch
import torch.nn.functional as F
from autofix.verify.bootstrap import _same_random_draws_in_place

_same_random_draws_in_place(torch)
x = torch.randn(4, 6, requires_grad=True)

torch.manual_seed(1)
out_of_place = F.dropout(x * 1, 0.5, True, False)
torch.manual_seed(1)
y = x * 1
before = y._version
returned = F.dropout(y, 0.5, True, True)
assert returned is y and y._version > before
assert torch.equal(y, out_of_place)
y.sum().backward()
grad_in_place = x.grad.clone()
x.grad = None
out_of_place.sum().backward()
assert torch.equal(grad_in_place, x.grad)

# Outside training the in-place form does nothing, as before: no version bump.
z = x * 1
before = z._version
assert F.dropout(z, 0.5, training=False, inplace=True) is z and z._version == before
# nn.Dropout(inplace=True) goes through it too, and the in-place error autograd
# raises on softmax's saved output is still raised.
weights = torch.softmax(x, dim=-1)
torch.nn.Dropout(0.5, inplace=True)(weights)
try:
    weights.sum().backward()
except RuntimeError as exc:
    assert "inplace operation" in str(exc)
else:
    raise AssertionError("the in-place error vanished")
print("ok")
"""


def test_in_place_dropout_draws_the_out_of_place_mask():
    # CUDA runs use this so that an AF103 fix dropping inplace=True compares the same masks.
    done = subprocess.run([sys.executable, "-c", _IN_PLACE_DRAWS], capture_output=True, text=True, check=False)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
