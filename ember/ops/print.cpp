// Tensor printing in PyTorch's format (torch/_tensor_str.py): the same choice of fixed, integer
// or scientific notation, column widths, line wrapping, summarisation and suffixes, with
// "ember." where PyTorch writes "torch.".
#include "ember/ops/print.h"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "ember/autograd/node.h"
#include "ember/ops/creation.h"

namespace ember {
namespace {

PrintOptions options;

// Concatenation by append: GCC 12 warns (-Wrestrict, a false positive) on "literal" + string.
template <class... Parts>
std::string cat(const Parts&... parts) {
  std::string s;
  (s.append(parts), ...);
  return s;
}

// Reads element `offset` (in elements, from the tensor's data pointer) as a long double, which
// holds every int64 and float64 value exactly; of a complex tensor, its real (part 0) or
// imaginary (part 1) part.
struct Reader {
  const Tensor& t;
  int part = 0;
  long double operator()(int64_t offset) const {
    return dispatch_dtype<kAllTypesAndComplex>(t.dtype(), "print", [&]<class T>() -> long double {
      const T v = static_cast<const T*>(t.data_ptr())[offset];
      if constexpr (is_std_complex<T>) {
        return static_cast<long double>(part ? v.imag() : v.real());
      } else {
        return static_cast<long double>(static_cast<opmath_t<T>>(v));
      }
    });
  }
};

std::string printf_str(const char* fmt, int width, int precision, long double v) {
  char buf[512];
  std::snprintf(buf, sizeof(buf), fmt, width, precision, v);
  return buf;
}

// The element offsets the formatter looks at: all of them, or the edges when summarising.
void collect(const Tensor& t,
             const Reader& read,
             int64_t dim,
             int64_t base,
             bool summarize,
             std::vector<long double>& out) {
  if (dim == t.dim()) {
    out.push_back(read(base));
    return;
  }
  const int64_t size = t.sizes()[dim], stride = t.strides()[dim];
  const int64_t edge = options.edgeitems;
  for (int64_t i = 0; i < size; ++i) {
    if (summarize && size > 2 * edge && i == edge) {
      i = size - edge;
      if (i >= size) break;  // edgeitems = 0: nothing is shown
    }
    collect(t, read, dim + 1, base + i * stride, summarize, out);
  }
}

class Formatter {
 public:
  Formatter(const std::vector<long double>& values, DType dtype)
      : floating_(is_floating(dtype)), bool_(dtype == kBool) {
    if (!floating_) {
      for (long double v : values) max_width_ = std::max(max_width_, format_plain(v).size());
      return;
    }
    std::vector<long double> nz;  // the nonzero finite values decide the notation
    for (long double v : values)
      if (std::isfinite(v) && v != 0) nz.push_back(v);
    if (!nz.empty()) {
      long double amin = std::fabs(nz[0]), amax = amin;
      for (long double v : nz) {
        amin = std::min(amin, std::fabs(v));
        amax = std::max(amax, std::fabs(v));
        if (v != std::ceil(v)) int_mode_ = false;
      }
      const bool wide = amax / amin > 1000.0 || amax > 1.0e8;
      sci_mode_ = int_mode_ ? wide : (wide || amin < 1.0e-4);
      for (long double v : nz) {
        const size_t len = sci_mode_   ? printf_str("%*.*Le", 0, options.precision, v).size()
                           : int_mode_ ? printf_str("%*.*Lf", 0, 0, v).size() + 1
                                       : printf_str("%*.*Lf", 0, options.precision, v).size();
        max_width_ = std::max(max_width_, len);
      }
    }
    if (options.sci_mode) sci_mode_ = *options.sci_mode;
  }

  size_t width() const { return max_width_; }

  std::string format(long double v) const {
    std::string s;
    if (!floating_) {
      s = format_plain(v);
    } else if (std::isnan(v)) {
      s = "nan";
    } else if (sci_mode_) {
      s = std::isinf(v) ? (v > 0 ? "inf" : "-inf")
                        : printf_str("%*.*Le", int(max_width_), options.precision, v);
    } else if (int_mode_) {
      s = std::isinf(v) ? (v > 0 ? "inf" : "-inf") : printf_str("%*.*Lf", 0, 0, v) + ".";
    } else {
      s = std::isinf(v) ? (v > 0 ? "inf" : "-inf") : printf_str("%*.*Lf", 0, options.precision, v);
    }
    if (s.size() < max_width_) s.insert(0, max_width_ - s.size(), ' ');
    return s;
  }

 private:
  std::string format_plain(long double v) const {
    if (bool_) return v != 0 ? "True" : "False";
    return std::to_string(static_cast<int64_t>(v));
  }

  bool floating_, bool_;
  bool int_mode_ = true, sci_mode_ = false;
  size_t max_width_ = 1;
};

// One element as text: a real value, or a complex one as PyTorch writes it (the real part
// formatted for all real parts, then the imaginary part formatted for all imaginary parts,
// unpadded, with its sign and a j).
struct ElementFormat {
  Reader re;
  const Formatter& fre;
  Reader im;
  const Formatter* fim = nullptr;  // null for real tensors

