"""Runtime evidence, collected inside the user's run (never in the autofix process).

The :class:`~autofix.verify.recorder.Recorder` calls these hooks. Every run
records cheap facts: where each backward, ``step()`` and ``zero_grad()`` was
called from (the first frame in the user's files), which backward calls of one
step shared graph nodes, and, for the first steps, who holds the live autograd
graph (frame locals, attributes, list and dict entries) and how large it is.

A *focused* run (``focus`` in the config) re-runs the program after a failure
to explain it: from the step before the failure it turns on anomaly mode (the
forward trace of every autograd node), tags the nodes each backward traverses,
remembers which variables still point into a freed graph, and records in-place
ops on tensors autograd saved (saved-tensor hooks and version counters).
"""

from __future__ import annotations

import os
import re
import sys
import types
import warnings
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Set, Tuple

import torch

_HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_TORCH = os.path.dirname(os.path.abspath(torch.__file__))
_STDLIB = os.path.dirname(os.path.abspath(os.__file__))
_TAG = "autofix_backward"
_FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+), in (?P<function>\S+)')
_INPLACE_DUNDERS = frozenset(
    {"__iadd__", "__isub__", "__imul__", "__itruediv__", "__ifloordiv__", "__ipow__", "__imod__",
     "__iand__", "__ior__", "__ixor__", "__ilshift__", "__irshift__", "__setitem__", "__imatmul__"}
)
#: Holders visited per frame local: the local itself, its items or attributes, and theirs.
HOLDER_DEPTH = 2
#: Holders kept per step in the record (largest graphs first).
HOLDERS_KEPT = 12

Site = Dict[str, Any]


