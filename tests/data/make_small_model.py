"""Writes small_model.safetensors: a state dict saved by ember.save in Python, which the C++ test
(tests/cpp/io_test.cpp, IoData) and tests/python/test_serialization.py both read and check."""

import collections
import os

import ember

sd = collections.OrderedDict(
    [
        ("0.weight", ember.arange(6, dtype=ember.float32).mul(0.5).reshape(3, 2)),
        ("0.bias", ember.tensor([1.0, -2.0, 3.0])),
        ("2.weight", ember.tensor([[0.25, -0.5, 1.0]], dtype=ember.bfloat16)),
        ("2.bias", ember.tensor([-1.25], dtype=ember.float64)),
        ("steps", ember.tensor(42)),
    ]
)
ember.save(sd, os.path.join(os.path.dirname(__file__), "small_model.safetensors"))
