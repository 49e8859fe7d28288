// Complex ops: views between complex tensors and real pairs, the parts of complex numbers,
// conjugation, and the composites complex / polar / sgn. Their gradients follow PyTorch's
// convention (the conjugate Wirtinger derivative; docs/design/complex.md).
#include "ember/ops/complex.h"

#include "ember/autograd/grad_mode.h"
#include "ember/autograd/node.h"
#include "ember/backend/kernels.h"
#include "ember/core/shape.h"
#include "ember/ops/creation.h"
#include "ember/ops/elementwise.h"
#include "ember/ops/registry.h"
#include "ember/ops/shape.h"
#include "ember/ops/view.h"

namespace ember {

namespace {

const OpInfo kComplexOps[] = {
    {"view_as_real", OpKind::View, kComplexTypes, true},
    {"view_as_complex", OpKind::View, DTypeSet(kFloat32) | kFloat64, true},
    {"real", OpKind::View, kAllTypesAndComplex, true},
    {"imag", OpKind::View, kComplexTypes, true},
    {"conj", OpKind::Unary, kAllTypesAndComplex, true},
    {"conj_physical", OpKind::Unary, kAllTypesAndComplex, true},
    {"angle", OpKind::Unary, kAllTypes | kComplexTypes, true},
    {"complex", OpKind::Other, DTypeSet(kFloat32) | kFloat64, true},
    {"polar", OpKind::Other, DTypeSet(kFloat32) | kFloat64, true},
};

// A new tensor of self's shape and `dtype` filled by a complex kernel from self.
Tensor apply(ComplexKernels::Unary slot, const Tensor& self, DType dtype, const char* op) {
  Tensor out = empty(self.sizes(), TensorOptions(dtype).device(self.device()));
  kernel(slot, self.device(), op)(out, self);  // the elementwise loops take any strides
  return out;
}

// complex and polar: two float32 or two float64 tensors (PyTorch's error otherwise).
void check_float_pair(const Tensor& a, const Tensor& b, const char* op) {
  const DType dt = a.dtype();
  EMBER_CHECK_TYPE((dt == kFloat32 || dt == kFloat64) && b.dtype() == dt, "[", op,
                   "] Expected both inputs to be Float or Double tensors of one dtype but got ", dt,
                   " and ", b.dtype());
}

}  // namespace

std::span<const OpInfo> complex_op_infos() { return kComplexOps; }

Tensor view_as_real(const Tensor& self) {
  EMBER_CHECK(is_complex(self.dtype()),
              "[view_as_real] view_as_real is only supported for complex tensors, got ",
              self.dtype());
  DimVector sizes(self.sizes().data(), self.sizes().size());
  DimVector strides;
  for (int64_t s : self.strides()) strides.push_back(2 * s);
  sizes.push_back(2);
  strides.push_back(1);
  Tensor out = detail::make_view_as(self, to_real_dtype(self.dtype()), sizes, strides,
                                    2 * self.storage_offset());
  if (any_requires_grad(self)) {
    record("ViewAsRealBackward0", {&self}, {&out},
           [](TensorList& g, Node&) { return TensorList{view_as_complex(g[0].contiguous())}; });
  }
  return out;
}

Tensor view_as_complex(const Tensor& self) {
  const DType dt = self.dtype();
  EMBER_CHECK(dt == kFloat32 || dt == kFloat64,
              "[view_as_complex] view_as_complex is only supported for float and double tensors, "
              "but got a tensor of scalar type: ",
              dt);
  EMBER_CHECK(self.dim() > 0 && self.sizes().back() == 2,
              "[view_as_complex] Tensor must have a last dimension of size 2, got shape ",
              self.sizes());
  EMBER_CHECK(self.strides().back() == 1 || self.numel() == 0,
              "[view_as_complex] Tensor must have a last dimension with stride 1");
  DimVector sizes(self.sizes().data(), self.sizes().size() - 1);
  DimVector strides;
  const bool empty_view = self.numel() == 0;  // no element to misalign: any strides will do
  for (int64_t d = 0; !empty_view && d + 1 < self.dim(); ++d) {
    EMBER_CHECK(self.strides()[d] % 2 == 0 || self.sizes()[d] == 1,
                "[view_as_complex] Tensor must have a stride divisible by 2 for all but last "
                "dimension");
    strides.push_back(self.strides()[d] / 2);
  }
  EMBER_CHECK(self.storage_offset() % 2 == 0 || empty_view,
              "[view_as_complex] Tensor must have a storage_offset divisible by 2");
  if (empty_view) strides = contiguous_strides(sizes);
  Tensor out = detail::make_view_as(self, to_complex_dtype(dt), sizes, strides,
                                    empty_view ? 0 : self.storage_offset() / 2);
  if (any_requires_grad(self)) {
    record("ViewAsComplexBackward0", {&self}, {&out},
           [](TensorList& g, Node&) { return TensorList{view_as_real(g[0])}; });
  }
  return out;
}

Tensor real(const Tensor& self) {
  if (!is_complex(self.dtype())) return self;
  return select(view_as_real(self), -1, 0);
}

Tensor imag(const Tensor& self) {
  EMBER_CHECK(is_complex(self.dtype()),
              "[imag] imag is not implemented for tensors with non-complex dtypes (got ",
              self.dtype(), ")");
  return select(view_as_real(self), -1, 1);
}

Tensor conj_physical(const Tensor& self) {
  if (!is_complex(self.dtype())) return self.clone();
  Tensor out = apply(kernels(self.device()).complex.conj, self, self.dtype(), "conj");
  if (any_requires_grad(self)) {
    record("ConjPhysicalBackward0", {&self}, {&out},
           [](TensorList& g, Node&) { return TensorList{conj_physical(g[0])}; });
  }
  return out;
}

Tensor conj(const Tensor& self) {
  if (!is_complex(self.dtype())) return self;
  return conj_physical(self);
}

Tensor angle(const Tensor& self) {
  const DType in =
      is_complex(self.dtype()) || is_floating(self.dtype()) ? self.dtype() : get_default_dtype();
  const Tensor x = in == self.dtype() ? self : to_dtype(self, in);
  Tensor out = apply(kernels(self.device()).complex.angle, x, to_real_dtype(in), "angle");
  if (any_requires_grad(x)) {
    record("AngleBackward0", {&x}, {&out}, [sx = SavedTensor(x)](TensorList& g, Node& n) {
      const Tensor z = sx.unpack(n);
      if (!is_complex(z.dtype())) return TensorList{zeros_like(g[0])};
      // d angle: g * i z / |z|^2, 0 at z = 0 (PyTorch's angle_backward).
      const Tensor r2 = square(detail::complex_abs(z));
      return TensorList{
          where(eq(r2, 0), Scalar(0), g[0] * z / r2 * Scalar(std::complex<double>(0, 1)))};
    });
  }
  return out;
}

Tensor detail::complex_abs(const Tensor& self) {
  Tensor out = apply(kernels(self.device()).complex.abs, self, to_real_dtype(self.dtype()), "abs");
  if (any_requires_grad(self)) {
    record("AbsBackward0", {&self}, {&out}, [sx = SavedTensor(self)](TensorList& g, Node& n) {
      return TensorList{g[0] * sgn(sx.unpack(n))};
    });
  }
  return out;
}

Tensor sgn(const Tensor& self) {
  if (!is_complex(self.dtype())) return sign(self);
  Tensor r, out;
  {
    NoGradGuard no_grad;
    r = detail::complex_abs(self);
    out = where(eq(r, 0), Scalar(0), self / r);
  }
  if (any_requires_grad(self)) {
    // s = z / |z|: ds/dz = 1 / (2|z|), ds/dz* = -s^2 / (2|z|), so the input's gradient is
    // (g - s^2 conj(g)) / (2|z|), 0 at z = 0 (PyTorch's sgn_backward).
    record("SgnBackward0", {&self}, {&out},
           [sr = SavedTensor(r), so = SavedTensor(out, 0)](TensorList& g, Node& n) {
             const Tensor r = sr.unpack(n), s = so.unpack(n);
             const Tensor v = (g[0] - s * s * conj(g[0])) / (r * 2);
             return TensorList{where(eq(r, 0), Scalar(0), v)};
           });
  }
  return out;
}

Tensor complex(const Tensor& re, const Tensor& im) {
  check_float_pair(re, im, "complex");
  // A fresh tensor, as PyTorch's (a view of stacked parts would go stale after an in-place op
  // on its real or imaginary part).
  Tensor out;
  {
    NoGradGuard no_grad;
    const std::vector<Tensor> parts = broadcast_tensors({re, im});
    out = empty(parts[0].sizes(), TensorOptions(to_complex_dtype(re.dtype())).device(re.device()));
    const Tensor pairs = view_as_real(out);
    select(pairs, -1, 0).copy_(parts[0]);
    select(pairs, -1, 1).copy_(parts[1]);
  }
  if (any_requires_grad(re, im)) {
    record("ComplexBackward0", {&re, &im}, {&out},
           [rs = DimVector(re.sizes().data(), re.sizes().size()),
            is = DimVector(im.sizes().data(), im.sizes().size())](TensorList& g, Node&) {
             return TensorList{sum_to_size(real(g[0]), rs), sum_to_size(imag(g[0]), is)};
           });
  }
  return out;
}

Tensor polar(const Tensor& abs, const Tensor& angle) {
  check_float_pair(abs, angle, "polar");
  return complex(abs * cos(angle), abs * sin(angle));
}

}  // namespace ember
