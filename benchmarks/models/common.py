"""Pieces the image models share: torchvision's initialisation and their training set-up."""


def init_like_torchvision(torch, model, linear_std=None):
    """Convolutions: Kaiming normal (fan_out, ReLU), zero bias; batch norm: weight 1, bias 0;
    linear layers: N(0, linear_std) with zero bias when linear_std is given, else their default.
    The scheme torchvision's VGG, ResNet and MobileNetV2 use, so that the deep plain networks
    (VGG-19 has no batch norm) train from the first step."""
    nn = torch.nn
    for m in model.modules():
        if isinstance(m, nn.Conv2d):
            nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            if m.bias is not None:
                nn.init.zeros_(m.bias)
        elif isinstance(m, nn.BatchNorm2d):
            nn.init.ones_(m.weight)
            nn.init.zeros_(m.bias)
        elif isinstance(m, nn.Linear) and linear_std is not None:
            nn.init.normal_(m.weight, 0.0, linear_std)
            nn.init.zeros_(m.bias)


IMAGE_SIZE = 224
CLASSES = 1000


def image_batch(batch, rng):
    """Random 224x224 RGB images and labels (synthetic, as in the paper's throughput runs)."""
    return {
        "x": rng.standard_normal((batch, 3, IMAGE_SIZE, IMAGE_SIZE), dtype="float32"),
        "y": rng.integers(0, CLASSES, size=batch, dtype="int64"),
    }


def image_workload(torch, model, batch, lr):
    """Cross entropy and SGD with momentum, the usual ImageNet training step."""
    from . import Workload

    criterion = torch.nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9, weight_decay=1e-4)
    return Workload(model, optimizer, lambda b: criterion(model(b["x"]), b["y"]), batch)
