// The built-in thread pool (see animpack/jobs.h). POSIX threads, mutex and condition
// variables directly: the runtime is built with -fno-exceptions, and pthread_create
// reports failure with an error number where std::thread would throw.
//
// A run: the caller, under the mutex, publishes the job (fn, context, count, chunk),
// resets the chunk counter, counts every worker busy and bumps the generation, then
// broadcasts. Each worker wakes on the new generation, takes chunks from the atomic
// counter until none are left, then, under the mutex, counts itself idle (the last one
// signals the caller). The caller takes chunks too and then waits until no worker is
// busy, so a worker never sees two generations in one wake and every job's writes
// happen-before run() returns (the mutex orders them).
#include "animpack/jobs.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <utility>
#include <vector>

namespace animpack {

struct ThreadPool::Shared {
  pthread_mutex_t mutex;
  pthread_cond_t wake;  // workers: a new generation or quit
  pthread_cond_t idle;  // the caller: busy reached 0
  uint64_t generation = 0;
  bool quit = false;
  uint32_t busy = 0;  // workers still inside the current generation
  JobFn fn = nullptr;
  void* context = nullptr;
  uint32_t count = 0;
  uint32_t chunk = 1;
  std::atomic<uint64_t> next{0};  // the first index not yet taken
  std::vector<pthread_t> threads;
};

namespace {

// Takes chunks of [0, count) until none are left.
void work(std::atomic<uint64_t>& next, JobFn fn, void* context, uint32_t count, uint32_t chunk) {
  for (;;) {
    const uint64_t begin = next.fetch_add(chunk, std::memory_order_relaxed);
    if (begin >= count) return;
    const uint64_t end = std::min<uint64_t>(begin + chunk, count);
    fn(context, static_cast<uint32_t>(begin), static_cast<uint32_t>(end));
  }
}

void* worker(void* arg) {
  ThreadPool::Shared& s = *static_cast<ThreadPool::Shared*>(arg);
  uint64_t seen = 0;
  pthread_mutex_lock(&s.mutex);
  for (;;) {
    while (!s.quit && s.generation == seen) pthread_cond_wait(&s.wake, &s.mutex);
    if (s.quit) break;
    seen = s.generation;
    const JobFn fn = s.fn;
    void* const context = s.context;
    const uint32_t count = s.count, chunk = s.chunk;
    pthread_mutex_unlock(&s.mutex);
    work(s.next, fn, context, count, chunk);
    pthread_mutex_lock(&s.mutex);
    if (--s.busy == 0) pthread_cond_signal(&s.idle);
  }
  pthread_mutex_unlock(&s.mutex);
  return nullptr;
}

// Wakes every worker to quit and joins them.
void stop(ThreadPool::Shared& s) {
  pthread_mutex_lock(&s.mutex);
  s.quit = true;
  pthread_cond_broadcast(&s.wake);
  pthread_mutex_unlock(&s.mutex);
  for (pthread_t t : s.threads) pthread_join(t, nullptr);
  s.threads.clear();
}

}  // namespace

ThreadPool::ThreadPool(std::unique_ptr<Shared> shared) : shared_(std::move(shared)) {}

Result<std::unique_ptr<ThreadPool>> ThreadPool::create(uint32_t threads) {
  if (threads < 1 || threads > kMaxThreads) {
    return Error::make(ErrorCode::kInvalidArgument, "%u threads: 1 to %u", threads, kMaxThreads);
  }
  auto shared = std::make_unique<Shared>();
  pthread_mutex_init(&shared->mutex, nullptr);
  pthread_cond_init(&shared->wake, nullptr);
  pthread_cond_init(&shared->idle, nullptr);
  // The pool owns `shared` from here on: its destructor stops and joins what started.
  std::unique_ptr<ThreadPool> pool(new ThreadPool(std::move(shared)));
  Shared& s = *pool->shared_;
  s.threads.reserve(threads - 1);
  for (uint32_t i = 1; i < threads; ++i) {
    pthread_t t;
    if (const int e = pthread_create(&t, nullptr, &worker, &s); e != 0) {
      return Error::make(ErrorCode::kNoThread, "could not start thread %u of %u (error %d)", i + 1,
                         threads, e);
    }
    s.threads.push_back(t);
  }
  return pool;
}

ThreadPool::~ThreadPool() {
  if (!shared_) return;
  stop(*shared_);
  pthread_cond_destroy(&shared_->idle);
  pthread_cond_destroy(&shared_->wake);
  pthread_mutex_destroy(&shared_->mutex);
}

uint32_t ThreadPool::thread_count() const {
  return static_cast<uint32_t>(shared_->threads.size()) + 1;
}

void ThreadPool::run(uint32_t count, JobFn fn, void* context) {
  if (count == 0) return;
  Shared& s = *shared_;
  const auto workers = static_cast<uint32_t>(s.threads.size());
  if (workers == 0 || count == 1) {
    fn(context, 0, count);
    return;
  }
  // About eight chunks a thread: small enough to even out uneven objects, large enough
  // that the counter is not fought over.
  const uint32_t chunk = std::max<uint32_t>(1, count / ((workers + 1) * 8));
  pthread_mutex_lock(&s.mutex);
  s.fn = fn;
  s.context = context;
  s.count = count;
  s.chunk = chunk;
  s.next.store(0, std::memory_order_relaxed);
  s.busy = workers;
  ++s.generation;
  pthread_cond_broadcast(&s.wake);
  pthread_mutex_unlock(&s.mutex);
  work(s.next, fn, context, count, chunk);
  pthread_mutex_lock(&s.mutex);
  while (s.busy != 0) pthread_cond_wait(&s.idle, &s.mutex);
  pthread_mutex_unlock(&s.mutex);
}

}  // namespace animpack
