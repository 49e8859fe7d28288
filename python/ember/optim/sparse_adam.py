"""optim: SparseAdam, which updates only the rows a sparse gradient touches. ember's tensors are
strided only (no sparse layout, docs/compat.md), so there are no sparse gradients to give it:
constructing one raises, naming the dense alternative."""

from typing import Any

__all__ = ["SparseAdam"]


class SparseAdam:
    def __init__(
        self,
        params: Any,
        lr: float = 1e-3,
        betas: tuple = (0.9, 0.999),
        eps: float = 1e-8,
        maximize: bool = False,
    ) -> None:
        raise NotImplementedError(
            "SparseAdam: ember has no sparse tensors (nn.Embedding(sparse=True) gives dense "
            "gradients), so use optim.Adam, which gives the same result on dense gradients"
        )
