"""The paper's six benchmark models (Table 1), each written once against the PyTorch API.

Every model file defines its network as ordinary `nn.Module` code that takes the framework module
as an argument (`build(torch, ...)` with `torch` either `ember` or PyTorch's `torch`), so ember and
PyTorch run exactly the same architecture, layer by layer, with the same initialisation scheme;
nothing here imports torchvision. Each file exposes:

    NAME, UNIT            the model's name and what its throughput counts (images, tokens, samples)
    DEFAULT_BATCH         the batch the benchmark runs unless told otherwise
    SIZES                 a line that states the sizes that ran (for the results table)
    synthetic_batch(batch, rng) -> dict of NumPy arrays, the same for both frameworks
    build(torch, batch) -> Workload

A Workload holds the model, its optimizer, the loss of one batch (`loss(inputs)`, inputs as the
framework's tensors) and how many units one step processes.
"""

from dataclasses import dataclass
from typing import Any, Callable

from . import alexnet, gnmt, mobilenet, ncf, resnet, vgg


@dataclass
class Workload:
    model: Any
    optimizer: Any
    loss: Callable[[dict], Any]
    items: int  # units (images, target tokens, samples) per step


MODELS = {m.NAME: m for m in (alexnet, vgg, resnet, mobilenet, gnmt, ncf)}
