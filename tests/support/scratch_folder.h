// scratch_folder (namespace opconform::testing): an empty folder of the test program's own under
// GoogleTest's temporary directory, removed with everything in it when the program exits, so
// that test runs leave nothing behind.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

namespace opconform::testing {

// <TempDir>/<prefix>-<pid>-<n>-<name>, n counting this program's calls: emptied if it exists.
inline std::filesystem::path scratch_folder(const std::string& prefix, const std::string& name) {
  namespace fs = std::filesystem;
  static struct Made {
    pid_t owner = ::getpid();  // a forked child that exits normally leaves them to the parent
    int count = 0;
    std::vector<fs::path> folders;
    ~Made() {
      if (::getpid() != owner) return;
      std::error_code ignored;
      for (const fs::path& folder : folders) fs::remove_all(folder, ignored);
    }
  } made;
  const fs::path dir = fs::path(::testing::TempDir()) /
                       (prefix + "-" + std::to_string(::getpid()) + "-" + std::to_string(made.count++) + "-" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  made.folders.push_back(dir);
  return dir;
}

}  // namespace opconform::testing
