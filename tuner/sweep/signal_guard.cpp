#include "tuner/sweep/signal_guard.hpp"

#include <pthread.h>

#include <cerrno>
#include <ctime>

namespace hugetune {

SignalGuard::SignalGuard() {
    sigemptyset(&handled_);
    sigaddset(&handled_, SIGINT);
    sigaddset(&handled_, SIGTERM);
    sigaddset(&handled_, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &handled_, &previous_mask_);
    waiter_ = std::thread([this] {
        // Polls so that the destructor can stop it without sending itself a signal.
        const timespec tick{0, 50'000'000};
        while (!stop_.load(std::memory_order_acquire)) {
            int sig = sigtimedwait(&handled_, nullptr, &tick);
            if (sig > 0) {
                int expected = 0;
                received_.compare_exchange_strong(expected, sig, std::memory_order_acq_rel);
            }
        }
    });
}

SignalGuard::~SignalGuard() {
    stop_.store(true, std::memory_order_release);
    waiter_.join();
    // A signal that arrives after this point takes its default action: by then the owner has
    // restored the machine (the guard is destroyed after the PoolGuard it protects).
    pthread_sigmask(SIG_SETMASK, &previous_mask_, nullptr);
}

}  // namespace hugetune