class Evidence:
    def __init__(self, config: Dict[str, Any]) -> None:
        self.roots = [os.path.abspath(r) for r in config.get("roots", [])]
        focus = config.get("focus") or {}
        self.focus_kind: Optional[str] = focus.get("kind")
        self.focus_from = int(focus.get("from_step", 0))
        self.holder_steps = int(config.get("holder_steps", 10))
        #: Steps with evidence (as the recorder's ``record_steps``): a long run stays cheap and its record small.
        self.record_steps = int(config.get("record_steps", 100))
        self._since_step = 0
        self.backwards: List[Dict[str, Any]] = []
        self.steps: List[Dict[str, Any]] = []
        self.zero_grads: List[Dict[str, Any]] = []
        self.holders: List[List[Dict[str, Any]]] = []
        self.inplace: List[Dict[str, Any]] = []
        self.failure: Optional[Dict[str, Any]] = None
        self.focused = False
        # Nodes seen by the backward calls since the last step (strong references:
        # an id stays that node's id while the reference lives).
        self._window: Dict[int, Any] = {}
        self._window_index: Dict[int, int] = {}
        # Focused runs: variables that still point into the graph the last backward freed.
        self._carriers: List[Tuple[Dict[str, Any], Any]] = []
        self._saved: Dict[int, Tuple[Any, int]] = {}
        self._mode: Any = None
        self._hooks: Any = None
        #: Focused runs: the nodes of the current backward an earlier backward already traversed.
        self._old: Dict[int, Tuple[int, int]] = {}
        self._root_old = False

    # ------------------------------------------------------------------ frames

    def user_frame(self, frame: Optional[types.FrameType]) -> Optional[Site]:
        """The first frame at or above ``frame`` in the user's files (library frames are skipped)."""
        fallback = None
        while frame is not None:
            filename = _absolute(frame.f_code.co_filename)
            if self._is_user(filename):
                return _site(frame)
            if fallback is None and not self._is_library(filename):
                fallback = _site(frame)
            frame = frame.f_back
        return None if self.roots else fallback

    def _is_user(self, filename: str) -> bool:
        if self._is_library(filename):
            return False
        return any(filename == root or filename.startswith(root + os.sep) for root in self.roots)

    @staticmethod
    def _is_library(filename: str) -> bool:
        return (
            filename.startswith(_HERE)
            or filename.startswith(_TORCH)
            or "site-packages" in filename
            or "dist-packages" in filename
            or filename.startswith("<")
            or (filename.startswith(_STDLIB) and not filename.startswith(_STDLIB + os.sep + "site-packages"))
        )

    # ---------------------------------------------------------------- install

    def install(self, step_count: int) -> None:
        from torch.optim import Optimizer

        evidence = self
        zero_grad = Optimizer.zero_grad

        def recording_zero_grad(optimizer: Any, *args: Any, **kwargs: Any) -> Any:
            evidence.on_zero_grad(sys._getframe(1))
            return zero_grad(optimizer, *args, **kwargs)

        Optimizer.zero_grad = recording_zero_grad  # type: ignore[method-assign,assignment]
        module_zero_grad = torch.nn.Module.zero_grad

        def recording_module_zero_grad(module: Any, *args: Any, **kwargs: Any) -> Any:
            evidence.on_zero_grad(sys._getframe(1))
            return module_zero_grad(module, *args, **kwargs)

        torch.nn.Module.zero_grad = recording_module_zero_grad  # type: ignore[method-assign,assignment]
        self.maybe_focus(step_count)

    def maybe_focus(self, step_count: int) -> None:
        """Turn the expensive instruments on from the step before the failure."""
        if self.focused or self.focus_kind is None or step_count < self.focus_from:
            return
        self.focused = True
        # Anomaly mode stores each node's forward trace in node.metadata["traceback_"].
        torch.autograd.set_detect_anomaly(True)
        if self.focus_kind == "inplace":
            self._hooks = torch.autograd.graph.saved_tensors_hooks(self._pack, self._unpack)
            self._hooks.__enter__()
            self._mode = _InplaceMode(self)
            self._mode.__enter__()

    # --------------------------------------------------------------- backward

    def before_backward(self, nodes: Dict[int, Any], retain_graph: Any, step: int, roots: Sequence[Any] = ()) -> int:
        """Called with the nodes the backward will traverse (and its roots' grad_fn); returns its index."""
        index = len(self.backwards)
        self._since_step += 1
        site = self.user_frame(sys._getframe(1))
        shared = sorted({self._window_index[i] for i in nodes if i in self._window_index})
        self.backwards.append(
            {"index": index, "step": step, "site": site, "retain": bool(retain_graph),
             "nodes": len(nodes), "shares_with": shared}
        )
        for key, node in nodes.items():
            if key not in self._window:
                self._window[key] = node
                self._window_index[key] = index
        if not self.focused and step < self.holder_steps:
            # Which step's backward went through a node: a holder reaching one of an earlier
            # step keeps a freed graph across iterations (measured for the first steps only).
            for node in nodes.values():
                metadata = _metadata(node)
                if _TAG not in metadata and not hasattr(node, "variable"):
                    metadata[_TAG] = (index, step)
        if self.focused:
            self._old = {key: _metadata(node)[_TAG] for key, node in nodes.items() if _TAG in _metadata(node)}
            # The very tensor an earlier backward already went through (a repeated loss.backward()).
            self._root_old = any(root is not None and id(root) in self._old for root in roots)
            self._tag(nodes, index, step)
        return index

    def after_backward(self, index: int, nodes: Dict[int, Any]) -> None:
        if self.focused:
            # Who still points into the graph just traversed (and, without retain_graph, freed)?
            self._carriers = [
                (holder, value.grad_fn)
                for holder, value in self.iter_holders(sys._getframe(1))
                if _reaches(value.grad_fn, nodes)
            ]

    def backward_failed(self, exc: BaseException, index: int, nodes: Dict[int, Any], messages: Sequence[str]) -> None:
        if self.failure is not None:
            return
        record = self.backwards[index]
        failure: Dict[str, Any] = {"backward": index, "step": record["step"], "message": str(exc).splitlines()[0][:300]}
        detected = [m for m in messages if "Error detected in" in m]
        if detected:
            failure["node"] = detected[0].split("Error detected in ", 1)[1].split(".", 1)[0]
            failure["forward"] = self._frames(detected[0])
        if self.focused:
            old = [n for key, n in nodes.items() if key in self._old]
            freed_by = sorted({self._old[key][0] for key in nodes if key in self._old})
            failure["freed_by"] = [self.backwards[i] for i in freed_by if i < len(self.backwards)]
            failure["old_steps"] = sorted({self._old[key][1] for key in nodes if key in self._old})
            old_sites = {s for s in (self._creation_site(n) for n in old) if s is not None}
            new_sites = {s for key, n in nodes.items() if key not in self._old for s in [self._creation_site(n)] if s is not None}
            # The same forward line made a node of this graph and a node an earlier
            # backward already traversed: the graph spans two iterations.
            failure["repeated_sites"] = [list(s) for s in sorted(old_sites & new_sites)]
            failure["old_created"] = [list(s) for s in sorted(old_sites)][:8]
            failure["carriers"] = [holder for holder, node in self._carriers if id(node) in nodes]
            failure["root_old"] = self._root_old
        self.failure = failure

    def _tag(self, nodes: Dict[int, Any], index: int, step: int) -> None:
        for node in nodes.values():
            metadata = _metadata(node)
            if _TAG not in metadata:
                metadata[_TAG] = (index, step)

    def _creation_site(self, node: Any) -> Optional[Tuple[str, int]]:
        trace = _metadata(node).get("traceback_")
        if not trace:
            return None
        frames = self._frames("".join(trace))
        return (frames[0]["file"], frames[0]["line"]) if frames else None

    def _frames(self, text: str) -> List[Site]:
        """The user's frames of a formatted stack, innermost first."""
        found = []
        for match in _FRAME.finditer(text):
            filename = _absolute(match.group("file"))
            if self._is_user(filename):
                found.append({"file": filename, "line": int(match.group("line")), "function": match.group("function")})
        return list(reversed(found))

    # ------------------------------------------------------------ steps, zero_grad

    def on_step(self, step: int) -> None:
        self.steps.append({"step": step, "site": self.user_frame(sys._getframe(1)), "backwards": len(self.backwards)})

    def after_step(self, step_count: int, frame: Optional[types.FrameType]) -> Optional[int]:
        """Measure who holds the live graph; returns its size (None past ``holder_steps``)."""
        self.maybe_focus(step_count)
        self._since_step = 0
        total: Optional[int] = None
        if step_count <= self.holder_steps:
            total, holders = self.measure_holders(frame, step_count - 1)
            self.holders.append(holders)
        self._window.clear()
        self._window_index.clear()
        return total

    def on_zero_grad(self, frame: Optional[types.FrameType]) -> None:
        step = len(self.steps)
        if step >= self.record_steps:
            return
        self.zero_grads.append({"step": step, "after_backwards": self._since_step, "site": self.user_frame(frame)})

    # ------------------------------------------------------------------ holders

    def iter_holders(self, frame: Optional[types.FrameType]) -> Iterator[Tuple[Dict[str, Any], torch.Tensor]]:
        """Graph-carrying tensors reachable from the frames' locals, with the name that reaches them."""
        seen: Set[int] = set()
        while frame is not None:
            filename = _absolute(frame.f_code.co_filename)
            if not self._is_library(filename):
                where = _site(frame)
                for name, value in list(frame.f_locals.items()):
                    yield from _visit(value, name, where, HOLDER_DEPTH, seen, None)
            frame = frame.f_back

    def measure_holders(self, frame: Optional[types.FrameType], step: int) -> Tuple[int, List[Dict[str, Any]]]:
        counted: Set[int] = set()
        holders = []
        for holder, value in self.iter_holders(frame):
            size, earlier = _walk_count(value.grad_fn, counted, step)
            if size:
                holders.append(dict(holder, nodes=size, shape=list(value.shape), numel=int(value.numel()),
                                    traversed=id(value.grad_fn) in self._window, earlier=earlier))
        # A list or dict that grows holds many small graphs: its entries together are the holder.
        groups: Dict[str, Dict[str, Any]] = {}
        for holder in holders:
            if "[" in holder["name"]:
                base = holder["name"].split("[", 1)[0]
                group = groups.setdefault(base, dict(holder, name=base, nodes=0, entries=0, earlier=False))
                group["nodes"] += holder["nodes"]
                group["entries"] += 1
                group["earlier"] = group["earlier"] or holder["earlier"]
        holders.extend(groups.values())
        holders.sort(key=lambda h: -h["nodes"])
        return len(counted), holders[:HOLDERS_KEPT]

    # ------------------------------------------------------------------ in-place

    def _pack(self, tensor: torch.Tensor) -> Any:
        self._saved[id(tensor)] = (_weak(tensor), tensor._version)
        return tensor, tensor._version

    def _unpack(self, packed: Any) -> torch.Tensor:
        tensor, version = packed
        if tensor._version != version:
            # What autograd's own version check says, kept when hooks replace it.
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an inplace "
                f"operation: a tensor of shape {list(tensor.shape)} is at version {tensor._version}; "
                f"expected version {version} instead"
            )
        return tensor

    def on_inplace(self, name: str, target: Any) -> None:
        if not isinstance(target, torch.Tensor):
            return
        entry = self._saved.get(id(target))
        base = getattr(target, "_base", None)
        if (entry is None or entry[0]() is not target) and base is not None:
            entry = self._saved.get(id(base))
            target = base if entry is not None and entry[0]() is base else target
        if entry is None or entry[0]() is not target or target._version != entry[1]:
            return
        site = self.user_frame(sys._getframe(1))
        grad_fn = target.grad_fn
        self.inplace.append({
            "op": name, "site": site, "step": len(self.steps), "version": int(target._version),
            "shape": list(target.shape), "made_by": type(grad_fn).__name__ if grad_fn is not None else None,
        })

    # ------------------------------------------------------------------- output

    def export(self) -> Dict[str, Any]:
        return {
            "backwards": self.backwards,
            "steps": self.steps,
            "zero_grads": self.zero_grads,
            "holders": self.holders,
            "inplace": self.inplace[:50],
            "failure": self.failure,
            "focused": self.focused,
        }


