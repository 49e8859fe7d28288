"""ResNet-50 (bottleneck blocks [3, 4, 6, 3], batch norm, 25.6M params; torchvision's v1.5:
the stride sits on the 3x3 convolution of a block)."""

from .common import CLASSES, image_batch, image_workload, init_like_torchvision

NAME, UNIT, DEFAULT_BATCH = "resnet50", "images", 8
SIZES = "224x224 RGB, 1000 classes, SGD momentum 0.9"
synthetic_batch = image_batch


def build(torch, batch):
    nn = torch.nn

    class Bottleneck(nn.Module):
        expansion = 4

        def __init__(self, inplanes, planes, stride=1):
            super().__init__()
            out = planes * self.expansion
            self.conv1 = nn.Conv2d(inplanes, planes, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(planes)
            self.conv2 = nn.Conv2d(planes, planes, 3, stride=stride, padding=1, bias=False)
            self.bn2 = nn.BatchNorm2d(planes)
            self.conv3 = nn.Conv2d(planes, out, 1, bias=False)
            self.bn3 = nn.BatchNorm2d(out)
            self.relu = nn.ReLU(inplace=True)
            self.downsample = None
            if stride != 1 or inplanes != out:
                self.downsample = nn.Sequential(
                    nn.Conv2d(inplanes, out, 1, stride=stride, bias=False), nn.BatchNorm2d(out)
                )

        def forward(self, x):
            identity = x if self.downsample is None else self.downsample(x)
            y = self.relu(self.bn1(self.conv1(x)))
            y = self.relu(self.bn2(self.conv2(y)))
            y = self.bn3(self.conv3(y))
            return self.relu(y + identity)

    class ResNet50(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 64, 7, stride=2, padding=3, bias=False)
            self.bn1 = nn.BatchNorm2d(64)
            self.relu = nn.ReLU(inplace=True)
            self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
            stages, inplanes = [], 64
            for planes, blocks, stride in [(64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)]:
                layer = []
                for i in range(blocks):
                    layer.append(Bottleneck(inplanes, planes, stride if i == 0 else 1))
                    inplanes = planes * Bottleneck.expansion
                stages.append(nn.Sequential(*layer))
            self.layer1, self.layer2, self.layer3, self.layer4 = stages
            self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
            self.fc = nn.Linear(512 * Bottleneck.expansion, CLASSES)

        def forward(self, x):
            x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
            x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
            return self.fc(torch.flatten(self.avgpool(x), 1))

    model = ResNet50()
    init_like_torchvision(torch, model)
    # At 0.01 PyTorch's run diverged once in this benchmark (loss 7.2 -> 9.2 over 20 steps).
    return image_workload(torch, model, batch, lr=0.005)
