// What the fleet database refuses, by audience: the caller's input or database (`usage`: a
// report or database it cannot take, a newer schema) or a failure of the database itself (a
// server that does not answer, a write refused). The command line turns each into its exit code.
#pragma once

#include <stdexcept>
#include <string>

namespace hugetune::fleet_db {

class FleetDbError : public std::runtime_error {
  public:
    enum class Kind { usage, failure };
    FleetDbError(Kind kind, const std::string& message)
        : std::runtime_error(message), kind_(kind) {}
    Kind kind() const { return kind_; }

  private:
    Kind kind_;
};

}  // namespace hugetune::fleet_db
