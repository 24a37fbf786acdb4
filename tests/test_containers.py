"""Which class a local container's elements are where a method is called on one (autofix.model.containers)."""

from __future__ import annotations

import ast
import textwrap

from autofix.model.containers import element_receivers


def _receivers(source: str) -> dict:
    tree = ast.parse(textwrap.dedent(source))
    function = tree.body[-1]
    assert isinstance(function, ast.FunctionDef)
    return element_receivers(function, {a.arg for a in function.args.args}, lambda s: s, lambda v: None)


LAZY = """
def train(loader, terms):
    for epoch in range(2):
        meters = {}
        for batch in loader:
            for k in terms:
                if k not in meters:
                    meters[k] = Meter()
                else:
                    meters[k].update(terms[k])
        meters = {k: m.avg for k, m in meters.items()}
"""


def test_dict_filled_by_key_in_the_loop_gives_its_elements_class():
    assert list(_receivers(LAZY).values()) == ["Meter"]


def test_get_with_a_new_element_counts_as_one():
    assert list(_receivers("""
    def train(loader):
        meters = {}
        for loss in loader:
            meters["loss"] = meters.get("loss", Meter())
            meters["loss"].update(loss)
    """).values()) == ["Meter"]


def test_rebound_round_the_loop_is_not_known():
    assert _receivers("""
    def train(loader):
        meters = {}
        for loss in loader:
            meters["loss"] = Meter()
            meters["loss"].update(loss)
            meters = load()
    """) == {}


def test_another_value_stored_by_key_is_not_known():
    assert _receivers(LAZY.replace("meters = {k: m.avg", "meters['x'] = terms\n        meters = {k: m.avg")) == {}


def test_filled_another_way_is_not_known():
    assert _receivers(LAZY.replace("if k not in meters:", "meters.update(terms)\n                if k not in meters:")) == {}


def test_handed_to_a_call_before_the_update_is_not_known():
    assert _receivers(LAZY.replace("for batch in loader:", "fill(meters)\n        for batch in loader:")) == {}


def test_parameter_or_container_of_unknown_origin_is_not_known():
    assert _receivers(LAZY.replace("meters = {}", "meters = restore()")) == {}
    assert _receivers("""
    def train(meters, loader):
        for loss in loader:
            meters["loss"] = Meter()
            meters["loss"].update(loss)
    """) == {}


def test_named_in_a_nested_function_is_not_known():
    assert _receivers(LAZY.replace("        meters = {k: m.avg", "        def log():\n            meters['x'] = 1.0\n        meters = {k: m.avg")) == {}
