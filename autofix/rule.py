"""The rule interface.

A rule is one module under ``autofix/rules/`` holding one :class:`Rule`
subclass. Its docstring is its documentation (``autofix --explain``), written
in ruff's sections: *What it does*, *Why is this bad?*, *Example* /
*Use instead:*, *Fix safety*, *References*.

A rule never reads files, configuration or output options. The engine hands it
a :class:`autofix.context.RuleContext` with the parsed module, LibCST metadata
(resolved on first use), a shared cache for analysis facts and the program
model (:mod:`autofix.model`), and the rule calls :meth:`Rule.report` with an
optional :class:`Fix` made of CST edits.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any, ClassVar, List, Optional, Tuple, Type, Union

import libcst as cst

from autofix.context import RuleContext
from autofix.registry import trigger_pattern
from autofix.types import Applicability, Expectation

__all__ = ["Edit", "Fix", "InsertAfter", "InsertBefore", "Remove", "Replace", "Report", "Rule", "RuleContext"]



# --------------------------------------------------------------------------- edits


@dataclass(frozen=True)
class Replace:
    """Replace ``node`` (any node) with ``replacement``."""

    node: cst.CSTNode
    replacement: cst.CSTNode


@dataclass(frozen=True)
class InsertBefore:
    """Insert statements before the statement ``node`` in its block."""

    node: cst.BaseStatement
    statements: Tuple[cst.BaseStatement, ...]


@dataclass(frozen=True)
class InsertAfter:
    """Insert statements after the statement ``node`` in its block."""

    node: cst.BaseStatement
    statements: Tuple[cst.BaseStatement, ...]


@dataclass(frozen=True)
class Remove:
    """Remove a statement (or a small statement of a ``;`` line).

    A block left empty gets a ``pass``.
    """

    node: Union[cst.BaseStatement, cst.BaseSmallStatement]


Edit = Union[Replace, InsertBefore, InsertAfter, Remove]


@dataclass(frozen=True)
class Fix:
    """A change that cures one finding: CST edits applied together or not at all.

    The edits of one fix must target distinct nodes, none inside another.
    """

    edits: Tuple[Edit, ...]
    title: str
    applicability: Applicability = Applicability.SAFE

    @classmethod
    def safe(cls, title: str, *edits: Edit) -> "Fix":
        return cls(tuple(edits), title, Applicability.SAFE)

    @classmethod
    def unsafe(cls, title: str, *edits: Edit) -> "Fix":
        return cls(tuple(edits), title, Applicability.UNSAFE)


@dataclass(frozen=True)
class Report:
    """What a rule reported: nodes to point at, the message, the fix."""

    code: str
    name: str
    message: str
    node: cst.CSTNode
    end_node: Optional[cst.CSTNode]
    fix: Optional[Fix]
    #: Other nodes whose statements a suppression comment may sit on (AF101: the first backward()).
    anchors: Tuple[cst.CSTNode, ...] = ()


# --------------------------------------------------------------------------- rule


class Rule:
    """Base class of every rule. Subclasses set the class attributes and :meth:`check`."""

    #: ``AF101`` … unique across rules.
    CODE: ClassVar[str]
    #: Kebab-case name of the anti-pattern, e.g. ``double-backward``.
    NAME: ClassVar[str]
    #: One line: what the rule detects.
    SUMMARY: ClassVar[str]
    #: Default message template for :meth:`report`.
    MESSAGE: ClassVar[str]
    #: Words whose absence from a file's text proves the rule cannot fire there.
    #: The engine pre-filters on them before parsing (any one must occur).
    TRIGGERS: ClassVar[Tuple[str, ...]] = ()
    #: What the gradient verifier must find after this rule's fixes.
    EXPECTATION: ClassVar[Expectation] = Expectation.IDENTICAL_OR_REPAIRED
    #: The applicabilities of the fixes this rule offers (``()``: it only reports).
    FIXES: ClassVar[Tuple[Applicability, ...]] = ()
    #: Off by default: selected only by its exact code or name, never by ``ALL`` or a prefix.
    OPT_IN: ClassVar[bool] = False

    registry: ClassVar[List[Type["Rule"]]] = []

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if getattr(cls, "CODE", None):
            Rule.registry.append(cls)

    def __init__(self, context: RuleContext) -> None:
        self.context = context
        self.reports: List[Report] = []

    # Rules implement this: inspect ``self.context`` and call ``self.report``.
    def check(self) -> None:
        raise NotImplementedError

    def report(
        self,
        node: cst.CSTNode,
        message: Optional[str] = None,
        *,
        fix: Optional[Fix] = None,
        end_node: Optional[cst.CSTNode] = None,
        anchors: Tuple[cst.CSTNode, ...] = (),
    ) -> None:
        self.reports.append(
            Report(self.CODE, self.NAME, message or self.MESSAGE, node, end_node, fix, tuple(anchors))
        )

    @classmethod
    def may_fire(cls, text: str) -> bool:
        """Cheap text test: False means the rule cannot fire on this source."""
        pattern = trigger_pattern(tuple(cls.TRIGGERS))
        return pattern is None or pattern.search(text) is not None

    @classmethod
    def may_fire_in(cls, tree: ast.Module) -> bool:
        """Second screen, on Python's own parse tree: False means the rule cannot fire.

        Rules whose necessary conditions are cheap to check syntactically
        override this; the engine then parses with LibCST only the files that
        pass some rule's screen (see :mod:`autofix.analysis.screen`).
        """
        return True

    @classmethod
    def screens(cls) -> bool:
        """Does the rule override :meth:`may_fire_in`?"""
        return cls.may_fire_in.__func__ is not Rule.may_fire_in.__func__  # type: ignore[attr-defined]

    @classmethod
    def fix_applicabilities(cls) -> Tuple[Applicability, ...]:
        """Which kinds of fix the rule can offer (for ``--list-rules`` and ``--explain``)."""
        return tuple(cls.FIXES)

    @classmethod
    def documentation(cls) -> str:
        import inspect

        return inspect.cleandoc(cls.__doc__ or "")

