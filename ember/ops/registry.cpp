#include "ember/ops/registry.h"

namespace ember {

std::string_view op_kind_name(OpKind kind) {
  constexpr std::string_view names[] = {"creation", "random",  "view",      "unary",  "binary",
                                        "compare",  "inplace", "reduction", "linalg", "other"};
  return names[int(kind)];
}

const std::vector<OpInfo>& op_registry() {
  static const std::vector<OpInfo> all = [] {
    std::vector<OpInfo> v;
    for (auto table :
         {creation_op_infos(), view_op_infos(), elementwise_op_infos(), reduce_op_infos(),
          statistics_op_infos(), shape_op_infos(), softmax_op_infos(), indexing_op_infos(),
          sort_op_infos(), linalg_op_infos(), random_op_infos(), nn_conv_op_infos(),
          nn_pool_op_infos(), nn_norm_op_infos(), nn_loss_op_infos(), nn_rnn_op_infos()}) {
      v.insert(v.end(), table.begin(), table.end());
    }
    return v;
  }();
  return all;
}

}  // namespace ember
