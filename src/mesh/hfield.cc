#include "mesh/hfield.h"
#include "mesh/mesh.h"

#include <png.h>

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
// (green and blue ignored); alpha is ignored; 16-bit samples keep their high byte (1000 -> 3, not
// the rounded 4); gray depths below 8 bits scale to 0..255 (the later normalization to [0, 1] makes
// the scale irrelevant there).
HeightField read_png(const std::string& path) {
  const std::string bytes = read_file(path, "height field");
  if (bytes.size() < 8 || png_sig_cmp(reinterpret_cast<png_const_bytep>(bytes.data()), 0, 8))
    throw std::runtime_error("'" + path + "' is not a PNG file");
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  if (!png) throw std::runtime_error("libpng: out of memory");
  png_infop info = png_create_info_struct(png);
  if (!info) {
    png_destroy_read_struct(&png, nullptr, nullptr);
    throw std::runtime_error("libpng: out of memory");
  }
  struct Reader {
    const std::string* s;
    size_t pos;
  } reader{&bytes, 0};
  png_set_read_fn(png, &reader, [](png_structp p, png_bytep out, png_size_t n) {
    auto* r = static_cast<Reader*>(png_get_io_ptr(p));
    if (r->pos + n > r->s->size()) png_error(p, "truncated file");
    std::memcpy(out, r->s->data() + r->pos, n);
    r->pos += n;
  });
  HeightField hf;
  std::vector<unsigned char> img;
  std::vector<png_bytep> rows;
  // libpng reports errors by longjmp: nothing with a destructor may be created below until the
  // rows are read (the vectors above outlive the jump).
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_read_struct(&png, &info, nullptr);
    throw std::runtime_error("PNG file '" + path + "' could not be decoded");
  }
  png_read_info(png, info);
  const png_uint_32 w = png_get_image_width(png, info), h = png_get_image_height(png, info);
  if (w == 0 || h == 0 || static_cast<unsigned long long>(w) * h > 100000000ull) {
    png_destroy_read_struct(&png, &info, nullptr);
    throw std::runtime_error("PNG file '" + path + "' has an unsupported size for a height field");
  }
  png_set_expand(png);    // palette -> RGB, gray < 8 bits -> 8 bits, tRNS -> alpha
  png_set_strip_16(png);  // high byte of 16-bit samples
  png_read_update_info(png, info);
  const size_t rowbytes = png_get_rowbytes(png, info);
  const int channels = png_get_channels(png, info);
  img.resize(rowbytes * h);
  rows.resize(h);
  for (png_uint_32 r = 0; r < h; ++r) rows[r] = img.data() + r * rowbytes;
  png_read_image(png, rows.data());
  png_read_end(png, nullptr);
  png_destroy_read_struct(&png, &info, nullptr);
  hf.nrow = static_cast<int>(h);
  hf.ncol = static_cast<int>(w);
  hf.data.resize(static_cast<size_t>(w) * h);
  for (png_uint_32 r = 0; r < h; ++r)
    for (png_uint_32 c = 0; c < w; ++c)
      hf.data[static_cast<size_t>(r) * w + c] = img[static_cast<size_t>(h - 1 - r) * rowbytes + c * channels];
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
