// What a stage of the recommendation adds besides its value: notes (assumptions made) and
// warnings (things that weaken the result). The recommendation lists them in the order of the
// stages that made them.
#pragma once

#include <string>
#include <vector>

#include "model/warning.hpp"

namespace hugetune::model::recommend {

struct Remarks {
    std::vector<std::string> notes;
    std::vector<Warning> warnings;
};

// Every stage's remarks one after another, in the order given.
inline Remarks joined(std::vector<const Remarks*> stages) {
    Remarks all;
    for (const Remarks* s : stages) {
        all.notes.insert(all.notes.end(), s->notes.begin(), s->notes.end());
        all.warnings.insert(all.warnings.end(), s->warnings.begin(), s->warnings.end());
    }
    return all;
}

}  // namespace hugetune::model::recommend
