// The main of the CUDA benches: run(argc, argv), and an exception as one line on stderr naming
// the bench, exit status 1.
#pragma once

#include <cstdio>
#include <exception>

namespace ec::bench {

template <class Run>
int bench_main(const char* name, Run run, int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", name, e.what());
    return 1;
  }
}

}  // namespace ec::bench
