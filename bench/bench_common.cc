// bench_common.h: case registration, the block pool of the bench binary's heap accounting
// (the counting operator new/delete of tests/support/counting_allocator), and input helpers.
#include "bench_common.h"

#include <algorithm>
#include <complex>
#include <type_traits>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <utility>

#include <benchmark/benchmark.h>

#include "counting_allocator.h"

namespace opconform::bench {
namespace {

// "" when the outputs agree in count, dtype, shape and bytes (strings by value), else what differs.
std::string first_difference(const std::vector<Tensor>& expected, const std::vector<Tensor>& actual) {
  if (expected.size() != actual.size())
    return "output count " + std::to_string(actual.size()) + " != " + std::to_string(expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const Tensor& e = expected[i];
    const Tensor& a = actual[i];
    const std::string which = "output " + std::to_string(i) + ": ";
    if (e.dtype() != a.dtype() || e.shape() != a.shape()) return which + "dtype or shape differs";
    if (e.dtype() == DType::kString) {
      if (!std::equal(e.data<std::string>(), e.data<std::string>() + e.num_elements(), a.data<std::string>()))
        return which + "values differ";
    } else if (std::memcmp(e.raw_data(), a.raw_data(), static_cast<std::size_t>(tensor_bytes(e))) != 0) {
      return which + "bytes differ";
    }
  }
  return "";
}

// Runs `run` once per iteration; the counters hold the worst peak over the iterations.
// `warm_up`: one untimed call first, which builds lazy inputs and warms the allocator (else
// the first timed call page-faults its fresh outputs, and a call over min_time is the only
// one timed).
void run_op(benchmark::State& state, const Case& c, const RunFn& run, const ExecOptions& options, bool warm_up) {
  if (warm_up) {
    if (const Status status = run(options, nullptr); !status.ok()) {
      state.SkipWithError(status.to_string().c_str());
      return;
    }
  }
  std::int64_t peak_extra = 0;
  for (auto _ : state) {
    const std::int64_t before = live_heap_bytes();
    reset_peak_heap_bytes();
    const Status status = run(options, nullptr);
    peak_extra = std::max(peak_extra, peak_heap_bytes() - before - c.output_bytes);
    if (!status.ok()) {
      state.SkipWithError(status.to_string().c_str());
      break;
    }
  }
  state.SetBytesProcessed(state.iterations() * c.output_bytes);
  state.counters["peak_extra_bytes"] = static_cast<double>(peak_extra);
  state.counters["peak_extra_pct"] =
      c.output_bytes > 0 ? 100.0 * static_cast<double>(peak_extra) / c.output_bytes : 0.0;
}

void register_reference_and_verify(const std::shared_ptr<const Case>& shared, const std::string& prefix);

}  // namespace

// Bytes as requested by the caller, not the allocator's usable size: a pooled block may be up
// to 1/8 larger than the request it serves, which is no memory the op asked for.
std::int64_t live_heap_bytes() { return counting_allocator::live_bytes(); }
std::int64_t peak_heap_bytes() { return counting_allocator::peak_bytes(); }
void reset_peak_heap_bytes() { counting_allocator::reset_peak(); }

void register_case(Case c) {
  auto shared = std::make_shared<const Case>(std::move(c));
  const std::string prefix = shared->op + "/" + shared->name + "/";

  auto* optimized = benchmark::RegisterBenchmark((prefix + "optimized").c_str(), [shared](benchmark::State& state) {
    ExecOptions options;
    options.num_threads = static_cast<int>(state.range(0));
    run_op(state, *shared, shared->optimized, options, true);
  });
  optimized->ArgName("threads")->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
  if (shared->min_time > 0) optimized->MinTime(shared->min_time);

  if (shared->reference) register_reference_and_verify(shared, prefix);

  auto* baseline = benchmark::RegisterBenchmark((prefix + "memcpy").c_str(), [shared](benchmark::State& state) {
    const auto bytes = static_cast<std::size_t>(shared->output_bytes);
    // malloc, not new: the baseline buffers stay out of the heap accounting.
    using Buffer = std::unique_ptr<char, decltype(&std::free)>;
    Buffer source(nullptr, &std::free), target(nullptr, &std::free);
    char* from = nullptr;
    char* to = nullptr;
    std::size_t source_bytes = bytes + 1;
    if (shared->memcpy_half_page_apart) {
      constexpr std::size_t kPage = 4096;
      const std::size_t span = (bytes + kPage) / kPage * kPage;  // > bytes, whole pages
      source_bytes = 2 * span + kPage;
      source.reset(static_cast<char*>(std::aligned_alloc(kPage, source_bytes)));
      from = source.get();
      to = from == nullptr ? nullptr : from + span + kPage / 2;
    } else {
      source.reset(static_cast<char*>(std::malloc(source_bytes)));
      target.reset(static_cast<char*>(std::malloc(bytes + 1)));
      from = source.get();
      to = target.get();
    }
    if (from == nullptr || to == nullptr) {
      state.SkipWithError("memcpy baseline: out of memory");
      return;
    }
    // The page size of the ops' outputs (tensor.h): the ratio measures the kernel, not the pages.
    // Decided by the output's size, not the buffers' (the one-block layout is twice as large).
    if (bytes >= huge_page_min_bytes()) {
      advise_huge_pages(source.get(), source_bytes);
      if (target) advise_huge_pages(target.get(), bytes + 1);
    }
    std::memset(from, 1, bytes + 1);  // fault both buffers in before timing
    std::memset(to, 2, bytes + 1);
    for (auto _ : state) {
      std::memcpy(to, from, bytes);
      benchmark::DoNotOptimize(to);
      benchmark::ClobberMemory();
    }
    state.SetBytesProcessed(state.iterations() * shared->output_bytes);
  });
  baseline->UseRealTime()->Unit(benchmark::kMillisecond);
  if (shared->min_time > 0) baseline->MinTime(shared->min_time);

  if (!shared->output_shapes.empty()) {
    auto* floor = benchmark::RegisterBenchmark((prefix + "alloc_memcpy").c_str(), [shared](benchmark::State& state) {
      std::vector<float> source(static_cast<std::size_t>(shared->output_bytes / 4) + 1, 1.0f);
      const auto call = [&] {
        const float* from = source.data();
        for (const Shape& shape : shared->output_shapes) {
          Tensor out;  // as a caller holds an output before the call
          out = Tensor::uninitialized(DType::kFloat32, shape);
          const std::int64_t bytes = tensor_bytes(out);
          if (bytes > 0) std::memcpy(out.raw_data(), from, static_cast<std::size_t>(bytes));
          from += bytes / 4;
          benchmark::DoNotOptimize(out.raw_data());
          benchmark::ClobberMemory();
        }
      };
      call();  // untimed: warms the allocator, as run_op's warm-up does for the ops
      for (auto _ : state) call();
      state.SetBytesProcessed(state.iterations() * shared->output_bytes);
    });
    floor->UseRealTime()->Unit(benchmark::kMillisecond);
    if (shared->min_time > 0) floor->MinTime(shared->min_time);
  }
  for (const auto& [name, loop] : {std::pair{"naive", &Case::naive}, std::pair{"naive_stream", &Case::naive_stream},
                                   std::pair{"work", &Case::work}, std::pair{"naive_work", &Case::naive_work}}) {
    if (!((*shared).*loop)) continue;
    auto* bench = benchmark::RegisterBenchmark((prefix + name).c_str(), [shared, loop](benchmark::State& state) {
      ExecOptions one_thread;
      one_thread.num_threads = 1;
      run_op(state, *shared, (*shared).*loop, one_thread, true);
    });
    bench->UseRealTime()->Unit(benchmark::kMillisecond);
    if (shared->min_time > 0) bench->MinTime(shared->min_time);
  }
}

namespace {
// <prefix>reference and <prefix>verify (register_case).
void register_reference_and_verify(const std::shared_ptr<const Case>& shared, const std::string& prefix) {
  benchmark::RegisterBenchmark((prefix + "reference").c_str(),
                               [shared](benchmark::State& state) {
                                 if (shared->prepare) shared->prepare();
                                 run_op(state, *shared, shared->reference, ExecOptions{}, false);
                               })
      ->Iterations(shared->reference_iterations)
      ->UseRealTime()
      ->Unit(benchmark::kMillisecond);

  benchmark::RegisterBenchmark(
      (prefix + "verify").c_str(),
      [shared](benchmark::State& state) {
        if (shared->prepare) shared->prepare();
        std::vector<Tensor> expected;
        if (const Status status = shared->reference(ExecOptions{}, &expected); !status.ok()) {
          state.SkipWithError(("reference: " + status.to_string()).c_str());
          return;
        }
        if (expected.empty()) {
          state.SkipWithError("reference kept no outputs");
          return;
        }
        // Runs `run` and compares its outputs with the reference; false (the benchmark skipped
        // with the reason) when they differ or the call fails.
        const auto matches = [&](const std::string& what, const RunFn& run, int threads) {
          ExecOptions options;
          options.num_threads = threads;
          std::vector<Tensor> actual;
          if (const Status status = run(options, &actual); !status.ok()) {
            state.SkipWithError((what + status.to_string()).c_str());
            return false;
          }
          if (const std::string difference = first_difference(expected, actual); !difference.empty()) {
            state.SkipWithError((what + difference).c_str());
            return false;
          }
          return true;
        };
        for (auto _ : state) {
          for (const int threads : {1, 2})
            if (!matches("optimized, " + std::to_string(threads) + " thread(s): ", shared->optimized, threads)) return;
          if (shared->work && !matches("work: ", shared->work, 1)) return;
        }
        std::int64_t compared = 0;
        for (const Tensor& t : expected) compared += tensor_bytes(t);
        state.counters["compared_bytes"] = static_cast<double>(compared);
      })
      ->Iterations(1)
      ->Unit(benchmark::kMillisecond);
}
}  // namespace

namespace {
template <class T>
T iota_value(std::int64_t i) {
  if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
    return T{static_cast<std::uint16_t>(i)};
  } else if constexpr (std::is_same_v<T, qint8> || std::is_same_v<T, quint8> || std::is_same_v<T, qint32>) {
    return T{static_cast<decltype(T{}.value)>(i)};
  } else if constexpr (std::is_same_v<T, std::string>) {
    return std::to_string(i);
  } else if constexpr (std::is_same_v<T, bool>) {
    return (i & 1) != 0;
  } else if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>) {
    using R = typename T::value_type;
    return T{static_cast<R>(i), -static_cast<R>(i)};
  } else {
    return static_cast<T>(i);
  }
}
}  // namespace

