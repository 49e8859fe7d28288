"""The op table: one record per op in ember's registry (docs/dev/testing.md, "The op table").

spec.py holds the record types and the helpers; each topic module (creation.py, view.py,
elementwise.py, ...) holds the records of its ops and returns them from records(). This module
only collects them: OPS (every record) and OP_DB (name -> record). A test fails when an op of the
registry has no record here, or a record names no registered op (tests/python/test_ops.py).

The topic modules import spec.py and never each other nor this package, so there is no import
loop: a new topic of the registry (ops/<topic>.cpp) is a module here of the same name.
"""

from __future__ import annotations

import importlib

import ember

# What the tests import from ember.testing.op_db.
from ember.testing.op_db.spec import (
    ALL,
    COMPLEX,
    FLOATING,
    NUMPY_DTYPE,
    OpSpec,
    rounded,
    to_numpy,
    to_tensor,
)

# One module per topic of the C++ registry (OpInfo::topic: ops/<topic>.cpp), in the registry's
# order, which is the order of the tests' parametrisation.
TOPICS = tuple(
    importlib.import_module(f"{__name__}.{topic}")
    for topic in dict.fromkeys(topic for *_, topic in ember._op_registry())
)

OPS: list[OpSpec] = [spec for topic in TOPICS for spec in topic.records()]
OP_DB = {spec.name: spec for spec in OPS}

__all__ = [
    "ALL",
    "COMPLEX",
    "FLOATING",
    "NUMPY_DTYPE",
    "OPS",
    "OP_DB",
    "TOPICS",
    "rounded",
    "to_numpy",
    "to_tensor",
]
