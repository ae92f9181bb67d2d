// One `hugetune-report` -> the facts the fleet needs. The report's reader checked every field.
#include "model/fleet/fleet.hpp"
#include "model/input/json_fields.hpp"

namespace hugetune::model::fleet {

RunFacts read_run(const Report& report) {
    const ReportRun& r = report.run.value();
    const ReportRecommendation& rec = report.recommendation;
    RunFacts run;
    run.host = r.hostname;
    run.sku = r.sku;
    run.generated_at = r.generated_at;
    run.tool_version = r.tool_version;
    run.kernel_release = report.kernel.release;
    run.firmware = r.firmware;
    // The report's top holds the probe's blocks (cpu, topology, kernel, virtualization).
    run.sweep = fit_input(r.sweep, JsonField(report.document), "sweep.points");
    run.decision = rec.decision;
    run.hugepage_alloc_threads = static_cast<int>(rec.hugepage_alloc_threads);
    run.predicted_seconds = rec.predicted_seconds.value_or(0);
    run.saving_seconds = rec.saving_seconds.value_or(0);
    run.confidence = rec.confidence;
    for (const auto& w : r.warnings)
        run.warning_codes.push_back(w.code);
    run.verification = report.verification;
    run.boot_pool = report.boot_pool;
    return run;
}

RunFacts read_run(const nlohmann::json& document, const InputSource& input) {
    ReportReading reading;
    reading.need_run = true;
    reading.input = input;
    return read_run(read_report(document, reading));
}

}  // namespace hugetune::model::fleet
