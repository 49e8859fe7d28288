"""AlexNet (torchvision's single-tower variant: 5 convolutions, 3 linear layers, 61.1M params)."""

from .common import CLASSES, image_batch, image_workload

NAME, UNIT, DEFAULT_BATCH = "alexnet", "images", 8
SIZES = "224x224 RGB, 1000 classes, SGD momentum 0.9"
synthetic_batch = image_batch


def build(torch, batch):
    nn = torch.nn

    class AlexNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(
                nn.Conv2d(3, 64, kernel_size=11, stride=4, padding=2),
                nn.ReLU(inplace=True),
                nn.MaxPool2d(kernel_size=3, stride=2),
                nn.Conv2d(64, 192, kernel_size=5, padding=2),
                nn.ReLU(inplace=True),
                nn.MaxPool2d(kernel_size=3, stride=2),
                nn.Conv2d(192, 384, kernel_size=3, padding=1),
                nn.ReLU(inplace=True),
                nn.Conv2d(384, 256, kernel_size=3, padding=1),
                nn.ReLU(inplace=True),
                nn.Conv2d(256, 256, kernel_size=3, padding=1),
                nn.ReLU(inplace=True),
                nn.MaxPool2d(kernel_size=3, stride=2),
            )
            self.avgpool = nn.AdaptiveAvgPool2d((6, 6))
            self.classifier = nn.Sequential(
                nn.Dropout(0.5),
                nn.Linear(256 * 6 * 6, 4096),
                nn.ReLU(inplace=True),
                nn.Dropout(0.5),
                nn.Linear(4096, 4096),
                nn.ReLU(inplace=True),
                nn.Linear(4096, CLASSES),
            )

        def forward(self, x):
            x = self.avgpool(self.features(x))
            return self.classifier(torch.flatten(x, 1))

    # 0.01 overshoots on this fixed batch (the loss spikes to 35-60 near step 17); 0.005 does not.
    return image_workload(torch, AlexNet(), batch, lr=0.005)
