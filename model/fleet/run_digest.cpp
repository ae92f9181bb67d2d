#include "model/fleet/run_digest.hpp"

#include <algorithm>
#include <charconv>
#include <exception>
#include <nlohmann/json.hpp>

#include "model/documents/json_values.hpp"
#include "model/input/json_plain.hpp"
#include "model/input/json_text.hpp"
#include "model/parallel.hpp"

namespace hugetune::model::fleet {
namespace {

using nlohmann::json;

// A series as three arrays in the points' order: counts, seconds, and weights only where one
// is not 1. Written as text (a digest is mostly these numbers; a tree of them first took most
// of an ingest's time), each number in its shortest form that reads back to the same double.
void append_number(std::string& out, double value) {
    char buffer[32];
    const auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, value);
    out.append(buffer, error == std::errc() ? end : buffer);
}

void append_numbers(std::string& out, const char* key, const std::vector<Point>& points,
                    double Point::*member) {
    out += ",\"";
    out += key;
    out += "\":[";
    for (std::size_t i = 0; i < points.size(); ++i) {
        if (i > 0)
            out += ',';
        append_number(out, points[i].*member);
    }
    out += ']';
}

std::string phases_text(const std::vector<PhaseSeries>& phases) {
    std::string out = "[";
    for (const auto& series : phases) {
        if (out.size() > 1)
            out += ',';
        out += "{\"phase\":" + json(series.phase).dump() + ",\"pages_per_node\":";
        append_number(out, series.pages_per_node);
        append_numbers(out, "t", series.points, &Point::threads_per_node);
        append_numbers(out, "s", series.points, &Point::seconds);
        if (std::any_of(series.points.begin(), series.points.end(),
                        [](const Point& p) { return p.weight != 1.0; }))
            append_numbers(out, "w", series.points, &Point::weight);
        out += '}';
    }
    return out + "]";
}

// `text` with the first `"key":null` replaced by `"key":value`.
void splice(std::string& text, const std::string& key, const std::string& value) {
    const std::string placeholder = "\"" + key + "\":null";
    const auto at = text.find(placeholder);
    text.replace(at, placeholder.size(), "\"" + key + "\":" + value);
}

PhaseSeries read_series(const json& j) {
    PhaseSeries s;
    s.phase = j.at("phase").get<std::string>();
    s.pages_per_node = j.at("pages_per_node").get<double>();
    const json& t = j.at("t");
    const json& sec = j.at("s");
    const json* w = j.contains("w") ? &j.at("w") : nullptr;
    if (sec.size() != t.size() || (w != nullptr && w->size() != t.size()))
        throw std::invalid_argument("series arrays differ in length");
    s.points.reserve(t.size());
    for (std::size_t i = 0; i < t.size(); ++i)
        s.points.push_back(
            {t[i].get<double>(), sec[i].get<double>(), w != nullptr ? (*w)[i].get<double>() : 1.0});
    return s;
}

std::vector<PhaseSeries> read_phases(const json& j) {
    std::vector<PhaseSeries> out;
    for (const auto& s : j)
        out.push_back(read_series(s));
    return out;
}

template <typename T>
std::optional<T> optional_of(const json& j, const char* key) {
    const json& v = j.at(key);
    return v.is_null() ? std::nullopt : std::optional<T>(v.get<T>());
}

json machine_json(const MachineFacts& m) {
    json requests = json::array();
    for (const auto& r : m.boot_requests)
        requests.push_back({r.size_kb, or_null(r.pages), r.node_format});
    return {{"microarch", m.microarch},
            {"nodes", or_null(m.nodes)},
            {"online_cpus", or_null(m.online_cpus)},
            {"hw_threads_per_node", or_null(m.hw_threads_per_node)},
            {"init_on_alloc", or_null(m.init_on_alloc)},
            {"boot_pool_pages", or_null(m.boot_pool_pages)},
            {"boot_requests", requests},
            {"current_pool_pages", or_null(m.current_pool_pages)},
            {"hypervisor", m.hypervisor},
            {"kernel_release", or_null(m.kernel_release)},
            {"supports_alloc_threads", or_null(m.supports_alloc_threads)},
            {"hvo", or_null(m.kernel.hvo)},
            {"hvo_sysctl", m.kernel.hvo_sysctl},
            {"vmemmap_freeable_kib_per_page", or_null(m.kernel.vmemmap_freeable_kib_per_page)},
            {"zeroable_hugepages", m.kernel.zeroable_hugepages},
            {"largest_buddy_block_kb", m.largest_buddy_block_kb},
            {"sku_memory_nodes", m.sku_memory_nodes},
            {"sku_hardware_threads_per_node", m.sku_hardware_threads_per_node},
            {"sku_memory_per_node_gib", m.sku_memory_per_node_gib}};
}

MachineFacts read_machine(const json& j) {
    MachineFacts m;
    m.microarch = j.at("microarch").get<std::string>();
    m.nodes = optional_of<int>(j, "nodes");
    m.online_cpus = optional_of<int>(j, "online_cpus");
    m.hw_threads_per_node = optional_of<int>(j, "hw_threads_per_node");
    m.init_on_alloc = optional_of<bool>(j, "init_on_alloc");
    m.boot_pool_pages = optional_of<std::uint64_t>(j, "boot_pool_pages");
    for (const auto& r : j.at("boot_requests")) {
        BootPoolRequest request;
        request.size_kb = r.at(0).get<std::uint64_t>();
        if (!r.at(1).is_null())
            request.pages = r.at(1).get<std::uint64_t>();
        request.node_format = r.at(2).get<bool>();
        m.boot_requests.push_back(request);
    }
    m.current_pool_pages = optional_of<std::uint64_t>(j, "current_pool_pages");
    m.hypervisor = j.at("hypervisor").get<bool>();
    m.kernel_release = optional_of<std::string>(j, "kernel_release");
    m.supports_alloc_threads = optional_of<bool>(j, "supports_alloc_threads");
    m.kernel.hvo = optional_of<bool>(j, "hvo");
    m.kernel.hvo_sysctl = j.at("hvo_sysctl").get<bool>();
    m.kernel.vmemmap_freeable_kib_per_page =
        optional_of<double>(j, "vmemmap_freeable_kib_per_page");
    m.kernel.zeroable_hugepages = j.at("zeroable_hugepages").get<bool>();
    m.largest_buddy_block_kb = j.at("largest_buddy_block_kb").get<std::uint64_t>();
    m.sku_memory_nodes = j.at("sku_memory_nodes").get<int>();
    m.sku_hardware_threads_per_node = j.at("sku_hardware_threads_per_node").get<int>();
    m.sku_memory_per_node_gib = j.at("sku_memory_per_node_gib").get<std::uint64_t>();
    return m;
}

// A run's identity key as [source, the hash's first 64 bits], or null.
json hardware_json(const std::optional<IdentityKey>& key) {
    if (!key)
        return nullptr;
    return {to_string(key->source), key->hash_prefix};
}

std::optional<IdentityKey> read_hardware(const json& j) {
    if (j.is_null())
        return std::nullopt;
    const auto source = model::identity_source(j.at(0).get<std::string>());
    if (!source || *source == IdentitySource::none)
        throw std::invalid_argument("not an identity's source");
    return IdentityKey{*source, j.at(1).get<std::uint64_t>()};
}

json sku_json(const SkuKey& k) {
    return {k.microarch,           k.nodes,        k.hardware_threads_per_node,
            k.memory_per_node_gib, k.page_size_kb, or_null(k.init_on_alloc)};
}

SkuKey read_sku_key(const json& j) {
    SkuKey k;
    k.microarch = j.at(0).get<std::string>();
    k.nodes = j.at(1).get<int>();
    k.hardware_threads_per_node = j.at(2).get<int>();
    k.memory_per_node_gib = j.at(3).get<std::uint64_t>();
    k.page_size_kb = j.at(4).get<std::uint64_t>();
    if (!j.at(5).is_null())
        k.init_on_alloc = j.at(5).get<bool>();
    return k;
}

}  // namespace

