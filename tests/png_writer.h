// Small PNG files for the texture tests, written with libpng in any colour type, bit depth and
// interlacing, so that the decoder is tested on the encodings MuJoCo 2.2.2 accepts.
#pragma once

#include <png.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace moreau::testing {

struct PngSpec {
  int width = 0, height = 0;
  int color_type = PNG_COLOR_TYPE_RGB;  // PNG_COLOR_TYPE_{GRAY, GRAY_ALPHA, RGB, RGB_ALPHA, PALETTE}
  int bit_depth = 8;
  bool interlaced = false;
  // samples row by row, packed as PNG stores them (depth < 8: packed bits, 16: big-endian pairs)
  std::vector<unsigned char> data;
  std::vector<png_color> palette;          // PALETTE only
  std::vector<unsigned char> transparency;  // tRNS: palette alphas; empty: none
};

// The bytes of a PNG file.
inline std::string write_png(const PngSpec& s) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  std::string out;
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    throw std::runtime_error("libpng could not write the test image");
  }
  png_set_write_fn(
      png, &out,
      [](png_structp p, png_bytep d, png_size_t n) {
        static_cast<std::string*>(png_get_io_ptr(p))->append(reinterpret_cast<const char*>(d), n);
      },
      nullptr);
  png_set_IHDR(png, info, s.width, s.height, s.bit_depth, s.color_type,
               s.interlaced ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  if (!s.palette.empty()) png_set_PLTE(png, info, s.palette.data(), static_cast<int>(s.palette.size()));
  if (!s.transparency.empty())
    png_set_tRNS(png, info, s.transparency.data(), static_cast<int>(s.transparency.size()), nullptr);
  png_write_info(png, info);
  const size_t rowbytes = png_get_rowbytes(png, info);
  std::vector<png_bytep> rows(s.height);
  for (int r = 0; r < s.height; ++r) rows[r] = const_cast<png_bytep>(s.data.data() + r * rowbytes);
  png_write_image(png, rows.data());
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return out;
}

// An 8-bit RGB image from its pixels (3 bytes each, rows from the top).
inline std::string rgb_png(int width, int height, const std::vector<unsigned char>& rgb, bool interlaced = false) {
  PngSpec s;
  s.width = width;
  s.height = height;
  s.interlaced = interlaced;
  s.data = rgb;
  return write_png(s);
}

}  // namespace moreau::testing