class _InplaceMode(torch.overrides.TorchFunctionMode):
    """Sees every tensor function call; records the in-place ones that hit a saved tensor."""

    def __init__(self, evidence: Evidence) -> None:
        super().__init__()
        self.evidence = evidence

    def __torch_function__(self, func: Callable[..., Any], types: Any, args: Sequence[Any] = (), kwargs: Optional[Dict[str, Any]] = None) -> Any:
        kwargs = kwargs or {}
        name = getattr(func, "__name__", "")
        if args and (
            name in _INPLACE_DUNDERS
            or (name.endswith("_") and not name.endswith("__"))
            or kwargs.get("inplace") is True
        ):
            self.evidence.on_inplace(name, args[0])
        return func(*args, **kwargs)


def capture_warnings() -> Any:
    """Anomaly mode reports the failing node's forward trace as a warning: keep it."""
    return warnings.catch_warnings(record=True)


def _absolute(filename: str) -> str:
    # "<frozen runpy>", "<string>": no file, and never the user's.
    return filename if filename.startswith("<") else os.path.abspath(filename)


def _site(frame: types.FrameType) -> Site:
    code = frame.f_code
    return {
        "file": _absolute(code.co_filename),
        "line": frame.f_lineno,
        "function": code.co_name,
        "first_line": code.co_firstlineno,
    }


