// Indexing ops as functions and Tensor methods (ember/ops/indexing.h), with PyTorch's argument
// names; x[idx] and x[idx] = v are in tensor.cpp.
#include "init.h"

namespace ember::py {
namespace {

// index_fill / masked_fill values: a number or a 0-d tensor.
Scalar fill_value(const TensorOrScalar& v, const char* op) {
  if (!v.tensor) return v.scalar;
  EMBER_CHECK(v.tensor->dim() == 0, "[", op, "] only supports a 0-dimensional value tensor, got ",
              v.tensor->dim(), " dimensions");
  return v.tensor->item();
}

Tensor value_tensor(const TensorOrScalar& v, DType dtype) {
  return v.tensor ? *v.tensor : scalar_tensor(v.scalar, TensorOptions(dtype));
}

}  // namespace

void init_indexing(nb::module_& m) {
  auto& cls = tensor_class();
  def_both(
      m, "index_select",
      [](const Tensor& x, int64_t dim, const Tensor& index) { return index_select(x, dim, index); },
      nb::arg("dim"), nb::arg("index"));
  def_both(
      m, "gather",
      [](const Tensor& x, int64_t dim, const Tensor& index, bool) { return gather(x, dim, index); },
      nb::arg("dim"), nb::arg("index"), nb::kw_only(), nb::arg("sparse_grad") = false);

  // scatter(dim, index, src or value, reduce=None): reduce "add" / "multiply" are PyTorch's older
  // spellings of scatter_reduce's "sum" / "prod".
  auto scatter_fn = [](const Tensor& x, int64_t dim, const Tensor& index, TensorOrScalar src,
                       std::optional<std::string> reduce) {
    if (!reduce)
      return src.tensor ? scatter(x, dim, index, *src.tensor) : scatter(x, dim, index, src.scalar);
    EMBER_CHECK_VALUE(*reduce == "add" || *reduce == "multiply",
                      "[scatter] reduce argument must be either add or multiply, got '", *reduce,
                      "'");
    const Tensor s =
        src.tensor ? *src.tensor : full_like(index, src.scalar, TensorOptions(x.dtype()));
    return scatter_reduce(x, dim, index, s, *reduce == "add" ? "sum" : "prod", true);
  };
  def_both(m, "scatter", scatter_fn, nb::arg("dim"), nb::arg("index"), nb::arg("src"),
           nb::kw_only(), nb::arg("reduce") = nb::none());
  cls.def(
      "scatter_",
      [scatter_fn](nb::handle self, int64_t dim, const Tensor& index, TensorOrScalar src,
                   std::optional<std::string> reduce) {
        Tensor& t = nb::cast<Tensor&>(self);
        if (!reduce) {
          src.tensor ? scatter_(t, dim, index, *src.tensor) : scatter_(t, dim, index, src.scalar);
        } else {
          const Tensor s =
              src.tensor ? *src.tensor : full_like(index, src.scalar, TensorOptions(t.dtype()));
          scatter_reduce_(t, dim, index, s, *reduce == "add" ? "sum" : "prod", true);
        }
        return nb::borrow(self);
      },
      nb::arg("dim"), nb::arg("index"), nb::arg("src"), nb::kw_only(),
      nb::arg("reduce") = nb::none());
  def_both(
      m, "scatter_add",
      [](const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src) {
        return scatter_add(x, dim, index, src);
      },
      nb::arg("dim"), nb::arg("index"), nb::arg("src"));
  cls.def(
      "scatter_add_",
      [](nb::handle self, int64_t dim, const Tensor& index, const Tensor& src) {
        Tensor& t = nb::cast<Tensor&>(self);
        scatter_add_(t, dim, index, src);
        return nb::borrow(self);
      },
      nb::arg("dim"), nb::arg("index"), nb::arg("src"));
  def_both(
      m, "scatter_reduce",
      [](const Tensor& x, int64_t dim, const Tensor& index, const Tensor& src,
         std::string_view reduce,
         bool include_self) { return scatter_reduce(x, dim, index, src, reduce, include_self); },
      nb::arg("dim"), nb::arg("index"), nb::arg("src"), nb::arg("reduce"), nb::kw_only(),
      nb::arg("include_self") = true);
  cls.def(
      "scatter_reduce_",
      [](nb::handle self, int64_t dim, const Tensor& index, const Tensor& src,
         std::string_view reduce, bool include_self) {
        Tensor& t = nb::cast<Tensor&>(self);
        scatter_reduce_(t, dim, index, src, reduce, include_self);
        return nb::borrow(self);
      },
      nb::arg("dim"), nb::arg("index"), nb::arg("src"), nb::arg("reduce"), nb::kw_only(),
      nb::arg("include_self") = true);

  def_both(
      m, "index_add",
      [](const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source,
         const Scalar& alpha) { return index_add(x, dim, index, source, alpha); },
      nb::arg("dim"), nb::arg("index"), nb::arg("source"), nb::kw_only(), nb::arg("alpha") = 1);
  cls.def(
      "index_add_",
      [](nb::handle self, int64_t dim, const Tensor& index, const Tensor& source,
         const Scalar& alpha) {
        Tensor& t = nb::cast<Tensor&>(self);
        index_add_(t, dim, index, source, alpha);
        return nb::borrow(self);
      },
      nb::arg("dim"), nb::arg("index"), nb::arg("source"), nb::kw_only(), nb::arg("alpha") = 1);
  def_both(
      m, "index_copy",
      [](const Tensor& x, int64_t dim, const Tensor& index, const Tensor& source) {
        return index_copy(x, dim, index, source);
      },
      nb::arg("dim"), nb::arg("index"), nb::arg("source"));
  cls.def(
      "index_copy_",
      [](nb::handle self, int64_t dim, const Tensor& index, const Tensor& source) {
        Tensor& t = nb::cast<Tensor&>(self);
        index_copy_(t, dim, index, source);
        return nb::borrow(self);
      },
      nb::arg("dim"), nb::arg("index"), nb::arg("source"));
  def_both(
      m, "index_fill",
      [](const Tensor& x, int64_t dim, const Tensor& index, TensorOrScalar value) {
        return index_fill(x, dim, index, fill_value(value, "index_fill"));
      },
      nb::arg("dim"), nb::arg("index"), nb::arg("value"));
  cls.def(
      "index_fill_",
      [](nb::handle self, int64_t dim, const Tensor& index, TensorOrScalar value) {
        Tensor& t = nb::cast<Tensor&>(self);
        index_fill_(t, dim, index, fill_value(value, "index_fill_"));
        return nb::borrow(self);
      },
      nb::arg("dim"), nb::arg("index"), nb::arg("value"));

  def_both(
      m, "masked_fill",
      [](const Tensor& x, const Tensor& mask, TensorOrScalar value) {
        return value.tensor ? masked_fill(x, mask, *value.tensor)
                            : masked_fill(x, mask, value.scalar);
      },
      nb::arg("mask"), nb::arg("value"));
  cls.def(
      "masked_fill_",
      [](nb::handle self, const Tensor& mask, TensorOrScalar value) {
        Tensor& t = nb::cast<Tensor&>(self);
        value.tensor ? masked_fill_(t, mask, *value.tensor) : masked_fill_(t, mask, value.scalar);
        return nb::borrow(self);
      },
      nb::arg("mask"), nb::arg("value"));
  def_both(
      m, "masked_select",
      [](const Tensor& x, const Tensor& mask) { return masked_select(x, mask); }, nb::arg("mask"));
  def_both(
      m, "masked_scatter",
      [](const Tensor& x, const Tensor& mask, const Tensor& source) {
        return masked_scatter(x, mask, source);
      },
      nb::arg("mask"), nb::arg("source"));
  cls.def(
      "masked_scatter_",
      [](nb::handle self, const Tensor& mask, const Tensor& source) {
        Tensor& t = nb::cast<Tensor&>(self);
        masked_scatter_(t, mask, source);
        return nb::borrow(self);
      },
      nb::arg("mask"), nb::arg("source"));
  def_both(
      m, "take", [](const Tensor& x, const Tensor& index) { return take(x, index); },
      nb::arg("index"));
  def_both(
      m, "take_along_dim",
      [](const Tensor& x, const Tensor& indices, std::optional<int64_t> dim) {
        return take_along_dim(x, indices, dim);
      },
      nb::arg("indices"), nb::arg("dim") = nb::none());

  def_both(
      m, "nonzero",
      [](const Tensor& x, bool as_tuple) -> nb::object {
        if (!as_tuple) return wrap(nonzero(x));
        nb::list parts;
        for (Tensor& t : nonzero_tuple(x)) parts.append(wrap(std::move(t)));
        return nb::tuple(parts);
      },
      nb::kw_only(), nb::arg("as_tuple") = false);
  def_both(m, "argwhere", [](const Tensor& x) { return nonzero(x); });

  m.def(
      "searchsorted",
      [](const Tensor& sorted, TensorOrScalar values, bool out_int32, bool right,
         std::optional<std::string> side, std::optional<Tensor> sorter) {
        if (side) {
          EMBER_CHECK_VALUE(*side == "left" || *side == "right",
                            "[searchsorted] side can only be 'left' or 'right', got '", *side, "'");
          EMBER_CHECK(!right || *side == "right",
                      "[searchsorted] side and right can't be set to opposites, got side of "
                      "left while right was True");
          right = *side == "right";
        }
        const Tensor seq = sorter ? take_along_dim(sorted, *sorter, -1) : sorted;
        return values.tensor ? searchsorted(seq, *values.tensor, out_int32, right)
                             : searchsorted(seq, values.scalar, out_int32, right);
      },
      nb::arg("sorted_sequence"), nb::arg("input"), nb::kw_only(), nb::arg("out_int32") = false,
      nb::arg("right") = false, nb::arg("side") = nb::none(), nb::arg("sorter") = nb::none());
  m.def(
      "bucketize",
      [](TensorOrScalar input, const Tensor& boundaries, bool out_int32, bool right) {
        const Tensor x = input.tensor
                             ? *input.tensor
                             : scalar_tensor(input.scalar, TensorOptions(boundaries.dtype()));
        return bucketize(x, boundaries, out_int32, right);
      },
      nb::arg("input"), nb::arg("boundaries"), nb::kw_only(), nb::arg("out_int32") = false,
      nb::arg("right") = false);

  // index_put(indices, values, accumulate): indices a tuple of tensors (None for a whole dim).
  auto index_list = [](nb::handle indices) {
    OptionalTensors out;
    for (nb::handle h : nb::iter(indices)) {
      out.push_back(h.is_none() ? std::nullopt
                                : std::optional<Tensor>(arg_cast<Tensor>(h, "index_put(): indices",
                                                                         "a tuple of tensors")));
    }
    return out;
  };
  // aten::index: one entry per dim (None: the whole dim); what x[...] uses after basic indexing.
  m.def(
      "_index", [](const Tensor& x, const OptionalTensors& indices) { return index(x, indices); },
      nb::arg("input"), nb::arg("indices"));
  def_both(
      m, "index_put",
      [index_list](const Tensor& x, nb::handle indices, TensorOrScalar values, bool accumulate) {
        return index_put(x, index_list(indices), value_tensor(values, x.dtype()), accumulate);
      },
      nb::arg("indices"), nb::arg("values"), nb::arg("accumulate") = false);
  cls.def(
      "index_put_",
      [index_list](nb::handle self, nb::handle indices, TensorOrScalar values, bool accumulate) {
        Tensor& t = nb::cast<Tensor&>(self);
        index_put_(t, index_list(indices), value_tensor(values, t.dtype()), accumulate);
        return nb::borrow(self);
      },
      nb::arg("indices"), nb::arg("values"), nb::arg("accumulate") = false);
}

}  // namespace ember::py