std::optional<std::string> run_digest(const RunFacts& run) {
    const SweepData& s = run.sweep;
    // A report's sweep is one host's: no boot settings, no hosts pooled.
    if (!s.boot_settings.empty() ||
        std::any_of(s.phases.begin(), s.phases.end(),
                    [](const PhaseSeries& p) { return !p.host_ends.empty(); }))
        return std::nullopt;
    json hvo = nullptr;
    if (s.hvo_pass)
        hvo = {{"as_is", s.hvo_pass->as_is},
               {"flipped", s.hvo_pass->flipped},
               {"hvo_phases", nullptr}};
    json pool = nullptr;
    if (run.boot_pool)
        pool = {run.boot_pool->pages, run.boot_pool->page_size_kb, run.boot_pool->source};
    const json digest = {{"v", kRunDigestVersion},
                         {"host", run.host},
                         {"sku", sku_json(run.sku)},
                         {"generated_at", run.generated_at},
                         {"tool_version", run.tool_version},
                         {"kernel_release", or_null(run.kernel_release)},
                         {"firmware", or_null(run.firmware)},
                         {"hardware", hardware_json(run.hardware)},
                         {"decision", to_string(run.decision)},
                         {"threads", run.hugepage_alloc_threads},
                         {"predicted_seconds", run.predicted_seconds},
                         {"saving_seconds", run.saving_seconds},
                         {"confidence", or_null(run.confidence)},
                         {"warnings", run.warning_codes},
                         {"samples_digest", run.samples_digest},
                         {"boot_pool", pool},
                         {"sweep",
                          {{"source", s.source},
                           {"page_size_kb", s.page_size_kb},
                           {"seed", s.seed},
                           {"complete", s.complete},
                           {"notes", s.notes},
                           {"phases", nullptr},
                           {"hvo_pass", hvo},
                           {"machine", machine_json(s.machine)}}}};
    // The series go in as text where the tree holds their places (no string can hold the
    // placeholder: a quote inside one is written escaped).
    std::string text = digest.dump();
    splice(text, "phases", phases_text(s.phases));
    if (s.hvo_pass)
        splice(text, "hvo_phases", phases_text(s.hvo_pass->phases));
    return text;
}

