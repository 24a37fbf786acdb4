"""Guided fixes: the fix a rule would make, built where the runtime evidence points.

The static rules stay silent where they cannot prove a value's shape (a model
from another module, state on ``self``, a helper whose return type is
unknown). The run proved it: this value is a tensor (or a tuple of tensors)
with a graph, this attribute carries across calls, this ``+=`` writes a tensor
autograd saved. :func:`guided_rule` makes a rule class for one file that
reports those spots with the rules' own fix builders, so the engine renders,
applies and re-checks them like any other fix.

Each spot is identified by its line *and* its statement text: after a fix the
text differs, so the re-check of the fixpoint finds nothing more to do.
"""

from __future__ import annotations

from typing import List, Optional, Sequence, Type

import libcst as cst
from libcst.metadata import PositionProvider

from autofix.doctor.diagnose import Diagnosis
from autofix.rule import Fix, InsertBefore, Replace, Rule
from autofix.rules.carried_state import _detach_statements
from autofix.rules.inplace_autograd import _AUG_OPERATORS, _assign, _needs_parentheses


class GuidedRule(Rule):
    """Reports the doctor's diagnoses of one file; subclasses set ``DIAGNOSES``."""

    #: Empty: the class is never registered; reports carry each diagnosis's own code.
    CODE = ""
    NAME = "doctor"
    DIAGNOSES: Sequence[Diagnosis] = ()

    def check(self) -> None:
        positions = self.context.metadata(PositionProvider)
        statements = []
        for node in self.context.walk(self.context.module, prune=(cst.SimpleStatementLine,)):
            if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
                span = positions[node]
                statements.append((span.start.line, span.end.line, node))
        for diagnosis in self.DIAGNOSES:
            spot = self._statement(diagnosis, statements)
            if spot is None:
                continue  # a guided spot whose text changed: already fixed (or not ours)
            fix = build_fix(diagnosis, spot, self.context.code_for) if diagnosis.guided else None
            message = diagnosis.message
            if diagnosis.guided is not None and fix is None:
                message += " (no fix: the statement's shape is not one the doctor rewrites)"
            self.reports.append(_report(diagnosis, message, spot, fix))

    def _statement(self, diagnosis: Diagnosis, statements) -> Optional[cst.CSTNode]:
        if diagnosis.guided is not None:
            for start, _, node in statements:
                if start == diagnosis.line and _first_line(self.context.code_for(node)) == _first_line(diagnosis.guided.text):
                    return node
            return None
        # A frame's line may sit inside a statement that spans lines: take the innermost one holding it.
        holding = [(end - start, node) for start, end, node in statements if start <= diagnosis.line <= end]
        return min(holding, key=lambda item: item[0])[1] if holding else None


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0].strip() if text.strip() else ""


def _report(diagnosis: Diagnosis, message: str, node: cst.CSTNode, fix: Optional[Fix]):
    from autofix import registry
    from autofix.rule import Report

    try:
        name = registry.get_rule(diagnosis.code).NAME
    except registry.UnknownRuleError:
        name = diagnosis.code
    return Report(diagnosis.code, name, message, node, None, fix)


def build_fix(diagnosis: Diagnosis, node: cst.CSTNode, code_for) -> Optional[Fix]:
    guided = diagnosis.guided
    assert guided is not None
    if guided.kind == "detach-carried" and isinstance(node, cst.BaseStatement):
        names = list(guided.param("names", ()))
        kinds = list(guided.param("kinds", ()))
        maybe_none = {n for n, guard in zip(names, guided.param("guards", ())) if guard}
        statements = _detach_statements(names, kinds, maybe_none, "t")
        if not statements:
            return None
        shown = ", ".join(f"`{n}`" for n in names)
        return Fix.safe(f"Detach {shown} before use (the run showed a freed graph carried in)", InsertBefore(node, tuple(statements)))
    if guided.kind == "out-of-place-augassign" and isinstance(node, cst.SimpleStatementLine) and len(node.body) == 1:
        small = node.body[0]
        if not isinstance(small, cst.AugAssign) or not isinstance(small.target, cst.Name):
            return None
        operator = _AUG_OPERATORS.get(type(small.operator).__name__)
        if operator is None:
            return None
        target = small.target.value
        value = code_for(small.value)
        if _needs_parentheses(small.value, operator):
            value = f"({value})"
        # Unsafe: other names bound to the same tensor no longer see the change.
        return Fix.unsafe(f"Use the out-of-place form and rebind `{target}`", Replace(small, _assign(f"{target} = {target} {operator} {value}")))
    if guided.kind == "detach-accumulated" and isinstance(node, cst.SimpleStatementLine) and len(node.body) == 1:
        value = _accumulated(node.body[0])
        if value is None or isinstance(value, (cst.Tuple, cst.List, cst.Dict, cst.StarredElement)):
            return None
        value_code = code_for(value)
        plain = isinstance(value, (cst.Name, cst.Attribute, cst.Call, cst.Subscript))
        text = f"{value_code}.detach()" if plain else f"({value_code}).detach()"
        replacement = cst.parse_expression(text)
        if plain:
            replacement = replacement.with_changes(lpar=value.lpar, rpar=value.rpar)
        # The run showed a tensor with a graph here, and .detach() keeps it a tensor.
        return Fix.safe(f"Accumulate `{value_code}.detach()`", Replace(value, replacement))
    return None


def _accumulated(small: cst.BaseSmallStatement) -> Optional[cst.BaseExpression]:
    if isinstance(small, cst.AugAssign) and isinstance(small.operator, cst.AddAssign):
        return small.value
    if isinstance(small, cst.Assign) and isinstance(small.value, cst.BinaryOperation) and isinstance(small.value.operator, cst.Add):
        return small.value.right
    if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call) and len(small.value.args) == 1:
        return small.value.args[0].value
    return None


def guided_rule(diagnoses: List[Diagnosis]) -> Type[GuidedRule]:
    """A rule class (not registered: it has no CODE) reporting ``diagnoses`` in one file."""
    return type("DoctorGuidedRule", (GuidedRule,), {"DIAGNOSES": tuple(diagnoses)})
