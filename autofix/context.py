"""What a rule (and the analyses it calls) may look at for one module.

This module sits below both :mod:`autofix.rule` and :mod:`autofix.analysis` /
:mod:`autofix.model`, so that analyses never import the rule interface.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterator, Optional, Sequence, Tuple, TypeVar, Union

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider, ProviderT

from autofix.analysis.names import children
from autofix.analysis.screen import kept_model
from autofix.model.project import FIND_PROJECT

if TYPE_CHECKING:
    from autofix.model.project import ModuleModel, Project

T = TypeVar("T")

__all__ = ["FIND_PROJECT", "RuleContext"]


class RuleContext:
    """What a rule may look at for one module.

    LibCST metadata is resolved lazily, once per provider; analysis facts
    shared between rules are computed once through :meth:`fact`; the program
    model (:mod:`autofix.model`) of the module is :attr:`model`, built on first
    use and linked to the project around the file.
    """

    def __init__(
        self,
        wrapper: MetadataWrapper,
        path: str,
        code: Optional[str] = None,
        project: Union["Project", None, Any] = FIND_PROJECT,
        tree: Optional[ast.Module] = None,
    ) -> None:
        self.wrapper = wrapper
        self.module: cst.Module = wrapper.module
        self.path = path
        #: the text the module was parsed from, when the engine has it
        self.code = code
        self._project = project
        #: Python's parse of ``code``, when the engine's screens made one (the model summarises it)
        self.tree = tree
        self._tree_tried = False
        self._model: Optional["ModuleModel"] = None
        self._model_built = False
        self._metadata: Dict[ProviderT, Any] = {}
        self._facts: Dict[Any, Any] = {}

    # ------------------------------------------------------------------ the program model

    @property
    def project(self) -> Optional["Project"]:
        """The project around the file (None for a file given alone: stdin, a string)."""
        if self._project is FIND_PROJECT:
            from autofix.model.project import project_for

            self._project = project_for(self.path)
        return self._project  # type: ignore[no-any-return]

    @property
    def project_setting(self) -> Any:
        """The project as given or found so far (``FIND_PROJECT`` until someone asked), to hand on."""
        return self._project

    @property
    def model(self) -> "ModuleModel":
        """The program model of this module (see :mod:`autofix.model`), built on first use.

        A module Python's own parser rejects (LibCST accepts a little more)
        gets an empty model: every question about it answers "unknown".
        """
        if not self._model_built:
            from autofix.model.project import empty_model, model_for_source

            # The screens' model of the same tree (see :func:`autofix.analysis.screen.origin_model`).
            self._model = kept_model(self.tree)
            if self._model is None:
                code = self.code if self.code is not None else self.module.code
                self._model = model_for_source(code, self.path, self.project, tree=self.tree) or empty_model(self.path)
            self._model_built = True
        assert self._model is not None
        return self._model

    def python_tree(self) -> Optional[ast.Module]:
        """Python's parse of the module: the engine's, or parsed now (and kept, for the model);
        None when Python cannot parse it."""
        if self.tree is None and not self._tree_tried:
            from autofix.analysis.screen import parse_python

            self._tree_tried = True
            self.tree = parse_python(self.code if self.code is not None else self.module.code)
        return self.tree

    # ------------------------------------------------------------------ LibCST

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
        return self._facts[key]  # type: ignore[no-any-return]

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
