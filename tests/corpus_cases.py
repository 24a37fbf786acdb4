"""Discovery and golden formats of the ``corpus/`` cases (shared by tests and the verifier tests).

Layout: ``corpus/<CODE or group>/<case>.py`` is an input script. Its first
comment lines describe it and may set options:

    # autofix-test: select=AF101,AF104      (default: the folder's code; ALL for other folders)
    # autofix-test: unsafe-fixes             (apply unsafe fixes too)

Cases whose name starts with ``ok_`` are negatives: with every rule selected
(``ALL`` and the folder's code, which brings in an opt-in rule) they must produce no finding and stay byte-identical. Every other case has a
``<case>.diagnostics`` golden (one ``line:col: CODE [*] message`` line per
finding; ``[*]`` a safe fix, ``[unsafe]`` an unsafe one) and, when something
is fixed, a ``<case>.fixed.py`` golden.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Tuple

from autofix.types import Applicability, Finding, Options

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
_OPTION = re.compile(r"^#\s*autofix-test:\s*(.+?)\s*$", re.MULTILINE)


@dataclass(frozen=True)
class Case:
    source: Path

    @property
    def id(self) -> str:
        return f"{self.source.parent.name}/{self.source.stem}"

    @property
    def negative(self) -> bool:
        return self.source.stem.startswith("ok_")

    @property
    def fixed_path(self) -> Path:
        return self.source.with_name(self.source.stem + ".fixed.py")

    @property
    def diagnostics_path(self) -> Path:
        return self.source.with_name(self.source.stem + ".diagnostics")

    def options(self) -> Options:
        text = self.source.read_text(encoding="utf-8", errors="replace")
        settings = {}
        for match in _OPTION.finditer(text):
            for item in match.group(1).split():
                key, _, value = item.partition("=")
                settings[key] = value
        if self.negative:
            # ``ALL`` leaves opt-in rules out: a negative of one names it too.
            folder = self.source.parent.name
            select: Tuple[str, ...] = ("ALL", folder) if re.fullmatch(r"AF\d{3}", folder) else ("ALL",)
        elif "select" in settings:
            select = tuple(settings["select"].split(","))
        elif re.fullmatch(r"AF\d{3}", self.source.parent.name):
            select = (self.source.parent.name,)
        else:
            select = ("ALL",)
        return Options(select=select, unsafe_fixes="unsafe-fixes" in settings, fix=True)


def cases(group: Optional[str] = None) -> List[Case]:
    found = []
    for path in sorted(CORPUS.glob("*/*.py")):
        if path.name.endswith(".fixed.py"):
            continue
        if group is not None and path.parent.name != group:
            continue
        found.append(Case(path))
    return found


def render_finding(finding: Finding) -> str:
    marker = ""
    if finding.fix is not None:
        marker = "[*] " if finding.fix.applicability is Applicability.SAFE else "[unsafe] "
    return f"{finding.line}:{finding.column}: {finding.code} {marker}{finding.message}"


def render_findings(findings) -> str:
    return "".join(render_finding(f) + "\n" for f in findings)
