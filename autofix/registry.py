"""Finds the rules and selects them by code prefix.

Every module in :mod:`autofix.rules` is imported; each :class:`~autofix.rule.Rule`
subclass registers itself. Adding a rule is adding a file.

An opt-in rule (``Rule.OPT_IN``) is off by default: like ruff's opt-in rules it
is selected only by its exact code or name, never by ``ALL`` or by a prefix
such as ``AF`` or ``AF1``. ``ignore`` removes it by prefix like any other.

Selecting rules and screening a file's text need only each rule's code, name,
opt-in flag and trigger words (:class:`RuleInfo`). Those are read from the rule
modules' own source with :mod:`ast`, without importing them: a rule module
imports LibCST and the analyses (about half a second), which a run over files
that mention no trigger word never needs. ``tests/test_registry.py`` checks that
what is read equals what the imported classes say.
"""

from __future__ import annotations

import ast
import importlib
import os
import pkgutil
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Dict, Iterable, List, Optional, Sequence, Tuple, Type

if TYPE_CHECKING:
    from autofix.rule import Rule


class UnknownRuleError(ValueError):
    """A code or prefix in select/ignore matches no rule."""


@dataclass(frozen=True)
class RuleInfo:
    """What selection and the text screen need of a rule, known without importing it."""

    code: str
    name: str
    opt_in: bool
    triggers: Tuple[str, ...]

    def may_fire(self, text: str) -> bool:
        """False when ``text`` has none of the rule's trigger words, so the rule cannot fire."""
        pattern = trigger_pattern(self.triggers)
        return pattern is None or pattern.search(text) is not None


@lru_cache(maxsize=None)
def trigger_pattern(triggers: Tuple[str, ...]) -> Optional["re.Pattern[str]"]:
    """One regex for any of ``triggers`` (None: no trigger words, the rule may fire anywhere)."""
    return re.compile("|".join(re.escape(t) for t in triggers)) if triggers else None


_RULE_FIELDS = {"CODE": "code", "NAME": "name", "OPT_IN": "opt_in", "TRIGGERS": "triggers"}


@lru_cache(maxsize=None)
def infos() -> Dict[str, RuleInfo]:
    """Every rule's :class:`RuleInfo`, by code, read from ``autofix/rules/*.py`` without importing them.

    Class attributes are looked up through the bases defined in those modules
    (an opt-in rule that subclasses another rule inherits its trigger words), as
    Python would. Anything the reading cannot settle (an attribute that is not
    a literal) falls back to importing the rules.
    """
    import autofix.rules as package

    classes: Dict[str, Tuple[List[str], Dict[str, object]]] = {}
    try:
        for info in pkgutil.iter_modules(package.__path__):
            if info.name.startswith("_"):
                continue
            with open(os.path.join(package.__path__[0], info.name + ".py"), "rb") as handle:
                tree = ast.parse(handle.read())
            for node in tree.body:
                if isinstance(node, ast.ClassDef):
                    values = {}
                    for statement in node.body:
                        target = _assigned_name(statement)
                        if target in _RULE_FIELDS:
                            values[target] = ast.literal_eval(statement.value)  # type: ignore[attr-defined]
                    bases = [b.id if isinstance(b, ast.Name) else "" for b in node.bases]
                    classes[node.name] = (bases, values)
    except (OSError, SyntaxError, ValueError, IndexError):
        return {code: _info_of(rule) for code, rule in _load().items()}

    def lookup(name: str, field: str, seen: Tuple[str, ...] = ()) -> object:
        bases, values = classes.get(name, ([], {}))
        if field in values:
            return values[field]
        for base in bases:
            if base in classes and base not in seen:
                found = lookup(base, field, (*seen, name))
                if found is not None:
                    return found
        return None

    found: Dict[str, RuleInfo] = {}
    for name in classes:
        code = lookup(name, "CODE")
        if not isinstance(code, str):
            continue
        triggers = lookup(name, "TRIGGERS") or ()
        found[code] = RuleInfo(code, str(lookup(name, "NAME")), bool(lookup(name, "OPT_IN")), tuple(triggers))  # type: ignore[arg-type]
    return dict(sorted(found.items()))


def _assigned_name(statement: ast.stmt) -> Optional[str]:
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
        return statement.targets[0].id
    if isinstance(statement, ast.AnnAssign) and statement.value is not None and isinstance(statement.target, ast.Name):
        return statement.target.id
    return None


def _info_of(rule: Type["Rule"]) -> RuleInfo:
    return RuleInfo(rule.CODE, rule.NAME, rule.OPT_IN, tuple(rule.TRIGGERS))


@lru_cache(maxsize=None)
def _load() -> Dict[str, Type["Rule"]]:
    from autofix.rule import Rule
    import autofix.rules as package

    for info in pkgutil.iter_modules(package.__path__):
        if not info.name.startswith("_"):
            importlib.import_module(f"{package.__name__}.{info.name}")
    rules = {}
    for rule in Rule.registry:
        if rule.__module__.startswith(package.__name__ + "."):
            if rule.CODE in rules:
                raise RuntimeError(f"duplicate rule code {rule.CODE}")
            rules[rule.CODE] = rule
    return dict(sorted(rules.items()))


def all_rules() -> List[Type["Rule"]]:
    return list(_load().values())


def get_rule(code: str) -> Type["Rule"]:
    rules = _load()
    code = code.upper()
    if code not in rules:
        by_name = {r.NAME: r for r in rules.values()}
        if code.lower() in by_name:
            return by_name[code.lower()]
        raise UnknownRuleError(f"unknown rule code {code!r}; known: {', '.join(rules)}")
    return rules[code]


def _matching(prefix: str, explicit_only: bool = False) -> List[RuleInfo]:
    """The rules ``prefix`` names; with ``explicit_only``, opt-in rules only by their exact code or name."""
    prefix = prefix.strip().upper()
    rules = infos()
    by_name = {r.name.upper(): r for r in rules.values()}
    if prefix in by_name:
        return [by_name[prefix]]
    if prefix == "ALL":
        found = list(rules.values())
    else:
        found = [r for code, r in rules.items() if code.startswith(prefix)]
        if not found:
            raise UnknownRuleError(
                f"{prefix!r} matches no rule code; known: {', '.join(rules)}"
            )
    if explicit_only:
        found = [r for r in found if not r.opt_in or r.code == prefix]
    return found


def validate_codes(codes: Iterable[str]) -> None:
    for code in codes:
        _matching(code)


def select_infos(select: Sequence[str], ignore: Sequence[str] = ()) -> List[RuleInfo]:
    """Rules matching any ``select`` prefix and no ``ignore`` prefix (``ALL`` allowed), without importing them.

    Opt-in rules are chosen only where ``select`` names their exact code or name.
    """
    chosen = {r.code: r for prefix in select for r in _matching(prefix, explicit_only=True)}
    for prefix in ignore:
        for r in _matching(prefix):
            chosen.pop(r.code, None)
    return [chosen[c] for c in sorted(chosen)]


def select_rules(select: Sequence[str], ignore: Sequence[str] = ()) -> List[Type["Rule"]]:
    """The rule classes :func:`select_infos` chooses (this imports the rules)."""
    rules = _load()
    return [rules[info.code] for info in select_infos(select, ignore)]
