// Private helper of every optimized kernel: how many worker threads a call runs on, and
// running a body on them without entering OpenMP at all when that is one thread.
//
// The decision weighs the bytes a call moves against the measured cost of starting and
// joining a parallel region (region_start_ns(), measured once per process, on first need):
// a second thread only runs when the time it saves, at kBytesPerNs per thread, is
// kPayoffFactor times that cost for every region the call starts. Where that rule gives
// several threads, the kernels' ThreadLearner times their calls, tries one thread now and
// then, and keeps to it for the sizes where a second one did not pay on this machine (a busy
// core, a memory bandwidth one thread fills). The thread count only ever changes who runs the
// chunks, never the result.
#pragma once

#include <omp.h>

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <mutex>

#include "opconform/exec.h"

namespace opconform::optimized::thread_policy {

// Below this many bytes of work no thread is started and nothing is measured (a region costs
// microseconds; 64 KiB take a thread about 4 us to copy).
inline constexpr std::int64_t kMinParallelBytes = std::int64_t{64} << 10;
// One thread's copy speed inside the caches, bytes per ns: what a second thread takes over.
inline constexpr std::int64_t kBytesPerNs = 16;
// A thread must save this many times the region's start-up cost. 1, the break-even: where a
// second thread then does not pay (a busy core, a memory bandwidth one thread fills), the
// ThreadLearner below goes back to one. On the Intel Xeon guest (passive waiting, regions of
// about 34 us), t(2 threads) / t(1 thread), medians of 3 alternating processes, factor 4 / 1:
// SpaceToBatchND 2-6 MiB 0.98-1.02 / 0.65-0.87, BatchToSpaceND 1.01-1.05 / 0.68-0.82,
// DynamicPartition 4-6 MiB 0.96-1.08 / 0.77-0.93, DynamicStitch 2-6 MiB 0.89-1.02 /
// 0.91-1.06; with a busy loop on the other core, 1-6 MiB, 0.96-1.11 / 0.97-1.20 (the 1.20
// DynamicPartition at 1 MiB, where the rule's threshold lies; next 1.09).
inline constexpr std::int64_t kPayoffFactor = 1;

// Processors OpenMP may use, read once (omp_get_num_procs() asks the kernel on every call).
inline int processors() {
  static const int procs = std::max(1, omp_get_num_procs());
  return procs;
}

// Nanoseconds to start and join an empty parallel region of two threads: the median of 9
// after 2 warm-ups (the first creates the workers), measured once per process.
inline std::int64_t region_start_ns() {
  static const std::int64_t ns = [] {
    std::int64_t t[9];
    for (int i = -2; i < 9; ++i) {
      const auto start = std::chrono::steady_clock::now();
#pragma omp parallel num_threads(2)
      { asm volatile("" ::: "memory"); }
      const auto took = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start);
      if (i >= 0) t[i] = took.count();
    }
    std::nth_element(t, t + 4, t + 9);
    return std::max<std::int64_t>(t[4], 1000);
  }();
  return ns;
}

// Bytes of work each thread must have for starting a region to pay.
inline std::int64_t min_bytes_per_thread() {
  return std::max(kMinParallelBytes, kPayoffFactor * kBytesPerNs * region_start_ns());
}

// Worker threads for a call moving `work_bytes` through `regions` parallel regions (each one
// costs region_start_ns() to start), at least 1. The cap is ExecOptions::num_threads (0:
// OpenMP's default), at most the processors OpenMP sees. Within it, the work decides: one
// thread per min_bytes_per_thread() of work per region. An explicit thread count with an
// explicit tile (tile_bytes > 0: tests and fuzzers injecting both to run the threaded paths on
// small inputs) is honoured whatever the work.
inline int threads_for(const Knobs& options, std::int64_t work_bytes, int regions = 1) {
  const bool injected = options.num_threads > 0 && options.tile_bytes > 0;
  // Small work first: no call into OpenMP (omp_get_max_threads is a library call).
  if (!injected && work_bytes / regions < 2 * kMinParallelBytes) return 1;
  const int cap =
      options.num_threads > 0 ? std::min(options.num_threads, processors()) : std::max(1, omp_get_max_threads());
  if (cap <= 1) return 1;
  if (injected) return cap;
  return static_cast<int>(std::clamp<std::int64_t>(work_bytes / regions / min_bytes_per_thread(), 1, cap));
}

