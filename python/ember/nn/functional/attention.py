"""ember.nn.functional: attention (scaled_dot_product_attention, multi_head_attention_forward).

scaled_dot_product_attention is the C++ kernel with PyTorch's signature;
multi_head_attention_forward is PyTorch's function written with it and the other parts' linear,
pad, softmax and dropout. (The recurrent functions have no functional form here: they are
ember.lstm, ember.gru, ember.rnn_tanh, ember.rnn_relu and their *_cell forms, as in torch, bound
from C++, ember/ops/nn_rnn.h.)"""

from __future__ import annotations

import math

import ember
from ember import _C

# Public functions of other parts (each imports ember only: no loop).
from ember.nn.functional.activation import softmax
from ember.nn.functional.conv import linear
from ember.nn.functional.dropouts import dropout
from ember.nn.functional.shape import pad

__all__: list[str] = ["multi_head_attention_forward", "scaled_dot_product_attention"]


def scaled_dot_product_attention(
    query,
    key,
    value,
    attn_mask=None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    *,
    scale=None,
    enable_gqa: bool = False,
):
    """softmax(query @ key^T * scale + mask) @ value. attn_mask: bool (True takes part) or
    floating (added). is_causal: query i attends to keys j <= i. Rows with no key give 0."""
    return _C._nn.scaled_dot_product_attention(
        query, key, value, attn_mask, float(dropout_p), bool(is_causal), scale, bool(enable_gqa)
    )


def _canonical_mask(mask, mask_name, target_type):
    """A boolean mask (True = not allowed, MultiheadAttention's convention) becomes an additive
    float mask (-inf where True); a floating mask is kept."""
    if mask is None:
        return None
    if mask.dtype == ember.bool:
        zeros = ember.zeros(list(mask.shape), dtype=target_type, device=mask.device)
        return zeros.masked_fill(mask, float("-inf"))
    if not mask.is_floating_point():
        raise TypeError(
            f"multi_head_attention_forward: only bool and floating types of {mask_name} are "
            f"supported, got {mask.dtype}"
        )
    return mask


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    # PyTorch raises AssertionError for these shape mismatches; so does ember.
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError(
                "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                f"{key.dim()}-D and {value.dim()}-D tensors respectively"
            )
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError(
                "For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but "
                f"found {key_padding_mask.dim()}-D tensor instead"
            )
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError(
                "For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                f"found {attn_mask.dim()}-D tensor instead"
            )
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError(
                "For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                f"{key.dim()}-D and {value.dim()}-D tensors respectively"
            )
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError(
                "For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D "
                f"but found {key_padding_mask.dim()}-D tensor instead"
            )
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError(
                    "For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D "
                    f"but found {attn_mask.dim()}-D tensor instead"
                )
            expected = (num_heads, query.size(0), key.size(0))
            if attn_mask.dim() == 3 and tuple(attn_mask.shape) != expected:
                raise AssertionError(
                    f"Expected `attn_mask` shape to be {expected} but got {tuple(attn_mask.shape)}"
                )
        return False
    raise AssertionError(
        "query should be unbatched 2D or batched 3D tensor but received "
        f"{query.dim()}-D query tensor"
    )


