"""torch.overrides' protocol helpers: has_torch_function and handle_torch_function, which let a
Python function defer to the __torch_function__ of an argument's type (how tensor-like classes
intercept torch functions), and is_tensor_like.

ember's own functions do not consult __torch_function__ (its Tensor has none); these helpers
serve library code written against the protocol, which calls them itself."""

from ember import _C


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
