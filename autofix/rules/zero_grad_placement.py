"""AF104: zero_grad() where it erases the gradients the next step() needs, or nowhere."""

from __future__ import annotations

import ast
import re

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Sequence, Set, Tuple, Union

import libcst as cst

from libcst.metadata import PositionProvider

from autofix.analysis import screen
from autofix.analysis.dataflow import bind_arguments
from autofix.analysis.loops import binding_targets, target_parts
from autofix.analysis.names import children, dotted_name, iter_calls, method_call, walk_local
from autofix.analysis.steps import (
    Line,
    backward_holders,
    blocks,
    calls_eventful_method,
    expr_call,
    framework_step_functions,
    function_summary,
    linear_block,
    method_owner,
    scope_summary,
    scopes,
)
from autofix.analysis.training import (
    is_backward_call,
    is_step_call,
    is_zero_grad_call,
    optimizer_facts,
    qualified_names,
)
from autofix.model import AttrKind, FunctionSummary, ModuleModel
from autofix.model.summaries import MODULE_BODY
from autofix.model.callers import LoopedCaller, instance_callers, looped_callers, looped_function_callers
from autofix.rule import Edit, Fix, InsertAfter, InsertBefore, Remove, Replace, Rule
from autofix.types import Applicability, Expectation


@dataclass(frozen=True)
class _ZeroGrad:
    line: Line
    #: What it clears: an optimizer or model dotted name (``opt``, ``self.model``), or a parameter list.
    target: str


@dataclass(frozen=True)
class _Step:
    line: Line
    call: cst.Call
    #: The optimizer that steps (``opt`` for ``opt.step()`` and ``scaler.step(opt)``).
    optimizer: str