def multi_head_attention_forward(
    query,
    key,
    value,
    embed_dim_to_check,
    num_heads,
    in_proj_weight,
    in_proj_bias,
    bias_k,
    bias_v,
    add_zero_attn,
    dropout_p,
    out_proj_weight,
    out_proj_bias,
    training=True,
    key_padding_mask=None,
    need_weights=True,
    attn_mask=None,
    use_separate_proj_weight=False,
    q_proj_weight=None,
    k_proj_weight=None,
    v_proj_weight=None,
    static_k=None,
    static_v=None,
    average_attn_weights=True,
    is_causal=False,
):
    """torch.nn.functional.multi_head_attention_forward: query [L, N, E], key [S, N, kdim],
    value [S, N, vdim] (or unbatched [L, E] ...). Masks: bool True = not allowed, or floating
    (added). Returns (output [L, N, E], weights [N, L, S] averaged over heads, or per head
    [N, heads, L, S], or None when need_weights is False). Without weights the attention is
    scaled_dot_product_attention's kernel; with them it is materialised, as PyTorch does."""
    if static_k is not None or static_v is not None:
        raise NotImplementedError("multi_head_attention_forward: static_k / static_v")
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.size(0)
    if embed_dim != embed_dim_to_check:
        raise AssertionError(
            f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}"
        )
    if embed_dim % num_heads != 0:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    head_dim = embed_dim // num_heads
    if key.shape[:2] != value.shape[:2]:
        raise AssertionError(
            f"key's sequence and batch dims {tuple(key.shape[:2])} do not match value's "
            f"{tuple(value.shape[:2])}"
        )

    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer "
            "module method `generate_square_subsequent_mask` to create this mask."
        )
    if is_causal and key_padding_mask is None and not need_weights:
        # The kernel's own causal masking replaces the mask.
        attn_mask = None
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", query.dtype)
        if key_padding_mask is not None:
            is_causal = False

    # In-projection.
    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        w_q, w_k, w_v = in_proj_weight.chunk(3, 0)
    else:
        if q_proj_weight is None or k_proj_weight is None or v_proj_weight is None:
            raise AssertionError(
                "use_separate_proj_weight is True but q_proj_weight, k_proj_weight or "
                "v_proj_weight is None"
            )
        w_q, w_k, w_v = q_proj_weight, k_proj_weight, v_proj_weight
    b_q = b_k = b_v = None
    if in_proj_bias is not None:
        b_q, b_k, b_v = in_proj_bias.chunk(3, 0)
    q = linear(query, w_q, b_q)
    k = linear(key, w_k, b_k)
    v = linear(value, w_v, b_v)

    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(
                    f"The shape of the 2D attn_mask is {tuple(attn_mask.shape)}, but should be "
                    f"{(tgt_len, src_len)}."
                )
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(
                    f"The shape of the 3D attn_mask is {tuple(attn_mask.shape)}, but should be "
                    f"{(bsz * num_heads, tgt_len, src_len)}."
                )
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")

    if bias_k is not None and bias_v is not None:
        k = ember.cat([k, bias_k.repeat(1, bsz, 1)], 0)
        v = ember.cat([v, bias_v.repeat(1, bsz, 1)], 0)
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    elif bias_k is not None or bias_v is not None:
        raise AssertionError("bias_k and bias_v must both be given or both be None")

    # [L, N, E] -> [N * heads, L, head_dim].
    q = q.reshape([tgt_len, bsz * num_heads, head_dim]).transpose(0, 1)
    k = k.reshape([k.size(0), bsz * num_heads, head_dim]).transpose(0, 1)
    v = v.reshape([v.size(0), bsz * num_heads, head_dim]).transpose(0, 1)

    if add_zero_attn:
        zeros = ember.zeros([bsz * num_heads, 1, head_dim], dtype=q.dtype, device=q.device)
        k = ember.cat([k, zeros], 1)
        v = ember.cat([v, zeros], 1)
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    src_len = k.size(1)

    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (bsz, src_len):
            raise AssertionError(
                f"expecting key_padding_mask shape of {(bsz, src_len)}, but got "
                f"{tuple(key_padding_mask.shape)}"
            )
        key_padding_mask = (
            key_padding_mask.reshape([bsz, 1, 1, src_len])
            .expand(bsz, num_heads, 1, src_len)
            .reshape([bsz * num_heads, 1, src_len])
        )
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask

    if not training:
        dropout_p = 0.0

    if need_weights:
        scores = ember.bmm(q * math.sqrt(1.0 / head_dim), k.transpose(-2, -1))
        if attn_mask is not None:
            scores = scores + attn_mask
        weights = softmax(scores, dim=-1)
        if dropout_p > 0.0:
            weights = dropout(weights, p=dropout_p)
        out = ember.bmm(weights, v)
        out = out.transpose(0, 1).reshape([tgt_len * bsz, embed_dim])
        out = linear(out, out_proj_weight, out_proj_bias).reshape([tgt_len, bsz, -1])
        weights = weights.reshape([bsz, num_heads, tgt_len, src_len])
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not is_batched:
            out = out.squeeze(1)
            weights = weights.squeeze(0)
        return out, weights

    if attn_mask is not None:
        if attn_mask.size(0) == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.reshape([bsz, num_heads, -1, src_len])
    q = q.reshape([bsz, num_heads, tgt_len, head_dim])
    k = k.reshape([bsz, num_heads, src_len, head_dim])
    v = v.reshape([bsz, num_heads, src_len, head_dim])
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape([bsz * tgt_len, embed_dim])
    out = linear(out, out_proj_weight, out_proj_bias).reshape([tgt_len, bsz, -1])
    if not is_batched:
        out = out.squeeze(1)
    return out, None