// The rule above assumes a second thread copies as fast as the first. Where the second
// thread waits for a core another job holds, or both share a memory bandwidth that one thread
// already fills, it only adds a region's start-up. Measured on the Zen 4 guest, two threads
// against one, medians of 3 runs of 3: with a busy loop on the other core, SpaceToBatchND
// 1 MiB 0.68, DynamicStitch 4 MiB 0.66; quiet, DynamicPartition 12 MiB 0.88, while other
// runs on the same guest, or a Zen 5 guest, gave 1.1-2.4 at the same sizes. No rule on the
// bytes alone holds on all of them, so each kernel path that the rule gives several threads
// learns as it runs, size class by size class (a power of two of its bytes):
// - calls run on the rule's count and are timed; now and then a call runs on the other count
//   (one thread, or the rule's once one thread leads): never sooner than kRetryCostShare
//   times what that try costs more than two calls on the lead after the last (so a first
//   call, and a few huge ones, run as the rule says, while a count as fast as the lead is
//   timed kSamples times within a few calls), and once the other has kSamples timings,
//   first after retry_after / 16, then after twice as long each time up to retry_after (back
//   to the first after the lead changed), so the choice follows the machine;
// - once each count has kSamples timings, one thread runs where its cost per byte is kMargin
//   below the rule's count's, weighed after each try (not on every call: a few slow calls of
//   the lead alone do not hand the lead to the other count's older timings). A count's cost is
//   the median of its last kSamples timings plus its stalls: the time its calls took beyond
//   that median since the last weighing, or the stalls weighed before, halved every
//   retry_after, where those are more. With OpenMP's default waiting and a busy second core,
//   two threads ran SpaceToBatchND 256 KiB at a median 0.021 ns a byte, but 46 of 18418 calls
//   took 1-30 ms (the spinning worker had spent its share of the busy core), 0.071 on
//   average, against 0.028 on one thread: the median alone kept two threads;
// - each change of count runs two calls on it and times only the second (the first wakes a
//   worker that slept through the other count's calls, or finds the caches the other filled).
// Only the thread count is learnt, never the result; calls with an injected tile (tests,
// fuzzers) are not timed and run as asked.
class ThreadLearner {
 public:
  static constexpr int kSamples = 3;
  static constexpr double kMargin = 0.05;
  static constexpr double kRetryCostShare = 16;  // the tries cost at most about 1/16 more time

  using Clock = std::chrono::steady_clock;
  // `now` reads the clock (tests pass a clock of their own). Constant-initialised: a kernel's
  // static learner costs no guard on its calls.
  constexpr explicit ThreadLearner(Clock::duration retry_after = std::chrono::seconds(1),
                                   Clock::time_point (*now)() = Clock::now)
      : retry_after_(retry_after), now_(now) {}

  // A call's thread count and, when timed, when it started: done() records its time.
  struct Choice {
    int threads = 1;
    ThreadLearner* learner = nullptr;  // null: not timed
    std::int64_t bytes = 0;
    Clock::time_point start{};
    // Records the call's time since choose(); call once, after the work succeeded.
    void done() const {
      if (learner != nullptr) learner->record(bytes, threads, learner->now_() - start);
    }
  };

