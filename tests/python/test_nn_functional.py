"""The layout of ember.nn.functional: a package of parts by topic, whose __init__ only gathers
their names. Every public name comes from exactly one part, no part's name hides a function, and
no part imports the package or ember.nn (half-initialised while the parts are imported)."""

import ast
import pathlib
import pkgutil
import subprocess
import sys

import pytest

import ember.nn.functional as F

PACKAGE = "ember.nn.functional"
PARTS = sorted(m.name for m in pkgutil.iter_modules(F.__path__))


def test_parts_are_the_package_modules():
    assert sorted(part.__name__.rsplit(".", 1)[1] for part in F._PARTS) == PARTS


def test_every_public_name_comes_from_one_part():
    assert len(F.__all__) == len(set(F.__all__))
    owners = {}
    for part in F._PARTS:
        for name in part.__all__:
            assert name not in owners, f"{name} is in {owners.get(name)} and {part.__name__}"
            owners[name] = part.__name__
            assert getattr(F, name) is getattr(part, name), name
    assert set(owners) == set(F.__all__)


def test_no_part_hides_a_function():
    # `from part import *` binds the functions in the package after the parts themselves: a part
    # named like a function (dropout.py beside F.dropout) would be shadowed by it.
    for name in PARTS:
        assert name not in F.__all__, name
        assert getattr(F, name).__name__ == f"{PACKAGE}.{name}"


def _imports(path):
    """(module, line) of every import in the file, function bodies included; `from m import n`
    gives m.n, so that `from ember.nn import functional` reads as ember.nn.functional."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            yield from ((alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, f"{path.name}:{node.lineno}: relative import"
            for alias in node.names:
                yield f"{node.module}.{alias.name}", node.lineno


def test_parts_import_neither_the_package_nor_ember_nn():
    """A part may import ember, ember._C and another part (for its public functions), and no
    other module of ember; the parts' imports of each other have no cycle."""
    directory = pathlib.Path(F.__file__).parent
    graph = {}
    for name in PARTS:
        path = directory / f"{name}.py"
        graph[name] = set()
        for module, line in _imports(path):
            where = f"{path.name}:{line}: {module}"
            if module == "ember" or not module.startswith("ember"):
                continue  # ember itself (its attributes are read at call time), stdlib
            if module.startswith(PACKAGE + "."):
                sibling = module[len(PACKAGE) + 1 :].split(".")[0]
                assert sibling in PARTS and sibling != name, where
                assert not module[len(PACKAGE) + 1 + len(sibling) + 1 :].startswith("_"), (
                    f"{where}: another part's private name"
                )
                graph[name].add(sibling)
            else:
                assert module == "ember._C", where

    # No cycle: repeatedly remove the parts that import no remaining part.
    while graph:
        leaves = {name for name, deps in graph.items() if not deps & graph.keys()}
        assert leaves, f"the parts import each other in a cycle: {graph}"
        graph = {name: deps for name, deps in graph.items() if name not in leaves}


@pytest.mark.parametrize("part", PARTS)
def test_part_imports_first_in_a_fresh_interpreter(part):
    """Each part as the first import of a fresh interpreter (ember, ember.nn and the package load
    around it) gives the functions of the package."""
    code = (
        f"import {PACKAGE}.{part} as m, {PACKAGE} as F; "
        "assert m.__all__ and all(getattr(F, n) is getattr(m, n) for n in m.__all__)"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
