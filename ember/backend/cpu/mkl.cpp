// Loading oneMKL's runtime (mkl.h says why at run time and how it is found).
#include "ember/backend/cpu/mkl.h"

#include <dlfcn.h>
#include <omp.h>

#include <cstdlib>
#include <vector>

namespace ember::cpu {
namespace {

constexpr int kMklThreadingSequential = 1;
constexpr int kMklThreadingGnu = 3;

constexpr const char* kMklNames[] = {"libmkl_rt.so.3", "libmkl_rt.so.2", "libmkl_rt.so"};

// libmkl_rt by the dynamic loader's search, then in each directory libember itself searches
// (its RUNPATH with $ORIGIN expanded, read with dlinfo). The second is needed where dlopen is
// intercepted (AddressSanitizer's runtime calls it, so the loader sees that library's RUNPATH,
// not libember's).
void* open_by_name() {
  for (const char* name : kMklNames) {
    if (void* lib = dlopen(name, RTLD_NOW | RTLD_LOCAL)) return lib;
  }
  Dl_info self{};
  if (dladdr(reinterpret_cast<void*>(&open_by_name), &self) == 0 || !self.dli_fname) return nullptr;
  void* ember = dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD);
  if (!ember) return nullptr;
  void* lib = nullptr;
  Dl_serinfo size{};
  if (dlinfo(ember, RTLD_DI_SERINFOSIZE, &size) == 0) {
    std::vector<char> buf(size.dls_size);
    auto* info = reinterpret_cast<Dl_serinfo*>(buf.data());
    *info = size;
    if (dlinfo(ember, RTLD_DI_SERINFO, info) == 0) {
      for (unsigned i = 0; i < info->dls_cnt && !lib; ++i) {
        for (const char* name : kMklNames) {
          const std::string path = std::string(info->dls_serpath[i].dls_name) + "/" + name;
          if ((lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL))) break;
        }
      }
    }
  }
  dlclose(ember);  // drops the reference RTLD_NOLOAD took
  return lib;
}

MklRuntime load() {
  MklRuntime m;
  // MKL's GNU threading layer needs libgomp's symbols in the global scope, but Python loads
  // ember's module (and so libgomp) with RTLD_LOCAL: promote the copy already loaded.
  Dl_info omp{};
  const bool omp_global = dladdr(reinterpret_cast<void*>(&omp_get_max_threads), &omp) != 0 &&
                          omp.dli_fname != nullptr &&
                          dlopen(omp.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL) != nullptr;
  std::string tried;
  if (const char* path = std::getenv("EMBER_MKL_RT"); path && *path) {
    m.lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!m.lib) tried = std::string(" (EMBER_MKL_RT: ") + dlerror() + ")";
  } else {
    m.lib = open_by_name();
  }
  if (!m.lib) {
    m.error = "oneMKL's runtime (libmkl_rt.so) was not found" + tried +
              ": `pip install mkl` into ember's Python environment, or set EMBER_MKL_RT to the "
              "path of libmkl_rt.so.3";
    return m;
  }
  auto set_layer = reinterpret_cast<int (*)(int)>(dlsym(m.lib, "MKL_Set_Threading_Layer"));
  if (!set_layer) {
    m.error = "libmkl_rt has no MKL_Set_Threading_Layer";
    m.lib = nullptr;
    return m;
  }
  set_layer(omp_global ? kMklThreadingGnu : kMklThreadingSequential);
  return m;
}

}  // namespace

const MklRuntime& mkl_runtime() {
  static const MklRuntime m = load();
  return m;
}

void* mkl_symbol(const char* name) {
  const MklRuntime& m = mkl_runtime();
  return m.lib ? dlsym(m.lib, name) : nullptr;
}

}  // namespace ember::cpu
