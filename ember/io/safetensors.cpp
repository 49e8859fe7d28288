#include "ember/io/safetensors.h"

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <limits>
#include <map>
#include <set>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ember/ops/creation.h"

namespace ember::io {

// The format stores integers and tensor data little-endian; ember copies bytes as they are.
static_assert(std::endian::native == std::endian::little,
              "ember's safetensors I/O assumes a little-endian host");

namespace {

using Json = nlohmann::ordered_json;

struct DTypeCode {
  DType dtype;
  const char* code;
};
// safetensors has no code for complex128 (its C64 is complex64).
constexpr DTypeCode kCodes[] = {
    {kFloat64, "F64"}, {kFloat32, "F32"}, {kFloat16, "F16"},   {kBFloat16, "BF16"},
    {kInt64, "I64"},   {kInt32, "I32"},   {kInt16, "I16"},     {kInt8, "I8"},
    {kUInt8, "U8"},    {kBool, "BOOL"},   {kComplex64, "C64"},
};

[[noreturn]] void corrupt(const std::string& source, const std::string& problem) {
  EMBER_FAIL("[ember.load] ", source, ": ", problem);
}

// Strict UTF-8 (no overlongs, no surrogates, nothing past U+10FFFF), as the official loader's
// Rust str does: a clearer message than the JSON parser's for a header that is not text.
bool valid_utf8(const unsigned char* s, size_t n, size_t* bad) {
  size_t i = 0;
  while (i < n) {
    unsigned c = s[i];
    size_t len = c < 0x80           ? 1
                 : (c >> 5) == 0x6  ? 2
                 : (c >> 4) == 0xE  ? 3
                 : (c >> 3) == 0x1E ? 4
                                    : 0;
    if (len == 0 || i + len > n) break;
    uint32_t cp = len == 1 ? c : c & (0x7F >> len);
    bool ok = true;
    for (size_t k = 1; k < len; ++k) {
      if ((s[i + k] & 0xC0) != 0x80) ok = false;
      cp = (cp << 6) | (s[i + k] & 0x3F);
    }
    constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (!ok || cp < kMin[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) break;
    i += len;
  }
  *bad = i;
  return i == n;
}

std::string shape_str(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

// A JSON number that is a non-negative integer fitting in int64, or an error naming `what`.
int64_t non_negative(const Json& v, const std::string& source, const std::string& what) {
  if (v.is_number_unsigned()) {
    uint64_t u = v.get<uint64_t>();
    if (u > uint64_t(std::numeric_limits<int64_t>::max()))
      corrupt(source, what + " is too large (" + std::to_string(u) + ")");
    return int64_t(u);
  }
  if (v.is_number_integer()) corrupt(source, what + " is negative (" + v.dump() + ")");
  corrupt(source, what + " must be a non-negative integer, got " + v.dump());
}

struct Entry {
  std::string name;
  DType dtype;
  std::vector<int64_t> shape;
  uint64_t begin, end;
};

Entry parse_entry(const std::string& name,
                  const Json& info,
                  uint64_t buffer_size,
                  const std::string& source) {
  const std::string where = "tensor '" + name + "'";
  if (!info.is_object()) corrupt(source, where + ": expected an object, got " + info.dump());
  for (const auto& [key, value] : info.items()) {
    if (key != "dtype" && key != "shape" && key != "data_offsets")
      corrupt(source, where + " has an unexpected field '" + key +
                          "' (expected dtype, shape and data_offsets)");
  }
  for (const char* field : {"dtype", "shape", "data_offsets"}) {
    if (!info.contains(field)) corrupt(source, where + " has no '" + field + "' field");
  }
  Entry e;
  e.name = name;
  const Json& dtype = info["dtype"];
  if (!dtype.is_string()) corrupt(source, where + ": dtype must be a string, got " + dtype.dump());
  e.dtype =
      dtype_from_safetensors(dtype.get<std::string>(), "[ember.load] " + source + ": " + where);

  const Json& shape = info["shape"];
  if (!shape.is_array()) corrupt(source, where + ": shape must be a list, got " + shape.dump());
  int64_t numel = 1;
  bool overflow = false;
  for (const Json& d : shape) {
    int64_t size = non_negative(d, source, where + ": a shape dim");
    e.shape.push_back(size);
    overflow |= __builtin_mul_overflow(numel, size, &numel);
  }
  uint64_t nbytes = 0;
  overflow |= __builtin_mul_overflow(uint64_t(numel), uint64_t(itemsize(e.dtype)), &nbytes);
  if (overflow) corrupt(source, where + ": shape " + shape_str(e.shape) + " has too many elements");

  const Json& offsets = info["data_offsets"];
  if (!offsets.is_array() || offsets.size() != 2)
    corrupt(source, where + ": data_offsets must be a list [begin, end], got " + offsets.dump());
  e.begin = uint64_t(non_negative(offsets[0], source, where + ": data_offsets begin"));
  e.end = uint64_t(non_negative(offsets[1], source, where + ": data_offsets end"));
  std::string range = "[";  // not "[" + std::string: GCC 12 -Wrestrict false positive at -O3
  range += std::to_string(e.begin) + ", " + std::to_string(e.end) + "]";
  if (e.end < e.begin)
    corrupt(source, where + ": data_offsets " + range + " end before they begin");
  if (e.end > buffer_size)
    corrupt(source, where + ": data_offsets " + range + " go beyond the data buffer (" +
                        std::to_string(buffer_size) + " bytes)");
  if (e.end - e.begin != nbytes)
    corrupt(source, where + ": data_offsets " + range + " span " + std::to_string(e.end - e.begin) +
                        " bytes, but dtype " + dtype.get<std::string>() + " and shape " +
                        shape_str(e.shape) + " need " + std::to_string(nbytes));
  return e;
}

Json parse_header(const char* text, size_t n, const std::string& source) {
  size_t bad = 0;
  if (!valid_utf8(reinterpret_cast<const unsigned char*>(text), n, &bad))
    corrupt(source, "the header is not valid UTF-8 (at byte " + std::to_string(8 + bad) + ")");
  if (n == 0 || text[0] != '{')
    corrupt(source, "the header does not start with '{' (not a safetensors file?)");
  // Duplicate names: the JSON parser would keep the last silently, so track keys per object.
  std::vector<std::set<std::string>> keys;
  auto callback = [&](int, Json::parse_event_t event, Json& parsed) {
    switch (event) {
      case Json::parse_event_t::object_start:
        keys.emplace_back();
        break;
      case Json::parse_event_t::array_start:
        keys.emplace_back();
        break;
      case Json::parse_event_t::object_end:
      case Json::parse_event_t::array_end:
        if (!keys.empty()) keys.pop_back();
        break;
      case Json::parse_event_t::key: {
        const std::string& key = parsed.get_ref<const std::string&>();
        if (!keys.back().insert(key).second)
          corrupt(source, "the header names '" + key + "' twice");
        break;
      }
      case Json::parse_event_t::value:
        break;
    }
    // A valid header nests three levels (header, tensor, shape); deeper is garbage.
    if (keys.size() > 8) corrupt(source, "the header nests too deeply");
    return true;
  };
  try {
    return Json::parse(text, text + n, callback);
  } catch (const Json::exception& e) {
    corrupt(source, std::string("the header is not valid JSON: ") + e.what());
  }
}

}  // namespace

const char* safetensors_dtype(DType t) {
  for (const auto& c : kCodes)
    if (c.dtype == t) return c.code;
  EMBER_FAIL("[ember.save] dtype ", t, " has no safetensors code");
}

DType dtype_from_safetensors(const std::string& code, const std::string& where) {
  for (const auto& c : kCodes)
    if (code == c.code) return c.dtype;
  EMBER_FAIL(where, ": dtype '", code,
             "' is not supported by ember (supported: F64, F32, F16, BF16, I64, I32, I16, I8, U8, "
             "BOOL)");
}

StateDict prepare_for_writing(const StateDict& tensors, const char* op, const std::string& where) {
  StateDict out;
  for (const auto& [name, t] : tensors) {
    EMBER_CHECK(t.defined(), "[", op, "] ", where, ": tensor '", name, "' is undefined");
    if (name == "__metadata__")
      EMBER_FAIL("[", op, "] ", where,
                 ": '__metadata__' is reserved by the format and cannot name a tensor");
    Tensor c = t.detach();
    if (!c.device().is_cpu()) c = c.to(kCPU);
    out.insert(name, c.contiguous());
  }
  return out;
}

std::vector<const StateDict::Item*> data_order(const StateDict& tensors) {
  std::vector<const StateDict::Item*> order;
  for (const auto& item : tensors) order.push_back(&item);
  std::stable_sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
    return a->second.element_size() > b->second.element_size();
  });
  return order;
}

std::string encode_header(const StateDict& tensors, const Metadata& metadata, const char* op) {
  Json header = Json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  std::map<std::string_view, uint64_t> offsets;
  uint64_t offset = 0;
  for (const StateDict::Item* item : data_order(tensors)) {
    offsets[item->first] = offset;
    offset += item->second.nbytes();
  }
  for (const auto& [name, t] : tensors) {
    EMBER_ASSERT(t.device().is_cpu() && t.is_contiguous(), "tensor '", name, "' not prepared");
    Json shape = Json::array();
    for (int64_t s : t.sizes()) shape.push_back(s);
    const uint64_t begin = offsets.at(name);
    header[name] = {{"dtype", safetensors_dtype(t.dtype())},
                    {"shape", std::move(shape)},
                    {"data_offsets", {begin, begin + t.nbytes()}}};
  }
  std::string text;
  try {
    text = header.dump();
  } catch (const Json::exception&) {
    EMBER_FAIL("[", op, "] a tensor name or metadata string is not valid UTF-8");
  }
  // Spaces after the JSON align the data to 8 bytes, as the official writer does.
  text.append((8 - text.size() % 8) % 8, ' ');
  uint64_t n = text.size();
  std::string out(8, '\0');
  std::memcpy(out.data(), &n, 8);
  return out + text;
}

std::string to_bytes(const StateDict& tensors, const Metadata& metadata) {
  StateDict ready = prepare_for_writing(tensors, "ember.save", "to bytes");
  std::string out = encode_header(ready, metadata, "ember.save");
  for (const StateDict::Item* item : data_order(ready))
    out.append(static_cast<const char*>(item->second.data_ptr()), item->second.nbytes());
  return out;
}

namespace {

// The header length from the first 8 bytes of a file of `size` bytes, checked.
uint64_t header_length(const uint8_t* first8, uint64_t size, const std::string& source) {
  if (size < 8)
    corrupt(source, "the file is too short to be a safetensors file (" + std::to_string(size) +
                        " bytes; the header length alone takes 8)");
  uint64_t n;
  std::memcpy(&n, first8, 8);
  if (n > kMaxHeaderBytes)
    corrupt(source, "the header length " + std::to_string(n) + " is absurd (the limit is " +
                        std::to_string(kMaxHeaderBytes) + " bytes): not a safetensors file?");
  if (n > size - 8)
    corrupt(source, "the header length " + std::to_string(n) +
                        " goes beyond the end of the file (" + std::to_string(size) +
                        " bytes): truncated?");
  return n;
}

// The validated header of a file of `size` bytes: entries in header order, and the metadata.
struct Layout {
  std::vector<Entry> entries;
  Metadata metadata;
  uint64_t data_start;
};

Layout parse_layout(const char* text, uint64_t n, uint64_t size, const std::string& source) {
  Json header = parse_header(text, n, source);
  if (!header.is_object()) corrupt(source, "the header is not a JSON object");
  Layout out;
  out.data_start = 8 + n;
  const uint64_t buffer_size = size - 8 - n;
  for (const auto& [name, info] : header.items()) {
    if (name == "__metadata__") {
      if (info.is_null()) continue;  // the official loader reads null as no metadata
      if (!info.is_object()) corrupt(source, "__metadata__ must be an object of strings");
      for (const auto& [k, v] : info.items()) {
        if (!v.is_string())
          corrupt(source, "__metadata__ value of '" + k + "' must be a string, got " + v.dump());
        out.metadata[k] = v.get<std::string>();
      }
      continue;
    }
    out.entries.push_back(parse_entry(name, info, buffer_size, source));
  }
  // The tensors must tile the buffer: sorted by offset, each starts where the previous ended.
  std::vector<const Entry*> by_offset;
  for (const Entry& e : out.entries) by_offset.push_back(&e);
  std::stable_sort(by_offset.begin(), by_offset.end(), [](const Entry* a, const Entry* b) {
    return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
  });
  uint64_t covered = 0;
  const Entry* prev = nullptr;
  for (const Entry* ep : by_offset) {
    const Entry& e = *ep;
    if (e.begin != covered) {
      std::string after = prev ? "after tensor '" + prev->name + "' ends" : "at the buffer start";
      corrupt(source,
              "tensor '" + e.name + "' starts at byte " + std::to_string(e.begin) +
                  ", but the data " + after + " at byte " + std::to_string(covered) +
                  (e.begin < covered ? " (overlapping tensors)" : " (a gap in the buffer)"));
    }
    covered = e.end;
    prev = &e;
  }
  if (covered != buffer_size)
    corrupt(source, "the tensors cover " + std::to_string(covered) +
                        " bytes of the data buffer, but it holds " + std::to_string(buffer_size) +
                        " (trailing bytes)");
  return out;
}

// Fresh tensors for a layout, their bytes filled by fill(destination, file offset, count).
template <class F>
Checkpoint materialize(Layout layout, F fill) {
  Checkpoint out;
  out.metadata = std::move(layout.metadata);
  for (const Entry& e : layout.entries) {
    Tensor t = empty(e.shape, TensorOptions(e.dtype));
    fill(t.data_ptr(), layout.data_start + e.begin, e.end - e.begin);
    // A bool byte other than 0 or 1 is undefined behaviour in C++: read it as true, as NumPy does.
    if (e.dtype == kBool) {
      auto* b = static_cast<uint8_t*>(t.data_ptr());
      for (int64_t i = 0; i < t.numel(); ++i) b[i] = b[i] != 0;
    }
    out.tensors.insert(e.name, std::move(t));
  }
  return out;
}

}  // namespace

Checkpoint decode(const uint8_t* data, size_t size, const std::string& source) {
  uint64_t n = header_length(data, size, source);
  Layout layout = parse_layout(reinterpret_cast<const char*>(data + 8), n, size, source);
  return materialize(std::move(layout), [&](void* dst, uint64_t offset, uint64_t count) {
    std::memcpy(dst, data + offset, count);
  });
}

Checkpoint decode_file(int fd, uint64_t size, const std::string& source) {
  // pread straight into each tensor's storage: one copy, and a file that shrinks meanwhile is a
  // short read (an error) rather than a SIGBUS as with a mapping.
  auto read_at = [&](void* dst, uint64_t offset, uint64_t count) {
    auto* p = static_cast<char*>(dst);
    while (count > 0) {
      ssize_t r = ::pread(fd, p, std::min<uint64_t>(count, uint64_t(1) << 30), off_t(offset));
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) corrupt(source, std::string("read failed: ") + std::strerror(errno));
      if (r == 0) corrupt(source, "the file ended early (changed while being read?)");
      p += r;
      offset += uint64_t(r);
      count -= uint64_t(r);
    }
  };
  uint8_t first8[8] = {};
  if (size >= 8) read_at(first8, 0, 8);
  uint64_t n = header_length(first8, size, source);
  std::string text(n, '\0');
  read_at(text.data(), 8, n);
  return materialize(parse_layout(text.data(), n, size, source), read_at);
}

}  // namespace ember::io
