#include "ember/nn/module.h"

#include <algorithm>
#include <sstream>
#include <unordered_set>

#include "ember/autograd/grad_mode.h"
#include "ember/ops/view.h"

namespace ember::nn {

std::vector<int64_t> Ints::expand(size_t n, const char* layer, const char* what) const {
  if (values.size() == 1) return std::vector<int64_t>(n, values[0]);
  EMBER_CHECK_VALUE(values.size() == n, "[", layer, "] ", what, " takes 1 or ", n, " values, got ",
                    values.size());
  return values;
}

Module::Module(std::string type_name) : type_name_(std::move(type_name)) {}

void Module::check_name(const std::string& name, const char* what) const {
  EMBER_CHECK_VALUE(!name.empty(), "[", type_name_, ".", what, "] the name must not be empty");
  EMBER_CHECK_VALUE(name.find('.') == std::string::npos, "[", type_name_, ".", what,
                    "] the name must not contain '.', got '", name, "'");
  // One name, one kind: a parameter may not shadow a buffer or a child (PyTorch's KeyError).
  const bool param =
      std::any_of(params_.begin(), params_.end(), [&](const auto& p) { return p.first == name; });
  const bool buffer =
      std::any_of(buffers_.begin(), buffers_.end(), [&](const auto& b) { return b.first == name; });
  const bool child = std::any_of(children_.begin(), children_.end(),
                                 [&](const auto& c) { return c.first == name; });
  const std::string kind = what;
  EMBER_CHECK_KIND(ErrorKind::Runtime,
                   !((param && kind != "register_parameter") ||
                     (buffer && kind != "register_buffer") || (child && kind != "register_module")),
                   "[", type_name_, ".", what, "] attribute '", name,
                   "' already exists as another kind (parameter, buffer or module)");
}

template <class V>
static V* find_entry(std::vector<std::pair<std::string, V>>& v, const std::string& name) {
  for (auto& [k, x] : v)
    if (k == name) return &x;
  return nullptr;
}

Tensor& Module::register_parameter(const std::string& name, Tensor t, bool requires_grad) {
  check_name(name, "register_parameter");
  if (t.defined()) {
    // A parameter is a leaf: a computed tensor is cut from its graph (nn.Parameter(t) does the
    // same by sharing the data of a fresh leaf).
    if (!t.is_leaf()) t = t.detach();
    t.requires_grad_(requires_grad);
  }
  if (Tensor* old = find_entry(params_, name)) {
    *old = std::move(t);
    return *old;
  }
  params_.emplace_back(name, std::move(t));
  return params_.back().second;
}

Tensor& Module::register_buffer(const std::string& name, Tensor t, bool persistent) {
  check_name(name, "register_buffer");
  if (Buffer* old = find_entry(buffers_, name)) {
    *old = Buffer{std::move(t), persistent};
    return old->tensor;
  }
  buffers_.emplace_back(name, Buffer{std::move(t), persistent});
  return buffers_.back().second.tensor;
}

void Module::add_child(const std::string& name, std::shared_ptr<Module> module) {
  check_name(name, "register_module");
  if (auto* old = find_entry(children_, name)) {
    *old = std::move(module);
    return;
  }
  children_.emplace_back(name, std::move(module));
}

// ---- Traversal -----------------------------------------------------------------------------

void Module::collect_named(std::vector<std::pair<std::string, Tensor>>& out,
                           const std::string& prefix,
                           bool recurse,
                           bool params) const {
  if (params) {
    for (const auto& [k, t] : params_)
      if (t.defined()) out.emplace_back(prefix + k, t);
  } else {
    for (const auto& [k, b] : buffers_)
      if (b.tensor.defined()) out.emplace_back(prefix + k, b.tensor);
  }
  if (!recurse) return;
  for (const auto& [k, c] : children_) c->collect_named(out, prefix + k + ".", true, params);
}

// Keeps the first name of each tensor, as PyTorch's named_parameters(remove_duplicate=True).
static std::vector<std::pair<std::string, Tensor>> dedup(
    std::vector<std::pair<std::string, Tensor>> all) {
  std::unordered_set<const TensorImpl*> seen;
  std::vector<std::pair<std::string, Tensor>> out;
  for (auto& e : all)
    if (seen.insert(e.second.impl()).second) out.push_back(std::move(e));
  return out;
}

std::vector<std::pair<std::string, Tensor>> Module::named_parameters(bool recurse) const {
  std::vector<std::pair<std::string, Tensor>> out;
  collect_named(out, "", recurse, true);
  return dedup(std::move(out));
}

std::vector<Tensor> Module::parameters(bool recurse) const {
  std::vector<Tensor> out;
  for (auto& [k, t] : named_parameters(recurse)) out.push_back(t);
  return out;
}

std::vector<std::pair<std::string, Tensor>> Module::named_buffers(bool recurse) const {
  std::vector<std::pair<std::string, Tensor>> out;
  collect_named(out, "", recurse, false);
  return dedup(std::move(out));
}

std::vector<Tensor> Module::buffers(bool recurse) const {
  std::vector<Tensor> out;
  for (auto& [k, t] : named_buffers(recurse)) out.push_back(t);
  return out;
}

std::vector<std::pair<std::string, std::shared_ptr<Module>>> Module::named_children() const {
  return children_;
}

std::vector<std::shared_ptr<Module>> Module::children() const {
  std::vector<std::shared_ptr<Module>> out;
  for (const auto& [k, c] : children_) out.push_back(c);
  return out;
}

std::vector<std::pair<std::string, std::shared_ptr<Module>>> Module::named_modules() {
  std::shared_ptr<Module> self = weak_from_this().lock();
  EMBER_CHECK(self != nullptr, "[", type_name_,
              ".named_modules] the module must be held by a std::shared_ptr (std::make_shared)");
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> out;
  std::unordered_set<const Module*> seen;
  // Depth first, pre-order, each module once (a shared child keeps its first name).
  auto visit = [&](auto&& self_fn, const std::string& prefix,
                   const std::shared_ptr<Module>& m) -> void {
    if (!seen.insert(m.get()).second) return;
    out.emplace_back(prefix, m);
    for (const auto& [k, c] : m->children_)
      self_fn(self_fn, prefix.empty() ? k : prefix + "." + k, c);
  };
  visit(visit, "", self);
  return out;
}

std::vector<std::shared_ptr<Module>> Module::modules() {
  std::vector<std::shared_ptr<Module>> out;
  for (auto& [k, m] : named_modules()) out.push_back(m);
  return out;
}

std::shared_ptr<Module> Module::submodule(const std::string& name) const {
  const Module* m = this;
  std::shared_ptr<Module> found;
  size_t start = 0;
  while (start <= name.size()) {
    const size_t dot = std::min(name.find('.', start), name.size());
    const std::string part = name.substr(start, dot - start);
    found = nullptr;
    for (const auto& [k, c] : m->children_)
      if (k == part) found = c;
    EMBER_CHECK_INDEX(found != nullptr, "[", type_name_, ".submodule] no submodule named '", name,
                      "'");
    m = found.get();
    start = dot + 1;
  }
  return found;
}

// Splits "a.b.weight" into the owner module ("a.b") and the leaf name ("weight").
static std::pair<Module*, std::string> owner_of(Module* root, const std::string& name) {
  const size_t dot = name.rfind('.');
  if (dot == std::string::npos) return {root, name};
  return {root->submodule(name.substr(0, dot)).get(), name.substr(dot + 1)};
}

Tensor& Module::parameter(const std::string& name) {
  auto [m, leaf] = owner_of(this, name);
  Tensor* t = find_entry(m->params_, leaf);
  EMBER_CHECK_INDEX(t != nullptr && t->defined(), "[", type_name_,
                    ".parameter] no parameter named '", name, "'");
  return *t;
}

Tensor& Module::buffer(const std::string& name) {
  auto [m, leaf] = owner_of(this, name);
  Buffer* b = find_entry(m->buffers_, leaf);
  EMBER_CHECK_INDEX(b != nullptr && b->tensor.defined(), "[", type_name_,
                    ".buffer] no buffer named '", name, "'");
  return b->tensor;
}

// ---- Modes and moves -----------------------------------------------------------------------

Module& Module::train(bool on) {
  training_ = on;
  for (auto& [k, c] : children_) c->train(on);
  return *this;
}

namespace {

// Every parameter and buffer slot of the tree (duplicates included: a shared tensor is moved
// once because its impl is updated in place).
void all_tensors(const Module& m, std::vector<Tensor>& out) {
  for (auto& [k, t] : m.named_parameters(false)) out.push_back(t);
  for (auto& [k, t] : m.named_buffers(false)) out.push_back(t);
  for (auto& c : m.children()) all_tensors(*c, out);
}

// Converts all tensors first, then swaps their data, so that a failed conversion (an unavailable
// device) leaves the module as it was.
template <class Convert>
void move_all(const Module& m, Convert convert, bool floating_only) {
  NoGradGuard no_grad;
  std::vector<Tensor> tensors;
  all_tensors(m, tensors);
  std::unordered_set<const TensorImpl*> seen;
  std::vector<std::pair<Tensor, Tensor>> moves;  // (target, new data)
  for (const Tensor& t : tensors) {
    if (!seen.insert(t.impl()).second) continue;
    if (floating_only && !t.is_floating_point()) continue;
    moves.emplace_back(t, convert(t));
    const Tensor g = t.grad();
    if (g.defined()) moves.emplace_back(g, convert(g));
  }
  for (auto& [target, data] : moves)
    if (!target.is_same(data)) target.impl()->set_data(*data.impl());
}

}  // namespace

Module& Module::to(DType dtype) {
  EMBER_CHECK_TYPE(is_floating(dtype), "[", type_name_,
                   ".to] only floating dtypes can be the dtype of a module, got ", dtype);
  move_all(
      *this, [&](const Tensor& t) { return t.to(dtype); }, true);
  return *this;
}

Module& Module::to(Device device) {
  try {
    move_all(
        *this, [&](const Tensor& t) { return t.to(device); }, false);
  } catch (const Error& e) {
    EMBER_FAIL_KIND(e.kind(), "[", type_name_, ".to] cannot move the module to ", device, ": ",
                    e.what());
  }
  return *this;
}

Module& Module::apply(const std::function<void(Module&)>& fn) {
  for (auto& [k, c] : children_) c->apply(fn);
  fn(*this);
  return *this;
}

void Module::zero_grad(bool set_to_none) {
  for (Tensor& p : parameters()) {
    Tensor g = p.grad();
    if (!g.defined()) continue;
    if (set_to_none) {
      p.set_grad(Tensor());
    } else {
      NoGradGuard no_grad;
      g.zero_();
    }
  }
}

// ---- State ---------------------------------------------------------------------------------

void Module::collect_state(StateDict& out, const std::string& prefix) const {
  for (const auto& [k, t] : params_)
    if (t.defined()) out.insert(prefix + k, t.detach());
  for (const auto& [k, b] : buffers_)
    if (b.persistent && b.tensor.defined()) out.insert(prefix + k, b.tensor.detach());
  for (const auto& [k, c] : children_) c->collect_state(out, prefix + k + ".");
}

StateDict Module::state_dict() const {
  StateDict out;
  collect_state(out, "");
  return out;
}

void Module::collect_slots(std::vector<std::pair<std::string, Tensor*>>& out,
                           const std::string& prefix) {
  for (auto& [k, t] : params_)
    if (t.defined()) out.emplace_back(prefix + k, &t);
  for (auto& [k, b] : buffers_)
    if (b.persistent && b.tensor.defined()) out.emplace_back(prefix + k, &b.tensor);
  for (auto& [k, c] : children_) c->collect_slots(out, prefix + k + ".");
}

static std::string shape_str(IntArrayRef s) {
  std::ostringstream os;
  os << "[";
  for (size_t i = 0; i < s.size(); ++i) os << (i ? ", " : "") << s[i];
  os << "]";
  return os.str();
}

LoadStateDictResult Module::load_state_dict(const StateDict& state, bool strict) {
  std::vector<std::pair<std::string, Tensor*>> slots;
  collect_slots(slots, "");
  std::vector<std::string> missing, unexpected, mismatched;
  for (const auto& [k, t] : slots) {
    const Tensor* src = state.find(k);
    if (src == nullptr) {
      missing.push_back(k);
    } else if (!(src->sizes() == t->sizes())) {
      mismatched.push_back("size mismatch for " + k + ": copying a param with shape " +
                           shape_str(src->sizes()) + " from checkpoint, the shape in current " +
                           "model is " + shape_str(t->sizes()) + ".");
    }
  }
  for (const auto& [k, v] : state) {
    const bool known =
        std::any_of(slots.begin(), slots.end(), [&](const auto& s) { return s.first == k; });
    if (!known) unexpected.push_back(k);
  }
  // PyTorch's message, byte for byte: missing keys, then unexpected ones (each line ending in
  // ". "), then the size mismatches, joined by "\n\t".
  std::string msg;
  auto list = [](const std::vector<std::string>& keys) {
    std::string s;
    for (size_t i = 0; i < keys.size(); ++i) s += (i ? ", \"" : "\"") + keys[i] + "\"";
    return s;
  };
  if (strict && !missing.empty())
    msg += "\n\tMissing key(s) in state_dict: " + list(missing) + ". ";
  if (strict && !unexpected.empty())
    msg += "\n\tUnexpected key(s) in state_dict: " + list(unexpected) + ". ";
  for (const auto& m : mismatched) msg += "\n\t" + m;
  EMBER_CHECK(msg.empty(), "Error(s) in loading state_dict for ", type_name_, ":", msg);

  NoGradGuard no_grad;
  for (auto& [k, t] : slots)
    if (const Tensor* src = state.find(k)) t->copy_(*src);
  return {std::move(missing), std::move(unexpected)};
}

// ---- Printing ------------------------------------------------------------------------------

std::string Module::repr() const {
  // PyTorch's _addindent: every line of a child's repr after the first is indented by 2.
  auto indent = [](const std::string& s) {
    std::string out;
    for (char c : s) {
      out += c;
      if (c == '\n') out += "  ";
    }
    return out;
  };
  std::vector<std::string> lines;
  const std::string extra = extra_repr();
  if (!extra.empty()) {
    std::istringstream is(extra);
    for (std::string line; std::getline(is, line);) lines.push_back(line);
  }
  for (const auto& [k, c] : children_) lines.push_back("(" + k + "): " + indent(c->repr()));
  std::string out = type_name_ + "(";
  if (!lines.empty()) {
    if (lines.size() == 1 && children_.empty()) {
      out += lines[0];
    } else {
      out += "\n";
      for (const auto& l : lines) out += "  " + l + "\n";
    }
  }
  return out + ")";
}

std::ostream& operator<<(std::ostream& os, const Module& m) { return os << m.repr(); }

}  // namespace ember::nn
