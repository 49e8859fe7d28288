import os
import sys
import zlib

import numpy as np
import pytest

import ember


@pytest.fixture(autouse=True)
def _reset_state():
    """Each test starts with grad mode on and a seeded generator."""
    ember._C._set_grad_enabled(True)
    ember.manual_seed(0)
    yield


def rng_for(name: str) -> np.random.Generator:
    """A NumPy generator seeded from a test's name (stable across runs and processes)."""
    return np.random.default_rng(zlib.crc32(name.encode()))


# Tests import helpers from this directory.
sys.path.insert(0, os.path.dirname(__file__))
