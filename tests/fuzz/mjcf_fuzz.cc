// libFuzzer target for the MJCF loader and compiler: any byte string must either load or
// raise moreau::LoadError -- never crash, hang, leak or read out of bounds. Built with clang and
// -fsanitize=fuzzer,address,undefined by scripts/fuzz.sh; seeded with every model of ../shared/models.
// Inputs that found something are kept in tests/fuzz/regressions (replayed by a unit test).
// Files the input refers to (include, meshes) resolve relative to the seed corpus directory.
#include <cstddef>
#include <cstdint>
#include <string>

#include "moreau/moreau.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string xml(reinterpret_cast<const char*>(data), size);
  try {
    moreau::Model m = moreau::load_model_from_string(xml, "fuzz.xml");
    // A model that loads must also simulate a few steps without crashing.
    if (m.nv < 200) {
      moreau::Data d = moreau::make_data(m);
      if (m.nkey > 0) moreau::reset_data_keyframe(m, d, 0);
      for (int i = 0; i < 3; ++i) moreau::step(m, d);
    }
  } catch (const moreau::LoadError&) {
  } catch (const std::runtime_error&) {  // e.g. an integrator that is not supported yet
  }
  return 0;
}
