// Shared by the validator's end-to-end tests: running `opconform validate` in-process with its
// reports in a fresh folder, and reading them back.
#pragma once

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "opconform/validator/clock.h"
#include "opconform/validator/validate.h"
#include "scratch_folder.h"
#include "tensor_test_util.h"

namespace opconform::testing {

using validator::run_validate;
using validator::ValidateOptions;

namespace fs = std::filesystem;

#define EXPECT_CONTAINS(text, part) EXPECT_NE(std::string(text).find(part), std::string::npos) << (text)
#define EXPECT_LACKS(text, part) EXPECT_EQ(std::string(text).find(part), std::string::npos) << (text)

struct RunOutcome {
  int exit_code = -1;
  double seconds = 0;
  std::string out, err;
  nlohmann::json report;  // the JSON report, or null
  std::string junit;      // the JUnit XML, or ""
  fs::path dir;

  std::int64_t count(std::string_view verdict) const {
    std::int64_t n = 0;
    if (!report.is_object() || !report.contains("counts")) return 0;
    for (const auto& [op, counts] : report["counts"].items())
      if (counts.contains(std::string(verdict))) n += counts[std::string(verdict)].get<std::int64_t>();
    return n;
  }
  nlohmann::json failure(std::string_view verdict) const {
    if (report.is_object())
      for (const auto& f : report.value("failures", nlohmann::json::array()))
        if (f["outcome"] == verdict) return f;
    return nlohmann::json();
  }
};

inline fs::path fresh_dir(const std::string& name) { return testing::scratch_folder("validator-ci", name); }

inline std::string data_file(const std::string& name) {
  return std::string(OPCONFORM_TEST_DATA_DIR) + "/" + name + ".json";
}

// A folder holding `copies` copies of each named test vector.
inline fs::path vector_folder(const std::string& name, const std::vector<std::string>& vectors, int copies = 1) {
  const fs::path dir = fresh_dir(name) / "vectors";
  fs::create_directories(dir);
  for (const std::string& v : vectors)
    for (int k = 0; k < copies; ++k) fs::copy_file(data_file(v), dir / (v + "-" + std::to_string(k) + ".json"));
  return dir;
}

// The hang fake (fakes/fake_hang.cc) writes its pid to a marker file as it starts to hang: a
// test waits for that event instead of sleeping and guessing which case runs by then.
class HangMarker {
 public:
  HangMarker() : path_(fresh_dir("hang-marker") / "hanging.pid") {
    ::setenv("OPCONFORM_FAKE_HANG_MARKER", path_.c_str(), 1);
  }
  ~HangMarker() { ::unsetenv("OPCONFORM_FAKE_HANG_MARKER"); }
  HangMarker(const HangMarker&) = delete;
  HangMarker& operator=(const HangMarker&) = delete;

  // Waits until the fake hangs, and returns the pid of the process it hangs in; or 0 once
  // `finished` is set first (the run ended without hanging).
  pid_t wait(const std::atomic<bool>& finished) const {
    while (!finished) {
      pid_t pid = 0;
      if (std::ifstream(path_) >> pid) return pid;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return 0;
  }

 private:
  fs::path path_;
};

// Options for a run of `impl` (empty: the bundled plug-in) that writes its reports into a fresh
// folder; the caller adds what the test is about.
inline ValidateOptions options_for(const std::string& impl) {
  ValidateOptions o;
  o.impl = impl.empty() ? OPCONFORM_TEST_BUNDLED_PLUGIN : impl;
  o.worker_path = OPCONFORM_TEST_WORKER;
  o.progress = false;
  o.timeout_seconds = 120;  // outcomes, not speed (sanitizer builds on busy machines)
  return o;
}

// options_for(impl) with `cases` generated cases and no corpus.
inline ValidateOptions generated_cases_for(const std::string& impl, std::int64_t cases) {
  ValidateOptions o = options_for(impl);
  o.run_corpus = false;
  o.cases = cases;
  return o;
}

// Runs the validator with reports in `name`'s fresh folder (unless the options name them).
inline RunOutcome run_validator(ValidateOptions o, const std::string& name) {
  RunOutcome r;
  r.dir = fresh_dir(name);
  if (o.json_path.empty()) o.json_path = (r.dir / "report.json").string();
  if (o.junit_path.empty()) o.junit_path = (r.dir / "junit.xml").string();
  if (o.save_failures_dir.empty() && o.replay.empty()) o.save_failures_dir = (r.dir / "failures").string();
  std::ostringstream out, err;
  const double t0 = validator::now_seconds();
  r.exit_code = run_validate(o, out, err);
  r.seconds = validator::now_seconds() - t0;
  r.out = out.str();
  r.err = err.str();
  if (fs::is_regular_file(o.json_path)) r.report = nlohmann::json::parse(read_text(o.json_path), nullptr, false);
  if (fs::is_regular_file(o.junit_path)) r.junit = read_text(o.junit_path);
  return r;
}

}  // namespace opconform::testing
