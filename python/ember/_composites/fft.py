"""Short-time Fourier transforms (torch.stft and torch.istft) over ember.fft: frames by
`unfold`, windowed, transformed with rfft / fft; the inverse by irfft / ifft and overlap-add
with `fold`, divided by the window's overlapped square. Their gradients are the chain of those
parts'."""

import warnings

from ember import _C
from ember._composite import composite
from ember._composites._dtypes import COMPLEX, FLOAT32_64

_fft = _C._fft


def _padded_window(window, n_fft, win_length, like):
    """The window (ones without one) centred in n_fft points."""
    if window is None:
        window = _C.ones(win_length, dtype=_C.float32 if like.is_complex() else like.dtype)
        if like.dtype == _C.float64 or like.dtype == _C.complex128:
            window = window.to(_C.float64)
    if window.dim() != 1 or window.shape[0] != win_length:
        raise RuntimeError(
            f"expected a 1D window tensor of size equal to win_length={win_length}, but got "
            f"window with size {list(window.shape)}"
        )
    if win_length < n_fft:
        left = (n_fft - win_length) // 2
        window = _C._pad(window, (left, n_fft - win_length - left), "constant", None)
    return window


def _lengths(n_fft, hop_length, win_length):
    hop_length = n_fft // 4 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    if hop_length <= 0:
        raise RuntimeError(f"expected hop_length > 0, but got hop_length={hop_length}")
    if not 0 < win_length <= n_fft:
        raise RuntimeError(
            f"expected 0 < win_length <= n_fft, but got win_length={win_length}, n_fft={n_fft}"
        )
    return hop_length, win_length


@composite("fft", FLOAT32_64 + COMPLEX, method=True)
def stft(
    input,
    n_fft,
    hop_length=None,
    win_length=None,
    window=None,
    center=True,
    pad_mode="reflect",
    normalized=False,
    onesided=None,
    return_complex=None,
    align_to_window=None,
):
    """The short-time Fourier transform of a 1-d signal or a [B, L] batch: [(B,) n_fft / 2 + 1
    (onesided) or n_fft, frames] complex, as torch.stft."""
    if center and align_to_window is not None:
        raise RuntimeError("align_to_window should only be set when center = false")
    if align_to_window:
        raise NotImplementedError("align_to_window=True is not supported yet")
    is_complex = input.is_complex() or (window is not None and window.is_complex())
    if return_complex is None:
        if not is_complex:
            raise RuntimeError(
                "stft requires the return_complex parameter be given for real inputs, and will "
                "further require that return_complex=True in a future PyTorch release."
            )
        return_complex = True
    if input.dim() not in (1, 2):
        raise RuntimeError(f"expected a 1D or 2D tensor, but got {input.dim()}D")
    hop_length, win_length = _lengths(n_fft, hop_length, win_length)
    x = input.unsqueeze(0) if input.dim() == 1 else input
    if center:
        pad = n_fft // 2
        x = _C._pad(x.unsqueeze(1), (pad, pad), pad_mode, None).squeeze(1)
    length = x.shape[-1]
    if not 0 < n_fft <= length:
        raise RuntimeError(f"expected 0 < n_fft <= {length}, but got n_fft={n_fft}")
    w = _padded_window(window, n_fft, win_length, x)
    frames = x.unfold(-1, n_fft, hop_length) * w  # [B, frames, n_fft]
    if onesided is None:
        onesided = not is_complex
    if onesided and is_complex:
        raise RuntimeError("Cannot have onesided output if window or input is complex")
    norm = "ortho" if normalized else "backward"
    spec = _fft.rfft(frames, norm=norm) if onesided else _fft.fft(frames, norm=norm)
    spec = spec.transpose(-1, -2)
    if input.dim() == 1:
        spec = spec.squeeze(0)
    if not return_complex:
        warnings.warn(
            "stft with return_complex=False is deprecated: use return_complex=True",
            UserWarning,
            stacklevel=2,
        )
        return _C.view_as_real(spec)
    return spec


@composite("fft", COMPLEX, method=True)
def istft(
    input,
    n_fft,
    hop_length=None,
    win_length=None,
    window=None,
    center=True,
    normalized=False,
    onesided=None,
    length=None,
    return_complex=False,
):
    """The inverse of stft by overlap-add (torch.istft): [(B,) freq, frames] complex to a
    [(B,) length] signal, real unless return_complex."""
    if input.dim() not in (2, 3):
        raise RuntimeError(f"expected a tensor with 2 or 3 dimensions, but got {input.dim()}")
    hop_length, win_length = _lengths(n_fft, hop_length, win_length)
    spec = input.unsqueeze(0) if input.dim() == 2 else input
    n_freq, n_frames = spec.shape[-2], spec.shape[-1]
    if onesided is None:
        onesided = n_freq != n_fft
    if onesided and n_freq != n_fft // 2 + 1:
        raise RuntimeError(
            f"expected the frequency dimension (3rd to the last) of the input tensor to match "
            f"n_fft / 2 + 1 when onesided=True, but got {n_freq}"
        )
    if not onesided and n_freq != n_fft:
        raise RuntimeError(
            f"expected the frequency dimension of the input tensor to match n_fft when "
            f"onesided=False, but got {n_freq}"
        )
    if return_complex and onesided:
        raise RuntimeError("cannot have onesided output if return_complex=True")
    w = _padded_window(window, n_fft, win_length, spec)
    norm = "ortho" if normalized else "backward"
    frames = spec.transpose(-1, -2)  # [B, frames, freq]
    if onesided:
        frames = _fft.irfft(frames, n=n_fft, norm=norm)
    else:
        frames = _fft.ifft(frames, n=n_fft, norm=norm)
        if not return_complex:
            frames = frames.real
    frames = frames * w
    total = n_fft + hop_length * (n_frames - 1)
    # Overlap-add: fold sums the frames (as columns) into the signal.
    y = _overlap_add(frames, total, n_fft, hop_length)
    square = (w * w.conj()).real if w.is_complex() else w * w
    envelope = _overlap_add(square.expand(1, n_frames, n_fft), total, n_fft, hop_length)
    start = n_fft // 2 if center else 0
    end = start + length if length is not None else (total - n_fft // 2 if center else total)
    end = min(end, total)
    y, envelope = y[..., start:end], envelope[..., start:end]
    if envelope.numel() and float(envelope.abs().min()) < 1e-11:
        raise RuntimeError(
            "window overlap add min: the sum of the squared window over the frames is 0 "
            "somewhere (a NOLA violation)"
        )
    y = y / envelope
    if length is not None and y.shape[-1] < length:
        y = _C._pad(y, (0, length - y.shape[-1]), "constant", None)
    return y.squeeze(0) if input.dim() == 2 else y


def _overlap_add(frames, total, n_fft, hop_length):
    """[B, frames, n_fft] summed into [B, total] with frame i starting at i * hop_length."""
    if frames.is_complex():
        re = _overlap_add(frames.real, total, n_fft, hop_length)
        return _C.complex(re, _overlap_add(frames.imag, total, n_fft, hop_length))
    cols = frames.transpose(-1, -2).contiguous()  # [B, n_fft, frames]: col2im's columns
    out = _C._nn.col2im(cols, (1, total), (1, n_fft), (1, 1), (0, 0), (1, hop_length))
    return out.reshape(frames.shape[0], total)
