// Kernel slots of the elementwise ops (ops/elementwise.cpp): one per entry of the lists in
// core/elementwise_ops.h, and where, copy, fill and the fused gradient mask.
#pragma once

#include "ember/core/elementwise_ops.h"
#include "ember/core/tensor.h"

namespace ember {

// One input of an elementwise kernel: a tensor (broadcast to the output's shape by strides) or a
// scalar that stands for every element.
struct Operand {
  const Tensor* tensor = nullptr;
  Scalar scalar;
  Operand(const Tensor& t) : tensor(&t) {}
  Operand(const Scalar& s) : scalar(s) {}
};

struct ElementwiseKernels {
  // out = f(in); out and in have the same shape and dtype.
  using Unary = void (*)(const Tensor& out, const Tensor& in);
  // out = f(in, p) with the op's parameters p[0..2] (ParamUnaryOp); as Unary otherwise.
  using ParamUnary = void (*)(const Tensor& out, const Tensor& in, const Scalar* params);
  // out = f(a, b); tensor operands have out's dtype (compare: out is bool) and broadcast to it.
  using Binary = void (*)(const Tensor& out, const Operand& a, const Operand& b);
  // out = cond ? a : b; cond is bool, a and b have out's dtype; all broadcast to out.
  using Where = void (*)(const Tensor& out, const Tensor& cond, const Operand& a, const Operand& b);
  // dst = src converted to dst's dtype; src broadcasts to dst's shape.
  using Copy = void (*)(const Tensor& dst, const Tensor& src);
  using Fill = void (*)(const Tensor& dst, const Scalar& value);
  // out = g * (lo < t < hi) as 0 or 1 in g's dtype, `<=` at a closed bound (NaN is outside):
  // detail::masked_grad. out, g and t have one shape and one floating dtype.
  using MaskedGrad = void (*)(const Tensor& out,
                              const Tensor& g,
                              const Tensor& t,
                              const Scalar& lo,
                              const Scalar& hi,
                              bool lo_closed,
                              bool hi_closed);

  Unary unary[kNumUnaryOps] = {};
  Binary binary[kNumBinaryOps] = {};
  Binary compare[kNumCompareOps] = {};
  ParamUnary param_unary[kNumParamUnaryOps] = {};
  Unary predicate[kNumPredicateOps] = {};  // out is bool, in any dtype
  Where where = nullptr;
  Copy copy = nullptr;
  Fill fill = nullptr;
  MaskedGrad masked_grad = nullptr;
};

}  // namespace ember
