// The safetensors format: an 8-byte little-endian header length, a JSON header that names each
// tensor's dtype, shape and byte range, then the tensors' bytes. Encoding and strict decoding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ember/io/state_dict.h"

namespace ember::io {

using Metadata = std::map<std::string, std::string>;

// What a safetensors file holds: tensors in the order of the header, and the string-to-string
// "__metadata__" of its header.
struct Checkpoint {
  StateDict tensors;
  Metadata metadata;
};

// The largest header accepted (the official loader's limit): a larger length is a corrupt file.
inline constexpr uint64_t kMaxHeaderBytes = 100'000'000;

// The safetensors code of a dtype ("F32") and back; an unknown or unsupported code is a
// RuntimeError that names it and lists the supported ones.
const char* safetensors_dtype(DType t);
DType dtype_from_safetensors(const std::string& code, const std::string& where);

// The order of the tensors' bytes in the buffer: by element size, largest first, otherwise as
// given, so that every tensor starts at a multiple of its element size (as the official writer
// arranges it; zero-copy readers want aligned data). The header keeps the given order.
std::vector<const StateDict::Item*> data_order(const StateDict& tensors);

// The prefix of a file: the 8-byte length and the JSON header, padded with spaces so that the
// data starts at a multiple of 8 bytes. `tensors` must be CPU and contiguous; the header lists
// them in their order, with data offsets in data_order. `op` names the caller in errors.
std::string encode_header(const StateDict& tensors, const Metadata& metadata, const char* op);

// The whole file in memory (for Python file objects). Tensors on another device are copied to
// the CPU and non-contiguous ones are written contiguous.
std::string to_bytes(const StateDict& tensors, const Metadata& metadata = {});

// Validates `size` bytes of a safetensors file and copies its tensors into fresh CPU tensors.
// Every defect is a RuntimeError "[ember.load] <source>: <problem>", never a crash.
Checkpoint decode(const uint8_t* data, size_t size, const std::string& source);
// The same for an open file of `size` bytes, read with pread straight into the tensors.
Checkpoint decode_file(int fd, uint64_t size, const std::string& source);

// The tensors of a state dict as they are written: on the CPU, contiguous, detached.
StateDict prepare_for_writing(const StateDict& tensors, const char* op, const std::string& where);

}  // namespace ember::io
