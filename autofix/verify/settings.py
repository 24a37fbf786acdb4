"""What a verification may do: where it runs, for how long, how close is equal."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional


@dataclass(frozen=True)
class VerifySettings:
    #: ``auto`` (CUDA when available), ``cpu`` or ``cuda``.
    device: str = "auto"
    #: Stop each run after this many optimizer steps (``None``: run to the end).
    max_steps: Optional[int] = None
    #: Seconds per run before its whole process group is killed.
    timeout: float = 300.0
    #: Override the dtype/device-aware tolerances of :func:`autofix.verify.compare.tolerance`.
    rtol: Optional[float] = None
    atol: Optional[float] = None
    #: Gradients are recorded for this many optimizer steps; later steps run unrecorded.
    record_steps: int = 100
    #: ... and until the recorded gradients take this many bytes (at least one step is kept).
    record_bytes: int = 256 << 20
    #: The live autograd graph is measured after this many first steps (a gc walk each).
    live_graph_steps: int = 10
    seed: int = 0
    #: Pass user code only the allowlisted environment variables (``--env-clean``; see :mod:`autofix.verify.launcher`).
    env_clean: bool = False
