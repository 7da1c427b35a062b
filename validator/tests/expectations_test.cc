// Expected-failure lists and selection (expectations.h): parsing with FILE:LINE errors, which
// entry takes a case, the statuses at the end, and how selectors combine.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "opconform/validator/expectations.h"

namespace opconform::validator {
namespace {

namespace fs = std::filesystem;

// Writes `text` to a fresh file; returns its path.
std::string list_file(const std::string& text) {
  static int n = 0;
  const fs::path path = fs::temp_directory_path() / ("opconform_expectations_test_" + std::to_string(::getpid()) + "_" +
                                                     std::to_string(++n) + ".jsonl");
  std::ofstream(path) << text;
  return path.string();
}

CaseFacts facts(Op op, std::string name, std::vector<std::string> tags = {}, std::string file = "") {
  return {op, std::move(name), std::move(tags), std::move(file)};
}

TEST(Expectations, ErrorsNameTheFileAndLine) {
  Expectations list;
  const auto error_of = [&list](const std::string& text) {
    const std::string path = list_file(text);
    std::string e = Expectations::load(path, &list);
    fs::remove(path);
    return e.empty() ? e : e.substr(e.rfind(".jsonl") + 6);
  };
  EXPECT_EQ(error_of("# a comment\n\n{\"name\": \"a\", \"reason\": \"r\"}\n"), "");
  EXPECT_EQ(list.entries().size(), 1u);
  EXPECT_EQ(error_of("{\"name\": \"a\", \"reason\": \"r\"}\n{\"name\": \"a\"}\n"),
            ":2: no \"reason\" (every entry says why the failure is expected)");
  EXPECT_EQ(error_of("{\"reason\": \"r\"}\n"), ":1: no matcher (name, tag, op or signature)");
  EXPECT_EQ(error_of("{\"name\": \"a\", \"reason\": \"r\", \"why\": \"x\"}\n"),
            ":1: unknown field \"why\" (name, tag, op, signature, reason)");
  EXPECT_EQ(error_of("[1]\n"), ":1: not a JSON object");
  EXPECT_EQ(error_of("{\"name\": \n"), ":1: not a JSON value (one object per line)");
  EXPECT_EQ(error_of("{\"op\": \"Stitch\", \"reason\": \"r\"}\n"), ":1: unknown op \"Stitch\"");
  EXPECT_EQ(error_of("{\"name\": 3, \"reason\": \"r\"}\n"), ":1: \"name\" must be a non-empty string");
  EXPECT_EQ(error_of("{\"name\": \"a\", \"reason\": \"\"}\n"), ":1: \"reason\" must be a non-empty string");
  EXPECT_NE(Expectations::load("/nonexistent/list.jsonl", &list), "");
}

TEST(Expectations, ClassifiesByFirstCoveringEntryAndSignature) {
  Expectations list;
  const std::string path = list_file(
      "{\"signature\": \"DynamicStitch crash: x\", \"reason\": \"crash bug\"}\n"
      "{\"name\": \"stitch_int*\", \"op\": \"dynamic_stitch\", \"reason\": \"int bug\"}\n"
      "{\"tag\": \"advisory\", \"reason\": \"hardening\"}\n"
      "{\"name\": \"renamed\", \"reason\": \"stale\"}\n"
      "{\"op\": \"SparseConcat\", \"reason\": \"not run\"}\n");
  ASSERT_EQ(Expectations::load(path, &list), "");
  fs::remove(path);
  int entry = -1;
  // A failure with the signature: the first entry, whatever its name.
  EXPECT_EQ(list.classify(facts(Op::kDynamicStitch, "stitch_int8"), true, "DynamicStitch crash: x", &entry),
            Expectation::Match::kXfail);
  EXPECT_EQ(entry, 0);
  // Another signature: the name entry takes it.
  EXPECT_EQ(list.classify(facts(Op::kDynamicStitch, "stitch_int16"), true, "DynamicStitch mismatch: y", &entry),
            Expectation::Match::kXfail);
  EXPECT_EQ(entry, 1);
  // A pass: never a signature entry's; a name entry's is an xpass.
  EXPECT_EQ(list.classify(facts(Op::kDynamicStitch, "stitch_int32"), false, ""), Expectation::Match::kXpass);
  // The op must match too; a tag's kind matches.
  EXPECT_EQ(list.classify(facts(Op::kDynamicPartition, "stitch_int64"), true, "z"), Expectation::Match::kNone);
  EXPECT_EQ(list.classify(facts(Op::kDynamicPartition, "p", {"advisory:TFSA-2022-076"}), true, "z", &entry),
            Expectation::Match::kXfail);
  EXPECT_EQ(entry, 2);
  EXPECT_EQ(list.classify(facts(Op::kDynamicPartition, "q", {"advisoryx"}), true, "z"), Expectation::Match::kNone);

  EXPECT_EQ(list.entries()[0].status(), "xfail");
  EXPECT_EQ(list.entries()[1].status(), "xfail");
  EXPECT_EQ(list.entries()[1].xpass, 1);
  EXPECT_EQ(list.entries()[3].status(), "unmatched");
  EXPECT_EQ(list.xfail_count(), 3);
  EXPECT_EQ(list.xpass_count(), 1);
  // An entry of an op the run did not check is not unmatched.
  const auto unmatched = list.unmatched([](Op op) { return op != Op::kSparseConcat; });
  ASSERT_EQ(unmatched.size(), 1u);
  EXPECT_EQ(unmatched[0]->name, "renamed");
  EXPECT_NE(list.summary("list.jsonl", unmatched, true).find("unmatched (matches no case)  "), std::string::npos);
}

TEST(Expectations, SignatureEntryWithoutItsFailureIsAnXpass) {
  Expectations list;
  const std::string path = list_file("{\"signature\": \"DynamicStitch crash: x\", \"reason\": \"fixed?\"}\n");
  ASSERT_EQ(Expectations::load(path, &list), "");
  fs::remove(path);
  EXPECT_EQ(list.classify(facts(Op::kDynamicStitch, "a"), false, ""), Expectation::Match::kNone);
  EXPECT_EQ(list.entries()[0].status(), "xpass");
  EXPECT_EQ(list.xpass_count(), 1);
}

TEST(Expectations, ASignatureEntryBehindAnotherStillSeesItsFailure) {
  Expectations list;
  const std::string path = list_file(
      "{\"name\": \"stitch_int16\", \"reason\": \"first\"}\n"
      "{\"signature\": \"DynamicStitch crash: x\", \"reason\": \"second\"}\n");
  ASSERT_EQ(Expectations::load(path, &list), "");
  fs::remove(path);
  int entry = -1;
  EXPECT_EQ(list.classify(facts(Op::kDynamicStitch, "stitch_int16"), true, "DynamicStitch crash: x", &entry),
            Expectation::Match::kXfail);
  EXPECT_EQ(entry, 0);
  // The first entry took the case; the bug the second describes still happened: not an xpass.
  EXPECT_EQ(list.entries()[1].xfail, 0);
  EXPECT_EQ(list.entries()[1].status(), "xfail");
  EXPECT_EQ(list.xpass_count(), 0);
}

TEST(Selection, KindsCombineAndOneKindIsAlternatives) {
  Selection s;
  EXPECT_EQ(s.add("name:golden_*"), "");
  EXPECT_EQ(s.add("name:dtype_*"), "");
  EXPECT_EQ(s.add("folder:dynamic_stitch"), "");
  EXPECT_NE(s.add("vector:x"), "");
  EXPECT_NE(s.add("tag:"), "");
  EXPECT_NE(s.add("golden"), "");
  EXPECT_TRUE(s.vectors_only());
  EXPECT_TRUE(s.selects(facts(Op::kDynamicStitch, "golden_a", {}, "corpus/vectors/dynamic_stitch/golden_a.json")));
  EXPECT_TRUE(s.selects(facts(Op::kDynamicStitch, "dtype_b", {}, "v/dynamic_stitch/tf-tests/dtype_b.json")));
  EXPECT_FALSE(s.selects(facts(Op::kDynamicStitch, "check_c", {}, "v/dynamic_stitch/check_c.json")));
  EXPECT_FALSE(s.selects(facts(Op::kDynamicPartition, "golden_d", {}, "v/dynamic_partition/golden_d.json")));
  EXPECT_FALSE(s.selects(facts(Op::kDynamicStitch, "golden_e")));  // generated: no folder

  Selection names;
  EXPECT_EQ(names.add("name:gen-dynamic_stitch-*"), "");
  EXPECT_FALSE(names.vectors_only());
  EXPECT_TRUE(names.selects(facts(Op::kDynamicStitch, "gen-dynamic_stitch-3")));
  EXPECT_TRUE(Selection{}.selects(facts(Op::kDynamicStitch, "anything")));

  Selection tags;
  EXPECT_EQ(tags.add("tag:quirk"), "");
  EXPECT_TRUE(tags.selects(facts(Op::kDynamicStitch, "x", {"golden", "quirk"})));
  EXPECT_FALSE(tags.selects(facts(Op::kDynamicStitch, "x", {"quirky"})));
}

}  // namespace
}  // namespace opconform::validator
