// keep_small_blocks where the program has no operator new of hugetune's own (the tests that link
// cli/, the sanitizer and fuzzing builds): nothing to turn on or off. The binary's definition
// (cli/small_blocks.cpp) takes the place of this weak one.
#include "cli/small_blocks.hpp"

namespace hugetune::cli {

[[gnu::weak]] void keep_small_blocks(bool) {}

}  // namespace hugetune::cli
