"""LazyModuleMixin: layers whose input size (in_features, in_channels, num_features) is taken
from the first input. Until then the shape-dependent parameters and buffers are empty
placeholders; a forward pre-hook gives them their shapes in place (the Parameter objects stay
the same), initialises them, and turns the module into its `cls_to_become` (Linear, Conv2d,
BatchNorm1d, ...), as PyTorch does. A state dict loaded before the first forward gives the
placeholders its shapes instead. PyTorch's UninitializedParameter type does not exist here."""

from __future__ import annotations

import ember

__all__ = ["LazyModuleMixin"]


def _infer_parameters(module, args):
    module.initialize_parameters(*args)
    module._initialize_hook.remove()
    del module._initialize_hook
    del module._lazy_names
    if module.cls_to_become is not None:
        module.__class__ = module.cls_to_become


class LazyModuleMixin:
    """Mixed in before the layer class; the subclass lists its placeholder tensors in
    `_lazy_names`, says how to size them in `initialize_parameters(input)`, and skips
    reset_parameters while they are empty."""

    cls_to_become: type | None = None

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._lazy_names = {
            name
            for name in ("weight", "bias", "running_mean", "running_var")
            if getattr(self, name, None) is not None
        }
        self._initialize_hook = self.register_forward_pre_hook(_infer_parameters)

    def has_uninitialized_params(self) -> bool:
        return bool(getattr(self, "_lazy_names", None))

    def _materialize(self, shapes: dict) -> None:
        """Gives each still-empty placeholder its shape (data replaced in place)."""
        for name in sorted(self._lazy_names & shapes.keys()):
            t = getattr(self, name)
            with ember.no_grad():
                t.data = ember.empty(shapes[name], dtype=t.dtype, device=t.device)
            self._lazy_names.discard(name)

    def _load_from_state_dict(
        self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
    ) -> None:
        if self.has_uninitialized_params():
            shapes = {
                name: tuple(state_dict[prefix + name].shape)
                for name in self._lazy_names
                if prefix + name in state_dict
            }
            self._materialize(shapes)
        super()._load_from_state_dict(
            state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
        )
