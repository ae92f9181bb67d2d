// The SKU key's text form: what `fleet recommend --sku` takes and every output prints.
#include <charconv>
#include <vector>

#include "model/fleet/fleet.hpp"
#include "model/microarch.hpp"
#include "model/text.hpp"

namespace hugetune::model::fleet {
namespace {

constexpr std::string_view kKeyFix =
    "give <microarch>/<nodes>n/<threads>t/<gib>g/<page kB>k[/ioa0|/ioa1], e.g. "
    "skylake/4n/28t/192g/2048k/ioa1; "
    "see 'hugetune fleet skus'";

struct KeyText {
    std::string_view text;
    const InputSource& input;
};

[[noreturn]] void refuse(const KeyText& key, const std::string& problem) {
    throw InputError(key.input, std::nullopt,
                     printable_text("SKU key '" + std::string(key.text) + "': " + problem + "; " +
                                    std::string(kKeyFix)));
}

std::vector<std::string_view> split(std::string_view text) {
    std::vector<std::string_view> parts;
    std::size_t begin = 0;
    for (std::size_t slash = text.find('/'); slash != std::string_view::npos;
         slash = text.find('/', begin)) {
        parts.push_back(text.substr(begin, slash - begin));
        begin = slash + 1;
    }
    parts.push_back(text.substr(begin));
    return parts;
}

// "<number><unit>", the number whole and at least `min`.
std::uint64_t number_with_unit(const KeyText& text, std::string_view part, char unit,
                               const char* name, std::uint64_t min) {
    if (part.size() < 2 || part.back() != unit)
        refuse(text, std::string(name) + " '" + std::string(part) + "' must end in '" + unit + "'");
    const std::string_view digits = part.substr(0, part.size() - 1);
    std::uint64_t value = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (error != std::errc() || end != digits.data() + digits.size() || value < min ||
        value > 1'000'000'000)
        refuse(text, std::string(name) + " '" + std::string(part) + "' must be a whole number " +
                         "from " + std::to_string(min) + " followed by '" + unit + "'");
    return value;
}

}  // namespace

std::string to_string(const SkuKey& key) {
    return key.microarch + "/" + std::to_string(key.nodes) + "n/" +
           std::to_string(key.hardware_threads_per_node) + "t/" +
           std::to_string(key.memory_per_node_gib) + "g/" + std::to_string(key.page_size_kb) + "k" +
           (key.init_on_alloc ? (*key.init_on_alloc ? "/ioa1" : "/ioa0") : "");
}

SkuKey parse_sku_key(std::string_view key_text, const InputSource& input) {
    const KeyText text{key_text, input};
    const auto parts = split(key_text);
    if (parts.size() != 5 && parts.size() != 6)
        refuse(text, std::to_string(parts.size()) + " part(s) separated by '/', not 5 or 6");
    if (!is_microarch_name(parts[0]))
        refuse(text, "microarch '" + std::string(parts[0]) + "' " + std::string(kMicroarchRule));
    SkuKey key;
    key.microarch = std::string(parts[0]);
    key.nodes = static_cast<int>(number_with_unit(text, parts[1], 'n', "nodes", 1));
    key.hardware_threads_per_node =
        static_cast<int>(number_with_unit(text, parts[2], 't', "threads per node", 1));
    key.memory_per_node_gib = number_with_unit(text, parts[3], 'g', "memory per node", 0);
    key.page_size_kb = number_with_unit(text, parts[4], 'k', "page size", 4);
    if (parts.size() == 6) {
        if (parts[5] != "ioa0" && parts[5] != "ioa1")
            refuse(text, "init_on_alloc '" + std::string(parts[5]) + "' must be ioa0 or ioa1");
        key.init_on_alloc = parts[5] == "ioa1";
    }
    return key;
}

std::string to_string(SkuStatus status) {
    switch (status) {
        case SkuStatus::settled:
            return "settled";
        case SkuStatus::settled_by_boots:
            return "settled_by_boots";
        case SkuStatus::needs_more_hosts:
            return "needs_more_hosts";
        case SkuStatus::host_warnings:
            return "host_warnings";
        case SkuStatus::fit_warnings:
            return "fit_warnings";
        case SkuStatus::low_confidence:
            return "low_confidence";
        case SkuStatus::hosts_disagree:
            return "hosts_disagree";
        case SkuStatus::disagrees_with_verification:
            return "disagrees_with_verification";
        case SkuStatus::disagrees_with_boots:
            return "disagrees_with_boots";
        case SkuStatus::stale_runs:
            return "stale_runs";
    }
    return "settled";
}

}  // namespace hugetune::model::fleet
