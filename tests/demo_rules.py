"""Two test-only rules for the engine, CLI and output tests.

They live outside ``autofix.rules``, so the registry ignores them unless a
test installs them with :func:`install`; that keeps these tests independent of
the wording and precision of the real rules, which have their own tests.
"""

from __future__ import annotations

from typing import Dict, Type

import libcst as cst

from autofix import registry
from autofix.rule import Fix, Remove, Replace, Rule
from autofix.types import Applicability


class InplaceReluStatement(Rule):
    """Flags ``x.relu_()`` statements; the safe fix is ``x = x.relu()``."""

    CODE = "AF901"
    NAME = "demo-inplace-relu"
    SUMMARY = "in-place relu_ statement (test rule)"
    MESSAGE = "in-place relu_() on a tensor autograd may need"
    TRIGGERS = ("relu_",)
    FIXES = (Applicability.SAFE,)

    def check(self) -> None:
        for stmt in _statements(self.context.module):
            for small in stmt.body:
                call = small.value if isinstance(small, cst.Expr) else None
                if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute)):
                    continue
                if call.func.attr.value != "relu_" or not isinstance(call.func.value, cst.Name):
                    continue
                name = call.func.value.value
                new = cst.parse_statement(f"{name} = {name}.relu()").body[0]
                self.report(call, fix=Fix.safe("use out-of-place relu", Replace(small, new)))


class RepeatedBackward(Rule):
    """Flags ``loss.backward(retain_graph=True)``; the unsafe fix deletes the statement."""

    CODE = "AF902"
    NAME = "demo-retain-graph"
    SUMMARY = "backward with retain_graph=True (test rule)"
    MESSAGE = "backward(retain_graph=True) keeps the graph alive"
    TRIGGERS = ("retain_graph",)
    FIXES = (Applicability.UNSAFE,)

    def check(self) -> None:
        for stmt in _statements(self.context.module):
            if len(stmt.body) != 1 or "retain_graph=True" not in self.context.code_for(stmt):
                continue
            self.report(stmt.body[0], fix=Fix.unsafe("remove the backward", Remove(stmt)))


class MentionsZeroGrad(Rule):
    """Flags ``zero_grad`` names; no fix."""

    CODE = "AF903"
    NAME = "demo-zero-grad"
    SUMMARY = "mentions zero_grad (test rule)"
    MESSAGE = "zero_grad mentioned"
    TRIGGERS = ("zero_grad",)
    FIXES = ()

    def check(self) -> None:
        for node in _walk(self.context.module):
            if isinstance(node, cst.Name) and node.value == "zero_grad":
                self.report(node)


DEMO_RULES: Dict[str, Type[Rule]] = {r.CODE: r for r in (InplaceReluStatement, RepeatedBackward, MentionsZeroGrad)}


def install(monkeypatch) -> None:
    """Make the registry see exactly the demo rules (forked workers inherit it)."""
    monkeypatch.setattr(registry, "_load", lambda: dict(DEMO_RULES))
    # Selection reads rule infos without importing rules: it must see the same rules.
    monkeypatch.setattr(registry, "infos", lambda: {code: registry._info_of(rule) for code, rule in DEMO_RULES.items()})


def _statements(module: cst.Module):
    for node in _walk(module):
        if isinstance(node, cst.SimpleStatementLine):
            yield node


def _walk(node: cst.CSTNode):
    yield node
    for child in node.children:
        yield from _walk(child)
