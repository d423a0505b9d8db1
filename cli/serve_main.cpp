// bashkit-serve: the program `bashkit serve` runs (cli/main.cpp); argv[0] is "serve" when started that way.
#include "cli/serve.hpp"

int main(int argc, char** argv) { return bashkit::cli::serve_main(argc, argv); }
