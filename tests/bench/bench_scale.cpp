// What `hugetune fit` costs as its input grows: a CSV table and a sweep document of 1,000,000
// repetitions (the most README "Input size" allows) against small ones of the same shape, each
// parsed, fitted and bootstrapped (2,000 resamples) in a child process of its own, so that its
// time and peak resident memory (getrusage) are its alone. The target for the large inputs is
// under 2 s and under 200 MB; cost should follow the thread counts, not the rows.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "model/input/fit_input.hpp"
#include "model/recommend.hpp"

using namespace hugetune::model;

namespace {

const std::vector<int> kCounts = {1, 2, 4, 8, 16, 32, 64, 128};

// USL seconds with 5% multiplicative noise, the same for a seed everywhere this library is.
class Measurements {
  public:
    explicit Measurements(std::uint64_t seed) : rng_(seed) {}
    double seconds(int n) {
        const double curve = 60.0 * (1 + 0.08 * (n - 1) + 0.0015 * n * (n - 1)) / n;
        return curve * (1 + 0.05 * noise_(rng_));
    }

  private:
    std::mt19937_64 rng_;
    std::normal_distribution<double> noise_{0.0, 1.0};
};

std::string csv_table(std::size_t rows) {
    Measurements m(1);
    std::string text = "threads_per_node,seconds\n";
    text.reserve(rows * 16);
    char line[64];
    for (std::size_t i = 0; i < rows; ++i) {
        const int n = kCounts[i % kCounts.size()];
        const int length = std::snprintf(line, sizeof line, "%d,%.6f\n", n, m.seconds(n));
        text.append(line, static_cast<std::size_t>(length));
    }
    return text;
}

std::string sweep_document(std::size_t samples) {
    Measurements m(2);
    nlohmann::json points = nlohmann::json::array();
    const std::size_t per_count = samples / kCounts.size();
    for (int n : kCounts) {
        nlohmann::json seconds = nlohmann::json::array();
        for (std::size_t i = 0; i < per_count; ++i)
            seconds.push_back(m.seconds(n) / 1000);
        points.push_back({{"phase", "alloc"},
                          {"threads_per_node", n},
                          {"pages_per_node", 512},
                          {"samples_seconds", std::move(seconds)}});
    }
    return nlohmann::json{{"format", "hugetune-sweep"},
                          {"format_version", 1},
                          {"parameters", {{"page_size_kb", 2048}, {"seed", 1}, {"nodes", {0}}}},
                          {"points", std::move(points)}}
        .dump();
}

struct Cost {
    double wall_seconds = 0;
    double cpu_seconds = 0;
    double peak_rss_mb = 0;
    bool ok = false;
};

// Runs `work` in a child and measures it there: the parent's memory does not count, and one
// case's peak does not hide the next one's.
Cost measure(const std::function<void()>& work) {
    int pipe_fds[2];
    if (pipe(pipe_fds) != 0)
        return {};
    const pid_t child = fork();
    if (child == 0) {
        close(pipe_fds[0]);
        const auto start = std::chrono::steady_clock::now();
        work();
        const double wall =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const bool written = write(pipe_fds[1], &wall, sizeof wall) == sizeof wall;
        _exit(written ? 0 : 1);
    }
    close(pipe_fds[1]);
    Cost cost;
    const bool read_ok =
        read(pipe_fds[0], &cost.wall_seconds, sizeof cost.wall_seconds) == sizeof cost.wall_seconds;
    close(pipe_fds[0]);
    int status = 0;
    rusage usage{};
    if (child < 0 || wait4(child, &status, 0, &usage) != child)
        return {};
    cost.cpu_seconds = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                       static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
    cost.peak_rss_mb = static_cast<double>(usage.ru_maxrss) / 1024;  // ru_maxrss is in KiB
    cost.ok = read_ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    return cost;
}

volatile double sink = 0;

void fit(const SweepData& data) {
    const auto r = recommend_from_sweep(data, RecommendOptions{});
    sink = sink + r.predicted_seconds + r.confidence.value_or(0);
}

Cost fit_csv(const std::string& text) {
    return measure([&] { fit(parse_csv_table(text)); });
}

Cost fit_sweep(const std::string& text) {
    return measure([&] { fit(parse_sweep_json(nlohmann::json::parse(text))); });
}

void print(const char* what, std::size_t rows, std::size_t bytes, const Cost& c) {
    std::printf("%-6s %9zu rows %7.1f MB: %7.3f s wall %7.3f s cpu %7.1f MB peak RSS%s\n", what,
                rows, static_cast<double>(bytes) / 1e6, c.wall_seconds, c.cpu_seconds,
                c.peak_rss_mb, c.ok ? "" : "  (FAILED)");
}

}  // namespace

int main() {
    const std::size_t small = 40, large = kMaxInputSamples;
    const std::string small_csv = csv_table(small), large_csv = csv_table(large);
    const std::string small_sweep = sweep_document(small), large_sweep = sweep_document(large);
    std::printf(
        "parse + fit + 2000 bootstrap resamples, %zu thread counts, each in its own process\n",
        kCounts.size());
    const Cost costs[] = {fit_csv(small_csv), fit_csv(large_csv), fit_sweep(small_sweep),
                          fit_sweep(large_sweep)};
    print("csv", small, small_csv.size(), costs[0]);
    print("csv", large, large_csv.size(), costs[1]);
    print("sweep", small, small_sweep.size(), costs[2]);
    print("sweep", large, large_sweep.size(), costs[3]);
    bool met = true;
    for (const Cost* c : {&costs[1], &costs[3]})
        met = met && c->ok && c->wall_seconds < 2 && c->peak_rss_mb < 200;
    std::printf("1,000,000 rows under 2 s and 200 MB: %s\n", met ? "yes" : "no");
    return costs[0].ok && costs[1].ok && costs[2].ok && costs[3].ok ? 0 : 1;
}
