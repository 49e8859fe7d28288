// ember::save and ember::load: checkpoints of named tensors as safetensors files (the format the
// Python front end writes too). Saves are atomic, loads are validated.
#pragma once

#include <map>
#include <string>

#include "ember/io/safetensors.h"
#include "ember/io/state_dict.h"

namespace ember {

// Writes `tensors` (in their order) and the string metadata to `path`. Atomic: the data goes to a
// temporary file in the same folder, which is flushed to disk and then renamed over `path`; on
// any error the temporary is removed and an existing file at `path` is left as it was. Tensors on
// another device are copied to the CPU; non-contiguous ones are written contiguous.
void save(const StateDict& tensors,
          const std::string& path,
          const std::map<std::string, std::string>& metadata = {});

// Reads a safetensors file into fresh CPU tensors, in the order of its header. A missing,
// unreadable or malformed file is a RuntimeError "[ember.load] <path>: <problem>".
StateDict load(const std::string& path);
// The same, with the header's "__metadata__".
io::Checkpoint load_with_metadata(const std::string& path);

}  // namespace ember
