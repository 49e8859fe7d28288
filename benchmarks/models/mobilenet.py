"""MobileNetV2 (width 1.0: inverted residual blocks with depthwise 3x3 convolutions, ReLU6,
batch norm, 3.5M params)."""

from .common import CLASSES, image_batch, image_workload, init_like_torchvision

NAME, UNIT, DEFAULT_BATCH = "mobilenet_v2", "images", 8
SIZES = "224x224 RGB, 1000 classes, SGD momentum 0.9"
synthetic_batch = image_batch

# expansion t, output channels c, repeats n, first stride s (the paper's Table 2)
SETTINGS = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2)]
SETTINGS += [(6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]


def build(torch, batch):
    nn = torch.nn

    def conv_bn(cin, cout, kernel, stride, groups=1, act=True):
        layers = [
            nn.Conv2d(cin, cout, kernel, stride, (kernel - 1) // 2, groups=groups, bias=False),
            nn.BatchNorm2d(cout),
        ]
        if act:
            layers.append(nn.ReLU6(inplace=True))
        return layers

    class InvertedResidual(nn.Module):
        def __init__(self, cin, cout, stride, expand):
            super().__init__()
            hidden = cin * expand
            self.use_residual = stride == 1 and cin == cout
            layers = conv_bn(cin, hidden, 1, 1) if expand != 1 else []
            layers += conv_bn(hidden, hidden, 3, stride, groups=hidden)
            layers += conv_bn(hidden, cout, 1, 1, act=False)
            self.conv = nn.Sequential(*layers)

        def forward(self, x):
            return x + self.conv(x) if self.use_residual else self.conv(x)

    class MobileNetV2(nn.Module):
        def __init__(self):
            super().__init__()
            layers, cin = conv_bn(3, 32, 3, 2), 32
            for t, c, n, s in SETTINGS:
                for i in range(n):
                    layers.append(InvertedResidual(cin, c, s if i == 0 else 1, t))
                    cin = c
            layers += conv_bn(cin, 1280, 1, 1)
            self.features = nn.Sequential(*layers)
            self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(1280, CLASSES))

        def forward(self, x):
            x = self.features(x).mean((2, 3))
            return self.classifier(x)

    model = MobileNetV2()
    init_like_torchvision(torch, model, linear_std=0.01)
    return image_workload(torch, model, batch, lr=0.01)