Tensor iota_tensor(DType dtype, const Shape& shape) {
  Tensor t(dtype, shape);
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* data = t.data<T>();
    for (std::int64_t i = 0; i < t.num_elements(); ++i) data[i] = iota_value<T>(i);
  });
  return t;
}

Status keep_outputs(Status status, std::vector<Tensor>* keep, std::vector<Tensor>& outputs) {
  if (keep != nullptr && status.ok())
    for (Tensor& t : outputs) keep->push_back(std::move(t));
  return status;
}

std::int64_t tensor_bytes(const Tensor& t) {
  return t.num_elements() * static_cast<std::int64_t>(dtype_storage_size(t.dtype()));
}

}  // namespace opconform::bench

// The block pool of the bench binary's counting operator new/delete (counting_allocator.h):
// a freed block of at least kPoolMinBytes is kept and handed to the next request it fits
// (within 1/8 of its size, suitably aligned), so an op's fresh output reuses the previous
// call's pages instead of page-faulting them in every call, as TensorFlow's pooling allocator
// does (bench_common.h).
namespace {
constexpr std::size_t kPoolMinBytes = std::size_t{1} << 20;
constexpr std::size_t kPoolMaxBytes = std::size_t{4} << 30;
// Enough for every output of every case (DynamicPartition alone frees 64 per call), so with
// --benchmark_enable_random_interleaving each case still finds its blocks when its turn comes.
constexpr int kPoolSlots = 512;

struct Pool {
  std::mutex mutex;
  void* block[kPoolSlots] = {};
  std::size_t bytes[kPoolSlots] = {};
  std::uint64_t stamp[kPoolSlots] = {};  // when given: the oldest block is evicted first
  std::uint64_t clock = 0;
  std::size_t total = 0;
  bool enabled = true;
};

Pool& pool() {
  static Pool* p = [] {
    auto* created = static_cast<Pool*>(std::malloc(sizeof(Pool)));  // never freed, never counted
    new (created) Pool();
    const char* off = std::getenv("OPCONFORM_BENCH_NO_POOL");
    created->enabled = !(off != nullptr && std::strcmp(off, "1") == 0);
    return created;
  }();
  return *p;
}

// The smallest pooled block of at least `size` bytes (and at most 1/8 more) at `alignment`.
void* take_pooled(std::size_t size, std::size_t alignment) {
  Pool& p = pool();
  if (!p.enabled || size < kPoolMinBytes) return nullptr;
  std::lock_guard<std::mutex> lock(p.mutex);
  int best = -1;
  for (int i = 0; i < kPoolSlots; ++i) {
    if (p.block[i] == nullptr || p.bytes[i] < size || p.bytes[i] > size + size / 8) continue;
    if (reinterpret_cast<std::uintptr_t>(p.block[i]) % std::max<std::size_t>(alignment, 1) != 0) continue;
    if (best < 0 || p.bytes[i] < p.bytes[best]) best = i;
  }
  if (best < 0) return nullptr;
  void* block = p.block[best];
  p.block[best] = nullptr;
  p.total -= p.bytes[best];
  return block;
}

// Keeps `block` in the pool, evicting (freeing) the oldest blocks while the pool is full.
bool give_to_pool(void* block, std::size_t usable) {
  Pool& p = pool();
  if (!p.enabled || usable < kPoolMinBytes || usable > kPoolMaxBytes) return false;
  std::lock_guard<std::mutex> lock(p.mutex);
  for (;;) {
    int empty = -1, oldest = -1;
    for (int i = 0; i < kPoolSlots; ++i) {
      if (p.block[i] == nullptr)
        empty = empty < 0 ? i : empty;
      else if (oldest < 0 || p.stamp[i] < p.stamp[oldest])
        oldest = i;
    }
    if (empty >= 0 && p.total + usable <= kPoolMaxBytes) {
      p.block[empty] = block;
      p.bytes[empty] = usable;
      p.stamp[empty] = ++p.clock;
      p.total += usable;
      return true;
    }
    std::free(p.block[oldest]);  // full: oldest >= 0 here
    p.total -= p.bytes[oldest];
    p.block[oldest] = nullptr;
  }
}

// Installed before main() runs, so every benchmark allocates through the pool.
[[maybe_unused]] const bool g_pool_installed = [] {
  opconform::counting_allocator::set_block_pool({take_pooled, give_to_pool});
  return true;
}();
}  // namespace
