#include "opconform/fuzz/harness_bodies.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "opconform/conformance/vector.h"
#include "opconform/fuzz/case_codec.h"
#include "opconform/fuzz/differential.h"

namespace opconform::fuzz {

namespace {

// Idle OpenMP workers sleep at once instead of spinning for 200 ms (libomp's default): an
// execution takes about a millisecond, so the previous execution's spinning workers held a
// second core all the time, fork-mode jobs starved each other and the DynamicPartition harness
// ran at a fifth of its rate. libomp reads the variable when it starts, at the first OpenMP
// call, which comes after this; libgomp reads it at load time, so the g++ replay build (not
// timed) keeps its default. A value the caller set wins.
void sleep_idle_workers() { setenv("OMP_WAIT_POLICY", "PASSIVE", /*overwrite=*/0); }

void initialize_once() {
  static const bool done = (sleep_idle_workers(), enable_buffer_checks(), true);
  (void)done;
}

// A dim as the reader accepts it (an integer, or a decimal string); other forms count as 1
// because the reader rejects them before allocating.
std::int64_t dim_value(const nlohmann::json& j) {
  if (j.is_number_integer()) return j.get<std::int64_t>();
  if (j.is_number_unsigned()) return -1;  // above int64: treat as overflow
  if (j.is_string()) {
    const std::string& s = j.get_ref<const std::string&>();
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(s.c_str(), &end, 10);
    if (errno == ERANGE) return -1;
    if (end != s.c_str() && *end == '\0') return v;
  }
  return 1;
}

[[noreturn]] void reader_finding(const std::string& why, std::string_view text) {
  std::fprintf(stderr,
               "\n==== opconform fuzz finding: conformance-vector reader/writer ====\n%s\n"
               "---- input (%zu bytes) ----\n%.*s\n",
               why.c_str(), text.size(), static_cast<int>(std::min<std::size_t>(text.size(), 4000)), text.data());
  std::fflush(stderr);
  std::abort();
}

std::int64_t input_elements(const conformance::Case& c) {
  std::int64_t total = 0;
  for (const auto& [name, value] : c.inputs) {
    if (const Tensor* t = std::get_if<Tensor>(&value))
      total += t->num_elements();
    else
      for (const Tensor& t : std::get<std::vector<Tensor>>(value)) total += t.num_elements();
  }
  return total;
}

}  // namespace

int run_op_harness(Op op, const std::uint8_t* data, std::size_t size) {
  initialize_once();
  const std::optional<FuzzCase> fc = decode_case(op, data, size);
  if (!fc) return -1;
  const Verdict verdict = run_differential(fc->c, fc->knobs);
  if (!verdict.agree) report_and_abort(fc->c, fc->knobs, verdict);
  return 0;
}

bool fills_within_bounds(std::string_view json_text) {
  const nlohmann::json doc = nlohmann::json::parse(json_text.begin(), json_text.end(), nullptr,
                                                   /*allow_exceptions=*/false);
  if (doc.is_discarded()) return true;
  std::int64_t total = 0;
  std::vector<const nlohmann::json*> pending = {&doc};  // iterative: nesting depth is input-controlled
  while (!pending.empty()) {
    const nlohmann::json* j = pending.back();
    pending.pop_back();
    if (j->is_object() && j->contains("fill")) {
      const auto shape = j->find("shape");
      std::int64_t count = 1;
      if (shape != j->end() && shape->is_array())
        for (const nlohmann::json& d : *shape) {
          count = multiply_without_overflow(count, dim_value(d));
          if (count < 0) return false;
        }
      total += count;
      if (total > kMaxCaseElements) return false;
    }
    if (j->is_structured())
      for (const nlohmann::json& child : *j) pending.push_back(&child);
  }
  return true;
}

int run_vector_reader_harness(const std::uint8_t* data, std::size_t size) {
  initialize_once();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (!fills_within_bounds(text)) return -1;
  conformance::Case c;
  if (!conformance::parse_case(text, "fuzz-input", &c).ok()) return 0;

  // The canonical writer's text parses back to a case with the same canonical text.
  const std::string canonical = conformance::to_json(c);
  conformance::Case back;
  const Status reparsed = conformance::parse_case(canonical, "canonical", &back);
  if (!reparsed.ok())
    reader_finding("to_json's text does not parse: " + reparsed.message() + "\n---- to_json ----\n" + canonical, text);
  if (conformance::to_json(back) != canonical)
    reader_finding("to_json is not a fixed point:\n---- first ----\n" + canonical + "\n---- second ----\n" +
                       conformance::to_json(back),
                   text);

  if (input_elements(c) > kMaxCaseElements) return 0;
  c.memory_limit = capped_memory_limit(c.memory_limit);
  const Verdict verdict = run_differential(c, Knobs{});
  if (!verdict.agree) report_and_abort(c, Knobs{}, verdict);
  return 0;
}

}  // namespace opconform::fuzz
