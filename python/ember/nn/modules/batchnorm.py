"""BatchNorm1d/2d/3d with PyTorch's buffers (running_mean, running_var, num_batches_tracked),
momentum=None as a cumulative average, and its input-dimension checks. The statistics and the
running-stat updates are the C++ batch_norm op; _NormBase is shared with InstanceNorm."""

from __future__ import annotations

import ember
from ember.autograd.function import Function
from ember.nn import functional as F
from ember.nn import init
from ember.nn.modules.lazy import LazyModuleMixin
from ember.nn.modules.module import Module
from ember.nn.parameter import Parameter

__all__ = [
    "BatchNorm1d",
    "BatchNorm2d",
    "BatchNorm3d",
    "LazyBatchNorm1d",
    "LazyBatchNorm2d",
    "LazyBatchNorm3d",
    "SyncBatchNorm",
]


class _NormBase(Module):
    """Parameters, buffers and repr common to batch and instance norm."""

    _version = 2

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        device=None,
        dtype=None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        factory = {"device": device, "dtype": dtype}
        if affine:
            self.weight = Parameter(ember.empty(num_features, **factory))
            if bias:
                self.bias = Parameter(ember.empty(num_features, **factory))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", ember.zeros(num_features, **factory))
            self.register_buffer("running_var", ember.ones(num_features, **factory))
            self.register_buffer(
                "num_batches_tracked", ember.tensor(0, dtype=ember.long, device=device)
            )
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _check_input_dim(self, input) -> None:
        raise NotImplementedError

    def extra_repr(self) -> str:
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
            f"affine={self.affine}, bias={self.bias is not None}, "
            f"track_running_stats={self.track_running_stats}"
        )

    def _load_from_state_dict(
        self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
    ) -> None:
        # State dicts from before num_batches_tracked existed (version < 2) load with 0.
        version = local_metadata.get("version", None)
        if (version is None or version < 2) and self.track_running_stats:
            key = prefix + "num_batches_tracked"
            if key not in state_dict:
                state_dict[key] = (
                    self.num_batches_tracked
                    if self.num_batches_tracked is not None
                    else ember.tensor(0, dtype=ember.long)
                )
        super()._load_from_state_dict(
            state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
        )


class _BatchNorm(_NormBase):
    def _update_factor(self) -> float:
        """The running statistics' update weight for this forward: momentum, or 1/k for the
        k-th batch when momentum is None (a cumulative average). Counts the batch in training."""
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:
                factor = 1.0 / float(self.num_batches_tracked)
        return factor

    def forward(self, input):
        self._check_input_dim(input)
        factor = self._update_factor()
        # In eval mode, batch statistics are used only when there are no running stats.
        use_batch_stats = self.training or (self.running_mean is None and self.running_var is None)
        use_running = not self.training or self.track_running_stats
        return F.batch_norm(
            input,
            self.running_mean if use_running else None,
            self.running_var if use_running else None,
            self.weight,
            self.bias,
            use_batch_stats,
            factor,
            self.eps,
        )


class BatchNorm1d(_BatchNorm):
    """Batch norm over (N, C) or (N, C, L), per channel C."""

    def _check_input_dim(self, input) -> None:
        if input.dim() != 2 and input.dim() != 3:
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    """Batch norm over (N, C, H, W), per channel C."""

    def _check_input_dim(self, input) -> None:
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")


class BatchNorm3d(_BatchNorm):
    """Batch norm over (N, C, D, H, W), per channel C."""

    def _check_input_dim(self, input) -> None:
        if input.dim() != 5:
            raise ValueError(f"expected 5D input (got {input.dim()}D input)")


class _LazyNormMixin(LazyModuleMixin):
    """num_features from dim 1 of the first input (shared with the lazy instance norms)."""

    def __init__(
        self,
        eps=1e-5,
        momentum=0.1,
        affine=True,
        track_running_stats=True,
        device=None,
        dtype=None,
        *,
        bias=True,
    ) -> None:
        super().__init__(0, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input) -> None:
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            n = (self.num_features,)
            self._materialize({"weight": n, "bias": n, "running_mean": n, "running_var": n})
            self.reset_parameters()


class LazyBatchNorm1d(_LazyNormMixin, BatchNorm1d):
    """A BatchNorm1d whose num_features is taken from the first input."""

    cls_to_become = BatchNorm1d


class LazyBatchNorm2d(_LazyNormMixin, BatchNorm2d):
    """A BatchNorm2d whose num_features is taken from the first input."""

    cls_to_become = BatchNorm2d


class LazyBatchNorm3d(_LazyNormMixin, BatchNorm3d):
    """A BatchNorm3d whose num_features is taken from the first input."""

    cls_to_become = BatchNorm3d


