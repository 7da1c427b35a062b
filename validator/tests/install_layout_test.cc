// Which worker loads a plug-in (install_layout.h): an instrumented plug-in, told by the
// sanitizer symbols it leaves undefined, goes to the sanitized worker; anything else, and any
// file that is not a well-formed ELF library, to the plain one.
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "opconform/validator/install_layout.h"
#include "scratch_folder.h"

#include "../asan.h"

namespace opconform::validator {
namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  static const fs::path folder = testing::scratch_folder("opconform-install-layout", "files");
  return folder / name;
}

void write_prefix(const fs::path& from, const fs::path& to, std::size_t bytes) {
  std::ifstream in(from, std::ios::binary);
  std::string data(bytes, '\0');
  in.read(data.data(), static_cast<std::streamsize>(bytes));
  std::ofstream(to, std::ios::binary).write(data.data(), in.gcount());
}

TEST(SanitizerRuntime, TheBundledPluginNeedsItOnlyInASanitizedBuild) {
#if defined(OPCONFORM_ASAN)  // built instrumented, like everything in this build
  EXPECT_TRUE(needs_sanitizer_runtime(OPCONFORM_TEST_BUNDLED_PLUGIN));
#else
  EXPECT_FALSE(needs_sanitizer_runtime(OPCONFORM_TEST_BUNDLED_PLUGIN));
#endif
}

TEST(SanitizerRuntime, AnUndefinedAsanSymbolNeedsIt) {
  EXPECT_TRUE(needs_sanitizer_runtime(OPCONFORM_FAKE_NEEDS_SANITIZER));
}

TEST(SanitizerRuntime, ATruncatedOrForeignFileIsNotALibrary) {
  const fs::path fake = OPCONFORM_FAKE_NEEDS_SANITIZER;
  for (std::size_t bytes : {0, 4, 64, 200, 4096}) {
    const fs::path cut = scratch("cut-" + std::to_string(bytes) + ".so");
    write_prefix(fake, cut, bytes);
    EXPECT_FALSE(needs_sanitizer_runtime(cut.string())) << bytes << " bytes";
  }
  const fs::path text = scratch("text.so");
  std::ofstream(text) << "not an ELF file\n";
  EXPECT_FALSE(needs_sanitizer_runtime(text.string()));
  EXPECT_FALSE(needs_sanitizer_runtime(scratch("missing.so").string()));
  EXPECT_FALSE(needs_sanitizer_runtime(fs::temp_directory_path().string()));
}

TEST(ChooseWorker, APlainPluginGetsThePlainWorker) {
  unsetenv("OPCONFORM_WORKER");
  setenv("OPCONFORM_SANITIZED_WORKER", OPCONFORM_TEST_WORKER, 1);
  const WorkerChoice choice = choose_worker(OPCONFORM_TEST_BUNDLED_PLUGIN);
  EXPECT_EQ(choice.path, default_worker_path());
  EXPECT_FALSE(choice.lacks_sanitized);
  unsetenv("OPCONFORM_SANITIZED_WORKER");
}

#if !defined(OPCONFORM_ASAN)  // a sanitized build's own worker loads every plug-in
TEST(ChooseWorker, AnInstrumentedPluginGetsTheSanitizedWorker) {
  unsetenv("OPCONFORM_WORKER");
  setenv("OPCONFORM_SANITIZED_WORKER", OPCONFORM_TEST_WORKER, 1);  // any executable stands in
  WorkerChoice choice = choose_worker(OPCONFORM_FAKE_NEEDS_SANITIZER);
  EXPECT_EQ(choice.path, OPCONFORM_TEST_WORKER);
  EXPECT_TRUE(choice.sanitized);
  EXPECT_FALSE(choice.lacks_sanitized);

  setenv("OPCONFORM_SANITIZED_WORKER", scratch("no-such-worker").c_str(), 1);
  choice = choose_worker(OPCONFORM_FAKE_NEEDS_SANITIZER);
  EXPECT_TRUE(choice.lacks_sanitized);
  EXPECT_FALSE(choice.sanitized);
  unsetenv("OPCONFORM_SANITIZED_WORKER");
}
#endif

TEST(ChooseWorker, OpconformWorkerOverridesEverything) {
  setenv("OPCONFORM_WORKER", "/some/worker", 1);
  EXPECT_EQ(choose_worker(OPCONFORM_FAKE_NEEDS_SANITIZER).path, "/some/worker");
  EXPECT_FALSE(choose_worker(OPCONFORM_FAKE_NEEDS_SANITIZER).lacks_sanitized);
  unsetenv("OPCONFORM_WORKER");
}

}  // namespace
}  // namespace opconform::validator
