"""nn.parallel.DistributedDataParallel: data-parallel training across processes, in PyTorch's
design (Note [Bucketed gradient reduction] in ember/distributed/reducer.h).

Construction copies rank 0's parameters and buffers to every rank. The C++ Reducer puts a
post-accumulate-grad hook on every parameter; buckets of gradients are averaged across ranks on
the process group's thread while backward runs, and an end-of-backward callback waits for them,
so that .grad holds the average when loss.backward() returns. Nothing here runs per parameter
in Python.
"""

from __future__ import annotations

import contextlib
import dataclasses

import ember
from ember._C import _distributed as _D
from ember.nn.modules.module import Module

# PyTorch's sizes: dist._DEFAULT_FIRST_BUCKET_BYTES and bucket_cap_mb=25.
_DEFAULT_FIRST_BUCKET_BYTES = 1024 * 1024
_DEFAULT_BUCKET_CAP_MB = 25


def _tensors_in(obj, out):
    """Every tensor in a forward's output (nested lists, tuples, dicts, dataclasses)."""
    if isinstance(obj, ember.Tensor):
        out.append(obj)
    elif isinstance(obj, (list, tuple)):
        for x in obj:
            _tensors_in(x, out)
    elif isinstance(obj, dict):
        for x in obj.values():
            _tensors_in(x, out)
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            _tensors_in(getattr(obj, f.name), out)
    return out


def _join_count(pg, training, syncing):
    """join()'s count, one all-reduce per iteration: how many ranks still train, and how many
    of those will average gradients this iteration (not under no_sync or no_grad)."""
    flag = ember.tensor([float(training), float(syncing)])
    pg.allreduce(flag, _D.ReduceOp.SUM).wait()
    return flag.tolist()


class DistributedDataParallel(Module):
    def __init__(
        self,
        module,
        device_ids=None,
        output_device=None,
        dim=0,
        broadcast_buffers=True,
        process_group=None,
        bucket_cap_mb=None,
        find_unused_parameters=False,
        check_reduction=False,
        gradient_as_bucket_view=False,
        static_graph=False,
        delay_all_reduce_named_params=None,
        param_to_hook_all_reduce=None,
        mixed_precision=None,
        device_mesh=None,
    ):
        super().__init__()
        import ember.distributed as dist

        pg = process_group if process_group is not None else dist.group.WORLD
        if pg is None:
            raise ValueError(dist._NO_GROUP)
        if pg is dist.GroupMember.NON_GROUP_MEMBER:
            raise ValueError("DistributedDataParallel: this rank is not in process_group")
        devices = {p.device for p in module.parameters()}
        if (device_ids or output_device is not None) and all(d.type == "cpu" for d in devices):
            raise ValueError(
                "DistributedDataParallel device_ids and output_device arguments only work with "
                "single-device/multiple-device GPU modules or CPU modules, but got device_ids "
                f"{device_ids}, output_device {output_device}, and module parameters {devices}."
            )
        params = [p for p in module.parameters() if p.requires_grad]
        if not params:
            raise RuntimeError(
                "DistributedDataParallel is not needed when a module doesn't have any parameter "
                "that requires a gradient."
            )
        self.module = module
        self.process_group = pg
        self.device_ids = device_ids
        self.output_device = output_device
        self.dim = dim
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        # The graph is rebuilt each iteration and unused parameters are found per iteration, so
        # a static graph needs nothing of its own here.
        self.static_graph = static_graph
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        cap_mb = _DEFAULT_BUCKET_CAP_MB if bucket_cap_mb is None else bucket_cap_mb
        self.bucket_bytes_cap = int(cap_mb * 1024 * 1024)
        self._broadcast_state(0)  # rank 0's state everywhere, before the first forward
        self._joining = False
        self._join_steps = 0
        self.reducer = _D.Reducer(
            params,
            pg,
            self.bucket_bytes_cap,
            # A bucket_cap_mb given by the program applies to the first bucket too (PyTorch 2.4+)
            _DEFAULT_FIRST_BUCKET_BYTES if bucket_cap_mb is None else self.bucket_bytes_cap,
            find_unused_parameters,
            gradient_as_bucket_view,
        )

    def forward(self, *inputs, **kwargs):
        if self._joining:  # inside join(): count the ranks still training (shadowed below)
            sync = ember.is_grad_enabled() and self.require_backward_grad_sync
            _join_count(self.process_group, 1, sync)
            self._join_steps += 1
        self._sync_buffers()
        output = self.module(*inputs, **kwargs)
        if ember.is_grad_enabled() and self.require_backward_grad_sync:
            # Only find_unused_parameters walks the graph from the outputs.
            outputs = _tensors_in(output, []) if self.find_unused_parameters else []
            self.reducer.prepare_for_backward(outputs)
        return output

    def _sync_buffers(self):
        """broadcast_buffers: rank 0's buffers (batch norm statistics) before each forward."""
        if self.broadcast_buffers and self.require_forward_param_sync:
            _D.broadcast_coalesced(
                self.process_group, [b.detach() for b in self.module.buffers()], 0
            )

    def _broadcast_state(self, root):
        """Rank `root`'s parameters and buffers to every rank."""
        state = [p.detach() for p in self.module.parameters()]
        state += [b.detach() for b in self.module.buffers()]
        _D.broadcast_coalesced(self.process_group, state, root)

    @contextlib.contextmanager
    def no_sync(self):
        """Backward inside accumulates gradients locally; the first backward after it averages
        the accumulated sum across ranks."""
        previous = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        self.reducer.set_sync(False)
        try:
            yield
        finally:
            self.require_backward_grad_sync = previous
            self.reducer.set_sync(previous)

    def _set_static_graph(self):
        self.static_graph = True

    @contextlib.contextmanager
    def join(
        self, divide_by_initial_world_size=True, enable=True, throw_on_early_termination=False
    ):
        """Training with uneven inputs: a rank whose data ran out leaves the `with` block and
        then shadows the others' collectives with zeros (the forward's buffer broadcast, each
        gradient bucket, the unused-parameter bitmap) until every rank has left. Gradients are
        averaged over the initial world size, the joined ranks counting as zeros. At the end,
        every rank takes the model of the rank that trained longest."""
        if not enable:
            yield
            return
        if not divide_by_initial_world_size or throw_on_early_termination:
            raise NotImplementedError(
                "DistributedDataParallel.join: ember supports divide_by_initial_world_size=True "
                "and throw_on_early_termination=False only"
            )
        self._joining = True
        self._join_steps = 0
        try:
            yield
        finally:
            self._joining = False
        pg = self.process_group
        while True:  # mirror each iteration of the ranks still training
            training, syncing = _join_count(pg, 0, 0)
            if training == 0:
                break
            self._sync_buffers()
            if syncing:
                self.reducer.shadow_backward()
        # Everyone ends with the model of the rank that trained longest (the highest such rank).
        steps = ember.zeros(pg.size())
        steps[pg.rank()] = float(self._join_steps)
        pg.allreduce(steps, _D.ReduceOp.SUM).wait()
        most = steps.max().item()
        self._broadcast_state(max(r for r in range(pg.size()) if steps[r].item() == most))

    def register_comm_hook(self, state, hook):
        raise NotImplementedError(
            "DistributedDataParallel.register_comm_hook is not supported by ember: gradients are "
            "averaged with all_reduce"
        )

    def _bucket_indices(self):
        """Each bucket's parameter indices (into the parameters that require grad), in reduction
        order."""
        return self.reducer.bucket_indices()
