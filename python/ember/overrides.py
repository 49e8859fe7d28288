"""torch.overrides' protocol helpers (has_torch_function, handle_torch_function,
is_tensor_like): the functions of ember/nn/functional/dispatch.py, where PyTorch's functional
module also has them."""

from ember.nn.functional.dispatch import (  # noqa: F401
    handle_torch_function,
    has_torch_function,
    has_torch_function_unary,
    has_torch_function_variadic,
    is_tensor_like,
)
