"""nn.utils.convert_conv2d_weight_memory_format / convert_conv3d_weight_memory_format: the
convolutions' weights of a module moved to a memory format (channels_last), in place."""

from __future__ import annotations

__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]


def _convert(module, memory_format, classes):
    if isinstance(module, classes):
        w = module.weight.detach().clone().contiguous(memory_format=memory_format)
        module.weight.data = w
    for child in module.children():
        _convert(child, memory_format, classes)
    return module


def convert_conv2d_weight_memory_format(module, memory_format):
    from ember.nn.modules.conv import Conv2d, ConvTranspose2d

    return _convert(module, memory_format, (Conv2d, ConvTranspose2d))


def convert_conv3d_weight_memory_format(module, memory_format):
    from ember.nn.modules.conv import Conv3d, ConvTranspose3d

    return _convert(module, memory_format, (Conv3d, ConvTranspose3d))
