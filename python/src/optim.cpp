// Bindings of the fused multi-tensor optimizer updates (ember/ops/optim.h) in the submodule
// ember._C._optim: ember.optim's Python classes call one of them per parameter group and step.
#include "ember/ops/optim.h"

#include "init.h"

namespace ember::py {

void init_optim(nb::module_& m) {
  nb::module_ o = m.def_submodule("_optim", "ember.optim's fused multi-tensor updates");
  using TL = std::vector<Tensor>;

  o.def("adam_", &fused_adam_, nb::arg("params"), nb::arg("grads"), nb::arg("exp_avgs"),
        nb::arg("exp_avg_sqs"), nb::arg("max_exp_avg_sqs"), nb::arg("state_steps"), nb::kw_only(),
        nb::arg("lr"), nb::arg("beta1"), nb::arg("beta2"), nb::arg("weight_decay"), nb::arg("eps"),
        nb::arg("amsgrad"), nb::arg("maximize"), nb::arg("decoupled") = false,
        "Adam (AdamW with decoupled=True) over lists of tensors, in place; adds 1 to each step.");
  // Buffers not created yet are None: they are made from this step's gradient and returned.
  o.def(
      "sgd_",
      [](const TL& params, const TL& grads, const std::vector<std::optional<Tensor>>& bufs,
         double lr, double momentum, double dampening, double weight_decay, bool nesterov,
         bool maximize) {
        TL b;
        b.reserve(bufs.size());
        for (const auto& t : bufs) b.push_back(t ? *t : Tensor());
        return fused_sgd_(params, grads, b, lr, momentum, dampening, weight_decay, nesterov,
                          maximize);
      },
      nb::arg("params"), nb::arg("grads"), nb::arg("momentum_buffers"), nb::kw_only(),
      nb::arg("lr"), nb::arg("momentum"), nb::arg("dampening"), nb::arg("weight_decay"),
      nb::arg("nesterov"), nb::arg("maximize"),
      "SGD over lists of tensors, in place; returns the momentum buffers (new ones for None).");
  o.def("rmsprop_", &fused_rmsprop_, nb::arg("params"), nb::arg("grads"), nb::arg("square_avgs"),
        nb::arg("grad_avgs"), nb::arg("momentum_buffers"), nb::arg("state_steps"), nb::kw_only(),
        nb::arg("lr"), nb::arg("alpha"), nb::arg("eps"), nb::arg("weight_decay"),
        nb::arg("momentum"), nb::arg("centered"), nb::arg("maximize"),
        "RMSprop over lists of tensors, in place; adds 1 to each step.");
  o.def("adagrad_", &fused_adagrad_, nb::arg("params"), nb::arg("grads"), nb::arg("state_sums"),
        nb::arg("state_steps"), nb::kw_only(), nb::arg("lr"), nb::arg("lr_decay"),
        nb::arg("weight_decay"), nb::arg("eps"), nb::arg("maximize"),
        "Adagrad over lists of tensors, in place; adds 1 to each step.");
  o.def("adadelta_", &fused_adadelta_, nb::arg("params"), nb::arg("grads"), nb::arg("square_avgs"),
        nb::arg("acc_deltas"), nb::arg("state_steps"), nb::kw_only(), nb::arg("lr"), nb::arg("rho"),
        nb::arg("eps"), nb::arg("weight_decay"), nb::arg("maximize"),
        "Adadelta over lists of tensors, in place; adds 1 to each step.");
  o.def("adamax_", &fused_adamax_, nb::arg("params"), nb::arg("grads"), nb::arg("exp_avgs"),
        nb::arg("exp_infs"), nb::arg("state_steps"), nb::kw_only(), nb::arg("lr"), nb::arg("beta1"),
        nb::arg("beta2"), nb::arg("eps"), nb::arg("weight_decay"), nb::arg("maximize"),
        "Adamax over lists of tensors, in place; adds 1 to each step.");
  o.def("nadam_", &fused_nadam_, nb::arg("params"), nb::arg("grads"), nb::arg("exp_avgs"),
        nb::arg("exp_avg_sqs"), nb::arg("mu_products"), nb::arg("state_steps"), nb::kw_only(),
        nb::arg("lr"), nb::arg("beta1"), nb::arg("beta2"), nb::arg("eps"), nb::arg("weight_decay"),
        nb::arg("momentum_decay"), nb::arg("decoupled_weight_decay"), nb::arg("maximize"),
        "NAdam over lists of tensors, in place; adds 1 to each step.");
  o.def("radam_", &fused_radam_, nb::arg("params"), nb::arg("grads"), nb::arg("exp_avgs"),
        nb::arg("exp_avg_sqs"), nb::arg("state_steps"), nb::kw_only(), nb::arg("lr"),
        nb::arg("beta1"), nb::arg("beta2"), nb::arg("eps"), nb::arg("weight_decay"),
        nb::arg("decoupled_weight_decay"), nb::arg("maximize"),
        "RAdam over lists of tensors, in place; adds 1 to each step.");
  o.def("asgd_", &fused_asgd_, nb::arg("params"), nb::arg("grads"), nb::arg("axs"), nb::arg("etas"),
        nb::arg("mus"), nb::arg("state_steps"), nb::kw_only(), nb::arg("lr"), nb::arg("lambd"),
        nb::arg("alpha"), nb::arg("t0"), nb::arg("weight_decay"), nb::arg("maximize"),
        "ASGD over lists of tensors, in place; adds 1 to each step.");
  o.def("rprop_", &fused_rprop_, nb::arg("params"), nb::arg("grads"), nb::arg("prevs"),
        nb::arg("step_sizes"), nb::arg("state_steps"), nb::kw_only(), nb::arg("etaminus"),
        nb::arg("etaplus"), nb::arg("step_size_min"), nb::arg("step_size_max"), nb::arg("maximize"),
        "Rprop over lists of tensors, in place; adds 1 to each step.");
}

}  // namespace ember::py
