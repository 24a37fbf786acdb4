"""Finds the rules and selects them by code prefix.

Every module in :mod:`autofix.rules` is imported; each :class:`~autofix.rule.Rule`
subclass registers itself. Adding a rule is adding a file.

An opt-in rule (``Rule.OPT_IN``) is off by default: like ruff's opt-in rules it
is selected only by its exact code or name, never by ``ALL`` or by a prefix
such as ``AF`` or ``AF1``. ``ignore`` removes it by prefix like any other.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache
from typing import Dict, Iterable, List, Sequence, Type

from autofix.rule import Rule


class UnknownRuleError(ValueError):
    """A code or prefix in select/ignore matches no rule."""


@lru_cache(maxsize=None)
def _load() -> Dict[str, Type[Rule]]:
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


def all_rules() -> List[Type[Rule]]:
    return list(_load().values())


def get_rule(code: str) -> Type[Rule]:
    rules = _load()
    code = code.upper()
    if code not in rules:
        by_name = {r.NAME: r for r in rules.values()}
        if code.lower() in by_name:
            return by_name[code.lower()]
        raise UnknownRuleError(f"unknown rule code {code!r}; known: {', '.join(rules)}")
    return rules[code]


def _matching(prefix: str, explicit_only: bool = False) -> List[Type[Rule]]:
    """The rules ``prefix`` names; with ``explicit_only``, opt-in rules only by their exact code or name."""
    prefix = prefix.strip().upper()
    rules = _load()
    by_name = {r.NAME.upper(): r for r in rules.values()}
    if prefix in by_name:
        return [by_name[prefix]]
    if prefix == "ALL":
        found = all_rules()
    else:
        found = [r for code, r in rules.items() if code.startswith(prefix)]
        if not found:
            raise UnknownRuleError(
                f"{prefix!r} matches no rule code; known: {', '.join(rules)}"
            )
    if explicit_only:
        found = [r for r in found if not r.OPT_IN or r.CODE == prefix]
    return found


def validate_codes(codes: Iterable[str]) -> None:
    for code in codes:
        _matching(code)


def select_rules(select: Sequence[str], ignore: Sequence[str] = ()) -> List[Type[Rule]]:
    """Rules matching any ``select`` prefix and no ``ignore`` prefix (``ALL`` allowed).

    Opt-in rules are chosen only where ``select`` names their exact code or name.
    """
    chosen = {r.CODE: r for prefix in select for r in _matching(prefix, explicit_only=True)}
    for prefix in ignore:
        for r in _matching(prefix):
            chosen.pop(r.CODE, None)
    return [chosen[c] for c in sorted(chosen)]