  size_t width() const { return fim ? fre.width() + fim->width() + 1 : fre.width(); }
  std::string operator()(int64_t offset) const {
    std::string s = fre.format(re(offset));
    if (!fim) return s;
    std::string i = fim->format(im(offset)) + "j";
    i.erase(0, i.find_first_not_of(' '));
    return s + (i[0] == '+' || i[0] == '-' ? "" : "+") + i;
  }
};

std::string vector_str(
    const Tensor& t, const ElementFormat& f, int64_t base, int64_t indent, bool summarize) {
  const int64_t elem_len = int64_t(f.width()) + 2;
  const int64_t per_line = std::max<int64_t>(1, (options.linewidth - indent) / elem_len);
  const int64_t size = t.sizes().back(), stride = t.strides().back();
  const int64_t edge = options.edgeitems;
  std::vector<std::string> data;
  for (int64_t i = 0; i < size; ++i) {
    if (summarize && size > 2 * edge && i == edge) {
      data.push_back(edge ? " ..." : "...");
      i = size - edge;
      if (i >= size) break;
    }
    data.push_back(f(base + i * stride));
  }
  std::string out = "[";
  for (size_t i = 0; i < data.size(); ++i) {
    if (i > 0 && int64_t(i) % per_line == 0) {
      out.append(",\n").append(size_t(indent + 1), ' ');
    } else if (i > 0) {
      out.append(", ");
    }
    out += data[i];
  }
  return out + "]";
}

std::string tensor_str(const Tensor& t,
                       const ElementFormat& f,
                       int64_t dim,
                       int64_t base,
                       int64_t indent,
                       bool summarize) {
  const int64_t remaining = t.dim() - dim;
  if (remaining == 0) return f(base);
  if (remaining == 1) return vector_str(t, f, base, indent, summarize);
  const int64_t size = t.sizes()[dim], stride = t.strides()[dim];
  const int64_t edge = options.edgeitems;
  std::vector<std::string> slices;
  for (int64_t i = 0; i < size; ++i) {
    if (summarize && size > 2 * edge && i == edge) {
      slices.push_back("...");
      i = size - edge;
      if (i >= size) break;
    }
    slices.push_back(tensor_str(t, f, dim + 1, base + i * stride, indent + 1, summarize));
  }
  std::string sep = ",";
  sep.append(size_t(remaining - 1), '\n').append(size_t(indent + 1), ' ');
  std::string out = "[";
  for (size_t i = 0; i < slices.size(); ++i) {
    if (i) out.append(sep);
    out.append(slices[i]);
  }
  return out.append("]");
}

std::string sizes_tuple(IntArrayRef sizes) {
  std::string s = "(";
  for (size_t i = 0; i < sizes.size(); ++i) s += (i ? ", " : "") + std::to_string(sizes[i]);
  return s + (sizes.size() == 1 ? ",)" : ")");
}

}  // namespace

PrintOptions& print_options() { return options; }

std::string Tensor::repr() const {
  if (!defined()) return "tensor(undefined)";
  const int64_t indent = 7;  // len("tensor(")
  std::vector<std::string> suffixes;
  if (!device().is_cpu()) suffixes.push_back(cat("device='", device().str(), "'"));
  const DType dflt = get_default_dtype();
  const bool default_dtype =
      dtype() == dflt || dtype() == kInt64 || dtype() == kBool || dtype() == to_complex_dtype(dflt);
  std::string body;
  if (numel() == 0) {
    if (dim() != 1) suffixes.push_back(cat("size=", sizes_tuple(sizes())));
    if (dtype() != dflt) suffixes.push_back(cat("dtype=ember.", dtype_name(dtype())));
    body = "[]";
  } else {
    if (options.edgeitems == 0) suffixes.push_back(cat("size=", sizes_tuple(sizes())));
    if (!default_dtype) suffixes.push_back(cat("dtype=ember.", dtype_name(dtype())));
    const Tensor host = device().is_cpu() ? *this : detach().to(kCPU);
    const bool summarize = numel() > options.threshold;
    const bool cplx = is_complex(dtype());
    const Reader re{host, 0}, im{host, 1};
    std::vector<long double> re_values, im_values;
    collect(host, re, 0, 0, summarize, re_values);
    if (cplx) collect(host, im, 0, 0, summarize, im_values);
    const Formatter fre(re_values, to_real_dtype(dtype()));
    const Formatter fim(im_values, to_real_dtype(dtype()));
    body = tensor_str(host, ElementFormat{re, fre, im, cplx ? &fim : nullptr}, 0, 0, indent,
                      summarize);
  }
  if (const auto& fn = grad_fn()) {
    suffixes.push_back(cat("grad_fn=<", fn->name(), ">"));
  } else if (requires_grad()) {
    suffixes.push_back("requires_grad=True");
  }
  std::string out = cat("tensor(", body);
  const size_t nl = out.rfind('\n');
  int64_t last_line =
      nl == std::string::npos ? int64_t(out.size()) + 2 : int64_t(out.size() - nl) + 1;
  for (const std::string& s : suffixes) {
    if (last_line + int64_t(s.size()) + 2 > options.linewidth) {
      out.append(",\n").append(size_t(indent), ' ').append(s);
      last_line = indent + int64_t(s.size());
    } else {
      out.append(", ").append(s);
      last_line += int64_t(s.size()) + 2;
    }
  }
  return out + ")";
}

}  // namespace ember
