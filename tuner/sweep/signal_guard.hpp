// SIGINT, SIGTERM and SIGHUP during a sweep must not kill the process before the pools are put
// back. While a SignalGuard lives the signals are blocked in the creating thread (and so in
// every thread it starts afterwards) and a dedicated thread takes them with sigtimedwait(): no
// code runs in signal context, the sweep notices the flag between repetitions, unwinds, and
// the PoolGuard destructor restores. Create it before any worker thread.
#pragma once

#include <signal.h>

#include <atomic>
#include <thread>

namespace hugetune {

class SignalGuard {
  public:
    SignalGuard();
    ~SignalGuard();
    SignalGuard(const SignalGuard&) = delete;
    SignalGuard& operator=(const SignalGuard&) = delete;

    // The signal received, or 0.
    int received() const { return received_.load(std::memory_order_acquire); }

  private:
    sigset_t handled_{};
    sigset_t previous_mask_{};
    std::atomic<int> received_{0};
    std::atomic<bool> stop_{false};
    std::thread waiter_;
};

}  // namespace hugetune
