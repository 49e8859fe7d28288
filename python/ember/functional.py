"""torch.functional: the module where PyTorch defines some of its top-level functions; programs
import them from it (`from torch.functional import einsum`). The same functions as ember's."""

import ember as _ember
from ember.overrides import (  # noqa: F401
    handle_torch_function,
    has_torch_function,
    has_torch_function_unary,
    has_torch_function_variadic,
)

Tensor = _ember.Tensor
atleast_1d = _ember.atleast_1d
atleast_2d = _ember.atleast_2d
atleast_3d = _ember.atleast_3d
block_diag = _ember.block_diag
broadcast_shapes = _ember.broadcast_shapes
broadcast_tensors = _ember.broadcast_tensors
cartesian_prod = _ember.cartesian_prod
cdist = _ember.cdist
chain_matmul = _ember.chain_matmul
einsum = _ember.einsum
lu = _ember.lu
meshgrid = _ember.meshgrid
norm = _ember.norm
pca_lowrank = _ember.pca_lowrank
split = _ember.split
svd_lowrank = _ember.svd_lowrank
tensordot = _ember.tensordot
unique = _ember.unique
unique_consecutive = _ember.unique_consecutive
unravel_index = _ember.unravel_index
