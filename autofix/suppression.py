"""Suppression comments: ``# autofix: ignore[...]`` and ruff's ``# noqa: AF101``.

A comment silences a finding when it sits on any line of the finding's
statement (for a compound statement, its header), or on a line the rule names
as another anchor of the finding (the first ``backward()`` of an AF101 pair).
Codes are case-insensitive and may be prefixes (``AF1``). A bare ``# noqa``
does not silence autofix: in a codebase linted with flake8 or ruff it is
written for their findings (a long line, an unused import), and autofix's
findings are runtime bugs that should not disappear with them; name the code
(``# noqa: AF101``) or write ``# autofix: ignore``. A ``# noqa`` list may mix
other tools' codes (``# noqa: E501, AF101``); only ``AF`` codes are read, and
one that names no rule is reported as a warning, as ruff's RUF100 does.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from typing import Dict, FrozenSet, Iterable, List, Optional, Sequence, Tuple

#: ``# autofix: ignore`` / ``# autofix: ignore[AF101,AF104]`` (shared with the language server).
SUPPRESSION = re.compile(r"#\s*autofix\s*:\s*ignore(?:\[(?P<codes>[^\]]*)\])?", re.IGNORECASE)
#: ruff's and flake8's ``noqa`` comment with a code list (``AF101, E501``); a bare one is not read.
NOQA = re.compile(r"#\s*noqa\s*:\s*(?P<codes>[A-Za-z][A-Za-z0-9]*(?:[\s,]+[A-Za-z][A-Za-z0-9]*)*)", re.IGNORECASE)

#: Every code on a line (``autofix: ignore`` without a list).
ALL: FrozenSet[str] = frozenset({""})


def comments(code: str) -> Dict[int, str]:
    """Line number → the comment on it (real comments only, not text in strings)."""
    found: Dict[int, str] = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO(code).readline):
            if token.type == tokenize.COMMENT:
                found[token.start[0]] = token.string
    except (tokenize.TokenError, SyntaxError, IndentationError):
        # Parsed by LibCST, so this is rare: fall back to the text after a '#'.
        for number, line in enumerate(code.splitlines(), 1):
            if "#" in line:
                found[number] = line[line.index("#"):]
    return found


def codes_in(comment: str) -> Optional[FrozenSet[str]]:
    """The codes a comment suppresses (upper case; :data:`ALL` for every code), or None."""
    codes: set = set()
    matched = False
    match = SUPPRESSION.search(comment)
    if match:
        matched = True
        if match.group("codes") is None:
            return ALL
        codes.update(c.strip().upper() for c in match.group("codes").split(",") if c.strip())
    for match in NOQA.finditer(comment):
        listed = {c.upper() for c in re.split(r"[\s,]+", match.group("codes")) if c}
        mine = {c for c in listed if c.startswith("AF")}
        if mine:
            matched = True
            codes.update(mine)
    return frozenset(codes) if matched else None


class Suppressions:
    """The suppression comments of one module, and the lines each finding answers to."""

    def __init__(self, code: str) -> None:
        self.by_line: Dict[int, FrozenSet[str]] = {}
        if "autofix" in code or "noqa" in code.lower():
            for number, comment in comments(code).items():
                codes = codes_in(comment)
                if codes is not None:
                    self.by_line[number] = codes
        self._code = code
        self._headers: Optional[List[Tuple[int, int]]] = None

    def __bool__(self) -> bool:
        return bool(self.by_line)

    def silences(self, rule_code: str, lines: Iterable[int]) -> bool:
        code = rule_code.upper()
        for line in lines:
            codes = self.by_line.get(line)
            if codes is not None and (codes is ALL or any(code.startswith(c) for c in codes)):
                return True
        return False

    def statement_lines(self, line: int) -> range:
        """The lines of the innermost statement holding ``line`` (a compound statement's header only)."""
        containing = [(start, end) for start, end in self._statement_spans() if start <= line <= end]
        if not containing:
            return range(line, line + 1)
        start, end = min(containing, key=lambda span: span[1] - span[0])
        return range(start, end + 1)

    def _statement_spans(self) -> List[Tuple[int, int]]:
        if self._headers is None:
            self._headers = []
            try:
                tree = ast.parse(self._code)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                return self._headers
            for node in ast.walk(tree):
                if not isinstance(node, ast.stmt):
                    continue
                end = node.end_lineno or node.lineno
                body = getattr(node, "body", None)
                if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                    # A compound statement answers for its header, not its body.
                    first = body[0].lineno
                    decorators = getattr(node, "decorator_list", [])
                    header_start = min([node.lineno, *(d.lineno for d in decorators)])
                    end = max(header_start, first - 1)
                    self._headers.append((header_start, end))
                else:
                    self._headers.append((node.lineno, end))
        return self._headers


def unknown_codes(code: str, known: Sequence[str]) -> List[Tuple[int, str]]:
    """(line, warning) for each ``AF`` code in a suppression comment that names no rule (ruff's RUF100)."""
    suppressions = Suppressions(code)
    warnings = []
    for line, codes in sorted(suppressions.by_line.items()):
        if codes is ALL:
            continue
        for listed in sorted(codes):
            if not any(k.startswith(listed) for k in known):
                warnings.append((line, f"unknown rule code {listed!r} in a suppression comment (it silences nothing)"))
    return warnings
