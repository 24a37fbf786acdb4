"""Summaries read on demand: a table whose entries are read the first time they are asked for,
and the parse tree they are read from, kept while in use and parsed again when needed later.

A rule, a screen or a project query usually asks about a few functions and classes of a
module (the caller, the callee, the class whose attribute is called), not all of them;
reading every function of every module it touches was most of what the program model cost.
"""

from __future__ import annotations

import ast
import threading
import warnings
from collections import OrderedDict
from typing import Callable, Dict, Generic, Iterator, List, MutableMapping, Optional, Tuple, TypeVar, Union

K = TypeVar("K")
V = TypeVar("V")

#: (line, column) of a ``def`` or ``class`` statement: the same in every parse of the same text
Position = Tuple[int, int]
DefinitionNode = Union[ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef]


class Once(Generic[V]):
    """A read made at most once (shared by the tables that hold the same entry)."""

    __slots__ = ("_read", "_value", "_done")

    def __init__(self, read: Callable[[], V]) -> None:
        self._read: Optional[Callable[[], V]] = read
        self._value: Optional[V] = None
        self._done = False

    def __call__(self) -> V:
        if not self._done:
            read, self._read = self._read, None
            assert read is not None, "a summary read asked for itself"
            self._value = read()
            self._done = True
        return self._value  # type: ignore[return-value]


class LazyTable(MutableMapping[K, V]):
    """A mapping whose values may be deferred reads, made when the key is first looked up.

    Keys keep their first insertion order, as a dict's do. Membership and iteration over
    keys read nothing; ``values()``, ``items()`` and lookups read what they return.
    ``fill``: run once before the first access of any kind (a class's attributes come from
    reading all of its methods at once).
    """

    __slots__ = ("_order", "_data", "_pending", "_fill")

    def __init__(self, fill: Optional[Callable[[], None]] = None) -> None:
        self._order: Dict[K, None] = {}
        self._data: Dict[K, V] = {}
        self._pending: Dict[K, Once[V]] = {}
        self._fill = fill

    def set_fill(self, fill: Callable[[], None]) -> None:
        self._fill = fill

    def _filled(self) -> None:
        fill = self._fill
        if fill is not None:
            self._fill = None  # before running it: the fill writes into this table
            fill()

    def defer(self, key: K, read: Once[V]) -> None:
        """Bind ``key`` to what ``read`` returns, read when first asked for."""
        self._order.setdefault(key)
        self._data.pop(key, None)
        self._pending[key] = read

    def __getitem__(self, key: K) -> V:
        self._filled()
        try:
            return self._data[key]
        except KeyError:
            read = self._pending.get(key)
            if read is None:
                raise
        value = read()
        if self._pending.get(key) is read:
            del self._pending[key]
            self._data[key] = value
        return value

    def __setitem__(self, key: K, value: V) -> None:
        self._filled()
        self._order.setdefault(key)
        self._pending.pop(key, None)
        self._data[key] = value

    def __delitem__(self, key: K) -> None:
        self._filled()
        del self._order[key]
        self._data.pop(key, None)
        self._pending.pop(key, None)

    def __contains__(self, key: object) -> bool:
        self._filled()
        return key in self._order

    def __iter__(self) -> Iterator[K]:
        self._filled()
        return iter(list(self._order))

    def __len__(self) -> int:
        self._filled()
        return len(self._order)

    def __reduce__(self) -> Tuple[object, ...]:
        # Pickled as plain data: every deferred entry is read first.
        return (_restored, (list(self.items()),))

    def __repr__(self) -> str:
        return f"LazyTable({list(self._order)!r}, {len(self._pending)} unread)"


def _restored(items: List[Tuple[K, V]]) -> "LazyTable[K, V]":
    table: LazyTable[K, V] = LazyTable()
    for key, value in items:
        table[key] = value
    return table


# --------------------------------------------------------------------------- the tree


#: parse trees held for their summaries' unread entries; the least recently used beyond
#: this many are let go (a tree is about 30 times its text), and parsed again if asked (over a
#: quarter of the benchmark tree, keeping four re-parsed 96 trees, eight 57, sixteen 37)
_KEPT_TREES = 8
_kept: "OrderedDict[int, SourceTree]" = OrderedDict()
_kept_lock = threading.Lock()


