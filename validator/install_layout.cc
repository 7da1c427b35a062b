#include "opconform/validator/install_layout.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string_view>

#include "asan.h"

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

// A read-only mapping of a whole file, unmapped on scope exit; empty when it cannot be mapped.
class MappedFile {
 public:
  explicit MappedFile(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    struct stat st {};
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
      void* p = ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
      if (p != MAP_FAILED) {
        data_ = static_cast<const unsigned char*>(p);
        size_ = static_cast<std::size_t>(st.st_size);
      }
    }
    ::close(fd);
  }
  ~MappedFile() {
    if (data_) ::munmap(const_cast<unsigned char*>(data_), size_);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  // The object of type T at `offset`, or nullptr when it does not lie inside the file.
  template <typename T>
  const T* at(std::uint64_t offset, std::uint64_t count = 1) const {
    if (offset > size_ || count > (size_ - offset) / sizeof(T)) return nullptr;
    return reinterpret_cast<const T*>(data_ + offset);
  }
  std::size_t size() const { return size_; }

 private:
  const unsigned char* data_ = nullptr;
  std::size_t size_ = 0;
};

bool is_sanitizer_symbol(std::string_view name) {
  for (std::string_view prefix : {"__asan_", "__ubsan_", "__sanitizer_cov_"})
    if (name.substr(0, prefix.size()) == prefix) return true;
  return false;
}

}  // namespace

bool needs_sanitizer_runtime(const std::string& path) {
  const MappedFile file(path);
  const Elf64_Ehdr* eh = file.at<Elf64_Ehdr>(0);
  if (!eh || std::memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
      eh->e_shentsize != sizeof(Elf64_Shdr))
    return false;
  const Elf64_Shdr* sections = file.at<Elf64_Shdr>(eh->e_shoff, eh->e_shnum);
  if (!sections) return false;
  for (unsigned i = 0; i < eh->e_shnum; ++i) {
    const Elf64_Shdr& dynsym = sections[i];
    if (dynsym.sh_type != SHT_DYNSYM || dynsym.sh_link >= eh->e_shnum) continue;
    const Elf64_Shdr& strtab = sections[dynsym.sh_link];
    const Elf64_Sym* symbols = file.at<Elf64_Sym>(dynsym.sh_offset, dynsym.sh_size / sizeof(Elf64_Sym));
    const char* names = file.at<char>(strtab.sh_offset, strtab.sh_size);
    if (!symbols || !names) return false;
    for (std::uint64_t k = 0; k < dynsym.sh_size / sizeof(Elf64_Sym); ++k) {
      if (symbols[k].st_shndx != SHN_UNDEF || symbols[k].st_name >= strtab.sh_size) continue;
      const char* name = names + symbols[k].st_name;
      if (is_sanitizer_symbol(std::string_view(name, strnlen(name, strtab.sh_size - symbols[k].st_name)))) return true;
    }
  }
  return false;
}

WorkerChoice choose_worker(const std::string& impl) {
#if defined(OPCONFORM_ASAN)
  constexpr bool kThisBuildSanitized = true;  // its own worker carries the runtime too
#else
  constexpr bool kThisBuildSanitized = false;
#endif
  if (const char* env = std::getenv("OPCONFORM_WORKER"); env && *env) return {env, kThisBuildSanitized, false};
  const std::string plain = default_worker_path();
  if (kThisBuildSanitized || !needs_sanitizer_runtime(impl)) return {plain, kThisBuildSanitized, false};
  const std::string sanitized =
      located("OPCONFORM_SANITIZED_WORKER", fs::path(OPCONFORM_REL_LIBEXEC) / "sanitized" / "opconform-worker");
  if (::access(sanitized.c_str(), X_OK) == 0) return {sanitized, true, false};
  return {plain, false, true};
}

std::string default_worker_path() {
  return located("OPCONFORM_WORKER", fs::path(OPCONFORM_REL_LIBEXEC) / "opconform-worker");
}

std::string default_bundled_plugin() {
  return located("OPCONFORM_BUNDLED_PLUGIN", fs::path(OPCONFORM_REL_PLUGINS) / "libopconform_optimized_plugin.so");
}

std::string default_mutants_dir() { return located("OPCONFORM_MUTANTS", fs::path(OPCONFORM_REL_PLUGINS) / "mutants"); }

std::string default_fuzz_driver() {
  return located("OPCONFORM_FUZZ_DRIVER", fs::path(OPCONFORM_REL_LIBEXEC) / "opconform-fuzz-driver");
}

std::string default_fuzz_dicts_dir() { return located("OPCONFORM_FUZZ_DICTS", fs::path(OPCONFORM_REL_DATA) / "fuzz"); }

std::string default_vectors_dir() { return located("OPCONFORM_VECTORS", fs::path(OPCONFORM_REL_DATA) / "vectors"); }

}  // namespace opconform::validator
