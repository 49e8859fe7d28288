// Tensor's op methods and operators: one-line forwards to the free functions.
#include "ember/ops/ops.h"

namespace ember {

Tensor Tensor::view(IntArrayRef shape) const { return ember::view(*this, shape); }
Tensor Tensor::reshape(IntArrayRef shape) const { return ember::reshape(*this, shape); }
Tensor Tensor::permute(IntArrayRef dims) const { return ember::permute(*this, dims); }
Tensor Tensor::transpose(int64_t d0, int64_t d1) const { return ember::transpose(*this, d0, d1); }
Tensor Tensor::t() const { return ember::t(*this); }
Tensor Tensor::expand(IntArrayRef shape) const { return ember::expand(*this, shape); }
Tensor Tensor::expand_as(const Tensor& o) const { return ember::expand(*this, o.sizes()); }
Tensor Tensor::squeeze() const { return ember::squeeze(*this); }
Tensor Tensor::squeeze(int64_t dim) const { return ember::squeeze(*this, dim); }
Tensor Tensor::unsqueeze(int64_t dim) const { return ember::unsqueeze(*this, dim); }
Tensor Tensor::flatten(int64_t s, int64_t e) const { return ember::flatten(*this, s, e); }
Tensor Tensor::narrow(int64_t dim, int64_t start, int64_t length) const {
  return ember::narrow(*this, dim, start, length);
}
Tensor Tensor::select(int64_t dim, int64_t index) const { return ember::select(*this, dim, index); }
Tensor Tensor::slice(int64_t dim,
                     std::optional<int64_t> start,
                     std::optional<int64_t> end,
                     int64_t step) const {
  return ember::slice(*this, dim, start, end, step);
}
Tensor Tensor::contiguous(MemoryFormat format) const { return ember::contiguous(*this, format); }
Tensor Tensor::clone(MemoryFormat format) const { return ember::clone(*this, format); }
Tensor Tensor::to(DType dtype, bool copy) const { return to_dtype(*this, dtype, copy); }
Tensor Tensor::to(Device device, bool copy) const { return to_device(*this, device, copy); }

Tensor Tensor::add(const Tensor& o, const Scalar& alpha) const {
  return ember::add(*this, o, alpha);
}
Tensor Tensor::sub(const Tensor& o, const Scalar& alpha) const {
  return ember::sub(*this, o, alpha);
}
Tensor Tensor::mul(const Tensor& o) const { return ember::mul(*this, o); }
Tensor Tensor::div(const Tensor& o) const { return ember::div(*this, o); }
Tensor Tensor::pow(const Tensor& e) const { return ember::pow(*this, e); }
Tensor Tensor::pow(const Scalar& e) const { return ember::pow(*this, e); }
Tensor Tensor::neg() const { return ember::neg(*this); }
Tensor Tensor::exp() const { return ember::exp(*this); }
Tensor Tensor::log() const { return ember::log(*this); }
Tensor Tensor::tanh() const { return ember::tanh(*this); }
Tensor Tensor::sigmoid() const { return ember::sigmoid(*this); }
Tensor Tensor::relu() const { return ember::relu(*this); }
Tensor Tensor::sqrt() const { return ember::sqrt(*this); }
Tensor Tensor::abs() const { return ember::abs(*this); }
Tensor Tensor::eq(const Tensor& o) const { return ember::eq(*this, o); }
Tensor Tensor::ne(const Tensor& o) const { return ember::ne(*this, o); }
Tensor Tensor::lt(const Tensor& o) const { return ember::lt(*this, o); }
Tensor Tensor::le(const Tensor& o) const { return ember::le(*this, o); }
Tensor Tensor::gt(const Tensor& o) const { return ember::gt(*this, o); }
Tensor Tensor::ge(const Tensor& o) const { return ember::ge(*this, o); }

Tensor& Tensor::add_(const Tensor& o, const Scalar& alpha) { return ember::add_(*this, o, alpha); }
Tensor& Tensor::add_(const Scalar& o) { return ember::add_(*this, o); }
Tensor& Tensor::sub_(const Tensor& o, const Scalar& alpha) { return ember::sub_(*this, o, alpha); }
Tensor& Tensor::sub_(const Scalar& o) { return ember::sub_(*this, o); }
Tensor& Tensor::mul_(const Tensor& o) { return ember::mul_(*this, o); }
Tensor& Tensor::mul_(const Scalar& o) { return ember::mul_(*this, o); }
Tensor& Tensor::div_(const Tensor& o) { return ember::div_(*this, o); }
Tensor& Tensor::div_(const Scalar& o) { return ember::div_(*this, o); }
Tensor& Tensor::zero_() { return ember::zero_(*this); }
Tensor& Tensor::fill_(const Scalar& v) { return ember::fill_(*this, v); }
Tensor& Tensor::copy_(const Tensor& src) { return ember::copy_(*this, src); }

Tensor Tensor::sum(std::optional<DType> dtype) const { return ember::sum(*this, dtype); }
Tensor Tensor::sum(IntArrayRef dim, bool keepdim, std::optional<DType> dtype) const {
  return ember::sum(*this, dim, keepdim, dtype);
}
Tensor Tensor::mean(std::optional<DType> dtype) const { return ember::mean(*this, dtype); }
Tensor Tensor::mean(IntArrayRef dim, bool keepdim, std::optional<DType> dtype) const {
  return ember::mean(*this, dim, keepdim, dtype);
}
Tensor Tensor::max() const { return ember::max(*this); }
std::pair<Tensor, Tensor> Tensor::max(int64_t dim, bool keepdim) const {
  return ember::max(*this, dim, keepdim);
}
Tensor Tensor::matmul(const Tensor& o) const { return ember::matmul(*this, o); }
Tensor Tensor::mm(const Tensor& o) const { return ember::mm(*this, o); }

Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor operator+(const Tensor& a, const Scalar& b) { return add(a, b); }
Tensor operator+(const Scalar& a, const Tensor& b) { return add(a, b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor operator-(const Tensor& a, const Scalar& b) { return sub(a, b); }
Tensor operator-(const Scalar& a, const Tensor& b) { return sub(a, b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor operator*(const Tensor& a, const Scalar& b) { return mul(a, b); }
Tensor operator*(const Scalar& a, const Tensor& b) { return mul(a, b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor operator/(const Tensor& a, const Scalar& b) { return div(a, b); }
Tensor operator/(const Scalar& a, const Tensor& b) { return div(a, b); }
Tensor operator-(const Tensor& a) { return neg(a); }
Tensor operator==(const Tensor& a, const Tensor& b) { return eq(a, b); }
Tensor operator!=(const Tensor& a, const Tensor& b) { return ne(a, b); }
Tensor operator<(const Tensor& a, const Tensor& b) { return lt(a, b); }
Tensor operator<=(const Tensor& a, const Tensor& b) { return le(a, b); }
Tensor operator>(const Tensor& a, const Tensor& b) { return gt(a, b); }
Tensor operator>=(const Tensor& a, const Tensor& b) { return ge(a, b); }
Tensor operator==(const Tensor& a, const Scalar& b) { return eq(a, b); }
Tensor operator!=(const Tensor& a, const Scalar& b) { return ne(a, b); }
Tensor operator<(const Tensor& a, const Scalar& b) { return lt(a, b); }
Tensor operator<=(const Tensor& a, const Scalar& b) { return le(a, b); }
Tensor operator>(const Tensor& a, const Scalar& b) { return gt(a, b); }
Tensor operator>=(const Tensor& a, const Scalar& b) { return ge(a, b); }
Tensor& operator+=(Tensor& a, const Tensor& b) { return add_(a, b); }
Tensor& operator+=(Tensor& a, const Scalar& b) { return add_(a, b); }
Tensor& operator-=(Tensor& a, const Tensor& b) { return sub_(a, b); }
Tensor& operator-=(Tensor& a, const Scalar& b) { return sub_(a, b); }
Tensor& operator*=(Tensor& a, const Tensor& b) { return mul_(a, b); }
Tensor& operator*=(Tensor& a, const Scalar& b) { return mul_(a, b); }
Tensor& operator/=(Tensor& a, const Tensor& b) { return div_(a, b); }
Tensor& operator/=(Tensor& a, const Scalar& b) { return div_(a, b); }

}  // namespace ember