  // The threads for a call of `bytes` that the rule gives `rule` threads: 1 or `rule`.
  Choice choose(const Knobs& options, std::int64_t bytes, int rule) {
    if (rule <= 1 || options.tile_bytes > 0) return {rule};
    const auto now = now_();
    int arm = kMany;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      SizeClass& c = classes_[class_of(bytes)];
      if (c.last_arm < 0) {  // the class's first call
        c.tried_at = now;
        c.try_after = retry_after_ / 16;
      }
      if (c.again) {
        arm = c.last_arm;  // the timed call after a warm-up
        c.again = false;
      } else {
        const int lead = c.lead, other = lead == kOne ? kMany : kOne;
        // What a call on the other count costs more than one on the lead (nothing where it is
        // faster): from its timings, else (one thread, never timed) as long again as the
        // rule's count's.
        const double other_ns = c.taken[other] > 0 ? cost(c, other) : 2 * cost(c, kMany);
        const double extra_ns = std::max(other_ns - cost(c, lead), 0.0) * static_cast<double>(bytes);
        const auto since = now - c.tried_at;
        const bool learnt = c.taken[other] >= kSamples;
        const bool tries = c.taken[kMany] > 0 && (!learnt || since >= c.try_after) &&
                           std::chrono::duration<double, std::nano>(since).count() >= kRetryCostShare * 2 * extra_ns;
        if (tries) {
          c.tried_at = now;
          if (learnt) c.try_after = std::min<Clock::duration>(2 * c.try_after, retry_after_);
        }
        arm = tries ? other : lead;
        c.again = arm != c.last_arm;
        c.last_arm = arm;
        if (c.again) return {arm == kMany ? rule : 1};  // a warm-up
      }
    }
    return {arm == kMany ? rule : 1, this, bytes, now};
  }

  // Records a timed call (Choice::done).
  void record(std::int64_t bytes, int threads, Clock::duration took) {
    const double ns = static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(took).count());
    const double size = static_cast<double>(std::max<std::int64_t>(bytes, 1));
    const std::lock_guard<std::mutex> lock(mutex_);
    SizeClass& c = classes_[class_of(bytes)];
    const int arm = threads > 1 ? kMany : kOne;
    if (c.taken[arm] >= kSamples) {  // what the call took beyond the count's usual time
      c.stalled_ns[arm] += std::max(ns - median(c, arm) * size, 0.0);
      c.stall_bytes[arm] += size;
    }
    c.ns_per_byte[arm][static_cast<std::size_t>(c.taken[arm] % kSamples)] = ns / size;
    ++c.taken[arm];
    // The lead is weighed when both counts' timings are fresh: after a try of the other count,
    // or once the lead first has kSamples. A few slow calls of the lead alone (its core taken
    // for a moment) would otherwise hand the lead to the other count's older timings.
    const bool weighs = arm != c.lead || c.taken[arm] == kSamples;
    if (weighs && c.taken[kOne] >= kSamples && c.taken[kMany] >= kSamples) {
      const auto now = now_();  // only here: most calls are not weighed
      for (const int a : {kOne, kMany}) fold_stalls(c, a, now);
      const int lead = cost(c, kOne) < (1 - kMargin) * cost(c, kMany) ? kOne : kMany;
      if (lead != c.lead) {  // a new lead is checked soon again
        c.lead = lead;
        c.try_after = retry_after_ / 16;
      }
    }
  }

 private:
  static constexpr int kOne = 0, kMany = 1;
  struct SizeClass {
    int last_arm = -1;                    // the count of the last call (-1: none yet)
    int lead = kMany;                     // the count that runs between tries
    bool again = false;                   // the next call is last_arm's timed one
    Clock::time_point tried_at{};         // the other count's last try (or the first call)
    Clock::duration try_after{};          // until its next
    std::array<std::int64_t, 2> taken{};  // timings recorded per count (the last kSamples kept)
    std::array<std::array<double, kSamples>, 2> ns_per_byte{};
    // Stalls: time beyond the median, per byte, since the last weighing and as weighed.
    std::array<double, 2> stalled_ns{}, stall_bytes{}, stall{};
    std::array<Clock::time_point, 2> stall_at{};
  };
  static std::size_t class_of(std::int64_t bytes) {
    return static_cast<std::size_t>(std::bit_width(static_cast<std::uint64_t>(std::max<std::int64_t>(bytes, 1))));
  }
  // The median of a count's kept timings (the upper one of two; 0 with none).
  static double median(const SizeClass& c, int arm) {
    auto v = c.ns_per_byte[static_cast<std::size_t>(arm)];
    const auto n =
        static_cast<std::ptrdiff_t>(std::min<std::int64_t>(c.taken[static_cast<std::size_t>(arm)], kSamples));
    if (n == 0) return 0;
    std::nth_element(v.begin(), v.begin() + n / 2, v.begin() + n);
    return v[static_cast<std::size_t>(n / 2)];
  }

  // A count's time per byte as weighed: its median and its stalls.
  static double cost(const SizeClass& c, int arm) { return median(c, arm) + c.stall[static_cast<std::size_t>(arm)]; }
  // Weighs a count's stalls since the last weighing: the share they took of its calls, or,
  // where that is less (a few calls of a try, or stalls that stopped), the share weighed
  // before, halved every retry_after.
  void fold_stalls(SizeClass& c, int arm, Clock::time_point now) const {
    const auto a = static_cast<std::size_t>(arm);
    const double ages = std::chrono::duration<double>(now - c.stall_at[a]) / retry_after_;
    const double before = c.stall[a] * std::exp2(-ages);
    const double since = c.stall_bytes[a] > 0 ? c.stalled_ns[a] / c.stall_bytes[a] : 0;
    c.stall[a] = std::max(before, since);
    c.stall_at[a] = now;
    c.stalled_ns[a] = c.stall_bytes[a] = 0;
  }

  Clock::duration retry_after_;
  Clock::time_point (*now_)();
  std::mutex mutex_;
  std::array<SizeClass, 65> classes_{};
};

// Runs body(t, count) for t in [0, count), count = `threads` (or fewer, as OpenMP grants):
// one thread runs it on the caller, outside OpenMP (no region, no system call).
template <class F>
void run_threads(int threads, F&& body) {
  if (threads <= 1) {
    body(std::int64_t{0}, std::int64_t{1});
    return;
  }
#pragma omp parallel num_threads(threads)
  body(std::int64_t{omp_get_thread_num()}, std::int64_t{omp_get_num_threads()});
}

// [begin of share t, begin of share t + 1) of n items cut into `count` near-equal shares.
inline std::int64_t share_begin(std::int64_t n, std::int64_t count, std::int64_t t) {
  return n / count * t + std::min(t, n % count);
}

}  // namespace opconform::optimized::thread_policy
