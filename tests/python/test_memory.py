"""The caching CPU allocator, seen from Python."""

import ember


def test_freed_blocks_are_reused_without_new_system_allocations():
    ember.empty_cache()
    for _ in range(3):  # warm up: the first iteration reserves the blocks
        x = ember.ones(1 << 16)
        y = x * 2 + 1
        del x, y
    before = ember.memory_stats()
    for _ in range(10):
        x = ember.ones(1 << 16)
        y = x * 2 + 1
        del x, y
    after = ember.memory_stats()
    assert after["num_system_allocs"] == before["num_system_allocs"]
    assert after["num_cache_hits"] - before["num_cache_hits"] >= 30


def test_allocated_reserved_and_peak():
    ember.empty_cache()
    ember.reset_peak_memory_stats()
    base = ember.memory_allocated()
    x = ember.empty(1 << 20, dtype=ember.uint8)  # 1 MiB, an exact size class
    assert ember.memory_allocated() - base == 1 << 20
    assert ember.memory_reserved() >= ember.memory_allocated()
    del x
    assert ember.memory_allocated() == base
    assert ember.max_memory_allocated() - base >= 1 << 20
    reserved = ember.memory_reserved()
    ember.empty_cache()
    assert ember.memory_reserved() <= reserved - (1 << 20)


def test_alignment_is_64_bytes():
    for n in (1, 3, 17, 1000, 12345):
        assert ember.empty(n).data_ptr() % 64 == 0


def test_invalid_cache_limit_variable_is_ignored_with_a_message():
    import os
    import subprocess
    import sys

    env = dict(os.environ, EMBER_CPU_CACHE_LIMIT_MB="lots")
    code = "import ember; print(ember.ones(3).sum().item())"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "3.0"
    assert "ignoring EMBER_CPU_CACHE_LIMIT_MB=lots" in out.stderr
