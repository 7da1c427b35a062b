// find_vector_files: every *.json below the named folders, and every path it cannot read named.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

#include <gtest/gtest.h>

#include "opconform/conformance/vector.h"
#include "opconform/conformance/vector_files.h"
#include "scratch_folder.h"

namespace opconform::conformance {
namespace {

namespace fs = std::filesystem;

fs::path fresh(const std::string& name) { return testing::scratch_folder("vector-files", name); }

TEST(VectorFiles, WalksFoldersSortedAndNamesWhatItCannotRead) {
  const fs::path dir = fresh("walk");
  fs::create_directories(dir / "b-sub" / "deeper");
  fs::create_directories(dir / "empty");
  for (const fs::path& f : {dir / "z.json", dir / "a.json", dir / "b-sub" / "c.json",
                            dir / "b-sub" / "deeper" / "d.json", dir / "notes.txt"})
    std::ofstream(f) << "{}";
  fs::create_symlink("loop.json", dir / "loop.json");
  fs::create_symlink("gone.json", dir / "dangling.json");
  fs::create_directory_symlink(".", dir / "b-sub" / "cycle");  // not followed

  const VectorFiles found =
      find_vector_files({dir.string(), (dir / "missing.json").string(), (dir / "empty").string()});
  EXPECT_EQ(found.files, (std::vector<std::string>{(dir / "a.json").string(), (dir / "b-sub" / "c.json").string(),
                                                   (dir / "b-sub" / "deeper" / "d.json").string(),
                                                   (dir / "z.json").string()}));  // sorted by path
  ASSERT_EQ(found.problems.size(), 3u);
  std::map<std::string, std::string> why;
  for (const VectorFileProblem& p : found.problems) why[p.path] = p.reason;
  EXPECT_EQ(why[(dir / "loop.json").string()], "cannot read: Too many levels of symbolic links");
  EXPECT_EQ(why[(dir / "dangling.json").string()], "cannot read: dangling symbolic link to 'gone.json'");
  EXPECT_EQ(why[(dir / "missing.json").string()], "cannot read: no such file or folder");
  EXPECT_EQ(found.empty_folders, (std::vector<std::string>{(dir / "empty").string()}));
  EXPECT_EQ(problem_text(found.problems[0]), found.problems[0].path + ": " + found.problems[0].reason);
}

TEST(VectorFiles, ANamedFileIsTakenAsIs) {
  const fs::path dir = fresh("named");
  std::ofstream(dir / "x.txt") << "{}";
  const VectorFiles found = find_vector_files({(dir / "x.txt").string()});
  EXPECT_EQ(found.files, (std::vector<std::string>{(dir / "x.txt").string()}));
  EXPECT_TRUE(found.problems.empty());
}

// A link to nothing, named on the command line or read, is called what it is, not "no such file".
TEST(VectorFiles, ADanglingLinkIsNamedAsOne) {
  const fs::path dir = fresh("dangling");
  fs::create_symlink("gone", dir / "link");
  const VectorFiles found = find_vector_files({(dir / "link").string()});
  ASSERT_EQ(found.problems.size(), 1u);
  EXPECT_EQ(found.problems[0].reason, "cannot read: dangling symbolic link to 'gone'");
  Case c;
  EXPECT_EQ(load_case_file(dir / "link", &c).message(),
            (dir / "link").string() + ": cannot read: dangling symbolic link to 'gone'");
}

}  // namespace
}  // namespace opconform::conformance
