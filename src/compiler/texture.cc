// Textures -> RGB pixels, as MuJoCo 2.2.2's compiler makes them: builtin images (gradient,
// checker, flat, with edge/cross/random marks) and images read from files (PNG, decoded by libpng,
// or 2.2.2's custom binary format), as 2D textures, cubes and skyboxes; from disk or the asset map.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "compiler/compile_internal.h"
#include "mesh/mesh.h"
#include "mesh/png.h"
#include "mjcf/xml_reader.h"

namespace moreau::compiler {

namespace {

using Image = mesh::RgbImage;

// A colour component in [0, 1] as a byte: 255 x, truncated, as 2.2.2 converts it.
uint8_t byte_of(double x) { return static_cast<uint8_t>(static_cast<int>(255 * x)); }

// PNG -> 8-bit RGB, as 2.2.2 reads it (lodepng asked for RGB, 8 bits).
Image decode_png(const std::string& bytes, const std::string& path) {
  return mesh::decode_png_rgb(bytes, path, "texture", 1ull << 28);
}

// 2.2.2's custom texture format: int32 width, int32 height (native byte order), then the RGB
// bytes, nothing else.
Image decode_custom(const std::string& bytes, const std::string& path) {
  const std::string what = "texture file '" + path + "' (not a .png, so 2.2.2's custom format: int32 width, "
                           "int32 height, RGB bytes)";
  int32_t wh[2] = {0, 0};
  if (bytes.size() >= 8) std::memcpy(wh, bytes.data(), 8);
  if (wh[0] < 1 || wh[1] < 1) throw std::runtime_error(what + " gives no positive width and height");
  const unsigned long long n = 3ull * static_cast<unsigned long long>(wh[0]) * static_cast<unsigned long long>(wh[1]);
  if (bytes.size() != 8 + n)
    throw std::runtime_error(what + " has " + std::to_string(bytes.size()) + " bytes, expected " +
                             std::to_string(8 + n) + " for " + std::to_string(wh[0]) + " x " + std::to_string(wh[1]));
  Image img;
  img.w = wh[0];
  img.h = wh[1];
  img.rgb.assign(bytes.begin() + 8, bytes.end());
  return img;
}

bool ends_with_png(const std::string& path) {
  if (path.size() < 4) return false;
  std::string ext = path.substr(path.size() - 4);
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext == ".png";
}

// The image of a texture file (full path), mirrored as asked.
Image load_image(const std::string& path, bool hflip, bool vflip) {
  const std::string bytes = mesh::read_file(path, "texture");
  Image img = ends_with_png(path) ? decode_png(bytes, path) : decode_custom(bytes, path);
  const size_t w = img.w, h = img.h;
  auto px = [&](size_t r, size_t c) { return img.rgb.data() + 3 * (r * w + c); };
  if (hflip)
    for (size_t r = 0; r < h; ++r)
      for (size_t c = 0; c < w / 2; ++c) std::swap_ranges(px(r, c), px(r, c) + 3, px(r, w - 1 - c));
  if (vflip)
    for (size_t r = 0; r < h / 2; ++r) std::swap_ranges(px(r, 0), px(r, 0) + 3 * w, px(h - 1 - r, 0));
  return img;
}

// The file name a model gives, as the texture keeps it: strippath applied, then compiler/texturedir
// prepended unless the name is absolute; relative to the model's folder unless absolute.
std::string texture_name(std::string file, const mjcf::Spec& spec) {
  if (file.empty()) return file;
  if (spec.compiler.strippath) {
    const auto p = file.find_last_of('/');
    if (p != std::string::npos) file = file.substr(p + 1);
  }
  if (file[0] == '/') return file;
  std::string dir = spec.compiler.texturedir;
  if (!dir.empty() && dir.back() != '/') dir += '/';
  return dir + file;
}

// The path to read for a name texture_name made.
std::string full_path(const std::string& name, const mjcf::Spec& spec) {
  if (name.empty() || name[0] == '/') return name;
  const auto p = spec.file.find_last_of('/');
  return (p == std::string::npos ? std::string() : spec.file.substr(0, p + 1)) + name;
}

// The blend of two colours for a position in (-1, 1) through a sigmoid: a at +1, b at -1.
void blend(uint8_t* out, const double* a, const double* b, double pos) {
  const double correction = 1.0 / std::sqrt(2.0);
  double alpha = 0.5 * (1 + pos / std::sqrt(1 + pos * pos) / correction);
  alpha = alpha < 0 ? 0 : alpha > 1 ? 1 : alpha;
  for (int k = 0; k < 3; ++k) out[k] = byte_of(alpha * a[k] + (1 - alpha) * b[k]);
}

void fill(uint8_t* face, size_t npixel, const uint8_t* rgb) {
  for (size_t i = 0; i < npixel; ++i) std::memcpy(face + 3 * i, rgb, 3);
}

// Four quadrants: c1 at the top left and bottom right, c2 elsewhere.
void checker(uint8_t* face, int w, int h, const uint8_t* c1, const uint8_t* c2) {
  for (int r = 0; r < h; ++r)
    for (int c = 0; c < w; ++c) std::memcpy(face + 3 * (static_cast<size_t>(r) * w + c), (r < h / 2) == (c < w / 2) ? c1 : c2, 3);
}

// Edge (the border pixels) or cross (the middle row and column) in the mark colour.
void line_mark(uint8_t* face, int w, int h, int mark, const uint8_t* rgb) {
  auto set = [&](int r, int c) { std::memcpy(face + 3 * (static_cast<size_t>(r) * w + c), rgb, 3); };
  if (mark == kMarkEdge) {
    for (int r = 0; r < h; ++r) set(r, 0), set(r, w - 1);
    for (int c = 0; c < w; ++c) set(0, c), set(h - 1, c);
  } else if (mark == kMarkCross) {
    for (int r = 0; r < h; ++r) set(r, w / 2);
    for (int c = 0; c < w; ++c) set(h / 2, c);
  }
}

// Random dots: each pixel takes the mark colour with the given probability. 2.2.2 draws them from
// the C library's rand(), whose state depends on the whole process; here a generator seeded by the
// texture's id makes the same dots on every load.
void random_mark(uint8_t* rgb, size_t npixel, double probability, const uint8_t* mark, int seed) {
  std::mt19937 gen(static_cast<unsigned>(seed) + 1);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (size_t i = 0; i < npixel; ++i)
    if (u(gen) < probability) std::memcpy(rgb + 3 * i, mark, 3);
}

// A builtin 2D image (width x height).
void builtin_2d(const mjcf::TextureSpec& t, uint8_t* rgb, int id) {
  const int w = t.width, h = t.height;
  uint8_t c1[3], c2[3], cm[3];
  for (int k = 0; k < 3; ++k) c1[k] = byte_of(t.rgb1[k]), c2[k] = byte_of(t.rgb2[k]), cm[k] = byte_of(t.markrgb[k]);
  if (t.builtin == kBuiltinGradient) {
    // radial: rgb1 in the middle, rgb2 at the corners
    for (int r = 0; r < h; ++r)
      for (int c = 0; c < w; ++c) {
        const double x = 2 * c / static_cast<double>(w - 1) - 1, y = 1 - 2 * r / static_cast<double>(h - 1);
        blend(rgb + 3 * (static_cast<size_t>(r) * w + c), t.rgb2, t.rgb1, 2 * std::sqrt(x * x + y * y) - 1);
      }
  } else if (t.builtin == kBuiltinChecker) {
    checker(rgb, w, h, c1, c2);
  } else {
    fill(rgb, static_cast<size_t>(w) * h, c1);
  }
  line_mark(rgb, w, h, t.mark, cm);
  if (t.mark == kMarkRandom && t.random > 0) random_mark(rgb, static_cast<size_t>(w) * h, t.random, cm, id);
}

// A builtin cube or skybox: six width x width faces (right, left, up, down, front, back).
void builtin_cube(const mjcf::TextureSpec& t, uint8_t* rgb, int id) {
  const int w = t.width;
  const size_t face = 3 * static_cast<size_t>(w) * w;
  uint8_t c1[3], c2[3], cm[3];
  for (int k = 0; k < 3; ++k) c1[k] = byte_of(t.rgb1[k]), c2[k] = byte_of(t.rgb2[k]), cm[k] = byte_of(t.markrgb[k]);
  if (t.builtin == kBuiltinGradient) {
    // by elevation seen from the centre: rgb1 straight up, rgb2 straight down
    for (int r = 0; r < w; ++r)
      for (int c = 0; c < w; ++c) {
        const double x = 2 * c / static_cast<double>(w - 1) - 1, y = 1 - 2 * r / static_cast<double>(w - 1);
        const double n = std::sqrt(1 + x * x + y * y);
        const double side = std::asin(y / n) / (0.5 * M_PI), up = 1 - std::acos(1.0 / n) / (0.5 * M_PI);
        const size_t at = 3 * (static_cast<size_t>(r) * w + c);
        uint8_t s[3];
        blend(s, t.rgb1, t.rgb2, side);
        for (int f : {0, 1, 4, 5}) std::memcpy(rgb + f * face + at, s, 3);
        blend(rgb + 2 * face + at, t.rgb1, t.rgb2, up);
        blend(rgb + 3 * face + at, t.rgb1, t.rgb2, -up);
      }
  } else if (t.builtin == kBuiltinChecker) {
    for (int f = 0; f < 6; ++f) checker(rgb + f * face, w, w, f < 4 ? c1 : c2, f < 4 ? c2 : c1);
  } else {
    for (int f = 0; f < 6; ++f) fill(rgb + f * face, static_cast<size_t>(w) * w, f == 3 ? c2 : c1);
  }
  for (int f = 0; f < 6; ++f) line_mark(rgb + f * face, w, w, t.mark, cm);
  if (t.mark == kMarkRandom && t.random > 0) random_mark(rgb, 6 * static_cast<size_t>(w) * w, t.random, cm, id);
}

// Face index of a grid layout symbol; -1 for '.', -2 for anything else.
int face_of(char s) {
  const char* faces = "RLUDFB";
  if (s == '.') return -1;
  const char* p = s ? std::strchr(faces, s) : nullptr;
  return p ? static_cast<int>(p - faces) : -2;
}

struct Pixels {
  int w = 0, h = 0;
  std::vector<uint8_t> rgb;
};

// A cube or skybox from one image: the image itself (square, repeated on every face) or a grid of
// gridsize[0] x gridsize[1] square faces placed by gridlayout; faces the layout leaves out are rgb1.
Pixels cube_single(const mjcf::TextureSpec& t, const Image& img) {
  const int gr = t.gridsize[0], gc = t.gridsize[1];
  if (gr < 1 || gc < 1 || gr * gc > 12)
    mjcf::fail(t.src, "'gridsize' must give positive numbers of rows and columns, at most 12 cells");
  if (img.w / gc != img.h / gr || img.w % gc || img.h % gr)
    mjcf::fail(t.src, "the image (" + std::to_string(img.w) + " x " + std::to_string(img.h) +
                          ") is not 'gridsize' (" + std::to_string(gr) + " x " + std::to_string(gc) + ") square cells");
  Pixels p;
  if (gr == 1 && gc == 1) {
    p.w = p.h = img.w;
    p.rgb = img.rgb;
    return p;
  }
  const int w = img.w / gc;
  p.w = w;
  p.h = 6 * w;
  const size_t face = 3 * static_cast<size_t>(w) * w;
  p.rgb.resize(6 * face);
  bool loaded[6] = {false, false, false, false, false, false};
  for (int k = 0; k < gr * gc; ++k) {
    const int f = face_of(k < static_cast<int>(t.gridlayout.size()) ? t.gridlayout[k] : '\0');
    if (f == -2) mjcf::fail(t.src, "'gridlayout' needs one of '.RLUDFB' for each of the " + std::to_string(gr * gc) + " cells");
    if (f < 0) continue;
    const size_t r0 = static_cast<size_t>(w) * (k / gc), c0 = static_cast<size_t>(w) * (k % gc);
    for (int r = 0; r < w; ++r)
      std::memcpy(p.rgb.data() + f * face + 3 * static_cast<size_t>(r) * w,
                  img.rgb.data() + 3 * ((r0 + r) * img.w + c0), 3 * static_cast<size_t>(w));
    loaded[f] = true;
  }
  uint8_t c1[3];
  for (int k = 0; k < 3; ++k) c1[k] = byte_of(t.rgb1[k]);
  for (int f = 0; f < 6; ++f)
    if (!loaded[f]) fill(p.rgb.data() + f * face, static_cast<size_t>(w) * w, c1);
  return p;
}

// A cube or skybox from one square image per face; faces without a file are rgb1.
Pixels cube_separate(const mjcf::TextureSpec& t, const std::vector<std::string>& paths) {
  Pixels p;
  bool loaded[6] = {false, false, false, false, false, false};
  static const char* kAttr[6] = {"fileright", "fileleft", "fileup", "filedown", "filefront", "fileback"};
  for (int f = 0; f < 6; ++f) {
    if (paths[f].empty()) continue;
    Image img;
    try {
      img = load_image(paths[f], t.hflip, t.vflip);
    } catch (const std::exception& e) {
      mjcf::fail(t.src, e.what());
    }
    if (img.w != img.h)
      mjcf::fail(t.src, std::string("'") + kAttr[f] + "' is not square (" + std::to_string(img.w) + " x " +
                            std::to_string(img.h) + ")");
    if (p.rgb.empty()) {
      p.w = img.w;
      p.h = 6 * img.w;
      p.rgb.resize(3 * static_cast<size_t>(p.w) * p.h);
    } else if (img.w != p.w) {
      mjcf::fail(t.src, std::string("'") + kAttr[f] + "' is " + std::to_string(img.w) + " pixels wide, the first face " +
                            std::to_string(p.w));
    }
    std::memcpy(p.rgb.data() + f * img.rgb.size(), img.rgb.data(), img.rgb.size());
    loaded[f] = true;
  }
  uint8_t c1[3];
  for (int k = 0; k < 3; ++k) c1[k] = byte_of(t.rgb1[k]);
  const size_t face = 3 * static_cast<size_t>(p.w) * p.w;
  for (int f = 0; f < 6; ++f)
    if (!loaded[f]) fill(p.rgb.data() + f * face, static_cast<size_t>(p.w) * p.w, c1);
  return p;
}

// The pixels of texture `id`.
Pixels texture_pixels(const mjcf::TextureSpec& t, int id, const Model& m, const mjcf::Spec& spec) {
  Pixels p;
  if (t.builtin != kBuiltinNone) {
    p.w = t.width;
    p.h = t.type == kTex2D ? t.height : 6 * t.width;
    // At most 2^26 pixels (192 MB of RGB): an 8192 x 8192 image or a cube of 3344-pixel faces. A
    // procedural texture holds no more detail than its formula, and larger ones take seconds to fill.
    if (static_cast<unsigned long long>(p.w) * p.h > (1ull << 26))
      mjcf::fail(t.src, "builtin texture of " + std::to_string(p.w) + " x " + std::to_string(p.h) +
                            " pixels is too large (at most 2^26 = 67108864 pixels; a cube counts its six faces)");
    p.rgb.resize(3 * static_cast<size_t>(p.w) * p.h);
    if (t.type == kTex2D) builtin_2d(t, p.rgb.data(), id);
    else builtin_cube(t, p.rgb.data(), id);
    return p;
  }
  if (!t.file.empty()) {
    Image img;
    try {
      img = load_image(full_path(m.tex_file[id], spec), t.hflip, t.vflip);
    } catch (const std::exception& e) {
      mjcf::fail(t.src, e.what());
    }
    if (t.type != kTex2D) return cube_single(t, img);
    p.w = img.w;
    p.h = img.h;
    p.rgb = std::move(img.rgb);
    return p;
  }
  if (t.type == kTex2D)
    mjcf::fail(t.src, "a 2d texture needs 'file' or 'builtin'; face files ('fileright', ...) are for cube and skybox");
  std::vector<std::string> paths(6);
  for (int f = 0; f < 6; ++f) paths[f] = full_path(m.tex_cubefile[6 * id + f], spec);
  return cube_separate(t, paths);
}

}  // namespace

void compile_textures(const mjcf::Spec& spec, Model& m) {
  m.ntexdata = 0;
  for (size_t id = 0; id < spec.textures.size(); ++id) {
    const mjcf::TextureSpec& t = spec.textures[id];
    m.tex_type.push_back(t.type);
    m.tex_builtin.push_back(t.builtin);
    m.tex_mark.push_back(t.mark);
    for (int k = 0; k < 3; ++k) {
      m.tex_rgb1.push_back(t.rgb1[k]);
      m.tex_rgb2.push_back(t.rgb2[k]);
      m.tex_markrgb.push_back(t.markrgb[k]);
    }
    m.tex_random.push_back(t.random);
    m.tex_file.push_back(texture_name(t.file, spec));
    for (const auto& f : t.cubefile) m.tex_cubefile.push_back(texture_name(f, spec));
    m.tex_gridsize.push_back(t.gridsize[0]);
    m.tex_gridsize.push_back(t.gridsize[1]);
    m.tex_gridlayout.push_back(t.gridlayout);
    m.tex_hflip.push_back(t.hflip ? 1 : 0);
    m.tex_vflip.push_back(t.vflip ? 1 : 0);

    Pixels p = texture_pixels(t, static_cast<int>(id), m, spec);
    if (m.tex_rgb.size() + p.rgb.size() > static_cast<size_t>(INT32_MAX))
      mjcf::fail(t.src, "the textures hold more than 2^31 bytes");
    m.tex_width.push_back(p.w);
    m.tex_height.push_back(p.h);
    m.tex_adr.push_back(static_cast<int>(m.tex_rgb.size()));
    m.tex_rgb.insert(m.tex_rgb.end(), p.rgb.begin(), p.rgb.end());
  }
  m.ntexdata = static_cast<int>(m.tex_rgb.size());
}

}  // namespace moreau::compiler
