"""A matplotlib that draws nothing (scripts/realworld.py): every name is a callable that
accepts anything and returns another such object."""

import sys
import types


class _Nothing:
    def __call__(self, *args, **kwargs):
        if args and callable(args[0]) and not kwargs and len(args) == 1:
            return args[0]  # used as a decorator
        return _Nothing()

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Nothing()

    def __iter__(self):
        return iter((_Nothing(), _Nothing()))

    def __getitem__(self, key):
        return _Nothing()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def use(*args, **kwargs):
    pass


def _anything(attr):
    if attr.startswith("__"):  # introspection (inspect reads __file__ of every module)
        raise AttributeError(attr)
    return _Nothing()


def _module(name):
    mod = types.ModuleType(name)
    mod.__getattr__ = _anything
    mod.__file__ = __file__
    sys.modules[name] = mod
    return mod


def subplots(*args, **kwargs):
    return _Nothing(), _Nothing()


pyplot = _module(__name__ + ".pyplot")
pyplot.subplots = subplots
cm = _module(__name__ + ".cm")
ticker = _module(__name__ + ".ticker")
