#include "mutants_command.h"

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "opconform/conformance/vector.h"
#include "opconform/validator/clock.h"
#include "opconform/validator/install_layout.h"
#include "opconform/validator/interrupt.h"
#include "opconform/validator/validate.h"
#ifdef OPCONFORM_HAVE_FUZZ
#include "opconform/fuzz/convert.h"
#endif

namespace opconform::mutants {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct Mutant {
  std::string name, op_name, klass, breaks, plugin;
  Op op{};
};

struct Options {
  std::string dir = validator::default_mutants_dir();  // plugins.txt, catalogue.json, the plug-ins
  std::string fuzz_corpus;                             // corpus/ of the source tree: the fuzz layer converts its inputs
  std::string only, filter;
  std::int64_t cases = 500;  // `opconform validate`'s default budget
  std::uint64_t seed = 1;    // fixed: a run is reproducible
  double target_seconds = 60;
  double timeout_seconds = 10;
  std::string markdown, json_path;
  std::vector<std::string> layers = {"vectors", "generated", "fuzz"};  // which layers run
  std::int64_t worker_memory_mib = -1;                                 // -1: validate's default
  bool code_only = false;  // judge codes only (code-conformance) instead of codes and messages
};

struct Result {
  const Mutant* mutant = nullptr;
  std::string layer;  // "vectors", "generated", "fuzz corpus"; empty: survived
  double seconds = 0;
  std::string outcome, case_name, detail;
  std::string error;  // the plug-in could not be used
};

bool load_catalogue(const Options& o, std::vector<Mutant>* out, std::string* error) {
  std::ifstream plugins(fs::path(o.dir) / "plugins.txt");
  std::ifstream catalogue(fs::path(o.dir) / "catalogue.json");
  if (!plugins || !catalogue) {
    *error = "no catalogue in " + o.dir + " (build the opconform_mutants target)";
    return false;
  }
  const json described = json::parse(catalogue, nullptr, false);
  if (!described.is_array()) {
    *error = "catalogue.json does not parse";
    return false;
  }
  std::string line;
  while (std::getline(plugins, line)) {
    std::istringstream fields(line);
    Mutant m;
    if (!std::getline(fields, m.name, '|') || !std::getline(fields, m.op_name, '|') || !std::getline(fields, m.plugin))
      continue;
    m.plugin = (fs::path(o.dir) / m.plugin).string();  // plugins.txt names files in its folder
    const std::optional<Op> op = validator::parse_op_name(m.op_name);
    if (!op) continue;
    m.op = *op;
    for (const json& d : described)
      if (d.value("name", "") == m.name) {
        m.klass = d.value("class", "");
        m.breaks = d.value("breaks", "");
      }
    out->push_back(std::move(m));
  }
  return true;
}

#ifdef OPCONFORM_HAVE_FUZZ
// The op's fuzz corpus (corpus/fuzz_<op>/) as vectors in `dir`; false when there is none.
bool fuzz_corpus_as_vectors(Op op, const std::string& fuzz_corpus, const fs::path& dir) {
  const fuzz::Harness harness = fuzz::harness_for_op(op);
  const fs::path inputs = fs::path(fuzz_corpus) / std::string(fuzz::harness_name(harness));
  std::error_code ec;
  if (!fs::is_directory(inputs, ec)) return false;
  fs::create_directories(dir, ec);
  int written = 0;
  for (const auto& entry : fs::directory_iterator(inputs, ec)) {
    if (!entry.is_regular_file()) continue;
    std::ifstream f(entry.path(), std::ios::binary);
    const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    conformance::Case c;
    const std::string stem = entry.path().filename().string();
    if (!fuzz::fuzz_to_vector(harness, bytes, stem, &c).ok()) continue;
    const fs::path vector = dir / (stem + ".json");
    if (!conformance::save_case_file(c, vector).ok()) continue;
    // A vector larger than the reader takes (conformance::ReadLimits) could not be replayed, and
    // validate reports an input it cannot read as an error: not kept.
    if (fs::file_size(vector, ec) > static_cast<std::uintmax_t>(conformance::ReadLimits{}.max_file_bytes)) {
      fs::remove(vector, ec);
      continue;
    }
    ++written;
  }
  return written > 0;
}
#endif

// Validates one mutant layer by layer until one kills it.
Result hunt(const Mutant& m, const Options& o, const fs::path& work) {
  Result r;
  r.mutant = &m;
  const double t0 = validator::now_seconds();
  struct Layer {
    std::string name;
    bool corpus;
    std::string corpus_dir;
    std::int64_t cases;
  };
  std::vector<Layer> layers = {{"vectors", true, "", 0}, {"generated", false, "", o.cases}};
#ifdef OPCONFORM_HAVE_FUZZ
  layers.push_back({"fuzz corpus", true, (work / "fuzz-vectors" / m.op_name).string(), 0});
#endif
  for (const Layer& layer : layers) {
    const std::string short_name = layer.name.substr(0, layer.name.find(' '));
    if (std::find(o.layers.begin(), o.layers.end(), short_name) == o.layers.end()) continue;
#ifdef OPCONFORM_HAVE_FUZZ
    // Converted only when the earlier layers did not kill (once per op and run).
    std::error_code ec;
    if (layer.name == "fuzz corpus" && !fs::exists(layer.corpus_dir, ec) &&
        (o.fuzz_corpus.empty() || !fuzz_corpus_as_vectors(m.op, o.fuzz_corpus, layer.corpus_dir)))
      continue;
#endif
    validator::ValidateOptions v;
    v.impl = m.plugin;
    v.ops = {m.op};
    v.seed = o.seed;
    v.cases = layer.cases;
    v.run_corpus = layer.corpus;
    v.check_pairs = layer.name == "generated";  // the check pairs come with the generated cases
    v.corpus_dir = layer.corpus_dir;
    v.strict_messages = !o.code_only;  // the spec's messages are part of the contract
    v.timeout_seconds = o.timeout_seconds;
    v.worker_memory_mib = o.worker_memory_mib;
    v.max_shrink_runs = 0;  // time to kill is time to the first failing case
    v.stop_after_failures = 1;
    v.progress = false;
    v.save_failures_dir = (work / m.name).string();
    v.json_path = (work / (m.name + ".json")).string();
    std::ostringstream out, err;
    const int code = validator::run_validate(v, out, err);
    if (code == 2) {
      r.error = err.str();
      return r;
    }
    if (code == 1) {
      r.layer = layer.name;
      r.seconds = validator::now_seconds() - t0;
      std::ifstream f(v.json_path);
      const json report = json::parse(f, nullptr, false);
      if (report.is_object() && report.contains("failures") && !report["failures"].empty()) {
        const json& first = report["failures"][0];
        r.outcome = first.value("outcome", "");
        r.case_name = first.value("name", "");
        r.detail = first.value("detail", "");
        std::replace(r.detail.begin(), r.detail.end(), '\n', ' ');
      }
      return r;
    }
  }
  r.seconds = validator::now_seconds() - t0;
  return r;
}

std::string seconds_text(double s) {
  std::ostringstream t;
  t << std::fixed << std::setprecision(2) << s;
  return t.str();
}

std::string markdown_cell(std::string s) {
  if (s.size() > 140) s = s.substr(0, 137) + "...";
  std::string out;
  for (char ch : s) out += ch == '|' ? std::string("\\|") : ch == '\n' ? std::string(" ") : std::string(1, ch);
  return out;
}

void write_markdown(const std::string& path, const std::vector<Result>& results, const Options& o,
                    const std::string& summary) {
  std::ofstream f(path);
  f << "# Mutant catalogue\n\n"
       "Generated by `opconform mutants --fuzz-corpus corpus --markdown docs/mutants.md` (mutants/). Each\n"
       "mutant is the reference kernel of one op with one deliberate, realistic bug (a source mutation\n"
       "listed in `mutants/catalogue.py`), built as a plug-in and validated as `opconform validate`\n"
       "would: the bundled vectors, then one case per feasible pair of checks and "
    << o.cases << " generated cases (seed " << o.seed
    << "), then the op's fuzz corpus as vectors,\n"
       "with `--strict-messages`, stopping at the first failing case. *Killed by* is the first layer with a\n"
       "failing case, *time* the wall time from the start of the mutant's validation to that case\n"
       "(no shrinking). The ctest label `mutants` runs the same, one test per mutant.\n\n"
       "Layers run here:";
  for (const std::string& layer : o.layers) f << " " << layer;
  f << (o.code_only ? " (codes only)" : "")
    << ".\n\n"
       "| mutant | op | class | what it breaks | killed by | outcome | first failing case | time (s) |\n"
       "|---|---|---|---|---|---|---|---|\n";
  for (const Result& r : results) {
    const Mutant& m = *r.mutant;
    f << "| `" << m.name << "` | " << m.op_name << " | " << m.klass << " | " << markdown_cell(m.breaks) << " | "
      << (r.layer.empty() ? "**survived**" : r.layer) << " | " << r.outcome << " | " << markdown_cell(r.case_name)
      << " | " << seconds_text(r.seconds) << " |\n";
  }
  f << "\n" << summary << "\n";
}

int run(const Options& o) {
  std::vector<Mutant> catalogue;
  std::string error;
  if (!load_catalogue(o, &catalogue, &error)) {
    std::cerr << "opconform mutants: " << error << "\n";
    return 2;
  }
  std::vector<const Mutant*> selected;
  const std::regex filter(o.filter.empty() ? ".*" : o.filter);
  for (const Mutant& m : catalogue)
    if ((o.only.empty() || m.name == o.only) && std::regex_search(m.name, filter)) selected.push_back(&m);
  if (selected.empty()) {
    std::cerr << "opconform mutants: no mutant matches\n";
    return 2;
  }
  const char* tmp = std::getenv("TMPDIR");
  const fs::path work = fs::path(tmp && *tmp ? tmp : "/tmp") / ("opconform-mutants-" + std::to_string(::getpid()));
  std::error_code ec;
  fs::create_directories(work, ec);

  std::vector<Result> results;
  int exit_code = 0;
  for (const Mutant* m : selected) {
    Result r = hunt(*m, o, work);
    if (const int sig = validator::interrupt_signal(); sig != 0) {  // Ctrl-C: stop, as validate does
      fs::remove_all(work, ec);
      std::signal(sig, SIG_DFL);
      std::raise(sig);
    }
    if (!r.error.empty()) {
      std::cerr << "opconform mutants: " << m->name << ": the plug-in could not be used:\n" << r.error;
      exit_code = 2;
      continue;
    }
    const bool slow = !r.layer.empty() && r.seconds > o.target_seconds;
    std::cout << (r.layer.empty() ? "SURVIVED "
                  : slow          ? "SLOW     "
                                  : "killed   ")
              << std::left << std::setw(34) << m->name << " " << std::setw(12) << (r.layer.empty() ? "-" : r.layer)
              << " " << std::setw(7) << seconds_text(r.seconds) << "s " << r.outcome << " " << r.case_name << "\n";
    if (!r.detail.empty()) std::cout << "         " << r.detail.substr(0, 200) << "\n";
    std::cout << std::flush;
    if ((r.layer.empty() || slow) && exit_code == 0) exit_code = 1;
    results.push_back(std::move(r));
  }

  std::vector<double> times;
  int killed = 0;
  for (const Result& r : results)
    if (!r.layer.empty()) {
      ++killed;
      times.push_back(r.seconds);
    }
  std::sort(times.begin(), times.end());
  std::ostringstream summary;
  summary << killed << " of " << results.size() << " mutants killed";
  if (!times.empty()) {
    const std::size_t n = times.size();
    const double median = n % 2 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
    summary << "; time to kill: median " << seconds_text(median) << " s, max " << seconds_text(times.back())
            << " s (target " << seconds_text(o.target_seconds) << " s)";
  }
  std::map<std::string, int> by_layer;
  for (const Result& r : results) ++by_layer[r.layer.empty() ? "survived" : r.layer];
  summary << "; first kill by layer:";
  for (const auto& [layer, count] : by_layer) summary << " " << layer << " " << count;
  std::cout << summary.str() << "\n";

  if (!o.markdown.empty()) write_markdown(o.markdown, results, o, summary.str() + ".");
  if (!o.json_path.empty()) {
    json items = json::array();
    for (const Result& r : results)
      items.push_back({{"name", r.mutant->name},
                       {"op", r.mutant->op_name},
                       {"class", r.mutant->klass},
                       {"killed_by", r.layer},
                       {"seconds", r.seconds},
                       {"outcome", r.outcome},
                       {"case", r.case_name},
                       {"detail", r.detail}});
    std::ofstream(o.json_path) << json{{"summary", summary.str()}, {"mutants", items}}.dump(1) << "\n";
  }
  fs::remove_all(work, ec);
  return exit_code;
}

}  // namespace

