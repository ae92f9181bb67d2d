#include "cli/cli.hpp"

int main(int argc, char** argv) {
    return hugetune::cli::run_main(argc, argv);
}
