// Parallel-for for the runtime: the interface a game supplies to run the ScenePlayer's
// per-object work on its own job system, and a built-in pool of threads.
//
//   struct MyJobs : animpack::JobRunner {            // the game's job system
//     void run(uint32_t count, animpack::JobFn fn, void* context) override {
//       my_engine_parallel_for(count, [&](uint32_t b, uint32_t e) { fn(context, b, e); });
//     }
//   };
//
//   // or the built-in one: 4 threads (the calling thread and 3 workers)
//   auto pool = animpack::ThreadPool::create(4);
//   if (!pool) return pool.error();
//   (*pool)->run(count, fn, context);
//
// Contract of JobRunner::run: call fn(context, begin, end) on ranges [begin, end) that
// together cover [0, count), each index exactly once, in any order, on any threads
// (several at once, the caller's included), and return only when every call has
// returned. Every index's work is independent of the others' (the runtime promises it),
// so the results are the same bits whichever ranges and threads run them. fn never
// throws; run() must not allocate per call if the game wants the player's no-allocation
// promise to hold (the built-in pool does not).
#pragma once

#include <cstdint>
#include <memory>

#include "animpack/result.h"

namespace animpack {

// One piece of a parallel-for: the indexes [begin, end) of the work `context` names.
using JobFn = void (*)(void* context, uint32_t begin, uint32_t end);

// A game's job system (see the contract above).
class JobRunner {
 public:
  virtual ~JobRunner() = default;
  virtual void run(uint32_t count, JobFn fn, void* context) = 0;
};

// The built-in runner: threads - 1 worker threads started by create() (POSIX threads),
// plus the thread that calls run(), which takes part. Workers sleep on a condition
// variable between runs (no spinning), take chunks of the range from an atomic counter,
// and are woken, joined and freed by the destructor. run() allocates nothing and never
// throws. One run() at a time: it is not meant to be called from several threads at once
// (nor from inside its own jobs).
class ThreadPool final : public JobRunner {
 public:
  static constexpr uint32_t kMaxThreads = 256;

  // A pool of `threads` threads in all (1 to kMaxThreads; 1 runs everything on the
  // caller). Errors: kInvalidArgument for a count out of range, kNoThread when the system
  // refuses to start a thread (the ones already started are stopped and joined).
  static Result<std::unique_ptr<ThreadPool>> create(uint32_t threads);

  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;
  ~ThreadPool() override;

  // The threads that run jobs, the caller's included.
  uint32_t thread_count() const;
  void run(uint32_t count, JobFn fn, void* context) override;

  struct Shared;  // the workers' state (jobs.cpp)

 private:
  explicit ThreadPool(std::unique_ptr<Shared> shared);
  std::unique_ptr<Shared> shared_;
};

}  // namespace animpack