std::optional<RunFacts> read_run_digest(std::string_view text, const InputSource& input) {
    // The plain reader takes what dump() writes but for escaped strings; those go through the
    // full parser.
    std::optional<json> doc = read_plain_json(text, kMaxJsonDepth);
    try {
        if (!doc)
            doc = parse_json_document(text);
        const json& d = *doc;
        if (!d.is_object() || !d.contains("v") || d.at("v") != kRunDigestVersion)
            return std::nullopt;
        RunFacts run;
        run.host = d.at("host").get<std::string>();
        run.sku = read_sku_key(d.at("sku"));
        run.generated_at = d.at("generated_at").get<std::string>();
        run.tool_version = d.at("tool_version").get<std::string>();
        run.kernel_release = optional_of<std::string>(d, "kernel_release");
        run.firmware = optional_of<std::string>(d, "firmware");
        run.hardware = read_hardware(d.at("hardware"));
        const std::string decision = d.at("decision").get<std::string>();
        if (decision != to_string(Decision::set) && decision != to_string(Decision::keep_default))
            return std::nullopt;
        run.decision =
            decision == to_string(Decision::set) ? Decision::set : Decision::keep_default;
        run.hugepage_alloc_threads = d.at("threads").get<int>();
        run.predicted_seconds = d.at("predicted_seconds").get<double>();
        run.saving_seconds = d.at("saving_seconds").get<double>();
        run.confidence = optional_of<double>(d, "confidence");
        run.warning_codes = d.at("warnings").get<std::vector<std::string>>();
        run.samples_digest = d.at("samples_digest").get<std::uint64_t>();
        if (const json& pool = d.at("boot_pool"); !pool.is_null())
            run.boot_pool =
                ReportBootPool{pool.at(0).get<std::uint64_t>(), pool.at(1).get<std::uint64_t>(),
                               pool.at(2).get<std::string>()};
        const json& s = d.at("sweep");
        SweepData& sweep = run.sweep;
        sweep.source = s.at("source").get<std::string>();
        sweep.page_size_kb = s.at("page_size_kb").get<std::uint64_t>();
        sweep.seed = s.at("seed").get<std::uint64_t>();
        sweep.complete = s.at("complete").get<bool>();
        sweep.notes = s.at("notes").get<std::vector<std::string>>();
        sweep.phases = read_phases(s.at("phases"));
        if (const json& hvo = s.at("hvo_pass"); !hvo.is_null())
            sweep.hvo_pass = HvoPassData{hvo.at("as_is").get<bool>(), hvo.at("flipped").get<bool>(),
                                         read_phases(hvo.at("hvo_phases"))};
        sweep.machine = read_machine(s.at("machine"));
        sweep.input = input;
        return run;
    } catch (const std::exception&) {
        // A digest is a copy of what the report says; one this reader cannot take is passed
        // over for the report.
        return std::nullopt;
    }
}

std::vector<std::optional<RunFacts>> read_run_digests(std::span<const std::string> texts,
                                                      const InputSource& input) {
    std::vector<std::optional<RunFacts>> out(texts.size());
    // Below this many digests a thread costs more than it saves.
    constexpr std::size_t kDigestsPerThread = 256;
    parallel_for(texts.size(), threads_for(texts.size(), kDigestsPerThread),
                 [&](std::size_t i) { out[i] = read_run_digest(texts[i], input); });
    return out;
}

}  // namespace hugetune::model::fleet
