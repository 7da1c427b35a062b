#include "opconform/fuzz/fuzz_commands.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "opconform/conformance/vector.h"
#include "opconform/fuzz/convert.h"
#include "opconform/op_registry.h"

namespace fs = std::filesystem;

namespace opconform::fuzz {

namespace {

std::vector<std::uint8_t> read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const fs::path& path, const std::vector<std::uint8_t>& bytes) {
  if (path.has_parent_path()) fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

// "fuzz_dynamic_stitch", "dynamic_stitch" or "DynamicStitch".
Harness parse_harness(const std::string& name) {
  if (auto h = harness_from_name(name)) return *h;
  if (auto h = harness_from_name("fuzz_" + name)) return *h;
  if (auto op = op_from_name(name)) return harness_for_op(*op);
  throw std::runtime_error("unknown harness '" + name + "'");
}

// The case as its op's sibling (OpInfo::sibling: SpaceToBatchND <-> BatchToSpaceND with
// paddings <-> crops, DynamicStitch <-> ParallelDynamicStitch, SpaceToDepth <-> DepthToSpace),
// whose harness reads the same byte layout. Expectations are dropped.
bool as_sibling(const conformance::Case& c, conformance::Case* out) {
  const OpInfo& info = op_info(c.op);
  *out = c;
  out->expected = {};
  if (!rename_for_sibling(info, &out->inputs)) return false;
  out->op = *info.sibling;
  return true;
}

int seed_corpus(const fs::path& vectors, const fs::path& corpus, std::uintmax_t max_reader_bytes) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(vectors))
    if (entry.is_regular_file() && entry.path().extension() == ".json") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  std::map<std::string, int> written;
  int skipped = 0, codec_bugs = 0;
  for (const fs::path& file : files) {
    // corpus/vectors/<op>/[tf-tests/]<stem>.json -> "<stem>" or "tf-tests.<stem>"
    const fs::path rel = fs::relative(file, vectors);
    std::string name;
    for (auto part = std::next(rel.begin()); part != rel.end(); ++part)
      name += (name.empty() ? "" : ".") + part->stem().string();
    conformance::Case c;
    if (Status s = conformance::load_case_file(file, &c); !s.ok()) {
      std::printf("skip %s: %s\n", rel.c_str(), s.message().c_str());
      ++skipped;
      continue;
    }
    const std::string harness(harness_name(harness_for_op(c.op)));
    std::vector<std::uint8_t> bytes;
    if (Status s = vector_to_fuzz(c, Knobs{}, &bytes); s.ok()) {
      write_bytes(corpus / harness / name, bytes);
      ++written[harness];
    } else {
      std::printf("not expressible for %s: %s: %s\n", harness.c_str(), rel.c_str(), s.message().c_str());
      ++skipped;
      codec_bugs += s.code() == Code::kInternal;
    }
    // The sibling op reads the same layout: the case seeds its harness too, as "<folder>.<name>".
    if (conformance::Case sibling; as_sibling(c, &sibling) && vector_to_fuzz(sibling, Knobs{}, &bytes).ok()) {
      const std::string other(harness_name(harness_for_op(sibling.op)));
      write_bytes(corpus / other / (rel.begin()->string() + "." + name), bytes);
      ++written[other];
    }
    if (fs::file_size(file) <= max_reader_bytes) {
      const std::string reader(harness_name(Harness::kVectorReader));
      fs::create_directories(corpus / reader);
      fs::copy_file(file, corpus / reader / (rel.begin()->string() + "." + name + ".json"),
                    fs::copy_options::overwrite_existing);
      ++written[reader];
    }
  }
  for (const auto& [harness, count] : written) std::printf("%-30s %4d seeds\n", harness.c_str(), count);
  std::printf("%zu vectors, %d not converted for an op harness, %d codec bugs\n", files.size(), skipped, codec_bugs);
  return codec_bugs == 0 ? 0 : 1;
}

int vector_to_fuzz_command(const fs::path& vector_file, const Knobs& knobs, const fs::path& output) {
  conformance::Case c;
  std::vector<std::uint8_t> bytes;
  Status s = conformance::load_case_file(vector_file, &c);
  if (s.ok()) s = vector_to_fuzz(c, knobs, &bytes);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.message().c_str());
    return 1;
  }
  write_bytes(output, bytes);
  std::printf("%s: %zu bytes for %s\n", output.c_str(), bytes.size(),
              std::string(harness_name(harness_for_op(c.op))).c_str());
  return 0;
}

