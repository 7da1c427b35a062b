// SPDX-License-Identifier: Apache-2.0
// Failures a person can act on (docs/plugin-abi.md, "Failures"): a mismatch described by several
// differing elements with their indices (an element the implementation never wrote named as
// such), and failure signatures that put failures with one cause into one group.
//
//   std::string text = describe_differences(c, implementation_outputs, /*poison=*/true);
//   FailureGroups groups;
//   auto [group, fresh] = groups.add(signature(c.op, verdict_name(v), key), case_name);
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "opconform/conformance/vector.h"

namespace opconform::validator {

// The template of a message: equal for the messages one check produces. Dtype names become
// "<dtype>", numbers that are not part of a name '#' (blank_numbers), and a bracketed list of them
// (a shape, an index, a slice) "[…]": "partitions[3] = 5 is not in [0, 5)" -> "partitions[…] = #
// is not in [#, #)"; "type float32" -> "type <dtype>".
std::string message_template(std::string_view text);

// `text` with every number that is not part of a name blanked to '#': "data[1] = 2.5e-3" ->
// "data[#] = #", "nan(0x7fc00001)" -> "nan(0x#)", "int64" stays.
std::string blank_numbers(std::string_view text);

// The differences between the case's expected outputs and `actual` (outputs of the op), up to
// `max_shown` elements per output, each with its coordinate:
//   merged: 2 of 6 elements differ
//     [0]: expected 4, implementation 5
//     [3]: expected 1, implementation never written (the poison bytes 0xa5 are still there)
// `poison`: the implementation's outputs started filled with kPoisonByte (a C-ABI plug-in), so an
// element that differs and still holds only that byte is named as never written. "" when the
// first difference is not element-wise (a dtype, shape or count differs, or the output has
// `unspecified` rules): compare()'s detail covers those.
std::string describe_differences(const conformance::Case& c, const conformance::Values& actual, bool poison,
                                 int max_shown = 5);

// The group key of a failure: "<Op> <outcome>: <key>", where key is the judgement's (judge.h).
std::string signature(Op op, std::string_view outcome, std::string_view key);

// Failures grouped by signature, in the order groups appeared (group ids from 1).
class FailureGroups {
 public:
  struct Group {
    int id = 0;
    std::string signature;
    std::int64_t count = 0;
    std::vector<std::string> cases;  // the failing cases' names, in order
  };
  // Adds one failing case; returns its group's id and whether the group is new.
  std::pair<int, bool> add(const std::string& signature, const std::string& case_name);
  bool contains(const std::string& signature) const;
  const std::vector<Group>& groups() const { return groups_; }

 private:
  std::vector<Group> groups_;
};

}  // namespace opconform::validator