void add_mutants_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "mutants",
      "Validate the mutant catalogue (mutants/, docs/mutants.md): vectors, then check pairs and generated cases,\n"
      "then the fuzz corpus, until a case fails; report the killing layer and the time to kill\n"
      "exit 0: every mutant killed within the target, 1: one survived or was slow, 2: unusable");
  cmd->add_option("--dir", o->dir, "the catalogue: plugins.txt, catalogue.json and the plug-ins ($OPCONFORM_MUTANTS)")
      ->capture_default_str();
#ifdef OPCONFORM_HAVE_FUZZ
  cmd->add_option("--fuzz-corpus", o->fuzz_corpus,
                  "a source tree's corpus/ folder: its fuzz_<op>/ inputs, as vectors, are the last layer");
#endif
  cmd->add_option("--only", o->only, "just this mutant");
  cmd->add_option("--filter", o->filter, "mutants whose name matches this regular expression");
  cmd->add_option("--cases", o->cases, "generated cases per mutant")->capture_default_str();
  cmd->add_option("--seed", o->seed, "seed of the generated cases")->capture_default_str();
  cmd->add_option("--target", o->target_seconds, "seconds a kill may take")->capture_default_str();
  cmd->add_option("--timeout", o->timeout_seconds, "seconds one case may take")->capture_default_str();
  cmd->add_option("--layers", o->layers, "layers to run, in order: vectors, generated, fuzz")
      ->delimiter(',')
      ->check(CLI::IsMember({"vectors", "generated", "fuzz"}))
      ->capture_default_str();
  cmd->add_option("--worker-memory", o->worker_memory_mib,
                  "the worker's address-space limit in MiB (as validate's; large for a sanitized worker)");
  cmd->add_flag("--code-only", o->code_only, "judge error codes only, not messages (default: strict)");
  cmd->add_option("--markdown", o->markdown, "write the kill table as Markdown to FILE");
  cmd->add_option("--json", o->json_path, "write the results as JSON to FILE");
  cmd->callback([o, &exit_code] { exit_code = run(*o); });
}

}  // namespace opconform::mutants
