// Custom autograd functions in C++, shaped like PyTorch's torch::autograd::Function:
//
//   struct Square : ember::Function<Square> {
//     static ember::Tensor forward(ember::AutogradContext* ctx, const ember::Tensor& x) {
//       ctx->save_for_backward({x});
//       return x * x;
//     }
//     static ember::TensorList backward(ember::AutogradContext* ctx, ember::TensorList grads) {
//       auto x = ctx->get_saved_variables()[0];
//       return {2 * x * grads[0]};
//     }
//   };
//   ember::Tensor y = Square::apply(x);
//
// forward runs without recording; backward returns one gradient per forward argument (an
// undefined Tensor for arguments that are not tensors or need none).
#pragma once

#include <any>
#include <map>
#include <string>
#include <type_traits>

#include "ember/autograd/grad_mode.h"
#include "ember/autograd/node.h"

namespace ember {

namespace detail {
template <class F>
struct CppFunctionNode;
}

class AutogradContext {
 public:
  void save_for_backward(TensorList to_save) { to_save_ = std::move(to_save); }
  TensorList get_saved_variables() const;
  void mark_non_differentiable(const TensorList& outputs) {
    for (const Tensor& t : outputs) non_differentiable_.push_back(t.impl());
  }
  // Whether forward argument i (counting all arguments) needs a gradient.
  bool needs_input_grad(size_t i) const { return i < needs_grad_.size() && needs_grad_[i]; }
  // Anything else backward needs (sizes, flags...).
  std::map<std::string, std::any> saved_data;

 private:
  template <class T>
  friend struct Function;
  template <class F>
  friend struct detail::CppFunctionNode;
  TensorList to_save_;
  std::vector<SavedTensor> saved_;
  std::vector<TensorImpl*> non_differentiable_;
  std::vector<bool> needs_grad_;
  std::vector<int> arg_of_input_;  // for each tensor input: its argument position
  size_t num_args_ = 0;
  const Node* node_ = nullptr;
};

namespace detail {

template <class F>
struct CppFunctionNode final : Node {
  std::string name() const override { return name_; }
  TensorList apply(TensorList&& grads) override {
    if (released_) throw_released(name_);
    TensorList per_arg = F::backward(&ctx, std::move(grads));
    EMBER_CHECK(per_arg.size() == ctx.num_args_, "[", name_, "] backward returned ", per_arg.size(),
                " gradients, but forward took ", ctx.num_args_, " arguments");
    TensorList out;
    for (int arg : ctx.arg_of_input_) out.push_back(per_arg[size_t(arg)]);
    return out;
  }
  void release_variables() override {
    ctx.saved_.clear();
    released_ = true;
  }
  std::string name_;
  AutogradContext ctx;
  bool released_ = false;
};

template <class T>
void collect(std::vector<const Tensor*>& tensors, std::vector<int>& args, int pos, const T& v) {
  if constexpr (std::is_same_v<std::decay_t<T>, Tensor>) {
    tensors.push_back(&v);
    args.push_back(pos);
  }
}

}  // namespace detail

template <class T>
struct Function {
  template <class... Args>
  static auto apply(Args&&... args) {
    auto node = std::make_shared<detail::CppFunctionNode<T>>();
    node->name_ = "CppFunction";
    AutogradContext& ctx = node->ctx;
    std::vector<const Tensor*> inputs;
    int pos = 0;
    (detail::collect(inputs, ctx.arg_of_input_, pos++, args), ...);
    ctx.num_args_ = sizeof...(Args);
    ctx.needs_grad_.assign(sizeof...(Args), false);
    bool any = false;
    for (size_t i = 0; i < inputs.size(); ++i) {
      const bool r = GradMode::is_enabled() && inputs[i]->defined() && inputs[i]->requires_grad();
      ctx.needs_grad_[size_t(ctx.arg_of_input_[i])] = r;
      any |= r;
    }
    ctx.node_ = node.get();
    auto result = [&] {
      NoGradGuard no_grad;
      return T::forward(&ctx, std::forward<Args>(args)...);
    }();
    TensorList outs;
    if constexpr (std::is_same_v<decltype(result), Tensor>) {
      outs.push_back(result);
    } else {
      outs = result;
    }
    if (any) {
      // An output that is one of the inputs (forward returned its argument) becomes an alias:
      // giving the input itself a grad_fn would cut it from its own history.
      for (Tensor& o : outs) {
        for (const Tensor* in : inputs) {
          if (in->is_same(o)) {
            o = Tensor(make_ref<TensorImpl>(o.storage(), o.dtype(), o.sizes(), o.strides(),
                                            o.storage_offset()));
          }
        }
      }
      std::vector<const Tensor*> diff;
      for (Tensor& o : outs) {
        bool nd = false;
        for (TensorImpl* impl : ctx.non_differentiable_) nd |= impl == o.impl();
        if (!nd && is_differentiable(o.dtype())) diff.push_back(&o);
      }
      set_history(node, inputs, diff);
    }
    // Saved outputs are kept without their graph (SavedTensor's note on cycles).
    for (const Tensor& s : ctx.to_save_) {
      int64_t output_nr = -1;
      for (size_t i = 0; i < outs.size(); ++i)
        if (outs[i].is_same(s) && outs[i].grad_fn() == std::static_pointer_cast<Node>(node))
          output_nr = outs[i].output_nr();
      ctx.saved_.push_back(output_nr >= 0 ? SavedTensor(s, uint32_t(output_nr)) : SavedTensor(s));
    }
    ctx.to_save_.clear();
    if constexpr (std::is_same_v<decltype(result), Tensor>) {
      return outs[0];
    } else {
      return outs;
    }
  }
};

inline TensorList AutogradContext::get_saved_variables() const {
  TensorList out;
  for (const SavedTensor& s : saved_) out.push_back(s.unpack(*node_));
  return out;
}

}  // namespace ember
