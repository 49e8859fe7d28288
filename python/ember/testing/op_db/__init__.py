"""The op table: one record per op in ember's registry (docs/dev/testing.md, "The op table").

spec.py holds the record types and the helpers; each topic module (creation.py, view.py,
elementwise.py, ...) holds the records of its ops and returns them from records(). This module
only collects them: OPS (every record) and OP_DB (name -> record). A test fails when an op of the
registry has no record here, or a record names no registered op (tests/python/test_ops.py).

The topic modules import spec.py and never each other nor this package, so there is no import
loop: a new topic is a module here and a line in TOPICS.
"""

from __future__ import annotations

from ember.testing.op_db import (
    creation,
    elementwise,
    indexing,
    linalg,
    nn_attention,
    nn_conv,
    nn_dropout,
    nn_embedding,
    nn_loss,
    nn_norm,
    nn_pool,
    nn_resample,
    nn_rnn,
    random,
    reduce,
    scan,
    shape,
    softmax,
    sort,
    statistics,
    view,
)

# What the tests import from ember.testing.op_db.
from ember.testing.op_db.spec import (
    ALL,
    FLOATING,
    NUMPY_DTYPE,
    OpSpec,
    rounded,
    to_numpy,
    to_tensor,
)

# In the order of the tests' parametrisation.
TOPICS = (
    creation, random, view, elementwise, reduce, softmax, statistics, shape, indexing, sort,
    scan, linalg, nn_conv, nn_pool, nn_resample, nn_norm, nn_dropout, nn_loss, nn_embedding,
    nn_rnn, nn_attention,
)  # fmt: skip

OPS: list[OpSpec] = [spec for topic in TOPICS for spec in topic.records()]
OP_DB = {spec.name: spec for spec in OPS}

__all__ = [
    "ALL",
    "FLOATING",
    "NUMPY_DTYPE",
    "OPS",
    "OP_DB",
    "TOPICS",
    "rounded",
    "to_numpy",
    "to_tensor",
]
