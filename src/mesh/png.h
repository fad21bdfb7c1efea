// PNG images decoded by libpng into 8-bit RGB, as MuJoCo 2.2.2 reads textures and height fields.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace moreau::mesh {

// w x h pixels, 3 bytes (R, G, B) each, rows from the top of the image.
struct RgbImage {
  int w = 0, h = 0;
  std::vector<uint8_t> rgb;
};

// Decodes the PNG file content `bytes` (read from `path`, which the errors name): palettes expanded,
// gray replicated to R = G = B (depths below 8 bits scaled to 0..255), alpha and transparency
// dropped without blending, the high byte of 16-bit samples, interlacing resolved, no gamma
// correction. `what` names the file's role in errors ("texture", "height field"); images of more
// than max_pixels pixels are refused. libpng's warnings are not printed; its errors become
// std::runtime_error.
RgbImage decode_png_rgb(const std::string& bytes, const std::string& path, const char* what,
                        unsigned long long max_pixels);

}  // namespace moreau::mesh
