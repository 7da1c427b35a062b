// SPDX-License-Identifier: Apache-2.0
// Finding the vector files that command-line paths name: each path is a file (taken as is) or a
// folder (every *.json below it, recursively). Nothing throws and nothing is skipped silently:
// every path or entry that cannot be examined becomes a problem naming it, and the walk goes on.
//
//   VectorFiles found = find_vector_files({"corpus/vectors", "extra.json"});
//   for (const VectorFileProblem& p : found.problems) std::cerr << p.path << ": " << p.reason;
//   for (const std::string& f : found.files) load_case_file(f, &c);
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace opconform::conformance {

struct VectorFileProblem {
  std::string path;    // the file or folder that could not be examined
  std::string reason;  // "cannot read: Permission denied", "no such file or folder", ...
};

struct VectorFiles {
  std::vector<std::string> files;  // per named path in order; a folder's files sorted
  std::vector<VectorFileProblem> problems;
  std::vector<std::string> empty_folders;  // named folders holding no *.json at all
};

// Walks `paths`. A named path that does not exist is a problem; a named path that is not a
// folder is taken as a file (its reader reports what is wrong with it). Inside folders: subfolders are walked (symbolic links to folders are not followed, so
// a link cycle cannot loop); a *.json entry that does not resolve to a regular file (dangling or
// looping link, socket, ...) is a problem; a subfolder that cannot be listed is a problem and
// its siblings are still walked.
VectorFiles find_vector_files(const std::vector<std::string>& paths);

// Why `path`, which does not resolve to anything, is missing: "dangling symbolic link to
// 'TARGET'" when it is a link, else `otherwise` ("no such file or folder").
std::string missing_reason(const std::filesystem::path& path, const std::string& otherwise);

// "<path>: <reason>", the form every problem is printed in.
std::string problem_text(const VectorFileProblem& p);

}  // namespace opconform::conformance
