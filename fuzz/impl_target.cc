#include "opconform/fuzz/impl_target.h"

#include <elf.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <vector>

#include "opconform/conformance/format.h"
#include "opconform/conformance/run.h"
#include "opconform/conformance/unspecified.h"
#include "opconform/dtype.h"
#include "opconform/fuzz/case_codec.h"
#include "opconform/fuzz/differential.h"
#include "opconform/op_registry.h"
#include "opconform/reference/op_table.h"
#include "opconform/validator/findings.h"
#include "opconform/validator/guard_pages.h"
#include "opconform/validator/judge.h"
#include "opconform/validator/plugin_host.h"
#include "opconform/validator/validate.h"

namespace opconform::fuzz {

namespace {

using conformance::Case;
using validator::ImplAnswer;

ImplUnderTest& current() {
  static ImplUnderTest impl;
  return impl;
}

[[noreturn]] void setting_error(const std::string& message) {
  std::fprintf(stderr, "opconform fuzz target: %s\n", message.c_str());
  std::exit(2);
}

// The outcome of an OpTable as the answer a plug-in gives (docs/plugin-abi.md, "Outcomes").
ImplAnswer answer_of(const conformance::Outcome& outcome) {
  ImplAnswer answer;
  if (outcome.wrote_outputs_on_error) {
    answer.fault = "returned " + outcome.status.to_string() + " after replacing an output";
  } else if (!outcome.status.ok() && outcome.status.code() != Code::kResourceExhausted &&
             !outcome.allocated_on_error.empty()) {
    answer.fault = "returned " + outcome.status.to_string() + " after allocating output " +
                   shape_string(outcome.allocated_on_error.front().shape);
  } else if (outcome.status.ok()) {
    answer.kind = ImplAnswer::Kind::kOutputs;
    answer.outputs = outcome.outputs;
  } else {
    answer.kind = ImplAnswer::Kind::kError;
    answer.error = outcome.status;
  }
  return answer;
}

[[noreturn]] void report_finding(const ImplUnderTest& impl, const Case& c, const validator::Judgement& j) {
  const std::string signature = validator::signature(c.op, validator::verdict_name(j.verdict), j.key);
  std::string out = "\n==== opconform fuzz finding in " + impl.name + " ====\n";
  out += "ERROR: opconform finding: " + signature + "\n";
  out += j.detail + "\n---- case (expected: the reference) ----\n" + conformance::format_case(c) + "\n";
  std::fputs(out.c_str(), stderr);
  std::fflush(stderr);
  std::abort();
}

// A case whose memory limit lets every one of more than 1024 list outputs be allocated
// (DynamicPartition's num_partitions): validate never generates such a case (case_sources.cc,
// affordable), and through a plug-in each output is a guarded mapping, so the fuzz codec's
// 10^5-10^6 partitions took whole seconds per input. A huge length the limit refuses still runs
// (it must fail early).
bool too_many_outputs(const Case& c) {
  const std::int64_t length = list_output_length(op_info(c.op), c.attrs);
  return length > 1024 && length <= c.memory_limit / 64;
}

}  // namespace

Status load_plugin(const std::string& path, ImplUnderTest* out) {
  std::unique_ptr<validator::PluginHost> loaded;
  if (Status s = validator::PluginHost::load(path, &loaded); !s.ok()) return s;
  std::shared_ptr<validator::PluginHost> host(std::move(loaded));
  out->name = host->manifest().name + " (" + path + ")";
  out->manifest = host->manifest();
  out->poison_outputs = true;
  out->run = [host](const Case& c) { return host->run(c); };
  return Status();
}

ImplUnderTest in_process(const OpTable& table, std::string name) {
  ImplUnderTest impl;
  impl.name = name;
  impl.manifest.name = std::move(name);
  for (Op op : kAllOps) {
    if (provides(table, op))
      impl.manifest.ops.push_back({.op = op, .dtypes = ~std::uint64_t{0}, .param_dtypes = ~std::uint64_t{0}});
  }
  impl.run = [&table](const Case& c) { return answer_of(conformance::run_case(table, c)); };
  return impl;
}

Status select_op(ImplUnderTest* impl, Op op) {
  if (impl->manifest.find(op) == nullptr) return invalid_argument(impl->name, " does not provide ", op_name(op));
  impl->op = op;
  return Status();
}

bool has_coverage_counters(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  Elf64_Ehdr header{};
  if (!in.read(reinterpret_cast<char*>(&header), sizeof header) || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 ||
      header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_shentsize != sizeof(Elf64_Shdr) ||
      header.e_shstrndx >= header.e_shnum)
    return false;
  std::vector<Elf64_Shdr> sections(header.e_shnum);
  in.seekg(static_cast<std::streamoff>(header.e_shoff));
  if (!in.read(reinterpret_cast<char*>(sections.data()),
               static_cast<std::streamsize>(sections.size() * sizeof(Elf64_Shdr))))
    return false;
  const Elf64_Shdr& names = sections[header.e_shstrndx];
  if (names.sh_size > (std::uint64_t{1} << 24)) return false;
  std::string table(names.sh_size, '\0');
  in.seekg(static_cast<std::streamoff>(names.sh_offset));
  if (!in.read(table.data(), static_cast<std::streamsize>(table.size()))) return false;
  for (const Elf64_Shdr& s : sections)
    if (s.sh_name < table.size() && std::strcmp(table.c_str() + s.sh_name, "__sancov_cntrs") == 0) return true;
  return false;
}

namespace {

// "float32,int32" -> the manifest's dtype mask (OpCaps::dtypes).
std::uint64_t dtype_mask(const std::string& names) {
  std::uint64_t mask = 0;
  std::size_t start = 0;
  while (start <= names.size()) {
    const std::size_t comma = std::min(names.find(',', start), names.size());
    const std::string name = names.substr(start, comma - start);
    const std::optional<DType> dtype = dtype_from_name(name);
    if (!dtype) setting_error("unknown dtype \"" + name + "\" in the table's dtypes \"" + names + "\"");
    mask |= std::uint64_t{1} << static_cast<int>(*dtype);
    start = comma + 1;
  }
  return mask;
}

}  // namespace

void initialize_from_environment(const OpTable* table, const char* table_name, const char* dtypes) {
  // An OpenMP implementation's idle workers sleep at once instead of spinning for 200 ms after
  // each parallel region: an input takes about a millisecond, so spinning workers held the other
  // core and DynamicPartition ran at a third of its rate. libomp reads the variable at its first
  // OpenMP call, after this; a value the caller set wins.
  setenv("OMP_WAIT_POLICY", "PASSIVE", /*overwrite=*/0);
  ImplUnderTest& impl = current();
  const char* op_text = std::getenv("OPCONFORM_FUZZ_OP");
  if (op_text == nullptr || *op_text == '\0')
    setting_error("set OPCONFORM_FUZZ_OP to the op to fuzz (e.g. DynamicStitch)");
  std::optional<Op> op = validator::parse_op_name(op_text);
  if (!op) setting_error(std::string("OPCONFORM_FUZZ_OP: unknown op \"") + op_text + "\"");

  std::string coverage;
  if (table != nullptr) {
    impl = in_process(*table, table_name);
    if (dtypes != nullptr && *dtypes != '\0')
      for (validator::OpCaps& caps : impl.manifest.ops) caps.dtypes = dtype_mask(dtypes);
    coverage = "libFuzzer sees the coverage of whatever this binary compiled with -fsanitize=fuzzer-no-link";
  } else {
    const char* path = std::getenv("OPCONFORM_FUZZ_IMPL");
    if (path == nullptr || *path == '\0') setting_error("set OPCONFORM_FUZZ_IMPL to the plug-in to fuzz (a .so)");
    validator::install_guard_fault_handler();  // an access in an output's guard pages names the output
    if (Status s = load_plugin(path, &impl); !s.ok()) setting_error(s.message());
    coverage = has_coverage_counters(path)
                   ? "the plug-in is instrumented: libFuzzer is guided by its coverage"
                   : "the plug-in is not instrumented (no SanitizerCoverage counters): libFuzzer is guided by "
                     "opconform's own code only; compile it with -fsanitize=fuzzer-no-link to fuzz its branches";
  }
  if (Status s = select_op(&impl, *op); !s.ok()) setting_error(s.message());
  const char* profile = std::getenv("OPCONFORM_FUZZ_PROFILE");
  impl.profile = profile && *profile ? profile : impl.manifest.profile;
  if (impl.profile.empty()) impl.profile = "tf-cpu";
  enable_buffer_checks();
  std::fprintf(stderr, "opconform fuzz target: %s, op %s, profile %s; %s\n", impl.name.c_str(),
               std::string(op_name(*op)).c_str(), impl.profile.c_str(), coverage.c_str());
}

int run_input(const std::uint8_t* data, std::size_t size) { return run_input(current(), data, size); }

int run_input(const ImplUnderTest& impl, const std::uint8_t* data, std::size_t size) {
  std::optional<FuzzCase> fc = decode_case(impl.op, data, size);
  if (!fc) return -1;
  Case& c = fc->c;
  std::string reason;
  if (!validator::inside_manifest(impl.manifest, c, &reason)) return -1;
  if (too_many_outputs(c)) return -1;
  c.expected = conformance::oracle_expectation(c, conformance::run_case(reference::op_table(), c));
  validator::WorkerOutcome result;
  result.kind = validator::WorkerOutcome::Kind::kAnswer;
  result.answer = impl.run(c);
  validator::JudgeOptions options;
  options.profile = impl.profile;
  options.poison_outputs = impl.poison_outputs;
  const validator::Judgement j = validator::judge(c, result, options);
  if (validator::is_failure(j.verdict)) report_finding(impl, c, j);
  return 0;
}

}  // namespace opconform::fuzz
