// What the fleet database refuses, by audience: the caller's input or database (`usage`: a
// report or database it cannot take, a newer schema) or a failure of the database itself (a
// server that does not answer, a write refused), each with its exit code.
#pragma once

#include "model/errors.hpp"

namespace hugetune::fleet_db {

class FleetDbError : public Error {
  public:
    enum class Kind { usage, failure };
    FleetDbError(Kind kind, const Message& message)
        : Error(kind == Kind::usage ? ExitCode::usage : ExitCode::failure, message) {}
    Kind kind() const { return code() == ExitCode::usage ? Kind::usage : Kind::failure; }
};

}  // namespace hugetune::fleet_db
