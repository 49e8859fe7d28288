"""torch.nn.grad: the gradients of a convolution with respect to its input and to its weight,
given the gradient of its output (what a custom conv backward needs). Each is the convolution's
own backward, run through autograd on the shapes given."""

import ember


def _conv(nd):
    import ember.nn.functional as F

    return (F.conv1d, F.conv2d, F.conv3d)[nd - 1]


def _input_grad(nd, input_size, weight, grad_output, stride, padding, dilation, groups):
    x = ember.zeros(tuple(input_size), dtype=grad_output.dtype, requires_grad=True)
    with ember.enable_grad():
        out = _conv(nd)(x, weight.detach(), None, stride, padding, dilation, groups)
        if tuple(out.shape) != tuple(grad_output.shape):
            raise RuntimeError(
                f"[nn.grad.conv{nd}d_input] grad_output has shape {list(grad_output.shape)}, "
                f"the convolution gives {list(out.shape)}"
            )
        (g,) = ember.autograd.grad(out, x, grad_output)
    return g


def _weight_grad(nd, input, weight_size, grad_output, stride, padding, dilation, groups):
    w = ember.zeros(tuple(weight_size), dtype=grad_output.dtype, requires_grad=True)
    with ember.enable_grad():
        out = _conv(nd)(input.detach(), w, None, stride, padding, dilation, groups)
        (g,) = ember.autograd.grad(out, w, grad_output)
    return g


def conv1d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    return _input_grad(1, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv1d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    return _weight_grad(1, input, weight_size, grad_output, stride, padding, dilation, groups)


def conv2d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    return _input_grad(2, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv2d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    return _weight_grad(2, input, weight_size, grad_output, stride, padding, dilation, groups)


def conv3d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    return _input_grad(3, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv3d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    return _weight_grad(3, input, weight_size, grad_output, stride, padding, dilation, groups)
