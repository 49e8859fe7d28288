"""ember.nn.functional: the helpers PyTorch's functional module also exposes: boolean_dispatch
(one name, two functions chosen by a bool argument), assert_int_or_pair, Tensor, and the helpers
of the __torch_function__ protocol (also ember.overrides'): has_torch_function and
handle_torch_function let a Python function defer to the __torch_function__ of an argument's
type, which is how tensor-like classes intercept torch functions. ember's own functions do not
consult __torch_function__ (its Tensor has none); these serve library code written against the
protocol, which calls them itself."""

from __future__ import annotations

from ember import _C

__all__: list[str] = [
    "Tensor",
    "assert_int_or_pair",
    "boolean_dispatch",
    "handle_torch_function",
    "has_torch_function",
    "has_torch_function_unary",
    "has_torch_function_variadic",
    "is_tensor_like",
]

Tensor = _C.Tensor


def boolean_dispatch(arg_name, arg_index, default, if_true, if_false, module_name, func_name):
    """A function that calls if_true or if_false by the bool argument arg_name (or positional
    arg_index), default when it is not given."""

    def fn(*args, **kwargs):
        if arg_name in kwargs:
            flag = kwargs[arg_name]
        elif arg_index < len(args):
            flag = args[arg_index]
        else:
            flag = default
        return if_true(*args, **kwargs) if flag else if_false(*args, **kwargs)

    fn.__module__ = module_name
    fn.__name__ = func_name
    return fn


def assert_int_or_pair(arg, arg_name, message):
    assert isinstance(arg, int) or len(arg) == 2, message.format(arg_name)


def _overloaded(relevant_args):
    """The arguments whose type defines __torch_function__, one per type, subclasses first."""
    types, args = [], []
    for arg in relevant_args:
        t = type(arg)
        if t in types or not hasattr(t, "__torch_function__"):
            continue
        if t is _C.Tensor:
            continue
        index = len(args)
        for i, other in enumerate(types):
            if issubclass(t, other):
                index = i
                break
        types.insert(index, t)
        args.insert(index, arg)
    return types, args


def has_torch_function(relevant_args) -> bool:
    """Whether any of relevant_args has a type with its own __torch_function__."""
    return bool(_overloaded(relevant_args)[0])


def has_torch_function_unary(arg) -> bool:
    return has_torch_function((arg,))


def has_torch_function_variadic(*args) -> bool:
    return has_torch_function(args)


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """Calls the __torch_function__ of each overloaded argument's type in turn until one does not
    return NotImplemented; raises TypeError when all do."""
    types, overloaded = _overloaded(relevant_args)
    for arg in overloaded:
        result = type(arg).__torch_function__(public_api, tuple(types), args, kwargs)
        if result is not NotImplemented:
            return result
    names = ", ".join(t.__name__ for t in types)
    raise TypeError(
        f"no implementation found for '{getattr(public_api, '__qualname__', public_api)}' on "
        f"types that implement __torch_function__: [{names}]"
    )


def is_tensor_like(inp) -> bool:
    """A Tensor, or an object whose type has __torch_function__."""
    return isinstance(inp, _C.Tensor) or hasattr(type(inp), "__torch_function__")
