#include "tuner/boot/boot_outcome.hpp"

#include <streambuf>

namespace hugetune::boot {
namespace {

// A stream buffer without a buffer of its own: each write is appended to the outcome's output
// at once, so that results and diagnostics keep the order they were written in.
class OutputTextBuffer : public std::streambuf {
  public:
    OutputTextBuffer(std::vector<OutputText>& output, bool diagnostic)
        : output_(output), diagnostic_(diagnostic) {}

  protected:
    std::streamsize xsputn(const char* text, std::streamsize size) override {
        if (output_.empty() || output_.back().diagnostic != diagnostic_)
            output_.push_back({diagnostic_, {}});
        output_.back().text.append(text, static_cast<std::size_t>(size));
        return size;
    }
    int_type overflow(int_type c) override {
        if (traits_type::eq_int_type(c, traits_type::eof()))
            return traits_type::not_eof(c);
        const char ch = traits_type::to_char_type(c);
        xsputn(&ch, 1);
        return c;
    }

  private:
    std::vector<OutputText>& output_;
    bool diagnostic_;
};

}  // namespace

void record_plan(const BootChange& change, BootOutcome& outcome) {
    outcome.notes = change.notes;
    outcome.warnings = change.warnings;
    outcome.commands = change.commands;
    outcome.files.clear();
    for (const auto& f : change.files)
        outcome.files.push_back(f.file.target_path);
}

BootOutcome run_boot_steps(const BootSteps& steps) {
    BootOutcome outcome;
    OutputTextBuffer results(outcome.output, false), diagnostics(outcome.output, true);
    std::ostream out(&results), err(&diagnostics);
    try {
        steps(outcome, out, err);
    } catch (...) {
        outcome.failure = std::current_exception();
    }
    return outcome;
}

}  // namespace hugetune::boot