class ZeroGradPlacement(Rule):
    """
    ## What it does
    Checks where `zero_grad()` runs relative to `backward()` and the optimizer
    `step()` it belongs to, and reports:

    - `zero_grad()` after `backward()` and before `step()`: the step sees zero
      gradients and the model never learns. A part of the stepped model zeroed
      there (`self.model.encoder.zero_grad()` while the optimizer steps all of
      `self.model`'s parameters) is a freeze of that part on purpose and is not
      reported;
    - gradient accumulation (`step()` under `if (i + 1) % accum_steps == 0:`)
      with `zero_grad()` on every micro-batch: only the last micro-batch's
      gradients reach the step;
    - a training loop that calls `backward()` and `step()` but never zeroes the
      gradients of that optimizer: they pile up across steps. Another
      optimizer's `zero_grad()` does not count when the two are known to update
      different models (a GAN whose generator optimizer is zeroed and whose
      discriminator optimizer never is); a model's `zero_grad()` does;
    - a worker that hands its local model's gradient tensors to a shared
      model (`shared_param._grad = param.grad`, the A3C idiom) and zeroes
      only through `zero_grad()` with its default `set_to_none=True` (PyTorch
      2.0 on): that used to zero the shared tensors, which are the local ones,
      in place; now nothing zeroes the local gradients and they pile up. The
      fix passes `set_to_none=False`. A local `zero_grad()` with the hand-over
      skipped once the shared gradient is set (`if shared.grad is not None:
      return`) leaves the shared model stepping with its first gradients
      forever; handed over afresh every step, it is right and not reported.
      The hand-over may be a loop of the step, or a helper it calls: a
      function of this file or of a project module it imports
      (`ensure_shared_grads(model, shared_model)` from `utils.py`), or a
      method of the worker's class or of a project base class in another
      file (`self.ensure_global_grads()`). When another `zero_grad()` of the
      local model runs elsewhere in the file (the loop around a step method
      zeroing too), zeroing in place at one of them repairs nothing: reported
      without a fix.
    - a loop whose steps run on gradients zeroed only outside it
      (`opt.zero_grad()` once before `for batch in loader:`, the step in a
      method the loop calls): every step but the first applies the sum of all
      gradients so far.

    The step is followed into `self.` methods (`fit()` looping over
    `self.train_step(batch)`, a `zero_grad()` or `step()` in a helper method)
    and into loops a framework owns: Lightning's `training_step` (with
    `self.manual_backward(loss)`) and the update function given to ignite's
    `Engine`. A `zero_grad()` gated by an accumulation test while `step()` runs
    on every micro-batch is reported without a fix (which of the two is meant
    to be gated is not known). `zero_grad()` every iteration inside
    `accelerator.accumulate(model)` is correct and not reported.

    Every spelling counts: `opt.zero_grad()`, `opt.zero_grad(set_to_none=True)`,
    `model.zero_grad()` (matched to the optimizer built from `model.parameters()`),
    and `for p in model.parameters(): p.grad = None`. With several optimizers,
    each `zero_grad()` is matched to its own `step()`.

    ## Why is this bad?
    `backward()` adds into `.grad`; `step()` reads `.grad`. Zeroing between
    them throws the fresh gradients away; never zeroing sums the gradients of
    every batch so far; zeroing every micro-batch undoes accumulation. None of
    these raise an error: the loss just does not go down as it should.

    ## Example
    ```python
    for i, (x, y) in enumerate(loader):
        loss = criterion(model(x), y) / accum_steps
        optimizer.zero_grad()
        loss.backward()
        if (i + 1) % accum_steps == 0:
            optimizer.step()
    ```

    Use instead:
    ```python
    optimizer.zero_grad()
    for i, (x, y) in enumerate(loader):
        loss = criterion(model(x), y) / accum_steps
        loss.backward()
        if (i + 1) % accum_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
    ```
    and `loss.backward(); optimizer.zero_grad(); optimizer.step()` becomes
    `optimizer.zero_grad(); loss.backward(); optimizer.step()`.

    ## Fix safety
    Moving a misplaced `zero_grad()` is safe in the sense that it is what the
    code means to do, but it changes the numbers on purpose: the verifier checks
    that every `step()` then sees exactly the gradients accumulated since the
    previous one. Inserting a missing `zero_grad()` is unsafe: someone may
    accumulate on purpose across steps, or zero the gradients somewhere this
    file does not show; it is only reported for an optimizer constructed in the
    file (`torch.optim.*`, resolved through imports), or handed to a method by
    callers in other files that build one (`executor.train(model, optimizer,
    ...)`), when neither the file nor those callers zero gradients anywhere. A
    step under an `if` of the loop body (`if torch.isfinite(norm): step()`)
    gets its `zero_grad()` before the backward pass; under an accumulation
    guard, right after the guarded step. A misplaced `zero_grad()` is matched to its `step()`
    by the receiver, by the model the optimizer was built from, or, when the
    file steps a single optimizer, by being the only candidate.

    ## Runtime evidence
    With `autofix --run CMD` the recorder checks this rule's invariant at every
    `step()`: each gradient must be the sum of the backward contributions since
    the previous step. Where it breaks, the doctor names the `zero_grad()` call
    that ran after a backward of the same step (or the `step()` of a loop that
    never zeroes).

    ## References
    - [`torch.optim.Optimizer.zero_grad`](https://pytorch.org/docs/stable/generated/torch.optim.Optimizer.zero_grad.html)
    - [Zeroing out gradients in PyTorch](https://pytorch.org/tutorials/recipes/recipes/zeroing_out_gradients.html)
    """

    CODE = "AF104"
    NAME = "zero-grad-placement"
    SUMMARY = "zero_grad() between backward() and step(), on every accumulation micro-batch, or missing"
    MESSAGE = "zero_grad() is misplaced relative to backward() and step()"
    TRIGGERS = ("backward",)
    FIXES = (Applicability.SAFE, Applicability.UNSAFE)
    EXPECTATION = Expectation.INTENDED_CHANGE

    @classmethod
    def may_fire_in(cls, tree: ast.Module) -> bool:
        return screen.calls_backward(tree)

    def check(self) -> None:
        holders = backward_holders(self.context)
        if not holders:
            return
        self.facts = optimizer_facts(self.context)
        self._zeroes: Optional[Set[str]] = None
        self._models: Optional[Set[str]] = None
        self._reported: Set[Tuple[int, str]] = set()
        framework = framework_step_functions(self.context)
        for scope in scopes(self.context.module):
            # A method that runs the step through `self.train_step(batch)` is
            # read with that method's statements in place of the call.
            inlines = isinstance(scope, cst.FunctionDef) and calls_eventful_method(self.context, scope)
            if scope not in holders and not isinstance(scope, cst.Module) and not inlines:
                continue
            owner_class = method_owner(self.context, scope)
            parents: Dict[cst.CSTNode, List[Line]] = {}
            found = []
            for owner, body in blocks(scope):
                if owner is not scope and owner not in holders and not inlines:
                    continue
                lines = linear_block(self.context, body, owner_class)
                for line in lines:
                    parents[line.stmt] = lines
                found.append((owner, body, lines))
            self._owner_class = owner_class
            self._scope = scope
            self._stepped = {s.optimizer for _, _, lines in found for s in self._steps(lines)}
            for owner, body, lines in found:
                self._check_between(lines)
                self._check_shared_grads(lines)
                # Lightning's training_step and ignite's update function are
                # the body of a loop the framework runs.
                if (isinstance(owner, (cst.For, cst.While)) and _is_loop_body(owner, body)) or (owner is scope and scope in framework):
                    self._check_accumulation(owner, lines, parents.get(owner, []))
                    self._check_gated_zero_grad(lines)
                    self._check_missing(lines, scope, owner)
                elif owner is scope and isinstance(scope, cst.FunctionDef) and scope in holders:
                    self._check_missing_looped_elsewhere(scope, lines)

    def report(self, node: cst.CSTNode, message: Optional[str] = None, **options: Any) -> None:
        # A method inlined into its caller's loop is also checked on its own:
        # one finding per statement and message.
        key = (id(node), message or "")
        if key not in self._reported:
            self._reported.add(key)
            super().report(node, message, **options)

    # ------------------------------------------------------------------ spellings

    def _zero_grad(self, line: Line) -> Optional[_ZeroGrad]:
        call = expr_call(line)
        if call is not None:
            mc = method_call(call)
            if mc is not None and is_zero_grad_call(call):
                return _ZeroGrad(line, dotted_name(mc[0]) or "")
            return None
        loop = line.stmt
        if line.small is None and isinstance(loop, cst.For) and _clears_grads(loop):
            mc = method_call(loop.iter)
            if mc is not None and mc[1] == "parameters":
                return _ZeroGrad(line, dotted_name(mc[0]) or "")
            return _ZeroGrad(line, dotted_name(loop.iter) or "")
        return None

    def _step(self, line: Line) -> Optional[_Step]:
        call = expr_call(line)
        if call is None or not is_step_call(self.context, call):
            return None
        mc = method_call(call)
        receiver = dotted_name(mc[0]) if mc is not None else None
        if self.facts.is_optimizer(receiver):
            return _Step(line, call, receiver or "")
        return _Step(line, call, dotted_name(call.args[0].value) or "")

    def _steps(self, lines: List[Line]) -> List[_Step]:
        return [s for s in (self._step(line) for line in lines) if s is not None]

    def _matches(self, zero: _ZeroGrad, optimizer: str) -> bool:
        if zero.target == optimizer:
            return True
        sources = self.facts.param_sources.get(optimizer)
        if sources:
            # `self.model.sub.zero_grad()` while the optimizer steps `self.model.parameters()`
            # is not in `sources`: a freeze of that part, not a misplaced reset.
            return zero.target in sources
        # Unknown parameters: a model's zero_grad belongs to the only optimizer around,
        # unless it is a part of a model (`self.model.lang_model.zero_grad()` next to
        # `self.model(x)`): zeroing one part between backward and step keeps it frozen.
        return len(self._stepped) == 1 and not self.facts.is_optimizer(zero.target) and not self._is_model_part(zero.target)

    def _is_model_part(self, target: str) -> bool:
        """``target`` is an attribute of something the module uses as a whole model: called
        (``self.model(x)``), asked for ``.parameters()``, or given to an optimizer."""
        if self._models is None:
            models: Set[str] = {name for sources in self.facts.param_sources.values() for name in sources}
            for call in _nodes(self.context.module, cst.Call):
                assert isinstance(call, cst.Call)
                mc = method_call(call)
                name = dotted_name(mc[0]) if mc is not None and mc[1] in ("parameters", "named_parameters") else dotted_name(call.func)
                if name:
                    models.add(name)
            self._models = models
        # `model.module` of a DataParallel/DDP wrapper is the whole model, not a part of it.
        parts = [part for part in target.split(".") if part != "module"]
        return any(".".join(parts[:n]) in self._models for n in range(1, len(parts)))

    def _has_backward(self, line: Line) -> bool:
        return any(is_backward_call(self.context, c) for c in iter_calls(line.node))

    # ------------------------------------------------------------------ zero_grad between backward and step

    def _check_between(self, lines: List[Line]) -> None:
        start: Dict[str, int] = {}
        for index, line in enumerate(lines):
            step = self._step(line)
            if step is None:
                continue
            segment_start = start.get(step.optimizer, 0)
            start[step.optimizer] = index + 1
            segment = lines[segment_start:index]
            self._check_segment(segment, step)

    def _check_segment(self, segment: List[Line], step: _Step) -> None:
        backward_at = [i for i, line in enumerate(segment) if self._has_backward(line)]
        if not backward_at:
            return
        zeroes = [(i, z) for i, z in ((i, self._zero_grad(line)) for i, line in enumerate(segment)) if z and self._matches(z, step.optimizer)]
        late = [(i, z) for i, z in zeroes if i > backward_at[-1]]
        if not late:
            return
        # Verify that nothing between the zero_grad and the step writes
        # gradients back (PCGrad-style surgery sets `p.grad = ...` by hand).
        index, zero = late[-1]
        if any(_touches_grad(line.node) or self._has_backward(line) for line in segment[index + 1:]):
            return
        first_backward = segment[backward_at[0]]
        zeroed_before = any(i < backward_at[0] for i, _ in zeroes)
        # Each late zero_grad is its own finding, and its fix moves only that line: a fix never
        # deletes a line it did not report.
        for _, zero in late:
            edits: List[Edit] = [_remove(zero.line)]
            if not zeroed_before:
                edits.append(InsertBefore(first_backward.stmt, (_copy(zero.line),)))
            zero_text = self._text(zero.line)
            self.report(
                zero.line.node,
                f"`{zero_text}` runs after `backward()` and before `{self._text(step.line)}`: the step sees zero gradients; zero them before the backward pass",
                fix=Fix.safe(f"Move `{zero_text}` before the backward pass", *edits),
            )

    # ------------------------------------------------------------------ gradient accumulation

    def _check_accumulation(self, loop: cst.CSTNode, lines: List[Line], parent: List[Line]) -> None:
        if not any(self._has_backward(line) for line in lines):
            return
        unguarded_steps = {s.optimizer for s in self._steps(lines)}
        for line in lines:
            guard = line.stmt
            if line.small is not None or not isinstance(guard, cst.If) or guard.orelse is not None:
                continue
            if not _accumulation_test(guard.test):
                continue
            inner = linear_block(self.context, guard.body.body, self._owner_class)
            for step in self._steps(inner):
                if step.optimizer in unguarded_steps:
                    continue
                if any(self._has_backward(line) for line in inner[: inner.index(step.line)]):
                    # The guard runs its own backward before the step (a GAN generator updated
                    # every n-th batch): a guarded update, not gradients accumulated across batches.
                    continue
                every_batch = [z for z in (self._zero_grad(line) for line in lines) if z and self._matches(z, step.optimizer)]
                if every_batch:
                    self._report_accumulation(loop, step, inner, every_batch, parent)

    def _report_accumulation(self, loop, step: _Step, inner: List[Line], every_batch: List[_ZeroGrad], parent: List[Line]) -> None:
        zero = every_batch[0]
        edits: List[Edit] = [_remove(z.line) for z in every_batch]
        after = inner.index(step.line)
        inner_zeroes = [z for z in (self._zero_grad(line) for line in inner[after + 1:]) if z and self._matches(z, step.optimizer)]
        if not inner_zeroes:
            anchor = step.line
            # Keep `scaler.step(opt); scaler.update()` together.
            following = inner[after + 1] if after + 1 < len(inner) else None
            call = expr_call(following) if following is not None else None
            mc = method_call(call) if call is not None else None
            if following is not None and mc is not None and mc[1] == "update":
                anchor = following
            edits.append(InsertAfter(anchor.stmt, (_copy(zero.line),)))
        position = next((i for i, line in enumerate(parent) if line.stmt is loop), None)
        before = parent[:position] if position is not None else []
        if position is not None and not any(z and self._matches(z, step.optimizer) for z in map(self._zero_grad, before)):
            if before:
                edits.append(InsertAfter(before[-1].stmt, (_copy(zero.line),)))
            else:
                edits.append(InsertBefore(loop, (_copy(zero.line),)))
        zero_text = self._text(zero.line)
        self.report(
            zero.line.node,
            f"`{zero_text}` runs on every micro-batch but `{self._text(step.line)}` only under an accumulation guard: accumulated gradients are erased; zero them right after the guarded step",
            fix=Fix.safe(f"Move `{zero_text}` after the guarded step", *edits),
        )

    # ------------------------------------------------------------------ zero_grad gated, step not

    def _check_gated_zero_grad(self, lines: List[Line]) -> None:
        """``step()`` on every micro-batch, ``zero_grad()`` only under an accumulation guard."""
        if not any(self._has_backward(line) for line in lines):
            return
        for step in self._steps(lines):
            if any(z and self._matches(z, step.optimizer) for z in map(self._zero_grad, lines)):
                continue
            guard = self._guarded_zero_grad(lines, step.optimizer)
            if guard is None:
                continue
            test = self.context.code_for(guard.test).strip()
            self.report(
                step.call,
                f"`{self._text(step.line)}` runs on every micro-batch but its gradients are zeroed only under `if {test}`: "
                f"each step applies the gradients summed since the last zeroing "
                f"(no fix: put the step under the same accumulation condition, or zero the gradients after every step)",
            )

    def _guarded_zero_grad(self, lines: List[Line], optimizer: str) -> Optional[cst.If]:
        for line in lines:
            guard = line.stmt
            if line.small is not None or not isinstance(guard, cst.If) or guard.orelse is not None:
                continue
            if not _accumulation_test(guard.test):
                continue
            inner = linear_block(self.context, guard.body.body, self._owner_class)
            if any(z and self._matches(z, optimizer) for z in map(self._zero_grad, inner)) and not self._steps(inner):
                return guard
        return None

    # ------------------------------------------------------------------ no zero_grad at all

    def _check_shared_grads(self, lines: List[Line]) -> None:
        """A step that hands a local model's gradient tensors to another model's parameters
        (``shared_param._grad = param.grad``, the A3C idiom) relies on ``zero_grad()`` zeroing those
        tensors in place, as it did before PyTorch 2.0. It now sets ``.grad`` to None by default: the
        local gradients pile up (no local zeroing) or the shared ones go stale (a local ``zero_grad()``
        with the hand-over skipped once the shared gradient is set)."""
        backward_at = next((i for i, line in enumerate(lines) if self._has_backward(line)), None)
        if backward_at is None:
            return
        zeroes = [(line, call) for line in lines for call in [expr_call(line)] if call is not None and is_zero_grad_call(call)]
        defaults = [(line, call) for line, call in zeroes if not call.args]
        if not defaults:
            return
        # A helper is called on the gradients a backward() made: the calls before it are not
        # resolved (that would read other files of the project for nothing).
        shares = [
            share for i, line in enumerate(lines)
            for share in [self._grad_share(line, calls=i > backward_at)] if share is not None
        ]
        if not shares:
            return
        local, conditional = shares[0]
        if any(share[0] != local for share in shares):
            return
        # What clears the local gradients: the local model's own zero_grad(), or that of an optimizer
        # known to be built from its parameters (not the shared model's, the usual case).
        clears = [
            z for z in (self._zero_grad(line) for line in lines)
            if z is not None and (z.target == local or local in self.facts.param_sources.get(z.target, ()))
        ]
        fixable = True
        if clears:
            # Local gradients set to None every step are right when they are handed over afresh every
            # step; only a lone local ``zero_grad()`` with the hand-over skipped once done is wrong.
            if not conditional or len(zeroes) != 1 or len(clears) != 1 or clears[0].line is not defaults[0][0]:
                return
            why = (f"`{local}.zero_grad()` sets them to None, so the next backward() makes new tensors, and the "
                   "hand-over, skipped once the shared gradients are set, leaves the other model stepping with the "
                   "first gradients forever")
            # Another ``zero_grad()`` of that model in this file (the loop around a step method zeroing
            # too) still drops the tensors between hand-overs: zeroing in place here alone fixes nothing.
            fixable = not self._zeroed_elsewhere(local, defaults[0][1])
            if not fixable:
                why += (f"; another `{local}.zero_grad()` in this file drops them too, so each one that runs "
                        "between two steps must zero in place")
        else:
            why = (f"nothing zeroes `{local}`'s gradients any more, so they pile up and every step applies the sum "
                   "of all gradients so far")
        first_call = defaults[0][1]
        mc = method_call(first_call)
        target = (dotted_name(mc[0]) if mc is not None else None) or "zero_grad"
        edits = tuple(Replace(call, call.with_changes(args=[cst.Arg(
            cst.Name("False"), keyword=cst.Name("set_to_none"), equal=cst.AssignEqual(
                whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")))]))
            for _, call in defaults)
        self.report(
            first_call,
            f"`{target}.zero_grad()` sets `.grad` to None (the default since PyTorch 2.0), but this step hands "
            f"`{local}`'s gradient tensors to another model's parameters and relies on zeroing them in place: {why}",
            fix=Fix.unsafe("Zero the gradients in place: `zero_grad(set_to_none=False)`", *edits) if fixable else None,
        )

    def _grad_share(self, line: Line, calls: bool) -> Optional[Tuple[str, bool]]:
        """``(local model, conditional)`` when ``line`` hands a local model's ``.grad`` tensors to another
        model's parameters (:class:`~autofix.model.summaries.GradHandOver`): a ``for`` over
        ``zip(a.parameters(), b.parameters())`` doing it, or (``calls``) a call of a function or method
        of the project whose body does, here or in another file (imported, or a method of a base class)."""
        stmt = line.stmt
        if isinstance(stmt, cst.For) and line.small is None:
            if not (isinstance(stmt.iter, cst.Call) and dotted_name(stmt.iter.func) == "zip"):
                return None
            summary = scope_summary(self.context, line.inlined or self._scope)
            at = self.context.get(PositionProvider, stmt).start.line
            found = next((h for h in summary.grad_hand_overs if h.line == at), None) if summary is not None else None
            return (str(found.local), found.conditional) if found is not None else None
        call = expr_call(line)
        spelled = dotted_name(call.func) if call is not None and calls else None
        if call is None or spelled is None:
            return None
        head, _, rest = spelled.partition(".")
        # ``self.ensure_grads()`` (its ``self.model`` is the caller's), or a function of this file or
        # of an imported module given the model (``ensure_shared_grads(model, shared)``): nothing else
        # is resolved.
        via_self = head == "self" and bool(rest) and "." not in rest
        if not via_self and not (call.args and (not rest or head in self.context.model.imports)):
            return None
        caller = scope_summary(self.context, line.inlined or self._scope)
        callee = self.context.model.callee(caller, spelled) if caller is not None else None
        if not isinstance(callee, FunctionSummary) or not callee.grad_hand_overs:
            return None
        hand_over = callee.grad_hand_overs[0]
        if hand_over.local.kind == "param":
            argument = dict(bind_arguments(callee, call)).get(hand_over.local.name)
            local = dotted_name(argument) if argument is not None else None
            return (local, hand_over.conditional) if local else None
        if hand_over.local.kind == "self" and via_self:
            return str(hand_over.local), hand_over.conditional
        return None

    def _zeroed_elsewhere(self, local: str, call: cst.Call) -> bool:
        """Some function of this file, other than at ``call``, calls ``<local>.zero_grad()``."""
        at = self.context.get(PositionProvider, call).start.line
        return any(
            str(zero.target) == local and zero.line != at
            for function in self.context.model.functions() for zero in function.zero_grads
        )

    def _check_missing(self, lines: List[Line], scope: cst.CSTNode, loop: cst.CSTNode) -> None:
        backward_at = [i for i, line in enumerate(lines) if self._has_backward(line)]
        if not backward_at:
            return
        for step in self._steps(lines):
            if lines.index(step.line) < backward_at[0]:
                continue
            # Verify that the optimizer is known by construction, not by name only (or, where it is
            # zeroed, that it is the object whose ``zero_grad()`` and ``step()`` both run).
            known = step.optimizer in self.facts.optimizers or self._optimizer_passed_in(step.optimizer, scope)
            why = "nothing zeroes its gradients"
            if self._zeroed_somewhere(step.optimizer):
                if loop is scope or not self._zeroed_only_outside(step.optimizer, scope, loop):
                    continue
                if not known and not {"zero_grad", "step"} <= self.facts.methods.get(step.optimizer, set()):
                    continue
                why = "its gradients are zeroed only outside the loop"
            elif not known:
                continue
            first = lines[backward_at[0]]
            message = f"`{self._text(step.line)}` runs every iteration but {why}: each step applies the sum of all gradients so far"
            if _binds_between(lines, backward_at[0], lines.index(step.line), step.optimizer):
                self.report(step.call, message + _BUILT_AFTER.format(step.optimizer))
                continue
            new = cst.parse_statement(f"{step.optimizer}.zero_grad()\n")
            self.report(
                step.call,
                message,
                fix=Fix.unsafe(f"Insert `{step.optimizer}.zero_grad()` before the backward pass", InsertBefore(first.stmt, (new,))),
            )
        self._check_missing_guarded(lines, backward_at[0], scope)

    def _check_missing_guarded(self, lines: List[Line], first_backward: int, scope: cst.CSTNode) -> None:
        """A step under an ``if`` of the loop body (``if torch.isfinite(grad_norm): optimizer.step()``,
        an accumulation guard) with nothing zeroing its gradients anywhere: the gradients grow without
        bound. Under an accumulation guard they are zeroed right after the guarded step (the window
        starts afresh); under any other guard before each backward pass, as for an unguarded step."""
        for index, line in enumerate(lines):
            guard = line.stmt
            if index < first_backward or line.small is not None or not isinstance(guard, cst.If) or guard.orelse is not None:
                continue
            for step in self._steps(linear_block(self.context, guard.body.body, self._owner_class)):
                if step.optimizer not in self.facts.optimizers and not self._optimizer_passed_in(step.optimizer, scope):
                    continue
                if self._zeroed_somewhere(step.optimizer):
                    continue
                new = cst.parse_statement(f"{step.optimizer}.zero_grad()\n")
                message = (
                    f"`{self._text(step.line)}` runs under `if {self.context.code_for(guard.test).strip()}:` but nothing "
                    "zeroes its gradients: every backward() adds to all the gradients before it"
                )
                if _accumulation_test(guard.test):
                    where = "after the guarded step"
                    edit: Edit = InsertAfter(step.line.stmt, (new,))
                elif _binds_between(lines, first_backward, index, step.optimizer):
                    self.report(step.call, message + _BUILT_AFTER.format(step.optimizer))
                    continue
                else:
                    where = "before the backward pass"
                    edit = InsertBefore(lines[first_backward].stmt, (new,))
                self.report(step.call, message, fix=Fix.unsafe(f"Insert `{step.optimizer}.zero_grad()` {where}", edit))

    def _optimizer_passed_in(self, name: str, scope: cst.CSTNode) -> bool:
        """``name`` is a parameter of the method holding the loop, and every project caller of it
        (``executor.train(model, optimizer, ...)`` on an instance built in another file) lives in a
        file that builds a ``torch.optim`` optimizer and zeroes no gradients anywhere."""
        summary = function_summary(self.context, scope) if isinstance(scope, cst.FunctionDef) else None
        if summary is None or summary.class_name is None or name not in summary.params[1:]:
            return False
        callers = instance_callers(self.context.model, summary)
        return bool(callers) and all(_builds_optimizer(c.model) and not _zeroes_around(c) for c in callers)

    def _check_missing_looped_elsewhere(self, scope: cst.FunctionDef, lines: List[Line]) -> None:
        """A step (backward, then ``step()``, no zeroing) run once per iteration by a loop in another
        file: a method stepping ``self.<optimizer>`` (a subclass's ``train_epoch`` calling a mixin's
        ``apply_grads``, a base class's ``fit`` calling this subclass's ``train_step``), or a function
        stepping the optimizer it is given (a script's loop calling ``update(model, optimizer, batch)``
        imported from here), with no zeroing anywhere around."""
        backward_at = [i for i, line in enumerate(lines) if self._has_backward(line)]
        if not backward_at:
            return
        summary = function_summary(self.context, scope)
        if summary is None:
            return
        method = summary.class_name is not None
        steps = [
            s for s in self._steps(lines)
            if lines.index(s.line) > backward_at[0] and (_self_attribute(s.optimizer) if method else s.optimizer in summary.params)
        ]
        if not steps or self._module_zeroes():
            return
        step = steps[0]
        if method:
            # A loop in this file runs the method inlined (checked above): only loops of other files.
            callers = [c for c in looped_callers(self.context.model, summary) if c.caller.module != summary.module]
            attribute = step.optimizer.split(".", 1)[1]
            known = all(_is_optimizer_attribute(c, attribute) for c in callers)
        else:
            callers = looped_function_callers(self.context.model, summary)
            # The optimizer comes in as an argument: its caller's file must build one with torch.optim.
            known = self.facts.is_optimizer(step.optimizer) and all(_builds_optimizer(c.model) for c in callers)
        if not callers or not known or any(_zeroes_around(c) for c in callers):
            return
        caller = callers[0]
        where = _relative(caller.path, self.context.model)
        first = lines[backward_at[0]]
        new = cst.parse_statement(f"{step.optimizer}.zero_grad()\n")
        if caller.caller.qualname == MODULE_BODY:
            loop = f"a loop at the top level of `{where}`"
        else:
            loop = f"the loop in `{caller.caller.qualname}` ({where}:{caller.caller.line})"
        message = (
            f"`{self._text(step.line)}` runs once per iteration of {loop} "
            f"but nothing zeroes its gradients: each step applies the sum of all gradients so far"
        )
        if _binds_between(lines, backward_at[0], lines.index(step.line), step.optimizer):
            self.report(step.call, message + _BUILT_AFTER.format(step.optimizer))
            return
        self.report(
            step.call,
            message,
            fix=Fix.unsafe(f"Insert `{step.optimizer}.zero_grad()` before the backward pass", InsertBefore(first.stmt, (new,))),
        )

    def _zeroed_somewhere(self, optimizer: str) -> bool:
        """Something in the module may zero the gradients ``optimizer`` steps: its own or a model's
        ``zero_grad``, gradients cleared by hand, or another optimizer's ``zero_grad`` unless both
        are known to update different models (``opt_E.zero_grad()`` never clears ``D``'s gradients
        that ``opt_D.step()`` applies)."""
        return any(target == "*" or self._covers(target, optimizer) for target in self._module_zeroes())

    def _zeroed_only_outside(self, optimizer: str, scope: cst.CSTNode, loop: cst.CSTNode) -> bool:
        """Every ``zero_grad()`` that may clear ``optimizer``'s gradients is a statement of ``scope``
        itself outside ``loop`` (``opt.zero_grad()`` once before ``for batch in loader:``), and
        nothing clears gradients by hand: no iteration of the loop starts from zero."""
        if "*" in self._module_zeroes():
            return False
        covering = [call for call, target in self._zero_calls if self._covers(target, optimizer)]
        if not covering:
            return False
        inside = {id(n) for n in _nodes(loop, cst.Call)}
        if any(id(call) in inside for call in covering):
            return False
        own = {id(n) for n in self.context.walk(scope, prune=(cst.FunctionDef, cst.ClassDef, cst.Lambda)) if isinstance(n, cst.Call)}
        return all(id(call) in own for call in covering)

    def _covers(self, target: str, optimizer: str) -> bool:
        """``target.zero_grad()`` may clear gradients that ``optimizer.step()`` applies."""
        if target == optimizer or not self.facts.is_optimizer(target):
            return True
        mine, theirs = self.facts.param_sources.get(optimizer), self.facts.param_sources.get(target)
        return not mine or not theirs or bool(mine & theirs)

    def _module_zeroes(self) -> Set[str]:
        """What the module zeroes anywhere; ``*`` when it touches ``.grad`` by hand or zeroes
        through something unnamed. Also keeps :attr:`_zero_calls`."""
        if self._zeroes is None:
            found: Set[str] = set()
            self._zero_calls: List[Tuple[cst.Call, str]] = []
            for call in _nodes(self.context.module, cst.Call):
                assert isinstance(call, cst.Call)
                mc = method_call(call)
                if mc is not None and mc[1] == "zero_grad":
                    target = dotted_name(mc[0])
                    found.add(target or "*")
                    if target is not None:
                        self._zero_calls.append((call, target))
                elif any(n.endswith("zero_grad") for n in qualified_names(self.context, call.func)):
                    found.add("*")
            if _touches_grad(self.context.module, writes_only=True):
                found.add("*")
            self._zeroes = found
        return self._zeroes

    def _text(self, line: Line) -> str:
        text = self.context.code_for(line.node).strip().splitlines()[0]
        return text.rstrip(":")


#: gradients cleared by hand: ``p.grad = None``, ``p.grad.zero_()``, ``p.grad.data.zero_()``
#: gradients cleared by hand, or ``zero_grad`` handed on uncalled (a per-batch hook, a callback)
_CLEARS_GRAD_TEXT = re.compile(rb"\.grad\s*=[^=]|\.grad(\.data)?\.zero_\(|\.zero_grad\b(?!\s*\()")


def _self_attribute(name: str) -> bool:
    """``self.opt``: an optimizer held by the object, the same one in every method and file."""
    return name.startswith("self.") and name.count(".") == 1


def _zeroes_around(caller: LoopedCaller) -> bool:
    """The looping file, or a file of a class the looping object inherits from, zeroes gradients
    somewhere (or touches ``.grad`` by hand): the zeroing may well happen there."""
    model = caller.model
    bases = model.mro(caller.cls) if caller.cls is not None else []
    modules = {id(s): s for s in [model.summary, *(model.class_model(c).summary for c in bases)]}
    for summary in modules.values():
        if any(f.zero_grads for f in summary.functions.values()):
            return True
        data = model.project.bytes_of(summary.path) if model.project is not None and summary.path else None
        if data is None or _CLEARS_GRAD_TEXT.search(data):
            return True
    return False


def _builds_optimizer(model: ModuleModel) -> bool:
    return any(
        constructor.startswith("torch.optim.")
        for function in model.functions()
        for constructor in function.local_constructors.values()
    )


def _is_optimizer_attribute(caller: LoopedCaller, name: str) -> bool:
    """Every assignment of ``self.<name>`` the class makes builds an optimizer (or sets ``None`` first)."""
    attribute = caller.model.attribute(caller.cls, name) if caller.cls is not None else None
    return attribute is not None and AttrKind.OPTIMIZER in attribute.kinds and attribute.kinds <= {AttrKind.OPTIMIZER, AttrKind.NONE}


def _relative(other: str, here: ModuleModel) -> str:
    path = Path(other)
    root = here.project.root if here.project is not None else None
    try:
        return str(path.relative_to(root)) if root is not None else path.name
    except ValueError:
        return path.name


def _is_loop_body(loop: cst.CSTNode, body: list) -> bool:
    # blocks() yields the loop's `else:` block with the same owner.
    own: Sequence[cst.CSTNode] = getattr(getattr(loop, "body", None), "body", ())
    return bool(body) and bool(own) and body[0] is own[0]


def _remove(line: Line) -> Remove:
    return Remove(line.small if line.small is not None else line.stmt)


def _copy(line: Line) -> cst.BaseStatement:
    if line.small is not None:
        small = line.small.deep_clone()
        if isinstance(small, cst.Expr):
            small = small.with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
        return cst.SimpleStatementLine([small])
    return line.stmt.deep_clone().with_changes(leading_lines=())


def _clears_grads(loop: cst.For) -> bool:
    """``for p in params: p.grad = None`` (or ``p.grad.zero_()``) and nothing else."""
    if not isinstance(loop.target, cst.Name) or loop.orelse is not None:
        return False
    name = loop.target.value
    body = getattr(loop.body, "body", ())
    if not body:
        return False
    for stmt in body:
        if isinstance(stmt, cst.If):
            # `if p.grad is not None: p.grad.zero_()`
            if stmt.orelse is not None or not all(_clears_one(s, name) for s in stmt.body.body):
                return False
        elif not _clears_one(stmt, name):
            return False
    return True


def _clears_one(stmt: cst.CSTNode, name: str) -> bool:
    if not isinstance(stmt, cst.SimpleStatementLine):
        return False
    for small in stmt.body:
        if isinstance(small, cst.Assign):
            target = small.targets[0].target
            if not (_is_grad_of(target, name) and isinstance(small.value, cst.Name) and small.value.value == "None"):
                return False
        elif isinstance(small, cst.Expr):
            mc = method_call(small.value)
            if mc is None or mc[1] not in ("zero_", "detach_", "requires_grad_") or not _is_grad_of(mc[0], name):
                return False
        else:
            return False
    return True


def _is_grad_of(node: cst.CSTNode, name: str) -> bool:
    return (
        isinstance(node, cst.Attribute)
        and node.attr.value == "grad"
        and isinstance(node.value, cst.Name)
        and node.value.value == name
    )


def _accumulation_test(test: cst.BaseExpression) -> bool:
    """``(i + 1) % accum_steps == 0``, ``step % k == k - 1``, ``if do_accumulate_step:`` …"""
    found: List[bool] = []

    class Visitor(cst.CSTVisitor):
        def visit_Modulo(self, node: cst.Modulo) -> None:
            found.append(True)

        def visit_Name(self, node: cst.Name) -> None:
            if "accum" in node.value.lower():
                found.append(True)

    test.visit(Visitor())
    return bool(found)


def _nodes(node: cst.CSTNode, kind: Union[type, Tuple[type, ...]]) -> Iterator[cst.CSTNode]:
    """Every node of ``kind`` under ``node``, nested functions included.

    Reads the fields directly (:func:`autofix.analysis.names.children`): a LibCST
    visitor pass costs a copy and a visit of every whitespace token, which made
    this the largest cost of checking a short script.
    """
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, kind):
            yield current
        stack.extend(children(current))


def _touches_grad(node: cst.CSTNode, writes_only: bool = False) -> bool:
    for n in _nodes(node, (cst.Attribute, cst.AssignTarget, cst.Call)):
        if isinstance(n, cst.Attribute):
            if n.attr.value == "grad" and not writes_only:
                return True
        elif isinstance(n, cst.AssignTarget):
            if isinstance(n.target, cst.Attribute) and n.target.attr.value == "grad":
                return True
        else:
            mc = method_call(n)
            if mc is not None and mc[1] in ("zero_", "fill_") and isinstance(mc[0], cst.Attribute) and mc[0].attr.value == "grad":
                return True
    return False


_BUILT_AFTER = " (no fix: `{0}` is built after the backward pass, so `{0}.zero_grad()` cannot go before it; zero the model's gradients there)"


def _binds_between(lines: List[Line], start: int, end: int, name: str) -> bool:
    """A line from ``start`` up to ``end`` binds ``name`` (``optimizer = SGD(model.parameters())`` after the
    backward): a ``zero_grad()`` of it inserted at ``start`` would run before it exists, or on the one
    an earlier iteration built."""
    for line in lines[start:end]:
        for node in walk_local(line.node):
            if any(dotted_name(part) == name for target in binding_targets(node) for part in target_parts(target)):
                return True
    return False
