"""The inside of one verification run: ``python -m autofix.verify.bootstrap CONFIG.json``.

Before the user's code runs it fixes the seeds, requests deterministic
algorithms, selects the device and installs the :class:`Recorder`; then it runs
the script as ``__main__`` and writes the record. The same preparation serves
``--verify-cmd`` runs through :func:`install_from_env` (see ``_site/``).
"""

from __future__ import annotations

import atexit
import importlib.util
import json
import os
import random
import runpy
import sys
from typing import Any, Dict

CONFIG_ENV = "AUTOFIX_VERIFY_CONFIG"


def prepare(config: Dict[str, Any]):
    # cuBLAS reads this when CUDA initialises; set it before any CUDA work.
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    import torch

    from autofix.verify.recorder import Recorder

    device = config.get("device", "auto")
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise RuntimeError("autofix verify: --device cuda requested but CUDA is not available")

    seed = int(config.get("seed", 0))
    random.seed(seed)
    torch.manual_seed(seed)
    if importlib.util.find_spec("numpy") is not None:
        import numpy

        numpy.random.seed(seed)
    _deterministic(torch)
    if device == "cuda":
        torch.cuda.manual_seed_all(seed)
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        torch.backends.cudnn.benchmark = False
        torch.backends.cudnn.deterministic = True
        # Scripts that create tensors without a device land on the GPU.
        torch.set_default_device("cuda")
        _same_random_draws_in_place(torch)

    recorder = Recorder(
        record_path=config["record"],
        max_steps=config.get("max_steps"),
        record_steps=int(config.get("record_steps", 100)),
        retain_graph=bool(config.get("retain_graph", False)),
        clone_saved=bool(config.get("clone_saved", False)),
        live_graph_steps=int(config.get("live_graph_steps", 10)),
        record_bytes=int(config.get("record_bytes", 256 << 20)),
        evidence=config.get("doctor"),
    )
    recorder.install()
    return recorder


#: Random ops whose in-place form CUDA computes with another kernel than the out-of-place one.
RANDOM_IN_PLACE = ("dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout")


def _same_random_draws_in_place(torch) -> None:
    """Make ``F.dropout(x, inplace=True)`` draw the mask ``inplace=False`` draws.

    On CUDA the in-place form uses another kernel than the fused out-of-place
    one, so the masks differ for one seed, and an AF103 fix that only drops
    ``inplace=True`` would compare different masks (seen on an H200: a
    ``diverged`` that CPU calls ``repaired``). Every run computes the in-place
    form as the out-of-place one copied into the input: the same values, the
    same version bump (so the same in-place error), the same random draws as
    the fixed code. Outside training the function is left to do what it does
    (nothing). ``__wrapped__`` lets TorchScript compile the original.
    """
    import functools
    import inspect

    functional = torch.nn.functional
    for name in RANDOM_IN_PLACE:
        original = getattr(functional, name, None)
        if original is None:
            continue
        try:
            signature = inspect.signature(original)
        except (TypeError, ValueError):
            continue
        if "inplace" not in signature.parameters or "training" not in signature.parameters:
            continue

        def drawn_out_of_place(*args, _original=original, _signature=signature, **kwargs):
            try:
                bound = _signature.bind(*args, **kwargs)
            except TypeError:
                return _original(*args, **kwargs)
            bound.apply_defaults()
            if not (bound.arguments["inplace"] and bound.arguments["training"]):
                return _original(*args, **kwargs)
            bound.arguments["inplace"] = False
            target = bound.arguments["input"]
            return target.copy_(_original(*bound.args, **bound.kwargs))

        setattr(functional, name, functools.update_wrapper(drawn_out_of_place, original))


def _deterministic(torch) -> None:
    # torch.use_deterministic_algorithms() imports torch._inductor (about 1.7 s, more
    # than the whole run of a small script) only to set the compiler's own flag.
    # Set the eager flag directly, and the compiler's only if it is loaded already.
    setter = getattr(torch._C, "_set_deterministic_algorithms", None)
    if setter is None:
        torch.use_deterministic_algorithms(True, warn_only=True)
        return
    setter(True, warn_only=True)
    inductor: Any = sys.modules.get("torch._inductor.config")
    if inductor is not None:
        inductor.deterministic = True


def run_script(config: Dict[str, Any]) -> int:
    """Run the configured script under the recorder; the record says how it ended."""
    recorder: Any = None
    try:
        recorder = prepare(config)
        script = config["script"]
        sys.argv = [script, *config.get("args", [])]
        # As `python script.py` would: the script's folder first, then the
        # user's original folder so that sibling modules still import.
        sys.path[0:0] = [os.path.dirname(os.path.abspath(script)), *config.get("extra_path", [])]
        runpy.run_path(script, run_name="__main__")
    except SystemExit as exc:
        if exc.code not in (None, 0):
            if recorder is None:
                raise
            recorder.record_exception(exc)
            recorder.finish("failed")
            return 1
    except BaseException as exc:  # the user's failure is the data we came for
        if recorder is None:
            raise
        recorder.record_exception(exc)
        recorder.finish("failed")
        return 1
    recorder.finish("completed")
    return 0


def install_from_env() -> None:
    """Record the first Python process of a ``--verify-cmd`` command (called by sitecustomize)."""
    path = os.environ.get(CONFIG_ENV)
    if not path:
        return
    with open(path, encoding="utf-8") as handle:
        config = json.load(handle)
    try:
        # Only one process per run records: later ones (subprocesses, workers) run plain.
        os.close(os.open(config["record"] + ".claim", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return
    try:
        import torch  # noqa: F401
    except ImportError:
        return
    recorder = prepare(config)
    previous_hook = sys.excepthook

    def excepthook(kind, value, tb):
        recorder.record_exception(value)
        recorder.finish("failed")
        previous_hook(kind, value, tb)

    sys.excepthook = excepthook
    atexit.register(recorder.finish, "completed")


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    with open(argv[0], encoding="utf-8") as handle:
        config = json.load(handle)
    return run_script(config)


if __name__ == "__main__":
    sys.exit(main())
