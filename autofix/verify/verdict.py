"""From recorded runs to one DESIGN.md verdict, judged against the applied rules' expectations."""

from __future__ import annotations

import os
import re
from typing import Callable, Dict, Iterable, List, Optional, Tuple

from autofix.types import STILL_FAILS, Expectation, Verification
from autofix.verify.compare import Comparer, Mismatch, Run, describe_sizes, grows
from autofix.verify.settings import VerifySettings

IDENTICAL = "identical"
REPAIRED = "repaired"
INTENDED_CHANGE = "intended-change"
DIVERGED = "diverged"
PATCHED_FAILED = "patched-failed"
INCONCLUSIVE = "inconclusive"
#: Verdicts that let ``--write --verify`` write the file.
ACCEPTED = frozenset({IDENTICAL, REPAIRED, INTENDED_CHANGE})

Rerun = Callable[[Run], Run]
_REFERENCE_BASIS = {
    "graph-freed": "the original re-run with graphs retained",
    "inplace": "the original re-run with autograd's saved tensors copied before any in-place change",
}


def growth_note(original: Run, patched: Run) -> str:
    text = (
        f"graph nodes per backward: {_sizes(original, original.graph_sizes())}, "
        f"{_sizes(patched, patched.graph_sizes())}"
    )
    if original.live_graph or patched.live_graph:
        text += (
            f"; live graph after step: {_sizes(original, original.live_graph)}, "
            f"{_sizes(patched, patched.live_graph)}"
        )
    memory = retained_note(original, patched)
    return f"{text}; {memory}" if memory else text


def retained_note(original: Run, patched: Run) -> str:
    """What ``retain_graph=True`` kept alive: saved-tensor bytes left by each backward (AF106)."""
    runs = [[b.get("retained_bytes", 0) for b in run.backwards] for run in (original, patched)]
    if not any(any(sizes) for sizes in runs):
        return ""
    first, second = (_describe_retained(sizes) for sizes in runs)
    return f"saved tensors kept alive after backward: original {first}, patched {second}"


def _describe_retained(sizes: List[int]) -> str:
    kept = [s for s in sizes if s]
    if not kept:
        return "none"
    return f"{_kib(sum(kept) / len(kept))} in {len(kept)} of {len(sizes)} backward calls"


def _kib(size: float) -> str:
    return f"{size / 1024:.1f} KiB" if size < 1 << 20 else f"{size / (1 << 20):.1f} MiB"


def _sizes(run: Run, sizes: List[int]) -> str:
    # "original none" next to "patched flat at 5" reads as a leak the patch added,
    # when the original merely crashed before it got there.
    if not sizes and not run.completed:
        return f"{run.label} none (it failed first)"
    return f"{run.label} {describe_sizes(sizes)}"


def steps(count: int) -> str:
    return f"{count} step" if count == 1 else f"{count} steps"


#: Said of a verdict that compared a single step.
WEAK = "a weak verdict: only 1 step compared (a longer run, e.g. --max-steps 5, checks more)"


def innermost_frame(run: Run) -> Optional[Tuple[str, str, str]]:
    """(file name, function, source line) of the deepest frame of a failed run's traceback."""
    text = (run.exception or {}).get("traceback", "")
    frames = _FRAME.findall(text)
    if not frames:
        return None
    filename, function, line = frames[-1]
    return os.path.basename(filename), function, line.strip()


_FRAME = re.compile(r'File "([^"]+)", line \d+, in (\S+)\n[ \t]+(\S[^\n]*)')


def growth_start(run: Run) -> int:
    """Steps completed before the first backward whose graph is larger than the first one."""
    sizes = run.graph_sizes()
    for record in run.backwards:
        if sizes and record["nodes"] > sizes[0]:
            return record["step"]
    return len(run.steps)


def _failure_detail(run: Run) -> str:
    parts = [run.describe_failure()]
    if run.exception and run.exception.get("traceback"):
        parts.append(run.exception["traceback"].rstrip())
    if run.output.strip():
        parts.append("output:\n" + run.output.rstrip()[-2000:])
    return "\n".join(parts)


