"""The rule interface.

A rule is one module under ``autofix/rules/`` holding one :class:`Rule`
subclass. Its docstring is its documentation (``autofix --explain``), written
in ruff's sections: *What it does*, *Why is this bad?*, *Example* /
*Use instead:*, *Fix safety*, *References*.

A rule never reads files, configuration or output options. The engine hands it
a :class:`RuleContext` with the parsed module, resolved LibCST metadata and a
shared cache for analysis facts, and the rule calls :meth:`Rule.report` with
an optional :class:`Fix` made of CST edits.
"""

from __future__ import annotations

import ast

import re
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Type, TypeVar, Union

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider, ProviderT

from autofix.analysis.names import children
from autofix.types import Applicability, Expectation

T = TypeVar("T")


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


# --------------------------------------------------------------------------- context


class RuleContext:
    """What a rule may look at for one module.

    Metadata is resolved once per module by the engine for the union of the
    selected rules' ``METADATA_DEPENDENCIES``; analysis facts shared between
    rules are computed once through :meth:`fact`.
    """

    def __init__(self, wrapper: MetadataWrapper, path: str, code: Optional[str] = None) -> None:
        self.wrapper = wrapper
        self.module: cst.Module = wrapper.module
        self.path = path
        #: the text the module was parsed from, when the engine has it
        self.code = code
        self._metadata: Dict[ProviderT, Any] = {}
        self._facts: Dict[Any, Any] = {}

    def metadata(self, provider: ProviderT) -> Any:
        """The provider's node → value mapping (resolved lazily, once).

        Positions, when the module's text is known, are computed only for the
        top-level statements asked about (:class:`autofix.positions.LazyPositions`).
        """
        if provider not in self._metadata:
            if provider is PositionProvider and self.code is not None:
                from autofix.positions import LazyPositions

                self._metadata[provider] = LazyPositions(self.module, self.code)
            else:
                self._metadata[provider] = self.wrapper.resolve(provider)
        return self._metadata[provider]

    def get(self, provider: ProviderT, node: cst.CSTNode, default: Any = None) -> Any:
        return self.metadata(provider).get(node, default)

    def fact(self, key: Any, compute: Callable[[], T]) -> T:
        """Compute an analysis fact once per module, shared by every rule."""
        if key not in self._facts:
            self._facts[key] = compute()
        return self._facts[key]

    def code_for(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)

    def children(self, node: cst.CSTNode) -> Sequence[cst.CSTNode]:
        """The code-carrying children of ``node``, in source order (see :func:`autofix.analysis.names.children`)."""
        return children(node)

    def walk(self, node: cst.CSTNode, prune: Tuple[type, ...] = ()) -> Iterator[cst.CSTNode]:
        """``node`` and its descendants in source order; ``prune`` types are yielded but not entered."""
        stack = [node]
        while stack:
            current = stack.pop()
            yield current
            if current is node or not isinstance(current, prune):
                stack.extend(reversed(self.children(current)))


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
    #: LibCST metadata providers the rule reads; resolved by the engine.
    METADATA_DEPENDENCIES: ClassVar[Tuple[ProviderT, ...]] = (PositionProvider,)
    #: What the gradient verifier must find after this rule's fixes.
    EXPECTATION: ClassVar[Expectation] = Expectation.IDENTICAL_OR_REPAIRED
    #: The applicabilities of the fixes this rule offers (``()``: it only reports).
    #: ``None`` means undeclared: :meth:`fix_applicabilities` then reads them off the module.
    FIXES: ClassVar[Optional[Tuple[Applicability, ...]]] = None

    registry: ClassVar[List[Type["Rule"]]] = []
    _trigger_re: ClassVar[Optional["re.Pattern[str]"]] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if getattr(cls, "CODE", None):
            Rule.registry.append(cls)
            cls._trigger_re = (
                re.compile("|".join(re.escape(t) for t in cls.TRIGGERS)) if cls.TRIGGERS else None
            )

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
    ) -> None:
        self.reports.append(
            Report(self.CODE, self.NAME, message or self.MESSAGE, node, end_node, fix)
        )

    @classmethod
    def may_fire(cls, text: str) -> bool:
        """Cheap text test: False means the rule cannot fire on this source."""
        return cls._trigger_re is None or cls._trigger_re.search(text) is not None

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
        if cls.FIXES is not None:
            return tuple(cls.FIXES)
        import inspect
        import sys

        # Undeclared: a rule builds its fixes with Fix.safe/Fix.unsafe (or an
        # explicit Applicability), so its module's text says which it offers.
        try:
            text = inspect.getsource(sys.modules[cls.__module__])
        except (OSError, TypeError, KeyError):
            return ()
        found = []
        if "Fix.safe(" in text or "Applicability.SAFE" in text:
            found.append(Applicability.SAFE)
        if "Fix.unsafe(" in text or "Applicability.UNSAFE" in text:
            found.append(Applicability.UNSAFE)
        return tuple(found)

    @classmethod
    def documentation(cls) -> str:
        import inspect

        return inspect.cleandoc(cls.__doc__ or "")


def run_rule(rule_cls: Type[Rule], context: RuleContext) -> Sequence[Report]:
    rule = rule_cls(context)
    rule.check()
    return rule.reports


def iter_rules(rules: Iterable[Type[Rule]]) -> List[Type[Rule]]:
    return sorted(rules, key=lambda r: r.CODE)