class SourceTree:
    """The parse of one module's text that its summary's deferred reads use.

    With ``source`` the tree is let go when many others were used since, and parsed again from
    ``source`` when a read needs it; without, it is kept as long as the summary.
    """

    def __init__(self, tree: ast.Module, source: Optional[bytes]) -> None:
        self._tree: Optional[ast.Module] = tree
        self._source = source
        self._nodes: Optional[Dict[Position, DefinitionNode]] = None
        #: position -> (first line, last line) of each definition, kept when the tree is let go
        self._spans: Optional[Dict[Position, Tuple[int, int]]] = None
        #: definitions parsed again on their own since the tree was let go
        self._parts: Dict[Position, DefinitionNode] = {}
        self._lock = threading.Lock()
        self._memo: Dict[str, object] = {}
        self._touch()

    def tree(self) -> ast.Module:
        with self._lock:
            tree = self._tree
            if tree is None:
                from autofix.analysis.screen import parse_python  # noqa: PLC0415 (only when a tree was let go)

                assert self._source is not None
                parsed = parse_python(self._source)
                assert parsed is not None, "the text parsed before"
                tree = self._tree = parsed
                self._nodes = None
                self._parts = {}
        self._touch()
        return tree

    def node(self, position: Position) -> DefinitionNode:
        """The ``def`` or ``class`` statement at ``position``.

        Once the tree has been let go, the statement alone is parsed again from its lines (a
        function of a large module costs a small part of the module's parse)."""
        with self._lock:
            if self._tree is None and self._spans is not None and position in self._spans:
                part = self._parts.get(position)
                if part is None:
                    part = _parse_definition(self._source, self._spans[position], position)
                    if part is not None:
                        self._parts[position] = part
                if part is not None:
                    return part
        tree = self.tree()
        with self._lock:
            nodes = self._nodes
            if nodes is None or self._tree is not tree:
                nodes = self._nodes = _definitions(tree)
        return nodes[position]

    def memo(self, name: str, compute: Callable[[ast.Module], V]) -> V:
        """``compute(tree)``, once (a whole-module fact the deferred reads share)."""
        if name not in self._memo:
            self._memo[name] = compute(self.tree())
        return self._memo[name]  # type: ignore[return-value]

    def _release(self) -> None:
        with self._lock:
            tree = self._tree
            if tree is not None and self._spans is None and self._source is not None and not _declares_encoding(self._source):
                nodes = self._nodes if self._nodes is not None else _definitions(tree)
                self._spans = {position: _span(node) for position, node in nodes.items()}
            self._tree = None
            self._nodes = None
            self._parts = {}

    def _touch(self) -> None:
        if self._source is None:
            return
        with _kept_lock:
            _kept[id(self)] = self
            _kept.move_to_end(id(self))
            while len(_kept) > _KEPT_TREES:
                _, oldest = _kept.popitem(last=False)
                oldest._release()


def _definitions(tree: ast.Module) -> Dict[Position, DefinitionNode]:
    """Every ``def`` and ``class`` statement by position (they are statements: only statement
    lists are walked)."""
    found: Dict[Position, DefinitionNode] = {}
    stack: list = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found[(node.lineno, node.col_offset)] = node
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if isinstance(block, list):
                stack.extend(block)
        for handler in getattr(node, "handlers", ()):
            stack.extend(handler.body)
        for case in getattr(node, "cases", ()):
            stack.extend(case.body)
    return found


def _span(node: DefinitionNode) -> Tuple[int, int]:
    """The lines of a definition, its decorators included."""
    first = min([node.lineno] + [d.lineno for d in node.decorator_list])
    return first, node.end_lineno or node.lineno


def _declares_encoding(source: bytes) -> bool:
    """A ``coding:`` line (PEP 263) in the first two lines: the lines of a definition alone would
    be read as UTF-8, so such a module is always parsed whole."""
    return b"coding" in b"\n".join(source.split(b"\n", 2)[:2])


def _parse_definition(source: Optional[bytes], span: Tuple[int, int], position: Position) -> Optional[DefinitionNode]:
    """The definition at ``position`` parsed from its own lines, with the line and column numbers
    of a parse of the whole module; None if that cannot be done (the caller parses the module).

    The lines are kept as they are, indentation too (columns stay right): an indented definition
    is put under an ``if 1:`` line, and the line numbers are moved to where the lines stand.
    """
    if source is None:
        return None
    first, last = span
    lines = source.splitlines(keepends=True)[first - 1 : last]
    if not lines:
        return None
    header = b"if 1:\n" if position[1] > 0 else b""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escape sequences and the like
            module = ast.parse(header + b"".join(lines))
    except (SyntaxError, ValueError, RecursionError, MemoryError, UnicodeDecodeError, LookupError):
        return None
    body = module.body[0].body if header else module.body  # type: ignore[attr-defined]
    if len(body) != 1 or not isinstance(body[0], (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return None
    node = body[0]
    ast.increment_lineno(node, first - 1 - (1 if header else 0))
    if (node.lineno, node.col_offset) != position:
        return None
    return node
