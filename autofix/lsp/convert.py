"""autofix positions ↔ LSP positions: the only place the two meet.

autofix counts lines from 1 and columns in code points (``Finding``: 1-based,
``TextEdit``: 0-based). LSP counts lines from 0 and columns in the units of the
negotiated position encoding, UTF-16 unless the client offered another, so
a character outside the BMP (an emoji, a rare CJK ideograph) is two columns
to the editor and one to Python.

Lines are a second trap: LSP ends lines only at ``\\n``, ``\\r\\n`` and ``\\r``,
while ``str.splitlines`` — which the engine's ``text_edits`` uses — also
splits at ``\\f``, ``\\v``, ``\\x1c``–``\\x1e``, ``\\x85``, U+2028 and U+2029.
Engine edits therefore go through absolute code-point offsets.
"""

from __future__ import annotations

import bisect
import re
from typing import List, Sequence

from lsprotocol import types

from autofix.types import Finding, TextEdit

_LSP_LINE_END = re.compile(r"\r\n|\r|\n")


def _line_starts(text: str, keepends_lines: Sequence[str]) -> List[int]:
    starts = [0]
    for line in keepends_lines:
        starts.append(starts[-1] + len(line))
    return starts


def _units(text: str, encoding: str) -> int:
    """Length of ``text`` in the code units of ``encoding``."""
    if encoding == types.PositionEncodingKind.Utf32:
        return len(text)
    if encoding == types.PositionEncodingKind.Utf8:
        return len(text.encode("utf-8", "surrogatepass"))
    # UTF-16: one unit per BMP character, two for the rest.
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


def _code_points(line: str, units: int, encoding: str) -> int:
    """The code-point column that ``units`` code units into ``line`` reach (clamped)."""
    if encoding == types.PositionEncodingKind.Utf32:
        return min(units, len(line))
    seen = 0
    for index, ch in enumerate(line):
        if seen >= units:
            return index
        if encoding == types.PositionEncodingKind.Utf8:
            seen += len(ch.encode("utf-8", "surrogatepass"))
        else:
            seen += 2 if ord(ch) > 0xFFFF else 1
    return len(line)


class Document:
    """One text, indexed for position conversion in the client's encoding."""

    def __init__(self, text: str, encoding: str = types.PositionEncodingKind.Utf16) -> None:
        self.text = text
        self.encoding = encoding
        # LSP lines, each without its terminator.
        self.lines = _LSP_LINE_END.split(text)
        ends = [m.end() for m in _LSP_LINE_END.finditer(text)]
        self._lsp_starts = [0, *ends]
        # The engine's lines (``str.splitlines``), for TextEdit positions.
        self._engine_starts = _line_starts(text, text.splitlines(keepends=True))

    # ------------------------------------------------------------------ offsets

    def position(self, offset: int) -> types.Position:
        """The LSP position of a code-point offset into the text."""
        offset = max(0, min(offset, len(self.text)))
        line = bisect.bisect_right(self._lsp_starts, offset) - 1
        start = self._lsp_starts[line]
        # An offset inside a ``\r\n`` pair belongs to the end of its line.
        column_text = self.text[start:offset]
        column_text = column_text[: len(self.lines[line])]
        return types.Position(line=line, character=_units(column_text, self.encoding))

    def offset(self, position: types.Position) -> int:
        """The code-point offset of an LSP position (clamped to the text, as LSP asks)."""
        if position.line >= len(self.lines):
            return len(self.text)
        line = self.lines[position.line]
        return self._lsp_starts[position.line] + _code_points(line, position.character, self.encoding)

    def _engine_offset(self, line: int, column: int) -> int:
        # autofix lines are 1-based; a line past the end means "end of text".
        index = line - 1
        if index >= len(self._engine_starts) - 1:
            return len(self.text)
        return self._engine_starts[index] + column

    # ------------------------------------------------------------------ autofix → LSP

    def finding_range(self, finding: Finding) -> types.Range:
        """The LSP range of a finding (1-based line and column, LSP-style lines)."""
        return types.Range(
            start=self._lsp_position(finding.line, finding.column - 1),
            end=self._lsp_position(finding.end_line, finding.end_column - 1),
        )

    def _lsp_position(self, line: int, column: int) -> types.Position:
        # LibCST ends lines where LSP does, so a finding's line is an LSP line.
        index = max(0, min(line - 1, len(self.lines) - 1))
        text = self.lines[index][: max(0, column)]
        return types.Position(line=index, character=_units(text, self.encoding))

    def text_edit(self, edit: TextEdit) -> types.TextEdit:
        """An engine edit as an LSP edit against this text."""
        start = self._engine_offset(edit.start_line, edit.start_column)
        end = self._engine_offset(edit.end_line, edit.end_column)
        return types.TextEdit(
            range=types.Range(start=self.position(start), end=self.position(end)),
            new_text=edit.new_text,
        )

    def end_of_line(self, line: int) -> types.Position:
        """The LSP position just before the terminator of 0-based LSP line ``line``."""
        return types.Position(line=line, character=_units(self.lines[line], self.encoding))


def apply_text_edits(text: str, edits: Sequence[types.TextEdit], encoding: str) -> str:
    """Apply LSP edits to ``text`` as a client does (used by tests and the benchmark)."""
    document = Document(text, encoding)
    spans = sorted(
        ((document.offset(e.range.start), document.offset(e.range.end), e.new_text) for e in edits),
        key=lambda span: (span[0], span[1]),
    )
    out, cursor = [], 0
    for start, end, new_text in spans:
        if start < cursor:
            raise ValueError("overlapping edits")
        out.append(text[cursor:start])
        out.append(new_text)
        cursor = end
    out.append(text[cursor:])
    return "".join(out)
