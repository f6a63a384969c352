// Benchmark (not a test): load a tokenizer.json, then encode the embedded evaluation text cold and
// warm (the word cache), a few times each. Prints CPU milliseconds and text throughput per stage.
// Usage: bench_tokenizer TOKENIZER_JSON [repeats]
//   e.g. bench_tokenizer tests/fixtures/tokenizers/qwen3/tokenizer.json 5   (after make fixtures)
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <string>
#include <vector>

#include "core/embedded.h"
#include "tokenizer/tokenizer.h"

namespace {

// CPU time of this process: on a shared 2-core machine wall time says more about the neighbours.
double cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    fmt::print(stderr, "usage: bench_tokenizer TOKENIZER_JSON [repeats]\n");
    return 2;
  }
  const std::string path = argv[1];
  const int repeats = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;
  try {
    const std::string_view text = ec::embedded::eval_text();
    std::vector<double> load_ms, cold_ms, warm_ms;
    std::size_t tokens = 0;
    for (int r = 0; r < repeats; ++r) {
      const double t0 = cpu_ms();
      const auto tok = ec::tok::Tokenizer::load(path);
      const double t1 = cpu_ms();
      const auto cold = tok.encode(text);
      const double t2 = cpu_ms();
      const auto warm = tok.encode(text);
      const double t3 = cpu_ms();
      if (cold != warm) {
        fmt::print(stderr, "bench_tokenizer: {}: warm encode differs from cold\n", path);
        return 1;
      }
      tokens = cold.size();
      load_ms.push_back(t1 - t0);
      cold_ms.push_back(t2 - t1);
      warm_ms.push_back(t3 - t2);
    }
    const double mb = static_cast<double>(text.size()) / 1e6;
    fmt::print("tokenizer {}\neval text {:.3f} MB, {} tokens; median of {} (CPU ms)\n", path, mb,
               tokens, repeats);
    fmt::print("| stage | ms | MB/s | tokens/s |\n|---|---|---|---|\n");
    fmt::print("| load | {:.1f} | | |\n", median(load_ms));
    for (const auto& [name, ms] :
         {std::pair{"encode cold", median(cold_ms)}, std::pair{"encode warm", median(warm_ms)}}) {
      fmt::print("| {} | {:.1f} | {:.1f} | {:.0f} |\n", name, ms, mb / (ms / 1e3),
                 static_cast<double>(tokens) / (ms / 1e3));
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "bench_tokenizer: {}\n", e.what());
    return 1;
  }
  return 0;
}
