#include "opconform/validator/expectations.h"

#include <fnmatch.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "opconform/validator/findings.h"
#include "opconform/validator/judge.h"
#include "opconform/validator/validate.h"

namespace opconform::validator {

namespace {

namespace fs = std::filesystem;

bool glob_matches(const std::string& pattern, const std::string& text) {
  return ::fnmatch(pattern.c_str(), text.c_str(), 0) == 0;
}

// A tag matches itself, its kind ("advisory" matches "advisory:TFSA-2022-076") and a glob.
bool has_tag(const CaseFacts& c, const std::string& tag) {
  return std::any_of(c.tags.begin(), c.tags.end(),
                     [&tag](const std::string& t) { return glob_matches(tag, t) || t.rfind(tag + ":", 0) == 0; });
}

// Whether the vector `file` lies below `folder`: an existing folder (compared by real path), or
// a run of folder names anywhere in the file's path ("dynamic_stitch/tf-tests").
bool below_folder(const std::string& file, const std::string& folder) {
  if (file.empty()) return false;
  std::error_code ec;
  if (fs::is_directory(folder, ec)) {
    const fs::path root = fs::weakly_canonical(folder, ec);
    const fs::path relative = fs::weakly_canonical(file, ec).lexically_relative(root);
    if (!relative.empty() && *relative.begin() != "..") return true;
  }
  std::vector<std::string> want, have;
  for (const auto& part : fs::path(folder).lexically_normal())
    if (!part.empty() && part != ".") want.push_back(part);
  for (const auto& part : fs::path(file).parent_path()) have.push_back(part);
  if (want.empty()) return false;
  return std::search(have.begin(), have.end(), want.begin(), want.end()) != have.end();
}

// One line of a list into *out: "" or why not.
std::string parse_entry(const std::string& line, Expectation* out) {
  const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
  if (j.is_discarded()) return "not a JSON value (one object per line)";
  if (!j.is_object()) return "not a JSON object";
  for (const auto& [key, value] : j.items()) {
    if (key != "name" && key != "tag" && key != "op" && key != "signature" && key != "reason")
      return "unknown field \"" + key + "\" (name, tag, op, signature, reason)";
    if (!value.is_string() || value.get<std::string>().empty()) return "\"" + key + "\" must be a non-empty string";
    const std::string text = value.get<std::string>();
    if (key == "op" && !(out->op = parse_op_name(text))) return "unknown op \"" + text + "\"";
    if (key == "name") out->name = text;
    if (key == "tag") out->tag = text;
    if (key == "signature") out->signature = text;
    if (key == "reason") out->reason = text;
  }
  if (out->name.empty() && out->tag.empty() && !out->op && out->signature.empty())
    return "no matcher (name, tag, op or signature)";
  if (out->reason.empty()) return "no \"reason\" (every entry says why the failure is expected)";
  return "";
}

}  // namespace

bool Expectation::covers(const CaseFacts& c) const {
  return (name.empty() || glob_matches(name, c.name)) && (tag.empty() || has_tag(c, tag)) && (!op || *op == c.op);
}

std::string Expectation::matchers() const {
  std::string text;
  const auto add = [&text](const char* key, const std::string& value) {
    if (!value.empty()) text += (text.empty() ? "" : " ") + std::string(key) + "=" + value;
  };
  add("name", name);
  add("tag", tag);
  add("op", op ? op_name(*op) : "");
  add("signature", signature);
  return text;
}

std::string Expectations::load(const std::string& path, Expectations* out) {
  *out = Expectations{};
  std::error_code ec;
  if (fs::is_directory(path, ec)) return path + ": a folder, not an expected-failure list";
  std::ifstream in(path);
  if (!in) return path + ": cannot read";
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    Expectation e;
    e.where = path + ":" + std::to_string(number);
    if (std::string why = parse_entry(line, &e); !why.empty()) return e.where + ": " + why;
    out->entries_.push_back(std::move(e));
  }
  if (in.bad()) return path + ": cannot read";
  return "";
}

int Expectations::find(const CaseFacts& c, bool failed, const std::string& signature) const {
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    const Expectation& e = entries_[i];
    if (e.covers(c) && (failed ? e.signature.empty() || e.signature == signature : e.signature.empty()))
      return static_cast<int>(i);
  }
  return -1;
}

