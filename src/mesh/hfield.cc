#include "mesh/hfield.h"
#include "mesh/mesh.h"
#include "mesh/png.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>

namespace moreau::mesh {

namespace {


// PNG samples as 2.2.2 reads them (measured with PNG files written for the purpose and read back
// from mjModel.hfield_data): the image's height is nrow and its width ncol; the bottom image row
// becomes row 0; the value of a pixel is its gray level or, for color images, its RED channel only
// (green and blue ignored; decode_png_rgb replicates gray into R); alpha is ignored; 16-bit samples
// keep their high byte (1000 -> 3, not the rounded 4); gray depths below 8 bits scale to 0..255
// (the later normalization to [0, 1] makes the scale irrelevant there).
HeightField read_png(const std::string& path) {
  const RgbImage img = decode_png_rgb(read_file(path, "height field"), path, "height field", 100000000ull);
  HeightField hf;
  hf.nrow = img.h;
  hf.ncol = img.w;
  const size_t w = static_cast<size_t>(img.w);
  hf.data.resize(w * img.h);
  for (int r = 0; r < img.h; ++r)
    for (size_t c = 0; c < w; ++c) hf.data[r * w + c] = img.rgb[3 * ((img.h - 1 - r) * w + c)];
  return hf;
}

// matches 2.2.2 (checked with a 2x3 file): values in file order, row 0 first, no flip.
HeightField read_binary(const std::string& path) {
  const std::string d = read_file(path, "height field");
  if (d.size() < 8) throw std::runtime_error("height field file '" + path + "' is too short");
  int32_t n[2];
  std::memcpy(n, d.data(), 8);
  if (n[0] < 1 || n[1] < 1 || static_cast<long long>(n[0]) * n[1] > 100000000)
    throw std::runtime_error("height field file '" + path + "' has a bad header");
  const size_t count = static_cast<size_t>(n[0]) * n[1];
  if (d.size() != 8 + 4 * count)
    throw std::runtime_error("height field file '" + path + "' has the wrong size for its header");
  HeightField hf;
  hf.nrow = n[0];
  hf.ncol = n[1];
  hf.data.resize(count);
  for (size_t i = 0; i < count; ++i) {
    float v;
    std::memcpy(&v, d.data() + 8 + 4 * i, 4);
    if (!std::isfinite(v)) throw std::runtime_error("height field file '" + path + "' has a non-finite value");
    hf.data[i] = v;
  }
  return hf;
}

}  // namespace

HeightField read_hfield_file(const std::string& path) {
  return file_extension(path) == "png" ? read_png(path) : read_binary(path);
}

}  // namespace moreau::mesh
