// Bindings of the Fourier transforms (ops/fft.h) in ember._C._fft, which ember/fft.py exports
// as ember.fft under torch.fft's names and signatures.
#include "ember/ops/fft.h"

#include <string>

#include "init.h"

namespace ember::py {
namespace {

using fft::Norm;
using fft::OptDims;

Norm norm_of(const std::optional<std::string>& s) {
  return s ? Norm(std::string_view(*s)) : Norm();
}

using Fn1 = Tensor (*)(const Tensor&, std::optional<int64_t>, int64_t, Norm);
using FnN = Tensor (*)(const Tensor&, OptDims, OptDims, Norm);
using Fn2 = Tensor (*)(const Tensor&, OptDims, IntArrayRef, Norm);

}  // namespace

void init_fft(nb::module_& m) {
  nb::module_ f = m.def_submodule("_fft", "ember.fft's C++ functions");
  const std::pair<const char*, Fn1> one_dim[] = {
      {"fft", &fft::fft},     {"ifft", &fft::ifft}, {"rfft", &fft::rfft},
      {"irfft", &fft::irfft}, {"hfft", &fft::hfft}, {"ihfft", &fft::ihfft},
  };
  for (const auto& [name, fn] : one_dim) {
    f.def(
        name,
        [fn](const Tensor& x, std::optional<int64_t> n, int64_t dim,
             const std::optional<std::string>& norm) { return fn(x, n, dim, norm_of(norm)); },
        nb::arg("input"), nb::arg("n") = nb::none(), nb::arg("dim") = -1,
        nb::arg("norm") = nb::none());
  }
  const std::pair<const char*, FnN> n_dim[] = {
      {"fftn", &fft::fftn},     {"ifftn", &fft::ifftn}, {"rfftn", &fft::rfftn},
      {"irfftn", &fft::irfftn}, {"hfftn", &fft::hfftn}, {"ihfftn", &fft::ihfftn},
  };
  for (const auto& [name, fn] : n_dim) {
    f.def(
        name,
        [fn](const Tensor& x, OptDims s, OptDims dim, const std::optional<std::string>& norm) {
          return fn(x, std::move(s), std::move(dim), norm_of(norm));
        },
        nb::arg("input"), nb::arg("s") = nb::none(), nb::arg("dim") = nb::none(),
        nb::arg("norm") = nb::none());
  }
  const std::pair<const char*, Fn2> two_dim[] = {
      {"fft2", &fft::fft2},     {"ifft2", &fft::ifft2}, {"rfft2", &fft::rfft2},
      {"irfft2", &fft::irfft2}, {"hfft2", &fft::hfft2}, {"ihfft2", &fft::ihfft2},
  };
  for (const auto& [name, fn] : two_dim) {
    f.def(
        name,
        [fn](const Tensor& x, OptDims s, const DimVector& dim,
             const std::optional<std::string>& norm) {
          return fn(x, std::move(s), dim, norm_of(norm));
        },
        nb::arg("input"), nb::arg("s") = nb::none(), nb::arg("dim") = DimVector{-2, -1},
        nb::arg("norm") = nb::none());
  }
  f.def(
      "fftfreq",
      [](int64_t n, double d, EMBER_OPTION_PARAMS) {
        return fft::fftfreq(n, d, options(dt, dev, rg));
      },
      nb::arg("n"), nb::arg("d") = 1.0, nb::kw_only(), EMBER_OPTION_ARGS);
  f.def(
      "rfftfreq",
      [](int64_t n, double d, EMBER_OPTION_PARAMS) {
        return fft::rfftfreq(n, d, options(dt, dev, rg));
      },
      nb::arg("n"), nb::arg("d") = 1.0, nb::kw_only(), EMBER_OPTION_ARGS);
  f.def(
      "fftshift", [](const Tensor& x, OptDims dim) { return fft::fftshift(x, std::move(dim)); },
      nb::arg("input"), nb::arg("dim") = nb::none());
  f.def(
      "ifftshift", [](const Tensor& x, OptDims dim) { return fft::ifftshift(x, std::move(dim)); },
      nb::arg("input"), nb::arg("dim") = nb::none());
}

}  // namespace ember::py
