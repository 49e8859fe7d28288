// The op registry: one record per public op (name, kind, dtypes, differentiability). The Python
// test suite checks that every record has an op-table entry and the reverse (design.md section 10).
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "ember/core/dtype.h"

namespace ember {

enum class OpKind : uint8_t {
  Creation,
  Random,
  View,
  Unary,
  Binary,
  Compare,
  Inplace,
  Reduction,
  Linalg,
  Other,
};

struct OpInfo {
  std::string_view name;
  OpKind kind;
  DTypeSet dtypes;      // input dtypes the op accepts; others raise
  bool differentiable;  // has a backward
  // The topic whose files declare the op: ops/<topic>.*, backend/kernels_<topic>.h,
  // backend/cpu/<topic>.cpp, python/src/<topic>.cpp, python/ember/testing/op_db/<topic>.py. The
  // topic tables leave it empty; op_registry() sets it.
  std::string_view topic = {};
};

std::string_view op_kind_name(OpKind kind);

// Every op, gathered from the topic files' tables (ops/creation.cpp, ops/view.cpp, ...).
const std::vector<OpInfo>& op_registry();

// The topic tables, one per ops/<topic>.cpp.
std::span<const OpInfo> creation_op_infos();
std::span<const OpInfo> random_op_infos();
std::span<const OpInfo> view_op_infos();
std::span<const OpInfo> elementwise_op_infos();
std::span<const OpInfo> reduce_op_infos();
std::span<const OpInfo> softmax_op_infos();
std::span<const OpInfo> statistics_op_infos();
std::span<const OpInfo> shape_op_infos();
std::span<const OpInfo> indexing_op_infos();
std::span<const OpInfo> sort_op_infos();
std::span<const OpInfo> scan_op_infos();
std::span<const OpInfo> complex_op_infos();
std::span<const OpInfo> fft_op_infos();
std::span<const OpInfo> linalg_op_infos();
std::span<const OpInfo> linalg_factor_op_infos();
std::span<const OpInfo> nn_conv_op_infos();
std::span<const OpInfo> nn_pool_op_infos();
std::span<const OpInfo> nn_resample_op_infos();
std::span<const OpInfo> nn_norm_op_infos();
std::span<const OpInfo> nn_dropout_op_infos();
std::span<const OpInfo> nn_loss_op_infos();
std::span<const OpInfo> nn_embedding_op_infos();
std::span<const OpInfo> nn_rnn_op_infos();
std::span<const OpInfo> nn_attention_op_infos();
std::span<const OpInfo> optim_op_infos();

}  // namespace ember
