#include "tuner/system/privilege.hpp"

#include <unistd.h>

#include "model/errors.hpp"

namespace hugetune {

bool running_as_root() {
    return geteuid() == 0;
}

void require_root(const std::string& refusal) {
    if (!running_as_root())
        throw NotRootError(refusal);
}

}  // namespace hugetune
