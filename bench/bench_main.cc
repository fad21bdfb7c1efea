// The one main() of moreau_bench; every bench/*.cc registers its cases.
#include <benchmark/benchmark.h>
BENCHMARK_MAIN();