Expectation::Match Expectations::classify(const CaseFacts& c, bool failed, const std::string& signature, int* entry) {
  for (Expectation& e : entries_) {
    if (!e.covers(c)) continue;
    ++e.in_scope;
    e.failing += failed && (e.signature.empty() || e.signature == signature);
  }
  const int index = find(c, failed, signature);
  if (entry) *entry = index;
  if (index < 0) return Expectation::Match::kNone;
  ++(failed ? entries_[index].xfail : entries_[index].xpass);
  return failed ? Expectation::Match::kXfail : Expectation::Match::kXpass;
}

std::int64_t Expectations::xfail_count() const {
  std::int64_t n = 0;
  for (const Expectation& e : entries_) n += e.xfail;
  return n;
}

std::int64_t Expectations::xpass_count() const {
  std::int64_t n = 0;
  for (const Expectation& e : entries_) n += e.xpass + (!e.signature.empty() && e.status() == "xpass");
  return n;
}

std::vector<const Expectation*> Expectations::unmatched(const std::function<bool(Op)>& ran) const {
  std::vector<const Expectation*> out;
  for (const Expectation& e : entries_)
    if (e.in_scope == 0 && (!e.op || ran(*e.op))) out.push_back(&e);
  return out;
}

std::string Expectations::summary(const std::string& path, const std::vector<const Expectation*>& unmatched,
                                  bool strict) const {
  std::string text = "expected failures (" + printable(path) + "): " + std::to_string(xfail_count()) + " xfail, " +
                     std::to_string(xpass_count()) + " xpass, " + std::to_string(unmatched.size()) + " unmatched" +
                     (strict ? " (--strict-xfail: an xpass or an unmatched entry fails the run)" : "") + "\n";
  for (const Expectation& e : entries_) {
    const bool listed = std::find(unmatched.begin(), unmatched.end(), &e) != unmatched.end();
    const std::string status = listed ? "unmatched (matches no case)" : e.in_scope == 0 ? "not run" : e.status();
    text += "  " + status + "  " + printable(e.where) + "  " + printable(e.matchers());
    if (e.xfail > 0) text += "  " + std::to_string(e.xfail) + " xfail";
    if (e.xpass > 0) text += "  " + std::to_string(e.xpass) + " xpass";
    text += "\n      reason: " + printable(e.reason) + "\n";
  }
  return text;
}

std::string Selection::add(const std::string& selector) {
  const std::size_t colon = selector.find(':');
  const std::string kind = selector.substr(0, colon);
  const std::string value = colon == std::string::npos ? "" : selector.substr(colon + 1);
  std::vector<std::string>* list = kind == "name"     ? &names
                                   : kind == "tag"    ? &tags
                                   : kind == "folder" ? &folders
                                                      : nullptr;
  if (list == nullptr || colon == std::string::npos)
    return "'" + selector + "' is not name:GLOB, tag:TAG or folder:PATH";
  if (value.empty()) return "'" + selector + "' has an empty " + kind;
  list->push_back(value);
  return "";
}

bool Selection::selects(const CaseFacts& c) const {
  const auto any = [](const std::vector<std::string>& list, auto&& match) {
    return list.empty() || std::any_of(list.begin(), list.end(), match);
  };
  return any(names, [&](const std::string& g) { return glob_matches(g, c.name); }) &&
         any(tags, [&](const std::string& t) { return has_tag(c, t); }) &&
         any(folders, [&](const std::string& f) { return below_folder(c.file, f); });
}

std::string in_process_signature(const conformance::Case& c, const Status& status, const conformance::Values& outputs,
                                 const std::string& profile, bool strict_messages) {
  WorkerOutcome result;
  result.kind = WorkerOutcome::Kind::kAnswer;
  result.answer.kind = status.ok() ? ImplAnswer::Kind::kOutputs : ImplAnswer::Kind::kError;
  result.answer.outputs = outputs;
  result.answer.error = status;
  const Judgement j = judge(c, result, JudgeOptions{.profile = profile, .strict_messages = strict_messages});
  return signature(c.op, verdict_name(j.verdict), j.key);
}

}  // namespace opconform::validator
