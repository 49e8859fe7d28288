"""ember.autograd.graph: hooks on what the graph saves (torch.autograd.graph).

saved_tensors_hooks(pack_hook, unpack_hook): within the block, every tensor an op saves for
backward goes through pack_hook, whose result is kept instead; backward calls unpack_hook on it
to get a tensor back (offloading, compression, recomputation). The hooks active when a tensor is
saved are the ones that unpack it. As in PyTorch, a tensor that went through the hooks is not
checked for in-place changes (the hooks own its value).
"""

from __future__ import annotations

from typing import Any, Callable

from ember import _C

__all__ = ["disable_saved_tensors_hooks", "save_on_cpu", "saved_tensors_hooks"]


class saved_tensors_hooks:  # noqa: N801  (PyTorch's name)
    def __init__(self, pack_hook: Callable[[Any], Any], unpack_hook: Callable[[Any], Any]) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> None:
        _C._push_saved_tensor_hooks(self.pack_hook, self.unpack_hook)

    def __exit__(self, *args: Any) -> None:
        _C._pop_saved_tensor_hooks()


class save_on_cpu(saved_tensors_hooks):  # noqa: N801
    """Saved tensors are moved to the CPU (pinned memory with pin_memory=True, which needs
    CUDA) and back to their device for backward."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        def pack(t):
            if pin_memory and t.device.type != "cpu":
                return t.device, t.cpu().pin_memory()
            return t.device, t.cpu()

        def unpack(packed):
            device, t = packed
            return t.to(device)

        super().__init__(pack, unpack)


class disable_saved_tensors_hooks:  # noqa: N801
    """Within the block, saving a tensor for backward under saved-tensor hooks raises
    RuntimeError(error_message)."""

    def __init__(self, error_message: str) -> None:
        self.error_message = error_message

    def __enter__(self) -> None:
        def refuse(_):
            raise RuntimeError(self.error_message)

        _C._push_saved_tensor_hooks(refuse, refuse)

    def __exit__(self, *args: Any) -> None:
        _C._pop_saved_tensor_hooks()
