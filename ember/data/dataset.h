// ember::data datasets: a sample is an Example {data, target}; a Dataset maps an index in
// [0, size()) to one. The C++ counterpart of Python's map-style Dataset and TensorDataset.
#pragma once

#include <cstdint>
#include <utility>

#include "ember/core/error.h"
#include "ember/core/tensor.h"
#include "ember/ops/view.h"

namespace ember::data {

// One sample, or a batch of them stacked along a new first dimension.
struct Example {
  Tensor data;
  Tensor target;
};

class Dataset {
 public:
  virtual ~Dataset() = default;
  // Sample `index`, 0 <= index < size(). With DataLoader workers (num_workers > 0) get() is called
  // from several threads at once: it must not modify shared state without locking.
  virtual Example get(int64_t index) = 0;
  virtual int64_t size() const = 0;
};

// Rows of two tensors with the same first dimension: get(i) == {data[i], target[i]}.
class TensorDataset : public Dataset {
 public:
  TensorDataset(Tensor data, Tensor target) : data_(std::move(data)), target_(std::move(target)) {
    EMBER_CHECK_VALUE(data_.dim() > 0 && target_.dim() > 0,
                      "[TensorDataset] expected tensors with at least one dimension, got ",
                      data_.dim(), " and ", target_.dim());
    EMBER_CHECK_VALUE(data_.size(0) == target_.size(0),
                      "[TensorDataset] size mismatch between tensors: ", data_.size(0), " and ",
                      target_.size(0));
  }
  Example get(int64_t index) override {
    EMBER_CHECK_INDEX(index >= 0 && index < size(), "[TensorDataset] index ", index,
                      " is out of range for a dataset of size ", size());
    return {select(data_, 0, index), select(target_, 0, index)};
  }
  int64_t size() const override { return data_.size(0); }

 private:
  Tensor data_, target_;
};

}  // namespace ember::data
