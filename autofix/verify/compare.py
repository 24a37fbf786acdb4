"""Records of finished runs, and the numeric comparisons the verdict is built from."""

from __future__ import annotations

import math
import os
import warnings
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

with warnings.catch_warnings():
    # torch warns on import when numpy is missing; numpy is not needed here.
    warnings.filterwarnings("ignore", message="Failed to initialize NumPy")
    import torch

from autofix.verify.launcher import RunOutcome

GRAPH_FREED = "Trying to backward through the graph a second time"
_INPLACE = (
    "modified by an inplace operation",
    "is being used in an in-place operation",
    # an in-place write to one of the views ``chunk``/``split``/``unbind`` returned
    "This view is the output of a function that returns multiple views",
)

# (rtol, atol) per dtype on CPU; torch.testing's defaults, float64 kept tight.
_TOLERANCE = {
    torch.float64: (1e-7, 1e-7),
    torch.float32: (1.3e-6, 1e-5),
    torch.float16: (1e-3, 1e-5),
    torch.bfloat16: (1.6e-2, 1e-5),
}
#: GPU kernels reorder reductions even when deterministic; widen by this factor.
CUDA_FACTOR = 10.0


@dataclass
class Run:
    label: str
    status: str  # completed | stopped | failed | timeout | no-record
    exception: Optional[Dict[str, str]] = None
    steps: List[Dict[str, Any]] = field(default_factory=list)
    backwards: List[Dict[str, Any]] = field(default_factory=list)
    live_graph: List[int] = field(default_factory=list)
    totals: Dict[str, torch.Tensor] = field(default_factory=dict)
    device: str = "cpu"
    output: str = ""
    seconds: float = 0.0
    #: Optimizer steps the run made (``steps`` holds only the recorded ones).
    step_count: int = 0

    @property
    def completed(self) -> bool:
        return self.status in ("completed", "stopped")

    @property
    def failure(self) -> Optional[str]:
        """``graph-freed``, ``inplace`` or ``other`` for a failed run."""
        if self.status != "failed":
            return None
        message = (self.exception or {}).get("message", "")
        if GRAPH_FREED in message:
            return "graph-freed"
        if any(text in message for text in _INPLACE):
            return "inplace"
        return "other"

    def describe_failure(self) -> str:
        if self.status == "timeout":
            return f"the {self.label} run timed out"
        if self.status == "no-record":
            return f"the {self.label} run left no record (crashed?)\n{self.output}"
        exc = self.exception or {}
        lines = exc.get("message", "").strip().splitlines()
        message = lines[0] if lines else ""
        if len(message) > 160:
            # Autograd's messages run to several sentences; the first one names the error.
            cut = message.rfind(". ", 0, 160)
            message = message[:cut + 1] if cut > 40 else message[:160] + "…"
        return f"{exc.get('type', 'error')}: {message}"

    def graph_sizes(self) -> List[int]:
        return [b["nodes"] for b in self.backwards]


def load_run(outcome: RunOutcome, label: str, command_mode: bool = False) -> Run:
    output = outcome.output()
    if outcome.timed_out:
        return Run(label, "timeout", output=output, seconds=outcome.seconds)
    if not os.path.exists(outcome.record_path):
        return Run(label, "no-record", output=output, seconds=outcome.seconds)
    record = torch.load(outcome.record_path, weights_only=True)
    status = record["status"]
    exception = record["exception"]
    if command_mode and status == "completed" and outcome.returncode not in (0, None):
        status = "failed"
        exception = exception or {"type": "CommandFailed", "message": f"exit status {outcome.returncode}", "traceback": ""}
    return Run(
        label,
        status,
        exception,
        record["steps"],
        record["backwards"],
        record["live_graph"],
        record["totals"],
        record["device"],
        output,
        outcome.seconds,
        record["step_count"],
    )


def tolerance(dtype: torch.dtype, device: str, rtol: Optional[float], atol: Optional[float]) -> Tuple[float, float]:
    base_rtol, base_atol = _TOLERANCE.get(dtype, (0.0, 0.0))
    if device.startswith("cuda"):
        base_rtol, base_atol = base_rtol * CUDA_FACTOR, base_atol * CUDA_FACTOR
    return (base_rtol if rtol is None else rtol, base_atol if atol is None else atol)


@dataclass(frozen=True)
class Mismatch:
    step: int  # 1-based; 0 for accumulated gradients of a run without steps
    param: str
    max_abs_diff: float
    reason: str = ""

    def describe(self) -> str:
        where = f"step {self.step}" if self.step else "accumulated gradients"
        text = f"{where}, parameter {self.param}: max abs diff {self.max_abs_diff:.3g}"
        return f"{text} ({self.reason})" if self.reason else text