class _Judge:
    def __init__(self, original: Run, patched: Run, expectations: Iterable[Expectation], settings: VerifySettings,
                 reference: Optional[Run], rerun: Optional[Rerun]) -> None:
        self.original, self.patched, self.reference = original, patched, reference
        self.expectations = set(expectations)
        self.settings = settings
        self.rerun = rerun
        self.comparer = Comparer(settings.rtol, settings.atol, patched.device)

    def verdict(self, verdict: str, compared: int, detail: str) -> Verification:
        max_abs = self.comparer.max_abs_diff if self.comparer.compared else None
        notes = [detail, WEAK if compared == 1 and verdict in ACCEPTED else "", growth_note(self.original, self.patched)]
        return Verification(verdict, compared, max_abs, "; ".join(n for n in notes if n))

    def compare(self, baseline: Run, count: int) -> Optional[Mismatch]:
        found = self.comparer.steps(baseline, self.patched, count)
        if found is None and count == 0 and not baseline.steps and not self.patched.steps and baseline.completed:
            # No optimizer at all: compare the gradients accumulated over the whole run.
            found = self.comparer.totals(baseline, self.patched)
        return found

    # ------------------------------------------------------------------ judge

    def judge(self) -> Verification:
        original, patched = self.original, self.patched
        for run in (original, patched):
            if run.status == "timeout":
                return Verification(INCONCLUSIVE, 0, None, f"{run.describe_failure()} after {self.settings.timeout:g}s")
        if not patched.completed:
            if self.same_failure():
                return Verification(
                    INCONCLUSIVE,
                    0,
                    None,
                    f"{STILL_FAILS}the patched run fails as the original did, at the same place, so the "
                    "fix is neither proven nor to blame (a finding without a fix is the likely cause): "
                    + _failure_detail(patched),
                )
            same = (
                original.status == patched.status
                and original.failure in ("other", None)
                and (original.exception or {}).get("message") == (patched.exception or {}).get("message")
            )
            if same:
                return Verification(INCONCLUSIVE, 0, None, "both runs fail the same way, nothing to compare: " + _failure_detail(patched))
            return Verification(PATCHED_FAILED, 0, None, "the patched run raised " + _failure_detail(patched))
        if original.status == "no-record":
            return Verification(INCONCLUSIVE, 0, None, _failure_detail(original))
        # Gradients computed with autograd.grad and handed to step() are still compared.
        if not original.backwards and not patched.backwards and not original.steps and not patched.steps:
            return Verification(INCONCLUSIVE, 0, None, "no backward() or optimizer step observed in either run")
        if original.failure == "other":
            return Verification(INCONCLUSIVE, 0, None, "the original fails with an error no rule repairs: " + _failure_detail(original))
        if original.failure is not None:
            return self.judge_failed_original()
        return self.judge_completed_original()

    def same_failure(self) -> bool:
        """Both runs failed with autograd's error, the same message, at the same source line."""
        original, patched = self.original, self.patched
        if original.failure in (None, "other") or original.failure != patched.failure:
            return False
        if (original.exception or {}).get("message") != (patched.exception or {}).get("message"):
            return False
        where = innermost_frame(original)
        return where is not None and where == innermost_frame(patched)

    def removed_repeat(self, baseline: Run, count: int) -> Optional[int]:
        """Steps on which the patched run matches the baseline's first backward() of each step, or None.

        AF101's fix for a repeated ``backward()`` of one loss removes the repeat:
        the author meant the gradient once, so the reference is the original's
        first backward contribution. A repeat through the same graph (same node
        count, after ``zero_grad()``) contributes the same gradient again, so
        that contribution is the step's gradient divided by its number of backwards.
        """
        per_step: Dict[int, List[int]] = {}
        for record in baseline.backwards:
            per_step.setdefault(record["step"], []).append(record["nodes"])
        patched_per_step: Dict[int, int] = {}
        for record in self.patched.backwards:
            patched_per_step[record["step"]] = patched_per_step.get(record["step"], 0) + 1
        if count == 0:
            return None
        comparer = Comparer(self.settings.rtol, self.settings.atol, self.patched.device)
        for index in range(count):
            nodes = per_step.get(index, [])
            repeats, kept = len(nodes), patched_per_step.get(index, 0)
            if not (0 < kept < repeats) or len(set(nodes)) != 1:
                return None
            step = baseline.steps[index]
            if comparer.dicts(index + 1, step["grads"], step["pending"]) is not None:
                return None  # gradients carried over from before the step: not one contribution each
            first = {name: None if g is None else g * (kept / repeats) for name, g in step["grads"].items()}
            if self.comparer.dicts(index + 1, first, self.patched.steps[index]["grads"]) is not None:
                return None
        return count

    def judge_failed_original(self) -> Verification:
        original, patched, reference = self.original, self.patched, self.reference
        failure = f"the original failed at step {len(original.steps) + 1} ({original.describe_failure()})"
        baseline, basis = original, "the original up to its failure"
        if Expectation.REPAIRED not in self.expectations and reference is not None and reference.completed:
            baseline, basis = reference, _REFERENCE_BASIS[original.failure or ""]
        count = min(len(baseline.steps), len(patched.steps))
        if baseline is original and Expectation.REPAIRED in self.expectations:
            # Where the original's graph starts reaching into earlier iterations its
            # gradients differ by design (the fix truncates that history).
            count = min(count, growth_start(original))
        mismatch = self.compare(baseline, count)
        if mismatch is None and baseline is reference and patched.step_count != reference.step_count:
            mismatch = Mismatch(count + 1, "-", float("inf"), f"the reference made {reference.step_count} steps, the patched run {patched.step_count}")
        if mismatch is not None and baseline is reference and self.removed_repeat(reference, count) is not None:
            return self.verdict(
                REPAIRED,
                count,
                f"{failure}; the patched run completed and matched the original's first backward() of each step "
                f"(the repeated backward() was removed) on {steps(count)}",
            )
        if mismatch is None:
            if Expectation.REPAIRED in self.expectations and grows(patched.graph_sizes()):
                return self.verdict(DIVERGED, count, f"{failure}; the patched run's graph still grows")
            if count == 0:
                return self.verdict(REPAIRED, 0, f"{failure}; the patched run completed (no step before the failure to compare)")
            return self.verdict(REPAIRED, count, f"{failure}; the patched run completed and matched {basis} on {steps(count)}")
        return self.explain_mismatch(mismatch, count, baseline, f"{failure}; compared with {basis}")

    def judge_completed_original(self) -> Verification:
        original, patched = self.original, self.patched
        count = min(len(original.steps), len(patched.steps))
        mismatch = self.compare(original, count)
        if mismatch is None and original.step_count != patched.step_count:
            mismatch = Mismatch(count + 1, "-", float("inf"), f"the original made {original.step_count} steps, the patched run {patched.step_count}")
        if mismatch is None:
            return self.verdict(IDENTICAL, count, f"both runs completed; gradients matched on {steps(count)}")
        if Expectation.REPAIRED in self.expectations and grows(original.graph_sizes()) and not grows(patched.graph_sizes()):
            # A leak the fix removes: the gradients must agree until the original's graph starts to grow.
            growth_step = growth_start(original)
            early = self.compare(original, min(count, growth_step))
            if early is None:
                return self.verdict(REPAIRED, min(count, growth_step), f"the original's graph grows from step {growth_step + 1}; the patched run's does not, and it matched the original on the {steps(growth_step)} before")
        return self.explain_mismatch(mismatch, count, original, "both runs completed")

    def explain_mismatch(self, mismatch: Mismatch, count: int, baseline: Run, context: str) -> Verification:
        if Expectation.INTENDED_CHANGE in self.expectations:
            invariant = Comparer(self.settings.rtol, self.settings.atol, self.patched.device)
            broken = invariant.invariant(self.patched)
            before = invariant.invariant(baseline)
            if broken is None and (before is None or mismatch.step >= before.step) and before is not None:
                return self.verdict(
                    INTENDED_CHANGE,
                    count,
                    f"{context}; gradients differ from {mismatch.describe()}, where the original breaks the "
                    f"invariant ({before.describe()}); the patched run keeps it at every step",
                )
            if broken is not None:
                return self.verdict(DIVERGED, count, f"{context}; first difference at {mismatch.describe()}; the patched run breaks the invariant at {broken.describe()}")
        if self.rerun is not None:
            again = self.rerun(baseline)
            noise = Comparer(self.settings.rtol, self.settings.atol, self.patched.device).steps(
                baseline, again, min(len(baseline.steps), len(again.steps))
            )
            if noise is not None or again.status != baseline.status:
                return Verification(INCONCLUSIVE, count, None, f"nondeterminism: two runs of the {baseline.label} differ ({noise.describe() if noise else again.status})")
        return self.verdict(DIVERGED, count, f"{context}; first difference at {mismatch.describe()}")


def decide(original: Run, patched: Run, expectations: Iterable[Expectation], settings: VerifySettings,
           reference: Optional[Run] = None, rerun: Optional[Rerun] = None) -> Verification:
    return _Judge(original, patched, expectations, settings, reference, rerun).judge()