def _metadata(node: Any) -> Dict[str, Any]:
    try:
        return node.metadata
    except (AttributeError, RuntimeError):
        return {}


def _weak(tensor: torch.Tensor) -> Callable[[], Any]:
    import weakref

    try:
        return weakref.ref(tensor)
    except TypeError:
        return lambda: tensor


def _visit(value: Any, name: str, where: Site, depth: int, seen: Set[int], owner: Optional[Dict[str, Any]]) -> Iterator[Tuple[Dict[str, Any], torch.Tensor]]:
    if id(value) in seen:
        return
    seen.add(id(value))
    if isinstance(value, torch.Tensor):
        if value.grad_fn is not None:
            yield {"name": name, "where": where, "owner": owner}, value
        return
    if depth == 0:
        return
    if isinstance(value, (list, tuple)):
        kind = "tuple" if isinstance(value, tuple) else "list"
        for index, item in enumerate(value[:64]):
            yield from _visit(item, f"{name}[{index}]", where, depth - 1, seen, owner or {"kind": kind, "name": name})
    elif isinstance(value, dict):
        for index, (key, item) in enumerate(value.items()):
            if index >= 64:
                break
            label = f"{name}[{key!r}]" if isinstance(key, (str, int)) else f"{name}[...]"
            yield from _visit(item, label, where, depth - 1, seen, owner or {"kind": "dict", "name": name})
    elif hasattr(value, "__dict__") and not isinstance(value, (type, types.ModuleType, types.FunctionType, types.MethodType)):
        attributes = vars(value)
        cls = type(value)
        info = {"kind": "object", "name": name, "class": cls.__name__, "module_file": _class_file(cls)}
        for attr, item in list(attributes.items())[:128]:
            if attr.startswith("_") and attr not in ("_modules",):
                continue
            if attr == "_modules" and isinstance(item, dict):
                # nn.Module keeps its submodules here: name them as attributes.
                for sub, module in item.items():
                    yield from _visit(module, f"{name}.{sub}", where, depth - 1, seen, info)
                continue
            yield from _visit(item, f"{name}.{attr}", where, depth - 1, seen, info)


def _class_file(cls: type) -> Optional[str]:
    module = sys.modules.get(cls.__module__)
    path = getattr(module, "__file__", None)
    return os.path.abspath(path) if path else None


def _reaches(grad_fn: Any, nodes: Dict[int, Any], limit: int = 100_000) -> bool:
    """Does the graph under ``grad_fn`` reach one of ``nodes``?"""
    if grad_fn is None:
        return False
    stack = [grad_fn]
    seen = {id(grad_fn)}
    while stack and len(seen) < limit:
        fn = stack.pop()
        if id(fn) in nodes:
            return True
        for child, _ in fn.next_functions:
            if child is not None and id(child) not in seen:
                seen.add(id(child))
                stack.append(child)
    return False


def _walk_count(grad_fn: Any, seen: Set[int], step: int) -> Tuple[int, bool]:
    """Nodes under ``grad_fn`` not counted yet, and whether one was traversed by a backward before ``step``."""
    if grad_fn is None or id(grad_fn) in seen:
        return 0, False
    stack = [grad_fn]
    seen.add(id(grad_fn))
    count = 0
    earlier = False
    while stack:
        fn = stack.pop()
        count += 1
        if not earlier:
            tag = _metadata(fn).get(_TAG)
            earlier = tag is not None and tag[1] < step
        for child, _ in fn.next_functions:
            if child is not None and id(child) not in seen:
                seen.add(id(child))
                stack.append(child)
    return count, earlier
