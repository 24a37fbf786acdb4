"""Recording hooks installed inside a verification run (never in the autofix process).

Per run it records every backward call (the gradient contribution per leaf: the
``.grad`` difference it caused, and the autograd graph size it traversed), every
optimizer ``step()`` (the gradients the optimizer sees, and the sum of backward
contributions since the previous step, for AF104's invariant), the bytes of
saved tensors a backward left alive (what ``retain_graph=True`` costs, AF106),
and the live autograd graph kept alive after each of the first steps (AF105's
leak).

With ``evidence`` (a doctor run, ``autofix --run``) it also hands every event
to :class:`autofix.doctor.evidence.Evidence`: call sites, shared nodes, the
holders of the live graph, and on a focused re-run the forward traces and
in-place writes that explain a failure.
"""

from __future__ import annotations

import os
import sys
import traceback
import types
import warnings
import weakref
from typing import Any, Dict, List, Optional, Tuple

import torch

#: Exit status of a run the recorder stopped after ``max_steps``.
STOPPED_STATUS = 0


class Recorder:
    def __init__(
        self,
        record_path: str,
        max_steps: Optional[int],
        record_steps: int,
        retain_graph: bool,
        live_graph_steps: int,
        record_bytes: int = 256 << 20,
        clone_saved: bool = False,
        evidence: Optional[Dict[str, Any]] = None,
    ) -> None:
        self.record_path = record_path
        self.max_steps = max_steps
        self.record_steps = record_steps
        self.retain_graph = retain_graph
        self.live_graph_steps = live_graph_steps
        self.record_bytes = record_bytes
        self.clone_saved = clone_saved
        self.recorded_bytes = 0
        self.pid = os.getpid()
        self.backwards: List[Dict[str, Any]] = []
        self.steps: List[Dict[str, Any]] = []
        self.live_graph: List[int] = []
        self.totals: Dict[str, torch.Tensor] = {}
        self.exception: Optional[Dict[str, str]] = None
        self.step_count = 0
        self.backward_count = 0
        # Contributions since the previous step(); steps in a row count as one,
        # so the sum is cleared lazily by the first backward after a step.
        self._pending: Dict[int, torch.Tensor] = {}
        self._after: Dict[int, torch.Tensor] = {}
        #: id of a gradient tensor backward filled -> (the leaf's key, the tensor): another parameter may be
        #: handed that very tensor (``shared._grad = local.grad``, A3C) and step with its contributions
        self._grad_leaf: Dict[int, Tuple[int, torch.Tensor]] = {}
        #: every gradient tensor a backward has filled, while it lives: a parameter stepping with one of
        #: them that no backward since the previous step reached steps with stale gradients
        self._filled: "weakref.WeakValueDictionary[int, torch.Tensor]" = weakref.WeakValueDictionary()
        self._stepped_since_backward = False
        self._created: List["weakref.ref[torch.nn.Module]"] = []
        self._optimizers: List["weakref.ref[torch.optim.Optimizer]"] = []
        self._names: Dict[int, str] = {}
        self._leaf_refs: Dict[int, Any] = {}
        self._handles: List[Any] = []
        self._written = False
        self.evidence: Any = None
        if evidence is not None:
            # Only doctor runs pay for the import (and the evidence).
            from autofix.doctor.evidence import Evidence

            self.evidence = Evidence(evidence)

    # ----------------------------------------------------------------- install

    def install(self) -> None:
        self._original_backward = torch.autograd.backward
        recorder = self

        def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, *args, **kwargs):
            return recorder._backward(tensors, grad_tensors, retain_graph, create_graph, args, kwargs)

        # Tensor.backward looks up torch.autograd.backward at call time, so one
        # wrapper sees both spellings.
        torch.autograd.backward = backward
        if self.clone_saved:
            # The reference run for in-place errors: autograd keeps a copy of every
            # tensor it saves, taken at save time, so a later in-place op cannot
            # touch it. Backward then computes what the out-of-place code would.
            hooks = torch.autograd.graph.saved_tensors_hooks(_copy_saved, _unpack_saved)
            hooks.__enter__()
            self._handles.append(hooks)
        if self.retain_graph:
            # The reference run: autograd.grad must not free graphs either.
            grad = torch.autograd.grad

            def retaining_grad(*args, **kwargs):
                if len(args) > 3:  # retain_graph given positionally
                    args = (*args[:3], True, *args[4:])
                else:
                    kwargs["retain_graph"] = True
                return grad(*args, **kwargs)

            torch.autograd.grad = retaining_grad
        from torch.optim import optimizer as optimizer_mod

        module_init = torch.nn.Module.__init__

        def init(module, *args, **kwargs):
            module_init(module, *args, **kwargs)
            if recorder.recording:
                recorder._created.append(weakref.ref(module))

        torch.nn.Module.__init__ = init  # type: ignore[method-assign,assignment]
        self._handles.append(optimizer_mod.register_optimizer_step_pre_hook(self._on_step_pre))
        self._handles.append(optimizer_mod.register_optimizer_step_post_hook(self._on_step_post))
        if self.evidence is not None:
            self.evidence.install(self.step_count)

    @property
    def recording(self) -> bool:
        # Bounded three ways: steps, backward calls (a loop without an optimizer
        # never steps) and bytes of recorded gradients (a large model).
        return (
            self.step_count < self.record_steps
            and self.backward_count < 20 * self.record_steps
            and (self.recorded_bytes < self.record_bytes or not self.steps)
        )

    # ------------------------------------------------------------------ naming

    def _rebuild_names(self) -> None:
        # Roots in creation order: a module that is no other live module's child.
        # Creation order is the same in both runs even when a patch calls a model
        # layer by layer instead of as a whole.
        self._created = [ref for ref in self._created if ref() is not None]
        modules = [m for m in (ref() for ref in self._created) if m is not None]
        children = {id(c) for m in modules for c in m.modules() if c is not m}
        roots = [m for m in modules if id(m) not in children]
        seen_labels: Dict[str, int] = {}
        for root in roots:
            label = type(root).__name__
            seen_labels[label] = seen_labels.get(label, 0) + 1
            if seen_labels[label] > 1:
                label = f"{label}#{seen_labels[label]}"
            for name, param in root.named_parameters():
                self._names.setdefault(id(param), f"{label}.{name}")
        for index, ref in enumerate(self._optimizers):
            optimizer = ref()
            if optimizer is None:
                continue
            for g, group in enumerate(optimizer.param_groups):
                for j, param in enumerate(group["params"]):
                    shape = "x".join(map(str, param.shape))
                    self._names.setdefault(id(param), f"optimizer{index}.group{g}.param{j}[{shape}]")

    def name(self, tensor: torch.Tensor) -> str:
        key = id(tensor)
        if key not in self._names:
            self._rebuild_names()
        if key not in self._names:
            shape = "x".join(map(str, tensor.shape))
            self._names[key] = f"leaf{len(self._leaf_refs)}[{shape}]"
        # Keep the tensor alive so that its id is never reused for another name.
        self._leaf_refs[key] = tensor
        return self._names[key]

    # ---------------------------------------------------------------- backward

    def _backward(self, tensors, grad_tensors, retain_graph, create_graph, args, kwargs):
        if self.retain_graph:
            retain_graph = True
        if not self.recording:
            return self._original_backward(tensors, grad_tensors, retain_graph, create_graph, *args, **kwargs)
        roots = [tensors] if isinstance(tensors, torch.Tensor) else list(tensors)
        grad_fns = [t.grad_fn for t in roots if isinstance(t, torch.Tensor)]
        graph, leaves = walk_graph_nodes(grad_fns)
        nodes = len(graph)
        before = {}
        for leaf in leaves:
            before[id(leaf)] = None if leaf.grad is None else leaf.grad.detach().clone()
        if self.evidence is None:
            result = self._original_backward(tensors, grad_tensors, retain_graph, create_graph, *args, **kwargs)
        else:
            result = self._backward_with_evidence(graph, grad_fns, (tensors, grad_tensors, retain_graph, create_graph, *args), kwargs)
        if self._stepped_since_backward:
            self._pending.clear()
            self._after.clear()
            self._grad_leaf.clear()
            self._stepped_since_backward = False
        for leaf in leaves:
            if leaf.grad is None:
                continue
            previous = before[id(leaf)]
            grad = leaf.grad.detach()
            contribution = grad.clone() if previous is None or previous.shape != grad.shape else grad - previous
            key = id(leaf)
            self._pending[key] = self._pending[key] + contribution if key in self._pending else contribution
            self._grad_leaf[id(leaf.grad)] = (key, leaf.grad)
            self._filled[id(leaf.grad)] = leaf.grad
            # What backward left behind; clipping or AMP unscaling may rescale it before step().
            self._after[key] = grad.clone()
            name = self.name(leaf)
            cpu = contribution.to("cpu")
            self.totals[name] = self.totals[name] + cpu if name in self.totals else cpu.clone()
        # A freed graph holds nothing; only a retained one is worth the walk.
        kept = retain_graph if retain_graph is not None else create_graph
        retained = retained_saved_bytes(grad_fns) if kept else 0
        self.backwards.append({"step": self.step_count, "nodes": nodes, "retained_bytes": retained})
        self.backward_count += 1
        return result

    def _backward_with_evidence(self, graph: Dict[int, Any], roots: List[Any], args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
        evidence = self.evidence
        index = evidence.before_backward(graph, args[2], self.step_count, roots)
        with warnings.catch_warnings(record=True) as caught:
            if evidence.focused:
                # Anomaly mode names the failing node's forward trace in a warning.
                warnings.simplefilter("always")
            try:
                result = self._original_backward(*args, **kwargs)
            except BaseException as exc:
                evidence.backward_failed(exc, index, graph, [str(w.message) for w in caught])
                raise
        for warning in caught if not evidence.focused else ():
            # Not ours to swallow: hand the user's warnings on as Python would have.
            warnings.showwarning(warning.message, warning.category, warning.filename, warning.lineno)
        evidence.after_backward(index, graph)
        return result

    # -------------------------------------------------------------------- step

    def _track_optimizer(self, optimizer) -> int:
        for index, ref in enumerate(self._optimizers):
            if ref() is optimizer:
                return index
        self._optimizers.append(weakref.ref(optimizer))
        return len(self._optimizers) - 1

    def _on_step_pre(self, optimizer, args, kwargs):
        index = self._track_optimizer(optimizer)
        if not self.recording:
            return
        grads: Dict[str, Optional[torch.Tensor]] = {}
        pending: Dict[str, Optional[torch.Tensor]] = {}
        after: Dict[str, Optional[torch.Tensor]] = {}
        for group in optimizer.param_groups:
            for param in group["params"]:
                name = self.name(param)
                grads[name] = None if param.grad is None else param.grad.detach().to("cpu", copy=True)
                key = self._contributor(param)
                since = self._pending.get(key)
                left = self._after.get(key)
                if since is None and param.grad is not None and self._filled.get(id(param.grad)) is param.grad:
                    # Filled by a backward before the previous step and reached by none since: stale.
                    since, left = torch.zeros_like(param.grad), param.grad.detach()
                pending[name] = None if since is None else since.to("cpu", copy=True)
                after[name] = None if left is None else left.to("cpu", copy=True)
        self.steps.append({"optimizer": index, "grads": grads, "pending": pending, "after_backward": after})
        if self.evidence is not None:
            self.evidence.on_step(self.step_count)
        for table in (grads, pending, after):
            self.recorded_bytes += sum(t.numel() * t.element_size() for t in table.values() if t is not None)

    def _contributor(self, param) -> int:
        """The key of the leaf whose backward contributions ``param`` steps with: its own, or, where no
        backward reached it and its ``.grad`` is another leaf's gradient tensor, that leaf's."""
        key = id(param)
        if key in self._pending or param.grad is None:
            return key
        handed = self._grad_leaf.get(id(param.grad))
        return handed[0] if handed is not None and handed[1] is param.grad else key

    def _on_step_post(self, optimizer, args, kwargs):
        self.step_count += 1
        self._stepped_since_backward = True
        if self.evidence is not None:
            size = self.evidence.after_step(self.step_count, sys._getframe(1))
            if size is not None and self.step_count <= self.live_graph_steps:
                self.live_graph.append(size)
        elif self.step_count <= self.live_graph_steps:
            self.live_graph.append(live_graph_size())
        if self.max_steps is not None and self.step_count >= self.max_steps:
            self.finish("stopped")
            sys.stdout.flush()
            sys.stderr.flush()
            # Not an exception: user code could swallow it; its files live in a temp dir.
            os._exit(STOPPED_STATUS)

    # ------------------------------------------------------------------ output

    def record_exception(self, exc: BaseException) -> None:
        # The verifier's own frames (bootstrap, runpy, this wrapper) are noise to the reader.
        here = os.path.dirname(os.path.abspath(__file__))
        frames = [
            frame
            for frame in traceback.extract_tb(exc.__traceback__)
            if not frame.filename.startswith(here) and "runpy" not in frame.filename
        ]
        text = "Traceback (most recent call last):\n" + "".join(traceback.format_list(frames[-8:]))
        text += "".join(traceback.format_exception_only(type(exc), exc))
        self.exception = {"type": type(exc).__name__, "message": str(exc), "traceback": text[-4000:]}

    def finish(self, status: str) -> None:
        if self._written or os.getpid() != self.pid:
            return
        self._written = True
        record = {
            "status": status,
            "exception": self.exception,
            "backwards": self.backwards,
            "steps": self.steps,
            "step_count": self.step_count,
            "backward_count": self.backward_count,
            "live_graph": self.live_graph,
            "totals": self.totals,
            "device": str(torch.empty(0).device),
            "torch": str(torch.__version__),
        }
        if self.evidence is not None:
            record["evidence"] = self.evidence.export()
        temporary = self.record_path + ".tmp"
        torch.save(record, temporary)
        os.replace(temporary, self.record_path)


def _copy_saved(tensor: torch.Tensor) -> torch.Tensor:
    return tensor.detach().clone()


def _unpack_saved(tensor: torch.Tensor) -> torch.Tensor:
    return tensor


def walk_graph(grad_fns) -> "tuple[int, list]":
    """Count the autograd nodes reachable from ``grad_fns``; return them and the leaves."""
    seen, leaves = walk_graph_nodes(grad_fns)
    return len(seen), leaves


def walk_graph_nodes(grad_fns) -> "tuple[Dict[int, Any], list]":
    """The autograd nodes reachable from ``grad_fns`` (by id) and the leaves."""
    stack = [fn for fn in grad_fns if fn is not None]
    seen = {id(fn): fn for fn in stack}
    leaves = []
    while stack:
        fn = stack.pop()
        variable = getattr(fn, "variable", None)
        if isinstance(variable, torch.Tensor):
            leaves.append(variable)
        for child, _ in fn.next_functions:
            if child is not None and id(child) not in seen:
                seen[id(child)] = child
                stack.append(child)
    return seen, leaves


_SAVED_NAMES: Dict[type, List[str]] = {}


def retained_saved_bytes(grad_fns) -> int:
    """Bytes of the tensors the graph below ``grad_fns`` still saves for a backward.

    Read right after a backward: a graph it freed raises on access to its saved
    tensors and counts nothing, a retained one counts every saved activation
    (storages counted once; parameters are not counted, they live anyway).
    """
    stack = [fn for fn in grad_fns if fn is not None]
    seen = {id(fn) for fn in stack}
    storages: Dict[Any, int] = {}
    while stack:
        fn = stack.pop()
        names = _SAVED_NAMES.get(type(fn))
        if names is None:
            names = [n for n in dir(fn) if n.startswith("_saved_") or n == "saved_tensors"]
            _SAVED_NAMES[type(fn)] = names
        for name in names:
            try:
                value = getattr(fn, name)
            except RuntimeError:  # freed by the backward that just ran
                continue
            for tensor in value if isinstance(value, (tuple, list)) else (value,):
                if isinstance(tensor, torch.Tensor) and not (tensor.is_leaf and tensor.requires_grad):
                    storage = tensor.untyped_storage()
                    storages[(storage.data_ptr(), tensor.device)] = storage.nbytes()
        for child, _ in fn.next_functions:
            if child is not None and id(child) not in seen:
                seen.add(id(child))
                stack.append(child)
    return sum(storages.values())


def live_graph_size() -> int:
    """Autograd nodes reachable from the tensors the running code still holds.

    Roots are the variables of every frame on the stack (the training loop's
    ``total_loss`` among them), looking one level into containers and objects
    (``self.hidden``). A walk of ``gc.get_objects()`` would also see torch's
    own tensors and costs a tenth of a second per call.
    """
    roots = []
    seen = set()

    def visit(value, depth):
        if id(value) in seen:
            return
        seen.add(id(value))
        if isinstance(value, torch.Tensor):
            if value.grad_fn is not None:
                roots.append(value.grad_fn)
        elif depth == 0:
            return
        elif isinstance(value, (list, tuple, set)):
            for item in value:
                visit(item, depth - 1)
        elif isinstance(value, dict):
            for item in value.values():
                visit(item, depth - 1)
        elif hasattr(value, "__dict__") and not isinstance(value, (type, types.ModuleType, types.FunctionType)):
            for item in vars(value).values():
                visit(item, depth - 1)

    frame: Optional[types.FrameType] = sys._getframe(1)
    while frame is not None:
        for value in list(frame.f_locals.values()):
            visit(value, 2)
        frame = frame.f_back
    count, _ = walk_graph(roots)
    return count