class Comparer:
    def __init__(self, rtol: Optional[float] = None, atol: Optional[float] = None, device: str = "cpu") -> None:
        self.rtol, self.atol, self.device = rtol, atol, device
        self.max_abs_diff = 0.0
        #: Tensors compared so far (max_abs_diff means nothing while this is 0).
        self.compared = 0

    def tensors(self, step: int, name: str, a: Optional[torch.Tensor], b: Optional[torch.Tensor]) -> Optional[Mismatch]:
        if a is None and b is None:
            return None
        # A gradient set to None and a zero gradient mean the same to the optimizer.
        if a is None:
            assert b is not None
            a = torch.zeros_like(b)
        elif b is None:
            b = torch.zeros_like(a)
        if a.shape != b.shape:
            return Mismatch(step, name, float("inf"), f"shape {tuple(a.shape)} vs {tuple(b.shape)}")
        if a.numel() == 0:
            return None
        dtype = a.dtype if a.dtype == b.dtype else torch.promote_types(a.dtype, b.dtype)
        a, b = a.to(dtype), b.to(dtype)
        diff = float((a.double() - b.double()).abs().max())
        if math.isnan(diff):  # NaN somewhere: equal only if NaN in the same places
            if torch.equal(torch.isnan(a), torch.isnan(b)):
                a, b = torch.nan_to_num(a), torch.nan_to_num(b)
                diff = float((a.double() - b.double()).abs().max())
            else:
                return Mismatch(step, name, float("nan"), "NaN in one run only")
        self.max_abs_diff = max(self.max_abs_diff, diff)
        self.compared += 1
        rtol, atol = tolerance(dtype, self.device, self.rtol, self.atol)
        if not torch.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True):
            return Mismatch(step, name, diff, f"rtol {rtol:g}, atol {atol:g}{_scale_hint(a, b, rtol, atol)}")
        return None

    def dicts(self, step: int, a: Dict[str, Any], b: Dict[str, Any]) -> Optional[Mismatch]:
        for name in sorted(set(a) | set(b)):
            if name not in a or name not in b:
                return Mismatch(step, name, float("inf"), "parameter present in one run only")
            found = self.tensors(step, name, a[name], b[name])
            if found is not None:
                return found
        return None

    def steps(self, a: Run, b: Run, count: int) -> Optional[Mismatch]:
        """First mismatch of the gradients seen by ``step()`` over the first ``count`` steps."""
        for index in range(count):
            found = self.dicts(index + 1, a.steps[index]["grads"], b.steps[index]["grads"])
            if found is not None:
                return found
        return None

    def totals(self, a: Run, b: Run) -> Optional[Mismatch]:
        return self.dicts(0, a.totals, b.totals)

    def invariant(self, run: Run) -> Optional[Mismatch]:
        """AF104's invariant: at each step, every gradient is the sum of backward contributions since the previous step.

        Checked on what the last backward left (gradient clipping and AMP
        unscaling rescale it in place before ``step()``), plus: the optimizer
        must not see a zeroed gradient where backward left one.
        """
        for index, step in enumerate(run.steps):
            after = step.get("after_backward", step["grads"])
            for name in sorted(step["grads"]):
                left = after.get(name)
                found = self.tensors(index + 1, name, left, step["pending"].get(name))
                if found is not None:
                    return Mismatch(found.step, found.param, found.max_abs_diff, "gradient is not the sum of the backward contributions since the previous step")
                seen = step["grads"][name]
                if left is not None and bool(left.ne(0).any()) and (seen is None or not bool(seen.ne(0).any())):
                    return Mismatch(index + 1, name, float(left.abs().max()), "the optimizer sees a zeroed gradient where backward left one")
        return None

def _scale_hint(a: torch.Tensor, b: torch.Tensor, rtol: float, atol: float) -> str:
    """Name a uniform factor between the runs (a scaled or duplicated loss shows as one)."""
    a64, b64 = a.double().flatten(), b.double().flatten()
    norm = float(a64.dot(a64))
    if norm == 0.0:
        return ""
    factor = float(a64.dot(b64)) / norm
    if torch.allclose(b64, factor * a64, rtol=max(rtol, 1e-5), atol=atol):
        if abs(factor) < 1e-12:
            return "; the patched gradient is zero"
        return f"; patched = {factor:.4g} × baseline"
    return ""


def grows(sizes: List[int]) -> bool:
    """Monotone growth over at least three samples: a graph kept alive across iterations."""
    return len(sizes) >= 3 and sizes[-1] > sizes[0] and all(b >= a for a, b in zip(sizes, sizes[1:]))


def describe_sizes(sizes: List[int]) -> str:
    if not sizes:
        return "none"
    if min(sizes) == max(sizes):
        return f"flat at {sizes[0]}"
    monotone = all(b >= a for a, b in zip(sizes, sizes[1:]))
    trend = "growing" if monotone and sizes[-1] > sizes[0] else "varying"
    return f"{trend} {sizes[0]}→{sizes[-1]}"
