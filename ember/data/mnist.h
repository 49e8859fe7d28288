// ember::data::MNIST and FashionMNIST: the IDX files of MNIST-style datasets (LeCun's format:
// a big-endian header, then unsigned bytes), gzip'd or plain, as torchvision.datasets.MNIST /
// FashionMNIST read them.
//
//   ember::data::FashionMNIST train("/usr/share/datasets/fashion-mnist", /*train=*/true);
//   train.images();   // uint8 [60000, 28, 28]
//   train.targets();  // int64 [60000]
//   train.get(0);     // {uint8 [28, 28], int64 scalar}
//
// The files are looked for in `root` itself (Debian's dataset-fashion-mnist layout: one folder
// with the four files) and then in torchvision's `root/<Name>/raw`. Each name is tried plain and
// with `.gz`; gzip is recognised by its magic bytes, not by the name.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ember/core/tensor.h"
#include "ember/data/dataset.h"

namespace ember::data {

// Reads one IDX file of unsigned bytes (type code 0x08), gzip'd or plain, into a uint8 tensor
// with the file's dimensions. Checks the magic number, the type code, the number of dimensions
// (`expected_dims`, or any when -1) and that the file holds exactly the data its header
// announces; a RuntimeError "[MNIST] <path>: <problem>" otherwise.
Tensor read_idx_ubyte(const std::string& path, int expected_dims = -1);

class MNIST : public Dataset {
 public:
  // The training set (60000 images in MNIST) or the test set (10000).
  explicit MNIST(const std::string& root, bool train = true);

  // {image: uint8 [rows, cols], target: int64 scalar}. Tensors share the dataset's memory.
  Example get(int64_t index) override;
  int64_t size() const override { return targets_.size(0); }

  // torchvision's `data` and `targets`: uint8 [N, rows, cols] and int64 [N].
  const Tensor& images() const { return images_; }
  const Tensor& targets() const { return targets_; }
  const std::vector<std::string>& classes() const { return classes_; }
  const std::string& root() const { return root_; }
  bool train() const { return train_; }
  // The folder the files were read from (root, or root/<Name>/raw).
  const std::string& folder() const { return folder_; }

 protected:
  // For subclasses: `name` is torchvision's class name (the raw folder and error messages).
  MNIST(const std::string& root, bool train, std::string name, std::vector<std::string> classes);

 private:
  void load();

  std::string root_, name_, folder_;
  bool train_;
  std::vector<std::string> classes_;
  Tensor images_, targets_;
};

// Zalando's Fashion-MNIST: the same files and format, ten kinds of clothing.
class FashionMNIST : public MNIST {
 public:
  explicit FashionMNIST(const std::string& root, bool train = true);
};

}  // namespace ember::data
