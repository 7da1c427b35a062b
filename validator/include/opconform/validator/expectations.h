// SPDX-License-Identifier: Apache-2.0
// Expected failures and selection, the same for `opconform validate`, `opconform run`, the
// GoogleTest suite and opconform_add_validate_test (docs/plugin-abi.md, "Expected failures" and
// "Selection").
//
// An expected-failure list is a JSON Lines file: one object per line, blank lines and lines
// starting with '#' skipped:
//   {"signature": "DynamicStitch crash: SIGSEGV", "reason": "int16 rows crash, bug 123"}
//   {"name": "stitch_int16*", "op": "DynamicStitch", "reason": "..."}
// Matchers, each optional but at least one: "name" (a glob, fnmatch, over the case name),
// "tag" (one of the case's tags, a tag's kind before ':' such as "advisory", or a glob), "op" (as --ops takes it), "signature" (a failure group's
// signature, exactly as printed). "reason" is required. All matchers given must match.
//
//   Expectations list;
//   if (std::string e = Expectations::load(path, &list); !e.empty()) ...  // "FILE:LINE: why"
//   Expectation::Match o = list.classify(facts, failed, signature);
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "opconform/conformance/vector.h"
#include "opconform/ops.h"

namespace opconform::validator {

// What the matchers see of a case.
struct CaseFacts {
  Op op;
  std::string name;  // its display name: a vector's, or "gen-<op>-<i>"
  std::vector<std::string> tags;
  std::string file;  // the vector file; "" for a generated case
  static CaseFacts of(const conformance::Case& c) { return {c.op, c.display_name(), c.tags, c.source}; }
};

struct Expectation {
  std::string where;  // "FILE:LINE"
  std::string name, tag, signature, reason;
  std::optional<Op> op;
  // Tallies of the run: the cases its name/tag/op matchers cover, those it took as failing as
  // expected (xfail) and as passing (xpass; only an entry without a signature takes these), and
  // the failures it covers (with its signature, when it has one), whichever entry took them.
  std::int64_t in_scope = 0, xfail = 0, xpass = 0, failing = 0;

  enum class Match { kNone, kXfail, kXpass };
  // The entry's status at the end: "xfail" (a failure it describes happened), "xpass" (it
  // covered cases and none failed as it describes: the bug is fixed), "unmatched" (it covered
  // no case).
  std::string status() const { return in_scope == 0 ? "unmatched" : failing > 0 ? "xfail" : "xpass"; }
  // Whether the name, tag and op matchers cover the case (the signature is not looked at).
  bool covers(const CaseFacts& c) const;
  // The matchers as written: name=..., tag=..., op=..., signature=...
  std::string matchers() const;
};

class Expectations {
 public:
  // Reads a list (format above). "" on success, else "FILE:LINE: why" (a line that is not a JSON
  // object, an unknown field, no matcher, no reason, an unknown op), or "FILE: why".
  static std::string load(const std::string& path, Expectations* out);

  bool empty() const { return entries_.empty(); }
  const std::vector<Expectation>& entries() const { return entries_; }
  std::vector<Expectation>& entries() { return entries_; }

  // Judges one judged case against the list and tallies it. A failure (`signature` its group's)
  // is an xfail when an entry covers it and has no signature or the same one; a pass is an xpass
  // when an entry without a signature covers it. *entry: the entry's index (first in file order).
  Expectation::Match classify(const CaseFacts& c, bool failed, const std::string& signature, int* entry = nullptr);
  // The entry classify would take the case by, without tallying; -1: none.
  int find(const CaseFacts& c, bool failed, const std::string& signature) const;

  // xfail cases; xpass cases plus entries with a signature whose status is "xpass"; entries
  // that matched nothing (an entry whose op the run did not check is left out: `ran`).
  std::int64_t xfail_count() const;
  std::int64_t xpass_count() const;
  std::vector<const Expectation*> unmatched(const std::function<bool(Op)>& ran) const;

  // The end-of-run text: counts per kind, then each entry with its status (xfail, xpass,
  // unmatched, or "not run" for an entry of an op the run did not check) and its reason.
  std::string summary(const std::string& path, const std::vector<const Expectation*>& unmatched, bool strict) const;

 private:
  std::vector<Expectation> entries_;
};

// Which cases run: selectors "name:GLOB" (the case name, generated ones too), "tag:TAG" (as an
// entry's "tag" matches) and
// "folder:PATH" (a vector below a folder: an existing folder, or folder names in the vector's
// path, e.g. "dynamic_stitch/tf-tests"). Selectors of one kind are alternatives; kinds combine
// (a case must satisfy every kind given). A tag or folder selector selects vectors only: no
// generated cases run.
struct Selection {
  std::vector<std::string> names, tags, folders;
  // Adds "KIND:VALUE"; "" on success, else why not.
  std::string add(const std::string& selector);
  bool empty() const { return names.empty() && tags.empty() && folders.empty(); }
  bool vectors_only() const { return !tags.empty() || !folders.empty(); }
  bool selects(const CaseFacts& c) const;
};

// The failure signature (findings.h) of an in-process outcome that failed its comparison, as
// `opconform validate` would group it: for `opconform run` and the GoogleTest suite.
std::string in_process_signature(const conformance::Case& c, const Status& status, const conformance::Values& outputs,
                                 const std::string& profile, bool strict_messages);

}  // namespace opconform::validator