int fuzz_to_vector_command(Harness harness, const fs::path& input, const fs::path& output) {
  conformance::Case c;
  if (Status s = fuzz_to_vector(harness, read_bytes(input), input.filename().string(), &c); !s.ok()) {
    std::fprintf(stderr, "%s\n", s.message().c_str());
    return 1;
  }
  if (output.empty()) {
    std::cout << conformance::to_json(c);
    return 0;
  }
  if (output.has_parent_path()) fs::create_directories(output.parent_path());
  if (Status s = conformance::save_case_file(c, output); !s.ok()) {
    std::fprintf(stderr, "%s\n", s.message().c_str());
    return 1;
  }
  std::printf("wrote %s\n", output.c_str());
  return 0;
}

int show_command(Harness harness, const fs::path& input) {
  std::string text;
  bool agree = true;
  if (Status s = describe_input(harness, read_bytes(input), &text, &agree); !s.ok()) {
    std::fprintf(stderr, "%s\n", s.message().c_str());
    return 1;
  }
  std::cout << text;
  return agree ? 0 : 1;
}

struct Options {
  fs::path vectors = "corpus/vectors", corpus = "corpus", vector_file, input, output;
  std::uintmax_t max_reader_bytes = 16384;
  std::string harness;
  Knobs knobs;
  bool streaming = false;
  CLI::App *seed = nullptr, *v2f = nullptr, *f2v = nullptr, *show = nullptr;
};

}  // namespace

std::function<std::optional<int>()> add_fuzz_commands(CLI::App& app) {
  auto o = std::make_shared<Options>();
  o->seed = app.add_subcommand("fuzz-seed", "Write every vector as a named seed of its harness (corpus/fuzz_*/)");
  o->seed->add_option("--vectors", o->vectors, "vector folder (default corpus/vectors)");
  o->seed->add_option("--corpus", o->corpus, "corpus root: seeds go to <corpus>/<harness>/ (default corpus)");
  o->seed->add_option("--max-reader-bytes", o->max_reader_bytes, "largest vector copied to the reader's corpus");

  o->v2f = app.add_subcommand("vector-to-fuzz", "Encode a vector's case as an input of its op's fuzz harness");
  o->v2f->add_option("vector", o->vector_file, "the vector file")->required();
  o->v2f->add_option("-o,--output", o->output, "the harness input to write")->required();
  o->v2f->add_option("--threads", o->knobs.num_threads, "the optimized kernel's thread count (0-4; default 0)")
      ->check(CLI::Range(0, 4));
  o->v2f->add_option("--tile-bytes", o->knobs.tile_bytes, "its tile size (0 to 2^30; default 0)")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{1} << 30));
  o->v2f->add_flag("--streaming", o->streaming, "streaming stores for every output (default: for large ones)");

  o->f2v =
      app.add_subcommand("fuzz-to-vector", "Write a fuzz harness input as a readable vector (expected = reference)");
  o->f2v->add_option("harness", o->harness, "fuzz_<op>, <op> or fuzz_vector_reader")->required();
  o->f2v->add_option("input", o->input, "the harness input (a crash, a corpus file)")->required();
  o->f2v->add_option("-o,--output", o->output, "the vector file to write (default: print it)");

  o->show = app.add_subcommand("fuzz-show", "Decode and run a fuzz harness input: case, both outcomes, verdict");
  o->show->add_option("harness", o->harness, "fuzz_<op>, <op> or fuzz_vector_reader")->required();
  o->show->add_option("input", o->input, "the harness input")->required();

  return [o]() -> std::optional<int> {
    try {
      if (o->seed->parsed()) return seed_corpus(o->vectors, o->corpus, o->max_reader_bytes);
      if (o->v2f->parsed()) {
        o->knobs.streaming_min_bytes = o->streaming ? 1 : 0;
        return vector_to_fuzz_command(o->vector_file, o->knobs, o->output);
      }
      if (o->f2v->parsed()) return fuzz_to_vector_command(parse_harness(o->harness), o->input, o->output);
      if (o->show->parsed()) return show_command(parse_harness(o->harness), o->input);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s\n", e.what());
      return 1;
    }
    return std::nullopt;
  };
}

}  // namespace opconform::fuzz
