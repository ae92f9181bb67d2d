// One way to spread independent work over threads: each thread takes the next item as it
// finishes one, and the first error any item raises is raised again by the caller once every
// thread has stopped. The bootstrap's resamples and the fleet's stored digests use it.
#pragma once

#include <atomic>
#include <cstddef>
#include <exception>
#include <system_error>
#include <thread>
#include <vector>

namespace hugetune::model {

// Threads for `items` items when fewer than `per_thread` items do not pay for a thread of their
// own: at least 1, at most `limit` (0: the machine's hardware threads).
std::size_t threads_for(std::size_t items, std::size_t per_thread, std::size_t limit = 0);

// Calls `work(i)` for each i in [0, items) on `threads` threads, the calling one among them.
// After an item throws, no thread starts another; the first exception is rethrown here. The
// items' results are the caller's to keep by index, so they do not depend on which thread ran
// which item.
template <class Work>
void parallel_for(std::size_t items, std::size_t threads, Work&& work) {
    std::atomic<std::size_t> next{0};
    std::atomic<bool> failed{false};
    std::exception_ptr failure;
    const auto run = [&] {
        try {
            for (std::size_t i = next++; i < items && !failed; i = next++)
                work(i);
        } catch (...) {
            if (!failed.exchange(true))
                failure = std::current_exception();
        }
    };
    std::vector<std::thread> helpers;
    helpers.reserve(threads > 1 ? threads - 1 : 0);
    for (std::size_t t = 1; t < threads && t < items; ++t) {
        try {
            helpers.emplace_back(run);
        } catch (const std::system_error&) {  // no thread to be had: fewer do the work
            break;
        }
    }
    run();
    for (auto& h : helpers)
        h.join();
    if (failure)
        std::rethrow_exception(failure);
}

}  // namespace hugetune::model
