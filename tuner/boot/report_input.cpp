#include "tuner/boot/report_input.hpp"

#include <charconv>
#include <limits>
#include "model/alloc_threads.hpp"
#include "model/errors.hpp"
#include "model/input/fit_input.hpp"
#include "tuner/system/json_file.hpp"

namespace hugetune {

model::Report read_report_file(const std::filesystem::path& path,
                               const model::ReportReading& reading) {
    // The command line puts its flag in front: "--report FILE: field: problem; fix".
    model::ReportReading named = reading;
    named.input = {path.string(), "report"};
    return model::read_report(read_json_file(path), named);
}

}  // namespace hugetune
