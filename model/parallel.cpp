#include "model/parallel.hpp"

#include <algorithm>

namespace hugetune::model {

std::size_t threads_for(std::size_t items, std::size_t per_thread, std::size_t limit) {
    const std::size_t machine = std::max(1u, std::thread::hardware_concurrency());
    const std::size_t most = limit > 0 ? limit : machine;
    return std::clamp<std::size_t>(items / std::max<std::size_t>(per_thread, 1), 1, most);
}

}  // namespace hugetune::model
