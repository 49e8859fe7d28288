#include "ember/ops/registry.h"

#include <utility>

namespace ember {

std::string_view op_kind_name(OpKind kind) {
  constexpr std::string_view names[] = {"creation", "random",  "view",      "unary",  "binary",
                                        "compare",  "inplace", "reduction", "linalg", "other"};
  return names[int(kind)];
}

const std::vector<OpInfo>& op_registry() {
  static const std::vector<OpInfo> all = [] {
    const std::pair<std::string_view, std::span<const OpInfo>> tables[] = {
        {"creation", creation_op_infos()},
        {"random", random_op_infos()},
        {"view", view_op_infos()},
        {"elementwise", elementwise_op_infos()},
        {"reduce", reduce_op_infos()},
        {"softmax", softmax_op_infos()},
        {"statistics", statistics_op_infos()},
        {"shape", shape_op_infos()},
        {"indexing", indexing_op_infos()},
        {"sort", sort_op_infos()},
        {"scan", scan_op_infos()},
        {"complex", complex_op_infos()},
        {"fft", fft_op_infos()},
        {"linalg", linalg_op_infos()},
        {"linalg_factor", linalg_factor_op_infos()},
        {"nn_conv", nn_conv_op_infos()},
        {"nn_pool", nn_pool_op_infos()},
        {"nn_resample", nn_resample_op_infos()},
        {"nn_norm", nn_norm_op_infos()},
        {"nn_dropout", nn_dropout_op_infos()},
        {"nn_loss", nn_loss_op_infos()},
        {"nn_embedding", nn_embedding_op_infos()},
        {"nn_rnn", nn_rnn_op_infos()},
        {"nn_attention", nn_attention_op_infos()},
        {"optim", optim_op_infos()},
    };
    std::vector<OpInfo> v;
    for (const auto& [topic, table] : tables) {
      for (OpInfo info : table) {
        info.topic = topic;
        v.push_back(info);
      }
    }
    return v;
  }();
  return all;
}

}  // namespace ember
