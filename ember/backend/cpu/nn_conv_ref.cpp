// The reference convolution kernels: im2col and one BLAS product per sample and group. They
// serve float64 (oneDNN has no f64 convolution) and any float32 case oneDNN refuses. Every
// tensor is read and written through its strides, so any layout works; speed is secondary.
//
// Results do not depend on the thread count: forward and backward_data give each sample to one
// thread; backward_weight gives each group to one thread, which adds the samples in order.
#include <cblas.h>
#include <omp.h>

#include <vector>

#include "ember/backend/cpu/nn_conv.h"
#include "ember/core/parallel.h"

namespace ember::cpu::conv {

Dims dims_of(const Tensor& x, const Tensor& w, const Tensor& y, const ConvGeometry& g) {
  Dims d{};
  d.spatial = g.spatial;
  d.n = x.sizes()[0];
  d.c = x.sizes()[1];
  d.o = y.sizes()[1];
  d.groups = g.groups;
  d.cg = d.c / d.groups;
  d.og = d.o / d.groups;
  d.in_size = d.out_size = d.k_size = 1;
  for (int i = 0; i < 3; ++i) {
    const bool has = i < g.spatial;
    d.in[i] = has ? x.sizes()[2 + i] : 1;
    d.out[i] = has ? y.sizes()[2 + i] : 1;
    d.k[i] = has ? w.sizes()[2 + i] : 1;
    d.stride[i] = has ? g.stride[i] : 1;
    d.dil[i] = has ? g.dilation[i] : 1;
    d.pad[i] = has ? g.pad_l[i] : 0;
    d.in_size *= d.in[i];
    d.out_size *= d.out[i];
    d.k_size *= d.k[i];
  }
  return d;
}

Strides5 strides5(const Tensor& t) {
  Strides5 r{};
  for (int64_t i = 0; i < t.dim() && i < 5; ++i) r.s[i] = t.strides()[i];
  return r;
}

namespace {

// Row-major c[m, n] = op(a) @ op(b) + beta * c on one thread (Note [Deterministic matmul] in
// matmul.cpp: a library left to thread a product may split its sum).
template <class T>
void gemm(bool ta,
          bool tb,
          int64_t m,
          int64_t n,
          int64_t k,
          const T* a,
          int64_t lda,
          const T* b,
          int64_t ldb,
          T beta,
          T* c,
          int64_t ldc) {
  const int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  const auto trans_a = ta ? CblasTrans : CblasNoTrans, trans_b = tb ? CblasTrans : CblasNoTrans;
  if constexpr (std::is_same_v<T, float>) {
    cblas_sgemm(CblasRowMajor, trans_a, trans_b, int(m), int(n), int(k), 1.0f, a, int(lda), b,
                int(ldb), beta, c, int(ldc));
  } else {
    cblas_dgemm(CblasRowMajor, trans_a, trans_b, int(m), int(n), int(k), 1.0, a, int(lda), b,
                int(ldb), beta, c, int(ldc));
  }
  omp_set_num_threads(saved);
}

// Calls f(l, i0, i1, i2, inside) for each output position l (row-major over out) and kernel
// offset (k0, k1, k2): the input position it reads and whether that lies inside the input.
template <class F>
void for_each_tap(const Dims& d, int64_t k0, int64_t k1, int64_t k2, const F& f) {
  int64_t l = 0;
  for (int64_t o0 = 0; o0 < d.out[0]; ++o0) {
    const int64_t i0 = o0 * d.stride[0] - d.pad[0] + k0 * d.dil[0];
    const bool v0 = i0 >= 0 && i0 < d.in[0];
    for (int64_t o1 = 0; o1 < d.out[1]; ++o1) {
      const int64_t i1 = o1 * d.stride[1] - d.pad[1] + k1 * d.dil[1];
      const bool v1 = v0 && i1 >= 0 && i1 < d.in[1];
      for (int64_t o2 = 0; o2 < d.out[2]; ++o2, ++l) {
        const int64_t i2 = o2 * d.stride[2] - d.pad[2] + k2 * d.dil[2];
        f(l, i0, i1, i2, v1 && i2 >= 0 && i2 < d.in[2]);
      }
    }
  }
}

// col [cg * k_size, out_size]: row (c, k0, k1, k2) holds the input values that kernel tap meets
// at each output position, for sample n and group gi (zero in the padding).
template <class T>
void im2col(const Dims& d, const T* x, const Strides5& xs, int64_t n, int64_t gi, T* col) {
  const T* xb = x + n * xs.s[0] + gi * d.cg * xs.s[1];
  T* row = col;
  for (int64_t c = 0; c < d.cg; ++c)
    for (int64_t k0 = 0; k0 < d.k[0]; ++k0)
      for (int64_t k1 = 0; k1 < d.k[1]; ++k1)
        for (int64_t k2 = 0; k2 < d.k[2]; ++k2, row += d.out_size)
          for_each_tap(d, k0, k1, k2, [&](int64_t l, int64_t i0, int64_t i1, int64_t i2, bool in) {
            row[l] = in ? xb[c * xs.s[1] + i0 * xs.s[2] + i1 * xs.s[3] + i2 * xs.s[4]] : T(0);
          });
}

// The adjoint of im2col: adds each row of col to the input positions it was read from, into a
// packed [cg, in_size] buffer.
template <class T>
void col2im(const Dims& d, const T* col, T* xbuf) {
  const T* row = col;
  for (int64_t c = 0; c < d.cg; ++c) {
    T* xc = xbuf + c * d.in_size;
    for (int64_t k0 = 0; k0 < d.k[0]; ++k0)
      for (int64_t k1 = 0; k1 < d.k[1]; ++k1)
        for (int64_t k2 = 0; k2 < d.k[2]; ++k2, row += d.out_size)
          for_each_tap(d, k0, k1, k2, [&](int64_t l, int64_t i0, int64_t i1, int64_t i2, bool in) {
            if (in) xc[(i0 * d.in[1] + i1) * d.in[2] + i2] += row[l];
          });
  }
}

// The offset of spatial position l (row-major over `sizes`) in a tensor with strides s.
inline int64_t spatial_offset(int64_t l, const int64_t* sizes, const Strides5& s) {
  const int64_t i2 = l % sizes[2], i1 = (l / sizes[2]) % sizes[1], i0 = l / (sizes[2] * sizes[1]);
  return i0 * s.s[2] + i1 * s.s[3] + i2 * s.s[4];
}

// The weights as a packed [O, cg * k_size] matrix (any layout in, row-major out).
template <class T>
std::vector<T> pack_weights(const Dims& d, const Tensor& w) {
  const T* pw = static_cast<const T*>(w.data_ptr());
  const Strides5 ws = strides5(w);
  std::vector<T> out(size_t(d.o * d.cg * d.k_size));
  T* p = out.data();
  for (int64_t o = 0; o < d.o; ++o)
    for (int64_t c = 0; c < d.cg; ++c)
      for (int64_t k0 = 0; k0 < d.k[0]; ++k0)
        for (int64_t k1 = 0; k1 < d.k[1]; ++k1)
          for (int64_t k2 = 0; k2 < d.k[2]; ++k2)
            *p++ = pw[o * ws.s[0] + c * ws.s[1] + k0 * ws.s[2] + k1 * ws.s[3] + k2 * ws.s[4]];
  return out;
}

template <class T>
void forward_impl(
    const Tensor& y, const Tensor& x, const Tensor& w, const Tensor* bias, const ConvGeometry& g) {
  const Dims d = dims_of(x, w, y, g);
  const std::vector<T> wp = pack_weights<T>(d, w);
  const T* px = static_cast<const T*>(x.data_ptr());
  const T* pb = bias ? static_cast<const T*>(bias->data_ptr()) : nullptr;
  T* py = static_cast<T*>(y.data_ptr());
  const Strides5 xs = strides5(x), ys = strides5(y);
  const int64_t kdim = d.cg * d.k_size;
  parallel_for(0, d.n, 1, [&](int64_t n0, int64_t n1) {
    std::vector<T> col(size_t(kdim * d.out_size)), tmp(size_t(d.og * d.out_size));
    for (int64_t n = n0; n < n1; ++n) {
      for (int64_t gi = 0; gi < d.groups; ++gi) {
        im2col(d, px, xs, n, gi, col.data());
        gemm<T>(false, false, d.og, d.out_size, kdim, wp.data() + gi * d.og * kdim, kdim,
                col.data(), d.out_size, T(0), tmp.data(), d.out_size);
        for (int64_t o = 0; o < d.og; ++o) {
          const int64_t oc = gi * d.og + o;
          const T b = pb ? pb[oc] : T(0);
          T* yo = py + n * ys.s[0] + oc * ys.s[1];
          for (int64_t l = 0; l < d.out_size; ++l)
            yo[spatial_offset(l, d.out, ys)] = tmp[o * d.out_size + l] + b;
        }
      }
    }
  });
}

template <class T>
void backward_data_impl(const Tensor& dx,
                        const Tensor& dy,
                        const Tensor& w,
                        const ConvGeometry& g) {
  const Dims d = dims_of(dx, w, dy, g);
  const std::vector<T> wp = pack_weights<T>(d, w);
  const T* pdy = static_cast<const T*>(dy.data_ptr());
  T* pdx = static_cast<T*>(dx.data_ptr());
  const Strides5 xs = strides5(dx), ys = strides5(dy);
  const int64_t kdim = d.cg * d.k_size;
  parallel_for(0, d.n, 1, [&](int64_t n0, int64_t n1) {
    std::vector<T> dyg(size_t(d.og * d.out_size)), col(size_t(kdim * d.out_size)),
        xbuf(size_t(d.cg * d.in_size));
    for (int64_t n = n0; n < n1; ++n) {
      for (int64_t gi = 0; gi < d.groups; ++gi) {
        for (int64_t o = 0; o < d.og; ++o) {
          const T* src = pdy + n * ys.s[0] + (gi * d.og + o) * ys.s[1];
          for (int64_t l = 0; l < d.out_size; ++l)
            dyg[o * d.out_size + l] = src[spatial_offset(l, d.out, ys)];
        }
        gemm<T>(true, false, kdim, d.out_size, d.og, wp.data() + gi * d.og * kdim, kdim, dyg.data(),
                d.out_size, T(0), col.data(), d.out_size);
        std::fill(xbuf.begin(), xbuf.end(), T(0));
        col2im(d, col.data(), xbuf.data());
        for (int64_t c = 0; c < d.cg; ++c) {
          T* dst = pdx + n * xs.s[0] + (gi * d.cg + c) * xs.s[1];
          for (int64_t l = 0; l < d.in_size; ++l)
            dst[spatial_offset(l, d.in, xs)] = xbuf[c * d.in_size + l];
        }
      }
    }
  });
}

template <class T>
void backward_weight_impl(
    const Tensor& dw, const Tensor* db, const Tensor& x, const Tensor& dy, const ConvGeometry& g) {
  const Dims d = dims_of(x, dw, dy, g);
  const T* px = static_cast<const T*>(x.data_ptr());
  const T* pdy = static_cast<const T*>(dy.data_ptr());
  T* pdw = static_cast<T*>(dw.data_ptr());
  const Strides5 xs = strides5(x), ys = strides5(dy), ws = strides5(dw);
  const int64_t kdim = d.cg * d.k_size;
  parallel_for(0, d.groups, 1, [&](int64_t g0, int64_t g1) {
    std::vector<T> col(size_t(kdim * d.out_size)), dyg(size_t(d.og * d.out_size)),
        acc(size_t(d.og * kdim));
    for (int64_t gi = g0; gi < g1; ++gi) {
      std::fill(acc.begin(), acc.end(), T(0));
      for (int64_t n = 0; n < d.n; ++n) {
        im2col(d, px, xs, n, gi, col.data());
        for (int64_t o = 0; o < d.og; ++o) {
          const T* src = pdy + n * ys.s[0] + (gi * d.og + o) * ys.s[1];
          for (int64_t l = 0; l < d.out_size; ++l)
            dyg[o * d.out_size + l] = src[spatial_offset(l, d.out, ys)];
        }
        gemm<T>(false, true, d.og, kdim, d.out_size, dyg.data(), d.out_size, col.data(), d.out_size,
                T(1), acc.data(), kdim);
      }
      const T* a = acc.data();
      for (int64_t o = 0; o < d.og; ++o) {
        T* wo = pdw + (gi * d.og + o) * ws.s[0];
        for (int64_t c = 0; c < d.cg; ++c)
          for (int64_t k0 = 0; k0 < d.k[0]; ++k0)
            for (int64_t k1 = 0; k1 < d.k[1]; ++k1)
              for (int64_t k2 = 0; k2 < d.k[2]; ++k2)
                wo[c * ws.s[1] + k0 * ws.s[2] + k1 * ws.s[3] + k2 * ws.s[4]] = *a++;
      }
    }
  });
  if (!db) return;
  T* pdb = static_cast<T*>(db->data_ptr());
  parallel_for(0, d.o, 1, [&](int64_t o0, int64_t o1) {
    for (int64_t o = o0; o < o1; ++o) {
      T s = T(0);
      for (int64_t n = 0; n < d.n; ++n) {
        const T* src = pdy + n * ys.s[0] + o * ys.s[1];
        for (int64_t l = 0; l < d.out_size; ++l) s += src[spatial_offset(l, d.out, ys)];
      }
      pdb[o] = s;
    }
  });
}

}  // namespace

void ref_forward(
    const Tensor& y, const Tensor& x, const Tensor& w, const Tensor* bias, const ConvGeometry& g) {
  if (x.dtype() == kFloat32)
    forward_impl<float>(y, x, w, bias, g);
  else
    forward_impl<double>(y, x, w, bias, g);
}

void ref_backward_data(const Tensor& dx, const Tensor& dy, const Tensor& w, const ConvGeometry& g) {
  if (dy.dtype() == kFloat32)
    backward_data_impl<float>(dx, dy, w, g);
  else
    backward_data_impl<double>(dx, dy, w, g);
}

void ref_backward_weight(
    const Tensor& dw, const Tensor* db, const Tensor& x, const Tensor& dy, const ConvGeometry& g) {
  if (x.dtype() == kFloat32)
    backward_weight_impl<float>(dw, db, x, dy, g);
  else
    backward_weight_impl<double>(dw, db, x, dy, g);
}

}  // namespace ember::cpu::conv
