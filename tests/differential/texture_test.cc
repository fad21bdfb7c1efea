// Texture pixels against MuJoCo 2.2.2: PNG files in every colour type, bit depth and interlacing
// (written here with libpng), 2.2.2's custom format, flips, cube and skybox grids, separate face
// files, and builtin images of every kind and mark but random dots (2.2.2 draws those from the C
// library's rand()). Every byte must be equal.
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "moreau/moreau.h"
#include "png_writer.h"

namespace {

namespace fs = std::filesystem;
using moreau::testing::PngSpec;
using moreau::testing::write_png;
using Bytes = std::vector<unsigned char>;

// Pseudo-random bytes (a fixed LCG) for image contents.
Bytes noise(size_t n, unsigned seed) {
  Bytes b(n);
  for (auto& x : b) {
    seed = seed * 1664525u + 1013904223u;
    x = static_cast<unsigned char>(seed >> 24);
  }
  return b;
}

PngSpec image(int w, int h, int color_type, int depth, bool interlaced, unsigned seed) {
  PngSpec s;
  s.width = w;
  s.height = h;
  s.color_type = color_type;
  s.bit_depth = depth;
  s.interlaced = interlaced;
  const int channels = color_type == PNG_COLOR_TYPE_GRAY || color_type == PNG_COLOR_TYPE_PALETTE ? 1
                       : color_type == PNG_COLOR_TYPE_GRAY_ALPHA                                  ? 2
                       : color_type == PNG_COLOR_TYPE_RGB                                         ? 3
                                                                                                  : 4;
  const size_t rowbytes = (static_cast<size_t>(w) * channels * depth + 7) / 8;
  s.data = noise(rowbytes * h, seed);
  if (color_type == PNG_COLOR_TYPE_PALETTE) {
    const int n = 1 << depth;
    const Bytes c = noise(3 * n, seed + 1);
    for (int i = 0; i < n; ++i) s.palette.push_back({c[3 * i], c[3 * i + 1], c[3 * i + 2]});
    s.transparency = noise(n / 2, seed + 2);  // some entries with alpha, the rest opaque
  }
  return s;
}

TEST(TextureDiff, PixelsEqualMuJoCo222) {
  const fs::path dir = fs::temp_directory_path() / "moreau_texture_diff";
  fs::remove_all(dir);
  fs::create_directories(dir / "tex");
  auto write = [&](const std::string& name, const std::string& bytes) {
    std::ofstream(dir / "tex" / name, std::ios::binary) << bytes;
  };
  std::string assets;
  int seed = 1;
  // 2D textures from PNG files of every encoding
  struct Enc {
    const char* name;
    int type, depth;
  };
  const Enc encodings[] = {{"gray1", PNG_COLOR_TYPE_GRAY, 1},         {"gray2", PNG_COLOR_TYPE_GRAY, 2},
                           {"gray4", PNG_COLOR_TYPE_GRAY, 4},         {"gray8", PNG_COLOR_TYPE_GRAY, 8},
                           {"gray16", PNG_COLOR_TYPE_GRAY, 16},       {"ga8", PNG_COLOR_TYPE_GRAY_ALPHA, 8},
                           {"ga16", PNG_COLOR_TYPE_GRAY_ALPHA, 16},   {"rgb8", PNG_COLOR_TYPE_RGB, 8},
                           {"rgb16", PNG_COLOR_TYPE_RGB, 16},         {"rgba8", PNG_COLOR_TYPE_RGB_ALPHA, 8},
                           {"rgba16", PNG_COLOR_TYPE_RGB_ALPHA, 16},  {"pal1", PNG_COLOR_TYPE_PALETTE, 1},
                           {"pal4", PNG_COLOR_TYPE_PALETTE, 4},       {"pal8", PNG_COLOR_TYPE_PALETTE, 8}};
  for (const Enc& e : encodings)
    for (bool interlaced : {false, true}) {
      const std::string name = std::string(e.name) + (interlaced ? "i" : "") + ".png";
      write(name, write_png(image(13, 7, e.type, e.depth, interlaced, seed++)));
      assets += "<texture type=\"2d\" file=\"" + name + "\"/>\n";
    }
  // 2.2.2's custom format, with and without flips
  {
    std::string b(8, '\0');
    const int32_t wh[2] = {5, 3};
    std::memcpy(b.data(), wh, 8);
    const Bytes px = noise(45, 99);
    b.append(px.begin(), px.end());
    write("custom.bin", b);
    assets += "<texture type=\"2d\" file=\"custom.bin\"/>\n<texture type=\"2d\" file=\"custom.bin\" hflip=\"true\"/>\n";
  }
  write("flip.png", write_png(image(6, 5, PNG_COLOR_TYPE_RGB, 8, false, 77)));
  assets += "<texture type=\"2d\" file=\"flip.png\" hflip=\"true\"/>\n<texture type=\"2d\" file=\"flip.png\" vflip=\"true\"/>\n"
            "<texture type=\"2d\" file=\"flip.png\" hflip=\"true\" vflip=\"true\"/>\n";
  // cubes and skyboxes: one repeated image, grids (some faces missing: rgb1), separate files
  write("square.png", write_png(image(8, 8, PNG_COLOR_TYPE_RGB, 8, false, 78)));
  write("grid.png", write_png(image(16, 12, PNG_COLOR_TYPE_RGB, 8, false, 79)));
  write("face2.png", write_png(image(4, 4, PNG_COLOR_TYPE_PALETTE, 8, false, 80)));
  write("face3.png", write_png(image(4, 4, PNG_COLOR_TYPE_GRAY, 8, false, 81)));
  assets += "<texture type=\"cube\" file=\"square.png\"/>\n"
            "<texture type=\"cube\" file=\"grid.png\" gridsize=\"3 4\" gridlayout=\".U..LFRB.D..\"/>\n"
            "<texture type=\"skybox\" file=\"grid.png\" gridsize=\"3 4\" gridlayout=\"R.D.......BF\" rgb1=\"0.3 0.6 0.9\" vflip=\"true\"/>\n"
            "<texture type=\"cube\" file=\"square.png\" gridsize=\"2 2\" gridlayout=\"UDLR\" hflip=\"true\"/>\n"
            "<texture type=\"skybox\" fileright=\"face2.png\" fileup=\"face3.png\" fileback=\"face2.png\" rgb1=\"0.11 0.5 1\"/>\n"
            "<texture type=\"cube\" filefront=\"face3.png\" fileleft=\"face2.png\" hflip=\"true\"/>\n";
  // builtins: every kind and line mark, odd and even sizes, colours that do not map to whole bytes
  for (const char* type : {"2d", "cube", "skybox"})
    for (const char* builtin : {"gradient", "checker", "flat"})
      for (const char* mark : {"none", "edge", "cross"})
        for (const char* size : {"width=\"16\" height=\"16\"", "width=\"7\" height=\"9\""})
          assets += std::string("<texture type=\"") + type + "\" builtin=\"" + builtin + "\" mark=\"" + mark + "\" " + size +
                    " rgb1=\"0.3 0.7 0.123\" rgb2=\"0.9 0.05 0.5\" markrgb=\"0.2 0.4 0.6\"/>\n";
  // 2.2.2 needs a name for every texture but a skybox (an unnamed one takes its file's name)
  std::string named;
  int count = 0;
  for (size_t at = 0, next; at < assets.size(); at = next) {
    next = assets.find("<texture ", at + 1);
    if (next == std::string::npos) next = assets.size();
    named += "<texture name=\"t" + std::to_string(count++) + "\" " + assets.substr(at + 9, next - at - 9);
  }
  const std::string xml = "<mujoco><compiler texturedir=\"tex\"/><asset>\n" + named +
                          "</asset><worldbody><geom size=\"1\"/></worldbody></mujoco>";
  std::ofstream(dir / "model.xml") << xml;

  char err[1024] = "";
  mjModel* mj = mj_loadXML((dir / "model.xml").c_str(), nullptr, err, sizeof err);
  ASSERT_NE(mj, nullptr) << err;
  moreau::Model m;
  try {
    m = moreau::load_model((dir / "model.xml").string());
  } catch (const std::exception& e) {
    mj_deleteModel(mj);
    fs::remove_all(dir);
    FAIL() << e.what();
  }
  fs::remove_all(dir);
  ASSERT_EQ(m.ntex, mj->ntex);
  EXPECT_EQ(m.ntexdata, mj->ntexdata);
  int differ = 0;
  for (int t = 0; t < m.ntex; ++t) {
    ASSERT_EQ(m.tex_width[t], mj->tex_width[t]) << "texture " << t;
    ASSERT_EQ(m.tex_height[t], mj->tex_height[t]) << "texture " << t;
    ASSERT_EQ(m.tex_adr[t], mj->tex_adr[t]) << "texture " << t;
    const size_t n = 3ull * m.tex_width[t] * m.tex_height[t];
    for (size_t i = 0; i < n; ++i)
      if (m.tex_rgb[m.tex_adr[t] + i] != mj->tex_rgb[mj->tex_adr[t] + i]) {
        ADD_FAILURE() << "texture " << t << " byte " << i << ": " << int(m.tex_rgb[m.tex_adr[t] + i]) << " vs "
                      << int(mj->tex_rgb[mj->tex_adr[t] + i]);
        ++differ;
        break;
      }
  }
  EXPECT_EQ(differ, 0);
  mj_deleteModel(mj);
}

}  // namespace
