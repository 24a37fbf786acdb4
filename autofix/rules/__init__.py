"""The rules, one module each; every module here is imported by :mod:`autofix.registry`.

A module holds exactly one :class:`autofix.rule.Rule` subclass named for the
anti-pattern; the module name is the class name in snake_case.
"""
