// Bindings of the random ops: the random tensors (rand, randn, randint, randperm and their
// *_like), the samplers with tensor parameters (bernoulli, multinomial, normal) and the in-place
// samplers of Tensor (normal_, uniform_, random_, ...).
#include "init.h"

namespace ember::py {
namespace {

bool is_tensor(nb::handle h) { return nb::isinstance<Tensor>(h); }

double number_arg(nb::handle h, const char* what) { return arg_cast<double>(h, what, "a number"); }

// ember.normal's four forms: (Tensor, Tensor), (float, Tensor), (Tensor, float), (float, float,
// size).
Tensor normal_py(nb::handle mean,
                 nb::handle std,
                 std::optional<DimVector> size,
                 Generator* gen,
                 std::optional<DType> dtype,
                 std::optional<Device> device,
                 bool requires_grad) {
  if (is_tensor(mean) || is_tensor(std)) {
    EMBER_CHECK_TYPE(!size, "[normal] size is only accepted with a float mean and std");
    if (is_tensor(mean) && is_tensor(std)) {
      return normal(nb::cast<const Tensor&>(mean), nb::cast<const Tensor&>(std), gen);
    }
    if (is_tensor(mean)) return normal(nb::cast<const Tensor&>(mean), number_arg(std, "std"), gen);
    return normal(number_arg(mean, "mean"), nb::cast<const Tensor&>(std), gen);
  }
  EMBER_CHECK_TYPE(size.has_value(),
                   "[normal] with a float mean and std, expected a size, got none");
  TensorOptions o;
  if (dtype) o = o.dtype(*dtype);
  if (device) o = o.device(*device);
  return normal(number_arg(mean, "mean"), number_arg(std, "std"), *size,
                o.requires_grad(requires_grad), gen);
}

// Tensor.random_(from, to), random_(to), random_(); from and to may be keywords.
Tensor& random_py(Tensor& self, nb::args args, nb::kwargs kwargs) {
  std::optional<int64_t> from, to;
  bool to_given = false;
  Generator* gen = nullptr;
  EMBER_CHECK_TYPE(args.size() <= 2, "random_() takes at most 2 positional arguments, got ",
                   args.size());
  if (args.size() == 1) {
    to = to_int64(args[0], "random_(): to");
    to_given = true;
  } else if (args.size() == 2) {
    from = to_int64(args[0], "random_(): from");
    to_given = true;
    if (!args[1].is_none()) to = to_int64(args[1], "random_(): to");
  }
  for (auto [key, value] : kwargs) {
    const std::string k = nb::cast<std::string>(key);
    if (k == "from") {
      from = to_int64(value, "random_(): from");
    } else if (k == "to") {
      to_given = true;
      if (!value.is_none()) to = to_int64(value, "random_(): to");
    } else if (k == "generator") {
      if (!value.is_none()) gen = &nb::cast<Generator&>(value);
    } else {
      type_error("random_() got an unexpected keyword argument '" + k + "'");
    }
  }
  if (!from && !to_given) return random_(self, gen);
  return random_(self, from.value_or(0), to, gen);
}

}  // namespace

void init_random(nb::module_& m) {
  auto& cls = tensor_class();
  // ember.random.set_stream / get_stream (Note [Random streams] in core/generator.cpp).
  m.def("_set_random_stream", [](std::string_view name) {
    EMBER_CHECK_VALUE(name == "philox" || name == "mt19937",
                      "[set_stream] expected 'philox' or 'mt19937', got '", name, "'");
    set_random_stream(name == "philox" ? RandomStream::Philox : RandomStream::Mt19937);
  });
  m.def("_random_stream",
        [] { return random_stream() == RandomStream::Philox ? "philox" : "mt19937"; });
  m.def(
      "rand",
      [](nb::args size, Generator* gen, EMBER_OPTION_PARAMS) {
        return rand(shape_from_args(size, "rand"), options(dt, dev, rg), gen);
      },
      nb::arg("size"), nb::kw_only(), nb::arg("generator").none() = nb::none(), EMBER_OPTION_ARGS);
  m.def(
      "randn",
      [](nb::args size, Generator* gen, EMBER_OPTION_PARAMS) {
        return randn(shape_from_args(size, "randn"), options(dt, dev, rg), gen);
      },
      nb::arg("size"), nb::kw_only(), nb::arg("generator").none() = nb::none(), EMBER_OPTION_ARGS);
  // randint(high, size) or randint(low, high, size), each also by keyword (torch.randint(3,
  // size=(2,)), torch.randint(low=0, high=3, size=(2,))).
  m.def(
      "randint",
      [](nb::args args, std::optional<int64_t> low_kw, std::optional<int64_t> high_kw,
         nb::object size_kw, Generator* gen, EMBER_OPTION_PARAMS) {
        std::vector<nb::handle> pos(args.begin(), args.end());
        if (!size_kw.is_none()) pos.push_back(size_kw);
        if (high_kw) pos.insert(pos.end() - (size_kw.is_none() ? 0 : 1), nb::int_(*high_kw));
        if (low_kw) pos.insert(pos.begin(), nb::int_(*low_kw));
        EMBER_CHECK_TYPE(pos.size() == 2 || pos.size() == 3,
                         "randint() expects (high, size) or (low, high, size), positionally or "
                         "by keyword; got ",
                         pos.size(), " of them");
        const int64_t low = pos.size() == 3 ? to_int64(pos[0], "low") : 0;
        const int64_t high = to_int64(pos[pos.size() - 2], "high");
        const DimVector size =
            arg_cast<DimVector>(pos[pos.size() - 1], "randint(): size", "a tuple of ints");
        return randint(low, high, size, options(dt, dev, rg), gen);
      },
      nb::arg("args"), nb::kw_only(), nb::arg("low").none() = nb::none(),
      nb::arg("high").none() = nb::none(), nb::arg("size").none() = nb::none(),
      nb::arg("generator").none() = nb::none(), EMBER_OPTION_ARGS);
  m.def(
      "randperm",
      [](int64_t n, Generator* gen, EMBER_OPTION_PARAMS) {
        return randperm(n, options(dt, dev, rg), gen);
      },
      nb::arg("n"), nb::kw_only(), nb::arg("generator").none() = nb::none(), EMBER_OPTION_ARGS);
  for (const auto& [name, fn] :
       {std::pair{"rand_like", &rand_like}, std::pair{"randn_like", &randn_like}}) {
    m.def(
        name,
        [fn](const Tensor& t, EMBER_OPTION_PARAMS) { return fn(t, options(dt, dev, rg), nullptr); },
        nb::arg("input"), nb::kw_only(), EMBER_OPTION_ARGS);
  }
  m.def(
      "randint_like",
      [](const Tensor& t, int64_t a, std::optional<int64_t> b, EMBER_OPTION_PARAMS) {
        return b ? randint_like(t, a, *b, options(dt, dev, rg))
                 : randint_like(t, 0, a, options(dt, dev, rg));
      },
      nb::arg("input"), nb::arg("low"), nb::arg("high") = nb::none(), nb::kw_only(),
      EMBER_OPTION_ARGS);
  def_both(
      m, "bernoulli",
      [](const Tensor& x, std::optional<double> p, Generator* gen) {
        return p ? bernoulli(x, *p, gen) : bernoulli(x, gen);
      },
      nb::arg("p") = nb::none(), nb::kw_only(), nb::arg("generator").none() = nb::none());
  def_both(
      m, "multinomial",
      [](const Tensor& x, int64_t n, bool replacement, Generator* gen) {
        return multinomial(x, n, replacement, gen);
      },
      nb::arg("num_samples"), nb::arg("replacement") = false, nb::kw_only(),
      nb::arg("generator").none() = nb::none());
  // Samplers with per-element parameters (torch.poisson, torch.binomial, torch._standard_gamma;
  // ember._standard_gamma in Python adds the gradient to the last).
  m.def(
      "poisson", [](const Tensor& x, Generator* gen) { return poisson(x, gen); }, nb::arg("input"),
      nb::arg("generator").none() = nb::none());
  m.def(
      "binomial",
      [](const Tensor& count, const Tensor& prob, Generator* gen) {
        return binomial(count, prob, gen);
      },
      nb::arg("count"), nb::arg("prob"), nb::arg("generator").none() = nb::none());
  m.def(
      "_sample_gamma", [](const Tensor& x, Generator* gen) { return _standard_gamma(x, gen); },
      nb::arg("input"), nb::arg("generator").none() = nb::none());
  m.def("normal", &normal_py, nb::arg("mean"), nb::arg("std") = 1.0,
        nb::arg("size").none() = nb::none(), nb::kw_only(),
        nb::arg("generator").none() = nb::none(), nb::arg("dtype") = nb::none(),
        nb::arg("device") = nb::none(), nb::arg("requires_grad") = false);

  // In place: these return the same Python object, as PyTorch's do.
  cls.def(
      "normal_",
      [](nb::handle self, double mean, double std, Generator* gen) {
        normal_(nb::cast<Tensor&>(self), mean, std, gen);
        return nb::borrow(self);
      },
      nb::arg("mean") = 0.0, nb::arg("std") = 1.0, nb::kw_only(),
      nb::arg("generator").none() = nb::none());
  cls.def(
      "uniform_",
      [](nb::handle self, double from, double to, Generator* gen) {
        uniform_(nb::cast<Tensor&>(self), from, to, gen);
        return nb::borrow(self);
      },
      nb::arg("from") = 0.0, nb::arg("to") = 1.0, nb::kw_only(),
      nb::arg("generator").none() = nb::none());
  cls.def(
      "exponential_",
      [](nb::handle self, double lambd, Generator* gen) {
        exponential_(nb::cast<Tensor&>(self), lambd, gen);
        return nb::borrow(self);
      },
      nb::arg("lambd") = 1.0, nb::kw_only(), nb::arg("generator").none() = nb::none());
  cls.def("random_", [](nb::handle self, nb::args args, nb::kwargs kwargs) {
    random_py(nb::cast<Tensor&>(self), args, kwargs);
    return nb::borrow(self);
  });
  cls.def(
      "bernoulli_",
      [](nb::handle self, nb::handle p, Generator* gen) {
        Tensor& t = nb::cast<Tensor&>(self);
        if (is_tensor(p)) {
          bernoulli_(t, nb::cast<const Tensor&>(p), gen);
        } else {
          bernoulli_(t, number_arg(p, "bernoulli_(): p"), gen);
        }
        return nb::borrow(self);
      },
      nb::arg("p") = 0.5, nb::kw_only(), nb::arg("generator").none() = nb::none());
}

}  // namespace ember::py
