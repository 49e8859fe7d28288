"""optim.Optimizer: param groups, state, state_dict, zero_grad."""

__all__: list[str] = []
