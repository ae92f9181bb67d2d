#include "model/input/kernel_options.hpp"

#include "model/input/json_fields.hpp"

namespace hugetune::model {

KernelOptions kernel_options_from_probe(const nlohmann::json& probe, std::uint64_t page_size_kb,
                                        const InputSource& input) {
    const JsonField kernel =
        JsonField(probe, "give the sweep as 'hugetune sweep' wrote it", input)["kernel"];
    KernelOptions k;
    if (const JsonField hvo = kernel["hvo"]; hvo.present()) {
        k.hvo = hvo.hint<bool>();
        if (!k.hvo)
            hvo.fail("must be true, false or null");
    }
    k.hvo_sysctl = kernel["hvo_sysctl"].hint<bool>().value_or(false);
    const JsonField freeable = kernel["vmemmap_freeable"];
    for (std::size_t i = 0; i < (freeable.present() ? freeable.array_size() : 0); ++i)
        if (static_cast<std::uint64_t>(freeable[i]["size_kb"].whole_number()) == page_size_kb)
            k.vmemmap_freeable_kib_per_page =
                static_cast<double>(freeable[i]["kib_per_page"].whole_number({0}));
    const JsonField pools = kernel["pools"];
    for (std::size_t i = 0; i < (pools.present() ? pools.array_size() : 0); ++i) {
        if (static_cast<std::uint64_t>(pools[i]["size_kb"].whole_number()) != page_size_kb)
            continue;
        const JsonField nodes = pools[i]["nodes"];
        for (std::size_t n = 0; n < (nodes.present() ? nodes.array_size() : 0); ++n)
            k.zeroable_hugepages = k.zeroable_hugepages || nodes[n]["zeroable_hugepages"].present();
    }
    return k;
}

}  // namespace hugetune::model
