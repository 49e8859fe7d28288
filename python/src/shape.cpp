// Shape ops (ember/ops/shape.h) as module functions and Tensor methods: cat, stack, split, chunk,
// flip, roll, repeat, diagonals, meshgrid, and the C++ side of nn.functional.pad.
#include "init.h"

namespace ember::py {
namespace {

// A tuple or list of tensors (a Tensor itself is refused, as PyTorch does).
std::vector<Tensor> tensor_list(nb::handle h, const char* op) {
  const std::string what = std::string(op) + "(): argument 'tensors' must be a tuple of Tensors";
  if (nb::isinstance<Tensor>(h) || !PySequence_Check(h.ptr()) || nb::isinstance<nb::str>(h)) {
    type_error(what + ", not " + py_type_name(h));
  }
  std::vector<Tensor> out;
  for (nb::handle item : nb::borrow<nb::sequence>(h)) {
    if (!nb::isinstance<Tensor>(item))
      type_error(what + ", but found element of type " + py_type_name(item));
    out.push_back(nb::cast<Tensor>(item));
  }
  return out;
}

// f(*tensors) or f([tensors]).
std::vector<Tensor> tensor_args(const nb::args& args, const char* op) {
  if (args.size() == 1 && !nb::isinstance<Tensor>(args[0])) return tensor_list(args[0], op);
  return tensor_list(args, op);
}

nb::tuple to_tuple(const std::vector<Tensor>& ts) {
  nb::list out;
  for (const Tensor& t : ts) out.append(wrap(t));
  return nb::tuple(out);
}

std::vector<Tensor> split_any(const Tensor& x, nb::handle sizes, int64_t dim) {
  if (PyLong_Check(sizes.ptr()) || PyIndex_Check(sizes.ptr()))
    return split(x, to_int64(sizes, "split(): split_size"), dim);
  return split_with_sizes(
      x,
      arg_cast<DimVector>(sizes, "split(): split_size_or_sections", "an int or a sequence of ints"),
      dim);
}

Tensor repeat_interleave_any(const Tensor& x,
                             nb::handle repeats,
                             std::optional<int64_t> dim,
                             std::optional<int64_t> output_size) {
  if (nb::isinstance<Tensor>(repeats))
    return repeat_interleave(x, nb::cast<const Tensor&>(repeats), dim, output_size);
  return repeat_interleave(x, to_int64(repeats, "repeat_interleave(): repeats"), dim, output_size);
}

}  // namespace

void init_shape(nb::module_& m) {
  auto& cls = tensor_class();

  // ---- joining ----------------------------------------------------------------------------------
  for (const char* name : {"cat", "concat", "concatenate"}) {
    const char* dim_name = std::string_view(name) == "concatenate" ? "axis" : "dim";
    m.def(
        name, [](nb::handle tensors, int64_t dim) { return cat(tensor_list(tensors, "cat"), dim); },
        nb::arg("tensors"), nb::arg(dim_name) = 0);
  }
  m.def(
      "stack",
      [](nb::handle tensors, int64_t dim) { return stack(tensor_list(tensors, "stack"), dim); },
      nb::arg("tensors"), nb::arg("dim") = 0);
  m.def(
      "hstack", [](nb::handle tensors) { return hstack(tensor_list(tensors, "hstack")); },
      nb::arg("tensors"));
  for (const char* name : {"vstack", "row_stack"}) {
    m.def(
        name, [](nb::handle tensors) { return vstack(tensor_list(tensors, "vstack")); },
        nb::arg("tensors"));
  }
  m.def(
      "dstack", [](nb::handle tensors) { return dstack(tensor_list(tensors, "dstack")); },
      nb::arg("tensors"));

  // ---- splitting --------------------------------------------------------------------------------
  m.def(
      "split",
      [](const Tensor& x, nb::handle sizes, int64_t dim) {
        return to_tuple(split_any(x, sizes, dim));
      },
      nb::arg("tensor"), nb::arg("split_size_or_sections"), nb::arg("dim") = 0);
  cls.def(
      "split",
      [](const Tensor& x, nb::handle sizes, int64_t dim) {
        return to_tuple(split_any(x, sizes, dim));
      },
      nb::arg("split_size"), nb::arg("dim") = 0);
  def_both(
      m, "split_with_sizes",
      [](const Tensor& x, DimVector sizes, int64_t dim) {
        return to_tuple(split_with_sizes(x, sizes, dim));
      },
      nb::arg("split_sizes"), nb::arg("dim") = 0);
  def_both(
      m, "chunk",
      [](const Tensor& x, int64_t chunks, int64_t dim) { return to_tuple(chunk(x, chunks, dim)); },
      nb::arg("chunks"), nb::arg("dim") = 0);
  def_both(
      m, "unbind", [](const Tensor& x, int64_t dim) { return to_tuple(unbind(x, dim)); },
      nb::arg("dim") = 0);

  // ---- rearranging ------------------------------------------------------------------------------
  def_both(
      m, "unflatten",
      [](const Tensor& x, int64_t dim, DimVector sizes) { return unflatten(x, dim, sizes); },
      nb::arg("dim"), nb::arg("sizes"));
  for (const char* name : {"movedim", "moveaxis"}) {
    def_both(
        m, name,
        [](const Tensor& x, DimVector source, DimVector destination) {
          return movedim(x, source, destination);
        },
        nb::arg("source"), nb::arg("destination"));
  }
  // x.repeat(2, 3) or x.repeat((2, 3)); torch has no function form.
  cls.def("repeat", [](const Tensor& x, nb::args sizes) {
    return repeat(x, shape_from_args(sizes, "repeat"));
  });
  m.def(
      "tile", [](const Tensor& x, DimVector dims) { return tile(x, dims); }, nb::arg("input"),
      nb::arg("dims"));
  cls.def("tile",
          [](const Tensor& x, nb::args dims) { return tile(x, shape_from_args(dims, "tile")); });
  m.def(
      "repeat_interleave",
      [](const Tensor& x, nb::handle repeats, std::optional<int64_t> dim,
         std::optional<int64_t> output_size) {
        if (repeats.is_none()) return repeat_interleave(x, output_size);  // x holds the repeats
        return repeat_interleave_any(x, repeats, dim, output_size);
      },
      nb::arg("input"), nb::arg("repeats") = nb::none(), nb::arg("dim") = nb::none(), nb::kw_only(),
      nb::arg("output_size") = nb::none());
  cls.def(
      "repeat_interleave",
      [](const Tensor& x, nb::handle repeats, std::optional<int64_t> dim,
         std::optional<int64_t> output_size) {
        return repeat_interleave_any(x, repeats, dim, output_size);
      },
      nb::arg("repeats"), nb::arg("dim") = nb::none(), nb::kw_only(),
      nb::arg("output_size") = nb::none());
  def_both(
      m, "roll",
      [](const Tensor& x, DimVector shifts, std::optional<DimVector> dims) {
        return roll(x, shifts, dims ? IntArrayRef(*dims) : IntArrayRef());
      },
      nb::arg("shifts"), nb::arg("dims") = nb::none());
  m.def(
      "flip", [](const Tensor& x, DimVector dims) { return flip(x, dims); }, nb::arg("input"),
      nb::arg("dims"));
  cls.def("flip",
          [](const Tensor& x, nb::args dims) { return flip(x, shape_from_args(dims, "flip")); });
  def_both(m, "fliplr", [](const Tensor& x) { return fliplr(x); });
  def_both(m, "flipud", [](const Tensor& x) { return flipud(x); });

  // ---- triangles and diagonals ------------------------------------------------------------------
  def_both(
      m, "tril", [](const Tensor& x, int64_t k) { return tril(x, k); }, nb::arg("diagonal") = 0);
  def_both(
      m, "triu", [](const Tensor& x, int64_t k) { return triu(x, k); }, nb::arg("diagonal") = 0);
  for (const char* name : {"tril_", "triu_"}) {
    const bool lower = name[3] == 'l';
    cls.def(
        name,
        [lower](nb::handle self, int64_t k) {
          Tensor& t = nb::cast<Tensor&>(self);
          copy_(t, lower ? tril(t, k) : triu(t, k));
          return nb::borrow(self);
        },
        nb::arg("diagonal") = 0);
  }
  def_both(
      m, "diagonal",
      [](const Tensor& x, int64_t offset, int64_t dim1, int64_t dim2) {
        return diagonal(x, offset, dim1, dim2);
      },
      nb::arg("offset") = 0, nb::arg("dim1") = 0, nb::arg("dim2") = 1);
  def_both(
      m, "diag_embed",
      [](const Tensor& x, int64_t offset, int64_t dim1, int64_t dim2) {
        return diag_embed(x, offset, dim1, dim2);
      },
      nb::arg("offset") = 0, nb::arg("dim1") = -2, nb::arg("dim2") = -1);
  def_both(
      m, "diag", [](const Tensor& x, int64_t k) { return diag(x, k); }, nb::arg("diagonal") = 0);

  // ---- broadcasting -----------------------------------------------------------------------------
  def_both(
      m, "broadcast_to", [](const Tensor& x, DimVector size) { return broadcast_to(x, size); },
      nb::arg("size"));
  m.def("broadcast_tensors", [](nb::args tensors) {
    return to_tuple(broadcast_tensors(tensor_args(tensors, "broadcast_tensors")));
  });
  m.def(
      "meshgrid",
      [](nb::args tensors, std::optional<std::string> indexing) {
        return to_tuple(meshgrid(tensor_args(tensors, "meshgrid"), indexing.value_or("ij")));
      },
      nb::arg("tensors"), nb::arg("indexing") = nb::none());

  // ---- padding: ember.nn.functional.pad calls this ----------------------------------------------
  m.def(
      "_pad",
      [](const Tensor& x, DimVector p, std::string_view mode, std::optional<Scalar> value) {
        return pad(x, p, mode, value);
      },
      nb::arg("input"), nb::arg("pad"), nb::arg("mode") = "constant",
      nb::arg("value") = nb::none());
}

}  // namespace ember::py
