#include "opconform/conformance/vector_files.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace opconform::conformance {

namespace {

namespace fs = std::filesystem;

bool is_json(const fs::path& p) { return p.extension() == ".json"; }

std::string cannot(const char* what, const std::error_code& ec) { return std::string(what) + ": " + ec.message(); }

// Adds one *.json entry found inside a folder: a regular file (also through a link) is a vector
// file; anything else is a problem.
void add_json_entry(const fs::path& path, VectorFiles* out, std::vector<std::string>* files) {
  std::error_code ec;
  const fs::file_status target = fs::status(path, ec);  // follows links
  if (ec == std::errc::no_such_file_or_directory) {
    out->problems.push_back({path.string(), "cannot read: " + missing_reason(path, ec.message())});
  } else if (ec) {
    out->problems.push_back({path.string(), cannot("cannot read", ec)});
  } else if (fs::is_regular_file(target)) {
    files->push_back(path.string());
  } else {
    out->problems.push_back({path.string(), "cannot read: not a regular file"});
  }
}

// Every *.json below `dir` into *files; subfolders that cannot be listed become problems.
void walk(const fs::path& dir, VectorFiles* out, std::vector<std::string>* files) {
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) {
    out->problems.push_back({dir.string(), cannot("cannot list", ec)});
    return;
  }
  std::vector<fs::path> subfolders;
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    const fs::path path = it->path();
    std::error_code kind_ec;
    const fs::file_status own = fs::symlink_status(path, kind_ec);
    if (kind_ec) {
      out->problems.push_back({path.string(), cannot("cannot read", kind_ec)});
    } else if (fs::is_directory(own)) {
      subfolders.push_back(path);
    } else if (is_json(path)) {
      add_json_entry(path, out, files);
    }
  }
  if (ec) out->problems.push_back({dir.string(), cannot("cannot list all entries", ec)});
  std::sort(subfolders.begin(), subfolders.end());
  for (const fs::path& sub : subfolders) walk(sub, out, files);
}

}  // namespace

VectorFiles find_vector_files(const std::vector<std::string>& paths) {
  VectorFiles out;
  for (const std::string& path : paths) {
    std::error_code ec;
    const fs::file_status status = fs::status(path, ec);
    if (ec && ec != std::errc::no_such_file_or_directory) {
      out.problems.push_back({path, cannot("cannot read", ec)});
    } else if (!fs::exists(status)) {
      out.problems.push_back({path, "cannot read: " + missing_reason(path, "no such file or folder")});
    } else if (fs::is_directory(status)) {
      std::vector<std::string> files;
      const std::size_t problems_before = out.problems.size();
      walk(path, &out, &files);
      std::sort(files.begin(), files.end());
      if (files.empty() && out.problems.size() == problems_before) out.empty_folders.push_back(path);
      out.files.insert(out.files.end(), files.begin(), files.end());
    } else {
      out.files.push_back(path);  // the reader reports a file it cannot read
    }
  }
  return out;
}

std::string missing_reason(const fs::path& path, const std::string& otherwise) {
  std::error_code ec;
  if (!fs::is_symlink(fs::symlink_status(path, ec))) return otherwise;
  const fs::path target = fs::read_symlink(path, ec);
  return "dangling symbolic link to '" + target.string() + "'";
}

std::string problem_text(const VectorFileProblem& p) { return p.path + ": " + p.reason; }

}  // namespace opconform::conformance
