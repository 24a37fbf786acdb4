"""Verdict wording and the cases a user trips on, judged from synthetic run records (no subprocess)."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from autofix.output.text import verification_text  # noqa: E402 (after the torch check)
from autofix.types import Expectation, FileResult, Finding, Verification  # noqa: E402 (after the torch check)
from autofix.verification import name_unfixed  # noqa: E402 (after the torch check)
from autofix.verify.compare import Run  # noqa: E402 (after the torch check)
from autofix.verify.settings import VerifySettings  # noqa: E402 (after the torch check)
from autofix.verify.verdict import decide  # noqa: E402 (after the torch check)

SETTINGS = VerifySettings(device="cpu")
G = torch.tensor([1.0, -2.0, 0.5])
INPLACE = "one of the variables needed for gradient computation has been modified by an inplace operation"
FREED = "Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed)."


def trace(line: int, code: str = "loss.backward()") -> str:
    return f'Traceback (most recent call last):\n  File "/tmp/x/train.py", line {line}, in <module>\n    {code}\nRuntimeError: ...\n'


def step(grad, pending=None):
    return {"optimizer": 0, "grads": {"w": grad}, "pending": {"w": grad if pending is None else pending}, "after_backward": {"w": grad}}


def failed(message, line, label="original", steps=(), backwards=()):
    exception = {"type": "RuntimeError", "message": message, "traceback": trace(line)}
    return Run(label, "failed", exception, list(steps), list(backwards), step_count=len(steps))


def completed(label, steps, backwards, live=()):
    return Run(label, "completed", None, list(steps), list(backwards), list(live), step_count=len(steps))


def test_same_failure_at_the_same_place_is_not_blamed_on_the_patch():
    # The patch removed a line above: the failing line moved from 29 to 28, its text did not.
    original = failed(INPLACE, 29, backwards=[{"step": 0, "nodes": 4}])
    patched = failed(INPLACE, 28, "patched", backwards=[{"step": 0, "nodes": 4}])
    verdict = decide(original, patched, [Expectation.IDENTICAL_OR_REPAIRED], SETTINGS)
    assert verdict.verdict == "inconclusive"
    assert verdict.detail.startswith("still fails: the patched run fails as the original did, at the same place")
    unfixed = Finding("train.py", "AF103", "inplace-autograd", "x (no fix: y)", 29, 13, 29, 20)
    result = FileResult("train.py", b"a", b"b", (unfixed,), applied_codes=("AF101",))
    named = name_unfixed(verdict, [result])
    assert named.detail.startswith("still fails: unfixed AF103 at 29:13; the patched run fails as the original did")


def test_a_failure_elsewhere_is_still_blamed_on_the_patch():
    original = failed(INPLACE, 29)
    patched = failed(INPLACE, 31, "patched")
    patched.exception["traceback"] = trace(31, "h.relu_()")
    assert decide(original, patched, [Expectation.IDENTICAL_OR_REPAIRED], SETTINGS).verdict == "patched-failed"


def test_a_removed_repeated_backward_is_repaired_against_the_first_contribution():
    # loss.backward(); loss.backward(): the original crashes on its second call; the
    # reference (graphs retained) doubles every gradient; the fix keeps one call.
    original = failed(FREED, 20, backwards=[{"step": 0, "nodes": 7}])
    reference = completed("reference", [step(2 * G)] * 3, [{"step": s, "nodes": 7} for s in (0, 0, 1, 1, 2, 2)])
    patched = completed("patched", [step(G)] * 3, [{"step": s, "nodes": 7} for s in (0, 1, 2)])
    verdict = decide(original, patched, [Expectation.IDENTICAL_OR_REPAIRED], SETTINGS, reference)
    assert verdict.verdict == "repaired", verdict.detail
    assert "matched the original's first backward() of each step (the repeated backward() was removed) on 3 steps" in verdict.detail
    # Dropping a loss term that is not a repeat (different graphs) stays diverged.
    other = completed("reference", [step(2 * G)] * 3, [{"step": s, "nodes": n} for s in (0, 1, 2) for n in (7, 9)])
    assert decide(original, patched, [Expectation.IDENTICAL_OR_REPAIRED], SETTINGS, other).verdict == "diverged"


def test_one_step_says_step_and_that_it_is_weak():
    original = completed("original", [step(G)], [{"step": 0, "nodes": 3}])
    patched = completed("patched", [step(G)], [{"step": 0, "nodes": 3}])
    verdict = decide(original, patched, [Expectation.IDENTICAL_OR_REPAIRED], SETTINGS)
    assert verdict.verdict == "identical"
    assert "gradients matched on 1 step;" in verdict.detail and "step(s)" not in verdict.detail
    assert "a weak verdict: only 1 step compared" in verdict.detail
    assert verification_text(verdict).startswith("verification identical (1 step compared, ")
    backwards = [{"step": s, "nodes": 3} for s in range(3)]
    three = decide(completed("original", [step(G)] * 3, backwards), completed("patched", [step(G)] * 3, backwards), [], SETTINGS)
    assert "on 3 steps" in three.detail and "weak" not in three.detail
    assert verification_text(Verification("identical", 3)).startswith("verification identical (3 steps compared)")


def test_live_graph_of_an_original_that_crashed_first_is_not_read_as_a_leak():
    original = failed(FREED, 20, backwards=[{"step": 0, "nodes": 7}])
    reference = completed("reference", [step(G)] * 2, [{"step": s, "nodes": 7} for s in (0, 1)], live=[5, 5])
    patched = completed("patched", [step(G)] * 2, [{"step": s, "nodes": 7} for s in (0, 1)], live=[5, 5])
    verdict = decide(original, patched, [Expectation.IDENTICAL_OR_REPAIRED], SETTINGS, reference)
    assert "live graph after step: original none (it failed first), patched flat at 5" in verdict.detail
