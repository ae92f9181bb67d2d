// A run's digest: the facts of one report the fleet's answer reads (model/fleet/fleet.hpp
// RunFacts), kept by the fleet database beside the whole report (docs/fleet.md "Run digests"),
// so that a SKU's answer reads a few numbers a run instead of re-reading each report's text.
// Written at ingest from the facts read_run made; read back into the very same facts, every
// sample bit for bit and in its order, so an answer from digests is the answer from reports.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/fleet/fleet.hpp"

namespace hugetune::model::fleet {

// The digest's format. Raised whenever read_run would make other facts of the same report (a
// reader's rule changed, a field added to RunFacts): a digest of another version is not read,
// and the database's migration to the hugetune that raises it writes every digest again.
inline constexpr int kRunDigestVersion = 3;

// The digest of `run` as read_run made it, its verifications left out (the database keeps
// those apart); nothing for facts a digest does not carry (a boot sweep's settings).
std::optional<std::string> run_digest(const RunFacts& run);

// The facts back, the sweep named by `input`; nothing when `text` is not a digest of this
// version (another hugetune's, or damaged): the caller then reads the report itself.
std::optional<RunFacts> read_run_digest(std::string_view text, const InputSource& input);

// read_run_digest of each text, in order, the texts shared out over the CPUs: a SKU's answer
// reads a digest for every run, and reading them is most of what it does before the fit.
std::vector<std::optional<RunFacts>> read_run_digests(std::span<const std::string> texts,
                                                      const InputSource& input);

}  // namespace hugetune::model::fleet
