// thread_policy.h: how many threads a call's work buys.
#include "thread_policy.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace opconform::optimized
