"""optim.swa_utils: stochastic weight averaging and exponential moving averages of a model's
weights (AveragedModel, its average functions, SWALR, update_bn), as torch.optim.swa_utils."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable
from copy import deepcopy
from typing import Any, Callable

import ember
from ember.nn.modules.module import Module
from ember.optim.lr_scheduler import LRScheduler, _per_group
from ember.optim.optimizer import Optimizer

__all__ = [
    "AveragedModel",
    "SWALR",
    "get_ema_avg_fn",
    "get_ema_multi_avg_fn",
    "get_swa_avg_fn",
    "get_swa_multi_avg_fn",
    "update_bn",
]


def get_ema_multi_avg_fn(decay: float = 0.999) -> Callable:
    """Updates a list of averages in place: ema += (1 - decay) * (current - ema)."""

    def ema_update(ema_params, current_params, num_averaged):
        for e, c in zip(ema_params, current_params):
            e.lerp_(c, 1 - decay)

    return ema_update


def get_swa_multi_avg_fn() -> Callable:
    """Updates a list of running means in place with one more sample."""

    def swa_update(averaged_params, current_params, num_averaged):
        n = float(num_averaged.item() if isinstance(num_averaged, ember.Tensor) else num_averaged)
        for a, c in zip(averaged_params, current_params):
            a.lerp_(c, 1 / (n + 1))

    return swa_update


def get_ema_avg_fn(decay: float = 0.999) -> Callable:
    def ema_update(ema_param, current_param, num_averaged):
        return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn() -> Callable:
    def swa_update(averaged_param, current_param, num_averaged):
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


class AveragedModel(Module):
    """A copy of `model` whose parameters (and, with use_buffers, buffers) are the running
    average of model's, updated by update_parameters(model): the equal-weight mean (SWA) by
    default, or avg_fn / multi_avg_fn (e.g. get_ema_multi_avg_fn for an EMA)."""

    def __init__(
        self,
        model: Module,
        device: Any = None,
        avg_fn: Callable | None = None,
        multi_avg_fn: Callable | None = None,
        use_buffers: bool = False,
    ) -> None:
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", ember.tensor(0, dtype=ember.int64, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self.module(*args, **kwargs)

    def update_parameters(self, model: Module) -> None:
        if self.use_buffers:
            mine = itertools.chain(self.module.parameters(), self.module.buffers())
            theirs = itertools.chain(model.parameters(), model.buffers())
        else:
            mine, theirs = self.parameters(), model.parameters()
        averaged, current = [], []
        first = int(self.n_averaged.item()) == 0
        with ember.no_grad():
            for a, c in zip(mine, theirs):
                c_ = c.detach().to(a.device)
                averaged.append(a.detach())
                current.append(c_)
                if first:
                    a.detach().copy_(c_)
            if not first:
                if self.multi_avg_fn is not None:
                    self.multi_avg_fn(averaged, current, self.n_averaged)
                elif self.avg_fn is None:
                    get_swa_multi_avg_fn()(averaged, current, self.n_averaged)
                else:
                    for a, c in zip(averaged, current):
                        a.copy_(self.avg_fn(a, c, self.n_averaged.to(a.device)))
            if not self.use_buffers:
                # The buffers (batch-norm statistics) follow the model's, as in PyTorch.
                for b_avg, b_model in zip(self.module.buffers(), model.buffers()):
                    b_avg.detach().copy_(b_model.detach().to(b_avg.device))
            self.n_averaged += 1


def update_bn(loader: Iterable, model: Module, device: Any = None) -> None:
    """Recomputes the batch-norm running statistics of `model` with one pass over `loader` (the
    averaged weights' statistics are not the average of the statistics)."""
    from ember.nn.modules.batchnorm import _BatchNorm

    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None  # a cumulative average over the pass
    with ember.no_grad():
        for batch in loader:
            if isinstance(batch, (list, tuple)):
                batch = batch[0]
            if device is not None:
                batch = batch.to(device)
            model(batch)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneals each group's lr to swa_lr over anneal_epochs (cos or linear), then keeps it."""

    def __init__(
        self,
        optimizer: Optimizer,
        swa_lr: float | list[float],
        anneal_epochs: int = 10,
        anneal_strategy: str = "cos",
        last_epoch: int = -1,
    ) -> None:
        for lr, group in zip(_per_group("swa_lr", optimizer, swa_lr), optimizer.param_groups):
            group["swa_lr"] = lr
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(
                f"anneal_strategy must by one of 'cos' or 'linear', instead got {anneal_strategy}"
            )
        self.anneal_strategy = anneal_strategy
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    def _anneal(self, t: float) -> float:
        return (1 - math.cos(math.pi * t)) / 2 if self.anneal_strategy == "cos" else t

    @staticmethod
    def _get_initial_lr(lr: float, swa_lr: float, alpha: float) -> float:
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self) -> list[Any]:
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_alpha = self._anneal(max(0, min(1, (step - 1) / max(1, self.anneal_epochs))))
        prev_lrs = [
            self._get_initial_lr(g["lr"], g["swa_lr"], prev_alpha)
            for g in self.optimizer.param_groups
        ]
        alpha = self._anneal(max(0, min(1, step / max(1, self.anneal_epochs))))
        return [
            g["swa_lr"] * alpha + lr * (1 - alpha)
            for g, lr in zip(self.optimizer.param_groups, prev_lrs)
        ]