class SyncBatchNorm(_BatchNorm):
    """Batch norm whose statistics span the processes of a distributed group: in training, with
    an initialised process group of more than one rank, the mean and variance are those of every
    rank's batch together (two all-reduces: the sums and counts, then the squared deviations
    from the global mean, which keeps the variance as exact as one process's), and backward
    all-reduces the two per-channel sums the input gradient needs, as PyTorch's does. Otherwise
    it is BatchNorm. convert_sync_batchnorm swaps a model's BatchNorm layers for it, as DDP
    scripts do."""

    def __init__(
        self,
        num_features,
        eps=1e-5,
        momentum=0.1,
        affine=True,
        track_running_stats=True,
        process_group=None,
        device=None,
        dtype=None,
        *,
        bias=True,
    ):
        super().__init__(
            num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias
        )
        self.process_group = process_group

    def _check_input_dim(self, input) -> None:
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def forward(self, input):
        import ember.distributed as dist

        group = self.process_group
        if not (self.training and dist.is_initialized() and dist.get_world_size(group) > 1):
            return super().forward(input)
        self._check_input_dim(input)
        factor = self._update_factor()
        track = self.track_running_stats and self.running_mean is not None
        return _SyncBatchNorm.apply(
            input,
            self.weight,
            self.bias,
            self.running_mean if track else None,
            self.running_var if track else None,
            self.eps,
            factor,
            group,
        )

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """module with every BatchNorm*D replaced by a SyncBatchNorm holding the same parameters
        and buffers (module itself when it is one)."""
        out = module
        if isinstance(module, _BatchNorm) and not isinstance(module, SyncBatchNorm):
            out = SyncBatchNorm(
                module.num_features,
                module.eps,
                module.momentum,
                module.affine,
                module.track_running_stats,
                process_group,
                bias=getattr(module, "bias", None) is not None or not module.affine,
            )
            if module.affine:
                with ember.no_grad():
                    out.weight = module.weight
                    out.bias = module.bias
            out.running_mean = module.running_mean
            out.running_var = module.running_var
            out.num_batches_tracked = module.num_batches_tracked
            out.training = module.training
        for name, child in module.named_children():
            out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return out


class _SyncBatchNorm(Function):
    """Batch norm over the batches of every rank of `group` (SyncBatchNorm.forward)."""

    @staticmethod
    def forward(ctx, input, weight, bias, running_mean, running_var, eps, momentum, group):
        import ember.distributed as dist

        channels = input.size(1)
        dims = [0, *range(2, input.dim())]
        shape = [1, channels] + [1] * (input.dim() - 2)
        x = input.detach()
        sums = ember.cat([x.sum(dims), ember.tensor([x.numel() / channels], dtype=x.dtype)])
        dist.all_reduce(sums, group=group)
        count = sums[channels].item()
        if count <= 1:
            raise ValueError(
                f"Expected more than 1 value per channel when training, got input size "
                f"{list(input.shape)} across the group"
            )
        mean = sums[:channels] / count
        centered = x - mean.view(shape)
        sq = (centered * centered).sum(dims)
        dist.all_reduce(sq, group=group)
        var = sq / count
        invstd = (var + eps).rsqrt()
        if running_mean is not None:
            running_mean.mul_(1 - momentum).add_(mean, alpha=momentum)
            running_var.mul_(1 - momentum).add_(var * (count / (count - 1)), alpha=momentum)
        xhat = centered * invstd.view(shape)
        out = xhat if weight is None else xhat * weight.detach().view(shape)
        if bias is not None:
            out = out + bias.detach().view(shape)
        ctx.save_for_backward(xhat, invstd, weight)
        ctx.count, ctx.group, ctx.dims, ctx.shape = count, group, dims, shape
        return out

    @staticmethod
    def backward(ctx, grad_out):
        import ember.distributed as dist

        xhat, invstd, weight = ctx.saved_tensors
        dims, shape, channels = ctx.dims, ctx.shape, xhat.size(1)
        sum_dy = grad_out.sum(dims)
        sum_dy_xhat = (grad_out * xhat).sum(dims)
        # This rank's parameter gradients; DDP averages them across ranks.
        grad_weight = sum_dy_xhat if weight is not None else None
        grad_bias = sum_dy if ctx.needs_input_grad[2] else None
        both = ember.cat([sum_dy, sum_dy_xhat])
        dist.all_reduce(both, group=ctx.group)
        scale = invstd if weight is None else invstd * weight
        mean_dy = (both[:channels] / ctx.count).view(shape)
        mean_dy_xhat = (both[channels:] / ctx.count).view(shape)
        grad_input = scale.view(shape) * (grad_out - mean_dy - xhat * mean_dy_xhat)
        return grad_input, grad_weight, grad_bias, None, None, None, None, None
