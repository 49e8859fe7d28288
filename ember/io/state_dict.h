// StateDict: named tensors in insertion order, what Module::state_dict() returns and what
// ember::save writes (the C++ counterpart of Python's OrderedDict of tensors).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ember/core/error.h"
#include "ember/core/tensor.h"

namespace ember {

class StateDict {
 public:
  using Item = std::pair<std::string, Tensor>;

  // Adds `name`, or replaces its tensor if present (the entry keeps its first position).
  void insert(std::string name, Tensor t) {
    if (Tensor* old = find(name)) {
      *old = std::move(t);
      return;
    }
    items_.emplace_back(std::move(name), std::move(t));
  }
  // Linear search: state dicts hold hundreds of entries, and order matters more than lookup.
  Tensor* find(std::string_view name) {
    for (auto& [k, v] : items_)
      if (k == name) return &v;
    return nullptr;
  }
  const Tensor* find(std::string_view name) const {
    return const_cast<StateDict*>(this)->find(name);
  }
  bool contains(std::string_view name) const { return find(name) != nullptr; }
  const Tensor& at(std::string_view name) const {
    const Tensor* t = find(name);
    EMBER_CHECK_INDEX(t != nullptr, "[StateDict] no entry named '", name, "'");
    return *t;
  }

  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  auto begin() const { return items_.begin(); }
  auto end() const { return items_.end(); }
  auto begin() { return items_.begin(); }
  auto end() { return items_.end(); }

 private:
  std::vector<Item> items_;
};

}  // namespace ember
