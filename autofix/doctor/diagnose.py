"""Evidence → diagnoses: which rule, at which line of the user's files, and what fix the facts allow.

Pure functions of the records :mod:`autofix.doctor.run` brings back (plain
dicts and lists); no torch, no LibCST. Locations are found with Python's
``ast`` in the file the evidence names.
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from autofix.types import Evidence, Location

GRAPH_FREED = "Trying to backward through the graph a second time"
INPLACE = ("modified by an inplace operation", "is being used in an in-place operation")
LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation"
#: raised by the write itself: a piece of ``chunk``/``split``/``unbind`` written in place
MULTI_VIEW_INPLACE = "is a view and is being modified inplace"


@dataclass(frozen=True)
class Guided:
    """A fix the doctor builds where the evidence points (see :mod:`autofix.doctor.fixes`)."""

    #: ``detach-carried`` (AF102), ``out-of-place-augassign`` (AF103), ``detach-accumulated`` (AF105).
    kind: str
    #: The statement to change, as the original source spells it (stripped).
    text: str
    #: detach-carried: ``names``, ``kinds`` (tensor | tuple, as the run saw them), ``guards`` (may be None);
    #: out-of-place-augassign: ``name``; detach-accumulated: ``name``, ``value``.
    params: Tuple[Tuple[str, Any], ...] = ()

    def param(self, key: str, default: Any = None) -> Any:
        return dict(self.params).get(key, default)


@dataclass
class Diagnosis:
    code: str
    path: str
    line: int
    #: The finding's message when no static finding covers this spot.
    message: str
    evidence: Evidence
    #: Names that identify a static finding of the same code on this spot (in backticks in its message).
    names: Tuple[str, ...] = ()
    guided: Optional[Guided] = None
    #: Other lines a static finding of the same code may sit on (the loop's first read, the backward).
    lines: Tuple[int, ...] = field(default_factory=tuple)


def _where(site: Optional[Dict[str, Any]]) -> str:
    if not site:
        return "an unknown place"
    return f"{os.path.relpath(site['file'])}:{site['line']}"


def _related(*sites: Optional[Dict[str, Any]]) -> Tuple[Location, ...]:
    seen = []
    for site in sites:
        if site and site.get("file") and not site["file"].startswith("<"):
            location = Location(os.path.relpath(site["file"]), int(site["line"]))
            if location not in seen:
                seen.append(location)
    return tuple(seen)


def first_line(message: str, limit: int = 90) -> str:
    text = message.strip().splitlines()[0] if message.strip() else ""
    if len(text) > limit:
        cut = text.rfind(" ", 0, limit)
        text = text[: cut if cut > 30 else limit] + " ..."
    return text


# --------------------------------------------------------------------------- sources


class Source:
    """One user file parsed with ``ast``: statements by line, scopes, loops."""

    _cache: Dict[str, Optional["Source"]] = {}

    def __init__(self, path: str, text: str, tree: ast.Module) -> None:
        self.path, self.text, self.tree = path, text, tree
        self.lines = text.splitlines()
        self.parents: Dict[int, ast.AST] = {}
        for node in ast.walk(tree):
            for child in ast.iter_child_nodes(node):
                self.parents[id(child)] = node

    @classmethod
    def load(cls, path: str) -> Optional["Source"]:
        if path not in cls._cache:
            try:
                with open(path, encoding="utf-8") as handle:
                    text = handle.read()
                cls._cache[path] = cls(path, text, ast.parse(text))
            except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
                cls._cache[path] = None
        return cls._cache[path]

    def statement_text(self, node: ast.stmt) -> str:
        return "\n".join(self.lines[node.lineno - 1 : (node.end_lineno or node.lineno)]).strip()

    def scope(self, function: str, first_line: int) -> ast.AST:
        """The function a frame ran (by name and first line), else the module."""
        for node in ast.walk(self.tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == function:
                start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                if start == first_line or node.lineno == first_line:
                    return node
        return self.tree

    def statements(self, scope: ast.AST) -> List[ast.stmt]:
        """Statements of ``scope``, nested blocks included, nested functions and classes excluded."""
        found: List[ast.stmt] = []
        body = getattr(scope, "body", [])

        def visit(statements: Sequence[ast.stmt]) -> None:
            for stmt in statements:
                found.append(stmt)
                if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    continue
                for name in ("body", "orelse", "finalbody"):
                    visit(getattr(stmt, name, []) or [])
                for handler in getattr(stmt, "handlers", []) or []:
                    visit(handler.body)

        visit(body)
        return found

    def enclosing_loops(self, line: int, scope: ast.AST) -> List[ast.stmt]:
        """Loops of ``scope`` that contain ``line``, outermost first."""
        return [
            s for s in self.statements(scope)
            if isinstance(s, (ast.For, ast.While, ast.AsyncFor)) and s.lineno <= line <= (s.end_lineno or s.lineno)
        ]

    def simple_statement_at(self, line: int) -> Optional[ast.stmt]:
        best = None
        for node in ast.walk(self.tree):
            if isinstance(node, ast.stmt) and not hasattr(node, "body") and node.lineno <= line <= (node.end_lineno or node.lineno):
                best = node
        return best


def expression_text(node: ast.AST) -> str:
    return ast.unparse(node)


# --------------------------------------------------------------------------- graph freed


def graph_freed(failure: Dict[str, Any], failing: Optional[Dict[str, Any]], step: int, message: str) -> List[Diagnosis]:
    """A backward reached nodes an earlier backward freed: AF101 (same iteration) or AF102 (carried)."""
    freed_by = failure.get("freed_by") or []
    freer = freed_by[-1]["site"] if freed_by else None
    back_site = failing.get("site") if failing else None
    said = f'step {step} raised "{first_line(message, 70)}"'
    if freer:
        said += f"; the graph was freed by the backward at {_where(freer)}"
    carriers = failure.get("carriers") or []
    if not failure.get("root_old") and spans_iterations(failure, step):
        return _carried(failure, carriers, back_site, freer, step, said)
    if back_site is None:
        return []
    evidence = Evidence("runtime", step, said + f", and the backward at {_where(back_site)} went through it again", _related(back_site, freer))
    names = backward_receivers(freer, back_site)
    if failure.get("root_old"):
        shown = f"`{names[-1]}`" if names else "the same tensor"
        message_text = f"{shown} is back-propagated a second time after the first backward() freed its graph (no fix: remove the repeated backward())"
    else:
        message_text = (
            "two backward() calls go through one shared graph in the same iteration; back-propagate the sum of the "
            "losses once (no fix: the doctor cannot tell which losses to add; sum them and call backward() once)"
        )
    lines = tuple(int(s["line"]) for s in (freer, back_site) if s and s.get("file") == back_site["file"])
    return [Diagnosis("AF101", back_site["file"], int(back_site["line"]), message_text, evidence, names=names, lines=lines)]


def backward_receivers(*sites: Optional[Dict[str, Any]]) -> Tuple[str, ...]:
    """What the backward calls at ``sites`` back-propagate (``loss`` of ``loss.backward()``): a static AF101 names them."""
    names: List[str] = []
    for site in sites:
        source = Source.load(site["file"]) if site else None
        stmt = source.simple_statement_at(int(site["line"])) if source and site else None
        for node in ast.walk(stmt) if stmt is not None else ():
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute) or node.func.attr != "backward":
                continue
            receiver = node.args[0] if expression_text(node.func.value).endswith("autograd") and node.args else node.func.value
            if expression_text(receiver) not in names:
                names.append(expression_text(receiver))
    return tuple(names)


def spans_iterations(failure: Dict[str, Any], step: int) -> bool:
    """The failing backward reached nodes made in an earlier iteration (not the same loss again)."""
    index = int(failure.get("step", step - 1))
    # Freed by a backward of an earlier optimizer step. Before the first step (a loop
    # without an optimizer) the sign is a forward line that made nodes both of the
    # freed graph and of this one.
    earlier = any(s < index for s in failure.get("old_steps") or [])
    return earlier or bool(index == 0 and failure.get("repeated_sites"))


def carried_inplace(failure: Dict[str, Any], failing: Optional[Dict[str, Any]], step: int, message: str) -> List[Diagnosis]:
    """An in-place error because a graph kept from an earlier iteration saved what ``step()`` then updated.

    ``retain_graph=True`` turns the carried-state error into this one: the
    optimizer updates the parameters the previous iteration's graph saved.
    """
    if failure.get("root_old") or not spans_iterations(failure, step) or not failure.get("carriers"):
        return []
    back_site = failing.get("site") if failing else None
    freed_by = failure.get("freed_by") or []
    freer = freed_by[-1]["site"] if freed_by else None
    said = f'step {step} raised "{first_line(message, 70)}"'
    if freer:
        said += f"; its graph reaches the previous iteration's, kept by the backward at {_where(freer)}"
    return _carried(failure, failure["carriers"], back_site, freer, step, said)


def _carried(failure: Dict[str, Any], carriers: List[Dict[str, Any]], back_site, freer, step: int, said: str) -> List[Diagnosis]:
    groups: Dict[str, Dict[str, Any]] = {}
    for carrier in carriers:
        owner = carrier.get("owner") or {}
        name = carrier["name"]
        if owner.get("kind") in ("tuple", "list"):
            name, kind = owner["name"], "tuple"
        else:
            kind = "tensor"
        if "[" in name:
            continue  # an item of a dict or a list of states: no single name to detach
        groups.setdefault(name, {"carrier": carrier, "kind": kind})
    diagnoses: List[Diagnosis] = []
    for name, group in groups.items():
        carrier = group["carrier"]
        owner = carrier.get("owner") or {}
        if "." in name and owner.get("kind") == "object" and owner.get("module_file"):
            found = _attribute_carrier(name.split(".")[-1], owner, group["kind"], step, said, back_site, freer)
        else:
            found = _local_carrier(name, carrier["where"], group["kind"], step, said, back_site, freer)
        if found is None:
            continue
        same = next((d for d in diagnoses if (d.path, d.line) == (found.path, found.line) and d.guided and found.guided), None)
        if same is None:
            diagnoses.append(found)
        else:
            diagnoses[diagnoses.index(same)] = _joined(same, found)
    if not diagnoses and back_site is not None:
        names = ", ".join(f"`{n}`" for n in groups) or "a value"
        evidence = Evidence("runtime", step, said + f"; {names} carried it from the previous iteration", _related(back_site, freer))
        diagnoses.append(Diagnosis(
            "AF102", back_site["file"], int(back_site["line"]),
            f"this backward reaches the previous iteration's freed graph through {names} "
            "(no fix: detach the carried state where each iteration starts using it)",
            evidence, names=tuple(groups),
        ))
    return diagnoses


def _joined(first: Diagnosis, second: Diagnosis) -> Diagnosis:
    """Carriers first read by one statement (``lstm(x, (h, c))``): one finding, one detach of both."""
    assert first.guided is not None and second.guided is not None
    names = first.names + tuple(n for n in second.names if n not in first.names)
    params = {
        key: tuple(first.guided.param(key, ())) + tuple(second.guided.param(key, ()))
        for key in ("names", "kinds", "guards")
    }
    shown = ", ".join(f"`{n}`" for n in params["names"])
    evidence = Evidence(first.evidence.kind, first.evidence.step,
                        first.evidence.message.rsplit("; ", 1)[0] + f"; {shown} carried it from the previous iteration",
                        first.evidence.related)
    message = (
        f"{shown} carry the previous iteration's graph into this one, and backward() inside the loop frees that "
        "graph; detach them at the start of each iteration (truncated BPTT)"
    )
    guided = Guided(first.guided.kind, first.guided.text, tuple(params.items()))
    return Diagnosis(first.code, first.path, first.line, message, evidence, names, guided, first.lines)


def _local_carrier(name: str, where: Dict[str, Any], kind: str, step: int, said: str, back_site, freer) -> Optional[Diagnosis]:
    source = Source.load(where["file"])
    if source is None:
        return None
    scope = source.scope(where["function"], where.get("first_line", 0))
    line = int(back_site["line"]) if back_site and back_site.get("file") == where["file"] else int(where["line"])
    loops = source.enclosing_loops(line, scope)
    if not loops:
        return None
    loop = loops[-1]
    # Detach where the innermost loop around the backward starts using the carried value.
    body: List[ast.stmt] = getattr(loop, "body", [])
    anchor = _first_read(body, lambda n: isinstance(n, ast.Name) and n.id == name)
    if anchor is None:
        return None
    evidence = Evidence("runtime", step, said + f"; `{name}` carried it from the previous iteration", _related(back_site, freer))
    guard = _assigned_none(source, scope, name)
    guided = Guided("detach-carried", source.statement_text(anchor), (("names", (name,)), ("kinds", (kind,)), ("guards", (guard,))))
    message = (
        f"`{name}` carries the previous iteration's graph into this one, and backward() inside the loop frees that "
        "graph; detach it at the start of each iteration (truncated BPTT)"
    )
    return Diagnosis("AF102", where["file"], anchor.lineno, message, evidence, names=(name,), guided=guided,
                     lines=tuple(range(anchor.lineno, (anchor.end_lineno or anchor.lineno) + 1)))


def _attribute_carrier(attr: str, owner: Dict[str, Any], kind: str, step: int, said: str, back_site, freer) -> Optional[Diagnosis]:
    source = Source.load(owner["module_file"])
    if source is None:
        return None
    cls = next((n for n in ast.walk(source.tree) if isinstance(n, ast.ClassDef) and n.name == owner.get("class")), None)
    if cls is None:
        return None
    methods = [n for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name != "__init__"]
    methods.sort(key=lambda m: m.name != "forward")
    for method in methods:
        stmt = _first_read(
            method.body,
            lambda n: isinstance(n, ast.Attribute) and n.attr == attr and isinstance(n.value, ast.Name) and n.value.id == "self",
        )
        if stmt is not None:
            name = f"self.{attr}"
            evidence = Evidence(
                "runtime", step,
                said + f"; `{name}` of {owner.get('class')} carried it from the previous call",
                _related(back_site, freer, {"file": owner["module_file"], "line": stmt.lineno}),
            )
            guard = _assigned_none(source, cls, name)
            guided = Guided("detach-carried", source.statement_text(stmt), (("names", (name,)), ("kinds", (kind,)), ("guards", (guard,))))
            message = (
                f"`{name}` keeps the previous call's graph and `{method.name}` reads it again; backward() frees that "
                "graph every iteration, so detach it before it is used"
            )
            return Diagnosis("AF102", source.path, stmt.lineno, message, evidence, names=(name, attr), guided=guided)
    return None


def _first_read(body: Sequence[ast.stmt], matches: Callable[[ast.AST], bool]) -> Optional[ast.stmt]:
    """The first statement of ``body`` that reads the value before writing it; None when it is written first.

    ``out, (h, c) = lstm(x, (h, c))`` reads ``h`` and ``c`` (the right side runs
    first) but only writes ``out``: ``out`` is not carried into the iteration.
    """
    for stmt in body:
        written = []
        if isinstance(stmt, ast.AugAssign) and any(matches(n) for n in ast.walk(stmt)):
            return stmt
        if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            written = [n for t in targets for n in ast.walk(t) if matches(n) and isinstance(getattr(n, "ctx", None), ast.Store)]
            value = stmt.value
            if value is not None and any(matches(n) for n in ast.walk(value)):
                return stmt
            reads_in_targets = [n for t in targets for n in ast.walk(t) if matches(n) and isinstance(getattr(n, "ctx", None), ast.Load)]
            if reads_in_targets:
                return stmt  # h[0] = ..., self.h.x = ...: the old value is used
            if written:
                return None
            continue
        nodes = [n for n in ast.walk(stmt) if matches(n)]
        if any(isinstance(getattr(n, "ctx", None), ast.Load) for n in nodes):
            return stmt
        if nodes:
            return None
    return None


def _assigned_none(source: Source, scope: ast.AST, name: str) -> bool:
    for node in ast.walk(scope):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and node.value.value is None:
            if any(expression_text(t) == name for t in node.targets):
                return True
    return False


# --------------------------------------------------------------------------- in place


def inplace(failure: Dict[str, Any], records: List[Dict[str, Any]], traceback_sites: List[Dict[str, Any]], step: int, message: str) -> List[Diagnosis]:
    said = f'step {step} raised "{first_line(message, 70)}"'
    forward = (failure.get("forward") or [None])[0]
    if records:
        record = records[-1]
        site = record.get("site")
        if site is None:
            return []
        made = f" (the output of {record['made_by']})" if record.get("made_by") else ""
        evidence = Evidence(
            "runtime", step,
            said + f"; `{record['op']}` at {_where(site)} wrote in place to a tensor autograd saved{made}"
            + (f" in the forward at {_where(forward)}" if forward else ""),
            _related(site, forward),
        )
        guided = _augassign(site)
        tail = "" if guided else " (no fix: write the out-of-place form, e.g. `x = x + y`, or drop inplace=True upstream)"
        text = f"in-place `{record['op']}` on a tensor autograd saved for backward (bumps its version); use the out-of-place form{tail}"
        return [Diagnosis("AF103", site["file"], int(site["line"]), text, evidence, guided=guided)]
    if traceback_sites and LEAF_INPLACE in message:
        site = traceback_sites[0]
        evidence = Evidence("runtime", step, said + f" at {_where(site)}", _related(site))
        text = "in-place op on a leaf tensor that requires grad (no fix: wrap it in `with torch.no_grad():` or use the out-of-place form)"
        return [Diagnosis("AF103", site["file"], int(site["line"]), text, evidence)]
    if traceback_sites and MULTI_VIEW_INPLACE in message:
        site = traceback_sites[0]
        evidence = Evidence("runtime", step, said + f" at {_where(site)}", _related(site))
        guided = _augassign(site)
        tail = "" if guided else " (no fix: write the out-of-place form, e.g. `part = part * w`)"
        text = (
            "in-place write to a piece of `chunk`/`split`/`unbind`, a view autograd refuses to see "
            f"modified; use the out-of-place form{tail}"
        )
        return [Diagnosis("AF103", site["file"], int(site["line"]), text, evidence, guided=guided)]
    return []


def _augassign(site: Dict[str, Any]) -> Optional[Guided]:
    source = Source.load(site["file"])
    if source is None:
        return None
    stmt = source.simple_statement_at(int(site["line"]))
    if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
        return Guided("out-of-place-augassign", source.statement_text(stmt), (("name", stmt.target.id),))
    return None


# --------------------------------------------------------------------------- leaks


def growing_holders(holders: List[List[Dict[str, Any]]]) -> List[Tuple[str, Dict[str, Any], List[int]]]:
    """Holders whose graph grew over three recorded steps in a row (name, last record, sizes).

    Three in a row, not the whole run: a total printed and reset every few
    batches still grows between resets.
    """
    series: Dict[Tuple[str, str, int], List[Dict[str, Any]]] = {}
    for step in holders:
        for holder in step:
            where = holder.get("where") or {}
            key = (holder["name"], where.get("file", ""), int(where.get("first_line", 0)))
            series.setdefault(key, []).append(holder)
    found = []
    for key, records in series.items():
        sizes = [r["nodes"] for r in records]
        # Or: twice it held nodes a backward of an earlier step went through (and freed).
        kept = sum(1 for r in records if r.get("earlier"))
        if any(a < b < c for a, b, c in zip(sizes, sizes[1:], sizes[2:])) or kept >= 2:
            found.append((key[0], records[-1], sizes))
    found.sort(key=lambda item: -(max(item[2]) - item[2][0]))
    return found


def leaks(holders: List[List[Dict[str, Any]]], backward_grows: bool = False) -> List[Diagnosis]:
    """AF105: a growing live graph no backward walks (each backward's own graph stays the same size).

    When the backward graphs grow too, every backward walks the whole history:
    a carried state kept by ``retain_graph=True``, not a total.
    """
    if backward_grows:
        return []
    diagnoses: List[Diagnosis] = []
    for name, holder, sizes in growing_holders(holders):
        base = name.split("[", 1)[0]
        if any(base in d.names for d in diagnoses):
            continue
        where = holder["where"]
        grew_at = next((i + 1 for i, size in enumerate(sizes) if size > sizes[0]), len(sizes))
        said = (
            f"the live autograd graph held by `{base}` grew to {max(sizes)} nodes over {len(sizes)} steps "
            f"(first {sizes[0]}), keeping graphs earlier backward() calls had freed"
        )
        found = _accumulation(base, holder, where, grew_at, said)
        if found is not None:
            diagnoses.append(found)
    return diagnoses


def _accumulation(base: str, holder: Dict[str, Any], where: Dict[str, Any], step: int, said: str) -> Optional[Diagnosis]:
    source = Source.load(where["file"])
    if source is None:
        return None
    scope = source.scope(where["function"], where.get("first_line", 0))
    owner = (holder.get("owner") or {}).get("kind")
    for stmt in source.statements(scope):
        value = _accumulated_value(stmt, base)
        if value is None:
            continue
        evidence = Evidence("runtime", step, said, _related({"file": source.path, "line": stmt.lineno}))
        value_text = expression_text(value)
        guided = Guided("detach-accumulated", source.statement_text(stmt), (("name", base), ("value", value_text)))
        container = " (a dict entry)" if owner == "dict" else " (a list)" if owner == "list" else ""
        message = (
            f"`{base}`{container} accumulates `{value_text}` with its autograd graph, keeping every iteration's graph "
            "alive; it is never back-propagated, so add `.detach()`"
        )
        return Diagnosis("AF105", source.path, stmt.lineno, message, evidence, names=(base,), guided=guided)
    return None


def _accumulated_value(stmt: ast.stmt, base: str) -> Optional[ast.expr]:
    """``base += v``, ``base[k] += v``, ``base = base + v``, ``base.append(v)``: the ``v``."""
    def is_base(node: ast.expr) -> bool:
        while isinstance(node, ast.Subscript):
            node = node.value
        return expression_text(node) == base

    if isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Add) and is_base(stmt.target):
        return stmt.value
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and is_base(stmt.targets[0]):
        value = stmt.value
        if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add) and expression_text(value.left) == expression_text(stmt.targets[0]):
            return value.right
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        call = stmt.value
        if isinstance(call.func, ast.Attribute) and call.func.attr == "append" and is_base(call.func.value) and len(call.args) == 1:
            return call.args[0]
    return None


# --------------------------------------------------------------------------- invariant


def invariant(evidence: Dict[str, Any], mismatch_step: int, detail: str) -> List[Diagnosis]:
    """AF104: the gradients at step ``mismatch_step`` are not the sum of the backward calls before it."""
    index = mismatch_step - 1
    steps = evidence.get("steps") or []
    step_site = steps[index]["site"] if 0 <= index < len(steps) else None
    zero_grads = [z for z in evidence.get("zero_grads") or [] if z["step"] == index and z["after_backwards"] > 0 and z.get("site")]
    said = f"at step {mismatch_step} the optimizer saw gradients that are not the sum of the backward calls since the previous step ({detail})"
    if zero_grads:
        site = zero_grads[-1]["site"]
        evidence_value = Evidence("runtime", mismatch_step, said + f"; zero_grad() at {_where(site)} ran after {zero_grads[-1]['after_backwards']} backward call(s)", _related(site, step_site))
        message = "zero_grad() runs after backward() and before step() in the same step, discarding gradients (no fix: move it before the backward pass, or after the guarded step())"
        return [Diagnosis("AF104", site["file"], int(site["line"]), message, evidence_value)]
    if step_site is None:
        return []
    backwards = [b for b in evidence.get("backwards") or [] if b["step"] == index and b.get("site")]
    last = backwards[-1]["site"] if backwards else None
    # Whatever changed the gradients ran between the last backward and step(): a static
    # finding anywhere in between is about the same thing.
    lines: Tuple[int, ...] = ()
    if last and last["file"] == step_site["file"] and last["line"] <= step_site["line"]:
        lines = tuple(range(int(last["line"]), int(step_site["line"]) + 1))
    if not evidence.get("zero_grads"):
        said += "; zero_grad() never ran"
    evidence_value = Evidence("runtime", mismatch_step, said, _related(step_site, last))
    message = (
        "the gradients step() uses are not the sum of the backward calls since the previous step (no fix: zero the "
        "gradients once per step, before the backward pass, and leave them alone between backward() and step())"
    )
    return [Diagnosis("AF104", step_site["file"], int(step_site["line"]), message, evidence_value, lines=lines)]


# --------------------------------------------------------------------------- retained graphs


def retained_shares(evidence: Dict[str, Any]) -> List[Diagnosis]:
    """Backward calls of one step that share nodes without failing (``retain_graph=True``): AF101."""
    backwards = evidence.get("backwards") or []
    diagnoses = []
    seen = set()
    for record in backwards:
        shared = record.get("shares_with") or []
        site = record.get("site")
        if not shared or site is None:
            continue
        first = backwards[shared[0]]
        if not first.get("retain") or (site["file"], site["line"]) in seen:
            continue
        seen.add((site["file"], site["line"]))
        step = int(record["step"]) + 1
        said = (
            f"in step {step} the backward at {_where(site)} went through {record['nodes']} nodes, some of them "
            f"already traversed by the backward at {_where(first.get('site'))} (kept by retain_graph=True)"
        )
        evidence_value = Evidence("runtime", step, said, _related(first.get("site"), site))
        message = (
            "two backward() calls go through one shared graph in the same iteration; back-propagate the sum of the "
            "losses once (no fix: sum the losses and call backward() once, without retain_graph)"
        )
        lines = tuple(int(s["line"]) for s in (first.get("site"), site) if s and s.get("file") == site["file"])
        names = backward_receivers(first.get("site"), site)
        diagnoses.append(Diagnosis("AF101", site["file"], int(site["line"]), message, evidence_value, names=names, lines=lines))
    return diagnoses


def unused_retains(evidence: Dict[str, Any]) -> List[Tuple[Dict[str, Any], int]]:
    """Backward calls with ``retain_graph=True`` whose graph no later backward of the step reused.

    The extension point for AF106 (retain-graph): :func:`autofix.doctor.diagnoses` turns these into
    findings once that rule is registered.
    """
    backwards = evidence.get("backwards") or []
    unused = []
    for record in backwards:
        if not record.get("retain") or record.get("site") is None:
            continue
        reused = any(record["index"] in (later.get("shares_with") or []) for later in backwards if later["index"] > record["index"])
        if not reused:
            unused.append((record, int(record["step"]) + 1))
    return unused
