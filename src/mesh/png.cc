#include "mesh/png.h"

#include <png.h>

#include <cstring>
#include <stdexcept>

namespace moreau::mesh {

RgbImage decode_png_rgb(const std::string& bytes, const std::string& path, const char* what,
                        unsigned long long max_pixels) {
  if (bytes.size() < 8 || png_sig_cmp(reinterpret_cast<png_const_bytep>(bytes.data()), 0, 8))
    throw std::runtime_error(std::string(what) + " file '" + path + "' is not a PNG file");
  // warnings (e.g. about colour profiles, which the pixels do not use) are dropped; errors jump to
  // the handler below
  png_structp png = png_create_read_struct(
      PNG_LIBPNG_VER_STRING, nullptr, [](png_structp p, png_const_charp) { png_longjmp(p, 1); },
      [](png_structp, png_const_charp) {});
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
  RgbImage img;
  std::vector<png_bytep> rows;
  // libpng reports errors by longjmp: the objects with destructors (img, rows) exist before the
  // jump target, and nothing below creates another one.
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_read_struct(&png, &info, nullptr);
    throw std::runtime_error("PNG file '" + path + "' could not be decoded");
  }
  png_read_info(png, info);
  const png_uint_32 w = png_get_image_width(png, info), h = png_get_image_height(png, info);
  if (w < 1 || h < 1 || static_cast<unsigned long long>(w) * h > max_pixels) {
    png_destroy_read_struct(&png, &info, nullptr);
    throw std::runtime_error("PNG file '" + path + "' has an unsupported size for a " + what);
  }
  png_set_expand(png);       // palette -> RGB, gray < 8 bits -> 8 bits, tRNS -> alpha
  png_set_strip_16(png);     // high byte of 16-bit samples
  png_set_strip_alpha(png);  // alpha dropped, not blended
  png_set_gray_to_rgb(png);
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  if (png_get_channels(png, info) != 3 || png_get_rowbytes(png, info) != 3 * static_cast<size_t>(w)) {
    png_destroy_read_struct(&png, &info, nullptr);
    throw std::runtime_error("PNG file '" + path + "' could not be converted to RGB");
  }
  img.w = static_cast<int>(w);
  img.h = static_cast<int>(h);
  img.rgb.resize(3 * static_cast<size_t>(w) * h);
  rows.resize(h);
  for (png_uint_32 r = 0; r < h; ++r) rows[r] = img.rgb.data() + 3 * static_cast<size_t>(r) * w;
  png_read_image(png, rows.data());
  png_read_end(png, nullptr);
  png_destroy_read_struct(&png, &info, nullptr);
  return img;
}

}  // namespace moreau::mesh
