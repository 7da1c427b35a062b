// thread_policy.h: how many threads a call's work buys.
#include "thread_policy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <vector>

namespace opconform::optimized {
namespace {

Knobs cap(int threads) {
  Knobs knobs;
  knobs.num_threads = threads;
  return knobs;
}

TEST(ThreadPolicy, SmallWorkRunsOnTheCaller) {
  EXPECT_EQ(thread_policy::threads_for(cap(2), 0), 1);
  EXPECT_EQ(thread_policy::threads_for(cap(2), 2 * thread_policy::kMinParallelBytes - 1), 1);
  EXPECT_EQ(thread_policy::threads_for(cap(1), std::int64_t{1} << 40), 1);
}

TEST(ThreadPolicy, EachThreadPaysForEveryRegionItStarts) {
  if (thread_policy::processors() < 2) GTEST_SKIP() << "one processor";
  const std::int64_t per_thread = thread_policy::min_bytes_per_thread();
  EXPECT_EQ(thread_policy::threads_for(cap(2), 2 * per_thread), 2);
  EXPECT_EQ(thread_policy::threads_for(cap(2), 2 * per_thread, 2), 1);
  EXPECT_EQ(thread_policy::threads_for(cap(2), 4 * per_thread, 2), 2);
  EXPECT_EQ(thread_policy::threads_for(cap(2), 4 * per_thread - 1, 2), 1);
}

TEST(ThreadPolicy, AnInjectedTileKeepsTheAskedThreads) {
  if (thread_policy::processors() < 2) GTEST_SKIP() << "one processor";
  Knobs knobs = cap(2);
  knobs.tile_bytes = 64;
  EXPECT_EQ(thread_policy::threads_for(knobs, 1, 2), 2);
}

using std::chrono::nanoseconds;
using thread_policy::ThreadLearner;

constexpr std::int64_t kMiB = std::int64_t{1} << 20;

// The learners below read this clock, which only the tests move: no timing depends on the
// machine's load.
ThreadLearner::Clock::time_point g_now{};
ThreadLearner::Clock::time_point fake_now() { return g_now; }
void advance_ms(int ms) { g_now += std::chrono::milliseconds(ms); }

// Chooses for a call of `bytes` and, where the choice is timed, records it as taking ns_one on
// one thread, ns_many on more (as Choice::done would). Each call is 50 us apart from the last,
// so that tries of calls of a few hundred ns are due at once.
int run_call(ThreadLearner& learner, std::int64_t bytes, std::int64_t ns_one, std::int64_t ns_many) {
  g_now += std::chrono::microseconds(50);
  const ThreadLearner::Choice choice = learner.choose(cap(2), bytes, 2);
  if (choice.learner != nullptr)
    learner.record(bytes, choice.threads, nanoseconds(choice.threads > 1 ? ns_many : ns_one));
  return choice.threads;
}

std::vector<int> run_calls(ThreadLearner& learner, int calls, std::int64_t ns_one, std::int64_t ns_many) {
  std::vector<int> threads;
  for (int i = 0; i < calls; ++i) threads.push_back(run_call(learner, 8 * kMiB, ns_one, ns_many));
  return threads;
}

// With retry_after = 640 ms, tries after the first kSamples come 40, 80, 160, 320 and 640 ms
// apart.
constexpr std::chrono::milliseconds kRetryAfter(640);
constexpr std::int64_t kMs = 1'000'000;

TEST(ThreadLearner, RunsTheRulesCountUntilATryIsDue) {
  // Two threads take 1 ms a call, so one thread is reckoned at 2 ms before it ran, 1 ms more:
  // 16 times that for its two calls (32 ms) pass before it is tried (each call 50 us apart).
  ThreadLearner learner(std::chrono::seconds(1), fake_now);
  EXPECT_EQ(run_calls(learner, 20, kMs, kMs), std::vector<int>(20, 2));
  advance_ms(30);
  EXPECT_EQ(run_call(learner, 8 * kMiB, kMs, kMs), 2);
  advance_ms(2);
  EXPECT_EQ(run_call(learner, 8 * kMiB, kMs, kMs), 1);
}

TEST(ThreadLearner, AOneThreadAsFastIsTimedWithinAFewCalls) {
  // Calls 1.5 ms apart; one thread is first tried 32 ms after the first call (a warm-up, then
  // a timed call). Where that timing shows it faster than two, its tries cost nothing more:
  // it is timed on the next calls and leads after kSamples timings. Where it is twice as
  // slow, it is not tried again before 16 times its two calls' extra 1 ms.
  for (const std::int64_t ns_one : {kMs - kMs / 10, 2 * kMs}) {
    ThreadLearner learner(std::chrono::seconds(1), fake_now);
    std::vector<int> threads;
    for (int i = 0; i < 40; ++i) {
      g_now += std::chrono::microseconds(1450);
      threads.push_back(run_call(learner, 8 * kMiB, ns_one, kMs));
    }
    std::vector<int> expected(40, 2);
    for (std::size_t i = 22; i < (ns_one < kMs ? 40 : 24); ++i) expected[i] = 1;
    EXPECT_EQ(threads, expected) << "one thread " << ns_one << " ns";
  }
}

TEST(ThreadLearner, TriesOneThreadKeepsItWhereFasterAndFollowsTheMachine) {
  ThreadLearner learner(kRetryAfter, fake_now);
  // Quick calls: one thread is tried at once (a warm-up, then timed calls) until it has
  // kSamples timings; then two threads, until they have as many; then one thread leads.
  EXPECT_EQ(run_calls(learner, 12, 100, 200), (std::vector<int>{2, 2, 1, 1, 1, 1, 2, 2, 2, 1, 1, 1}));
  EXPECT_EQ(run_calls(learner, 10, 100, 200), std::vector<int>(10, 1));
  // Two threads got faster: two tries replace two of their three timings, and they lead.
  advance_ms(45);
  EXPECT_EQ(run_calls(learner, 4, 100, 50), (std::vector<int>{2, 2, 1, 1}));
  EXPECT_EQ(run_calls(learner, 10, 100, 50), std::vector<int>(10, 1));  // the next try after 80 ms
  advance_ms(85);
  EXPECT_EQ(run_calls(learner, 10, 100, 50), std::vector<int>(10, 2));
}

TEST(ThreadLearner, ANewLeadIsCheckedSoonAgain) {
  ThreadLearner learner(kRetryAfter, fake_now);
  run_calls(learner, 12, 100, 200);     // one thread leads
  for (const int ms : {45, 85, 165}) {  // tries of two threads, 40, 80 and 160 ms apart
    advance_ms(ms);
    EXPECT_EQ(run_calls(learner, 4, 100, 200), (std::vector<int>{2, 2, 1, 1}));
  }
  // Two threads got faster and lead after two tries; the next try of one thread comes 40 ms
  // later again, not 640.
  advance_ms(325);
  EXPECT_EQ(run_calls(learner, 4, 100, 50), (std::vector<int>{2, 2, 1, 1}));
  advance_ms(645);
  EXPECT_EQ(run_calls(learner, 2, 100, 50), (std::vector<int>{2, 2}));
  advance_ms(45);
  EXPECT_EQ(run_call(learner, 8 * kMiB, 100, 50), 1);
}

TEST(ThreadLearner, TheLeadIsWeighedAfterATry) {
  ThreadLearner learner(kRetryAfter, fake_now);
  run_calls(learner, 12, 100, 200);  // one thread leads
  // One thread's calls slow down to 300 ns: it keeps the lead until two threads are tried
  // again (40 ms after the last try), not on their older timings of 200 ns.
  EXPECT_EQ(run_calls(learner, 10, 300, 200), std::vector<int>(10, 1));
  advance_ms(45);
  EXPECT_EQ(run_calls(learner, 4, 300, 200), (std::vector<int>{2, 2, 2, 2}));
}

TEST(ThreadLearner, OneThreadMustBeClearlyFaster) {
  ThreadLearner learner(kRetryAfter, fake_now);
  EXPECT_EQ(run_calls(learner, 12, 96, 100), (std::vector<int>{2, 2, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2}));
  EXPECT_EQ(run_calls(learner, 10, 96, 100), std::vector<int>(10, 2));
}

TEST(ThreadLearner, TriesACostlyCountRarely) {
  // Two threads take 2 ms a call, so one thread is reckoned at 4 ms, 2 ms more: 16 times
  // that for its two calls (64 ms) pass before it is tried.
  ThreadLearner learner(kRetryAfter, fake_now);
  run_calls(learner, 2, 2 * kMs, 2 * kMs);
  advance_ms(60);
  EXPECT_EQ(run_call(learner, 8 * kMiB, 2 * kMs, 2 * kMs), 2);
  advance_ms(5);
  EXPECT_EQ(run_call(learner, 8 * kMiB, 2 * kMs, 2 * kMs), 1);
}

TEST(ThreadLearner, StallsOfTwoThreadsCountAgainstThem) {
  // Two threads usually take 100 ns, but every 20th of their calls stalls for 10 us (the
  // other core's job holds the worker): 595 ns a call on average, against 150 on one thread.
  // The median alone would keep two threads; their stalls hand the lead to one thread, and
  // once the stalls stop, two threads lead again after the stall memory has halved a few
  // times (640 ms each).
  ThreadLearner learner(kRetryAfter, fake_now);
  int many_calls = 0;
  const auto run_for = [&](int calls, bool stalls) {
    std::vector<int> threads;
    for (int i = 0; i < calls; ++i) {
      g_now += std::chrono::milliseconds(1);
      const ThreadLearner::Choice choice = learner.choose(cap(2), 8 * kMiB, 2);
      std::int64_t ns = 150;
      if (choice.threads > 1) ns = stalls && ++many_calls % 20 == 0 ? 10'000 : 100;
      if (choice.learner != nullptr) learner.record(8 * kMiB, choice.threads, nanoseconds(ns));
      threads.push_back(choice.threads);
    }
    return threads;
  };
  const std::vector<int> loaded = run_for(4000, true);
  const auto ones = [](const std::vector<int>& t, std::size_t from) {
    return std::count(t.begin() + static_cast<std::ptrdiff_t>(from), t.end(), 1);
  };
  EXPECT_GE(ones(loaded, 1000), 2900) << "of the last 3000 calls under stalls";
  const std::vector<int> quiet = run_for(4000, false);
  EXPECT_LE(ones(quiet, 3000), 8) << "of the last 1000 calls without stalls (tries of one thread)";
}

TEST(ThreadLearner, OneThreadAndInjectedTilesAreNotLearnt) {
  ThreadLearner learner(std::chrono::seconds(1), fake_now);
  const ThreadLearner::Choice one = learner.choose(cap(2), 8 * kMiB, 1);
  EXPECT_EQ(one.threads, 1);
  EXPECT_EQ(one.learner, nullptr);
  Knobs tiled = cap(2);
  tiled.tile_bytes = 64;
  for (int i = 0; i < 8; ++i) {
    const ThreadLearner::Choice choice = learner.choose(tiled, 8 * kMiB, 2);
    EXPECT_EQ(choice.threads, 2);
    EXPECT_EQ(choice.learner, nullptr);
  }
}

TEST(ThreadLearner, AWarmUpIsNotTimed) {
  ThreadLearner learner(std::chrono::seconds(1), fake_now);
  const ThreadLearner::Choice warm_up = learner.choose(cap(2), 8 * kMiB, 2);
  EXPECT_EQ(warm_up.threads, 2);
  EXPECT_EQ(warm_up.learner, nullptr);
  const ThreadLearner::Choice timed = learner.choose(cap(2), 8 * kMiB, 2);
  EXPECT_EQ(timed.threads, 2);
  EXPECT_EQ(timed.learner, &learner);
}

}  // namespace
}  // namespace opconform::optimized
