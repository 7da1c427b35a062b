#include "opconform/validator/install_layout.h"

#include <cstdlib>
#include <filesystem>

// OPCONFORM_REL_LIBEXEC, OPCONFORM_REL_PLUGINS, OPCONFORM_REL_DATA: the install directories
// relative to bin/ (cmake/opconform_layout.cmake).

namespace opconform::validator {
namespace {

namespace fs = std::filesystem;

// $env when set and not empty, else <directory of the running executable>/<relative>.
std::string located(const char* env, const fs::path& relative) {
  if (const char* value = std::getenv(env); value && *value) return value;
  std::error_code ec;
  const fs::path self = fs::canonical("/proc/self/exe", ec);
  if (ec) return relative.string();
  return (self.parent_path() / relative).lexically_normal().string();
}

}  // namespace

std::string default_worker_path() {
  return located("OPCONFORM_WORKER", fs::path(OPCONFORM_REL_LIBEXEC) / "opconform-worker");
}

std::string default_bundled_plugin() {
  return located("OPCONFORM_BUNDLED_PLUGIN", fs::path(OPCONFORM_REL_PLUGINS) / "libopconform_optimized_plugin.so");
}

std::string default_mutants_dir() {
  return located("OPCONFORM_MUTANTS", fs::path(OPCONFORM_REL_PLUGINS) / "mutants");
}

std::string default_fuzz_driver() {
  return located("OPCONFORM_FUZZ_DRIVER", fs::path(OPCONFORM_REL_LIBEXEC) / "opconform-fuzz-driver");
}

std::string default_fuzz_dicts_dir() {
  return located("OPCONFORM_FUZZ_DICTS", fs::path(OPCONFORM_REL_DATA) / "fuzz");
}

std::string default_vectors_dir() {
  return located("OPCONFORM_VECTORS", fs::path(OPCONFORM_REL_DATA) / "vectors");
}

}  // namespace opconform::validator
