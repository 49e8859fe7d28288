"""VGG-19 (configuration E: 16 convolutions 3x3, 3 linear layers, no batch norm, 143.7M params)."""

from .common import CLASSES, image_batch, image_workload, init_like_torchvision

NAME, UNIT, DEFAULT_BATCH = "vgg19", "images", 8
SIZES = "224x224 RGB, 1000 classes, SGD momentum 0.9"
synthetic_batch = image_batch

# Output channels of each 3x3 convolution; "M" is a 2x2 max pool.
CFG = [64, 64, "M", 128, 128, "M", 256, 256, 256, 256, "M"]
CFG += [512, 512, 512, 512, "M", 512, 512, 512, 512, "M"]


def build(torch, batch):
    nn = torch.nn

    class VGG(nn.Module):
        def __init__(self):
            super().__init__()
            layers, channels = [], 3
            for v in CFG:
                if v == "M":
                    layers.append(nn.MaxPool2d(kernel_size=2, stride=2))
                else:
                    layers += [nn.Conv2d(channels, v, kernel_size=3, padding=1), nn.ReLU(True)]
                    channels = v
            self.features = nn.Sequential(*layers)
            self.avgpool = nn.AdaptiveAvgPool2d((7, 7))
            self.classifier = nn.Sequential(
                nn.Linear(512 * 7 * 7, 4096),
                nn.ReLU(True),
                nn.Dropout(0.5),
                nn.Linear(4096, 4096),
                nn.ReLU(True),
                nn.Dropout(0.5),
                nn.Linear(4096, CLASSES),
            )

        def forward(self, x):
            x = self.avgpool(self.features(x))
            return self.classifier(torch.flatten(x, 1))

    model = VGG()
    init_like_torchvision(torch, model, linear_std=0.01)
    # 0.01 (torchvision's rate at batch 256) diverges within 3 steps at batch 8 in both frameworks.
    return image_workload(torch, model, batch, lr=0.001)
