// Texture pixels (src/compiler/texture.cc): image files in every PNG encoding and 2.2.2's custom
// format, flips, cube and skybox layouts, the asset map, builtin images, and the errors. The
// expected pixels are the ones the tests write (or the builtin's definition); the differential
// suite (tests/differential/texture_test.cc) compares the same cases with MuJoCo 2.2.2.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "moreau/io.h"
#include "moreau/moreau.h"
#include "png_writer.h"

namespace {

namespace fs = std::filesystem;
using moreau::Model;
using moreau::testing::PngSpec;
using moreau::testing::rgb_png;
using moreau::testing::write_png;
using Bytes = std::vector<unsigned char>;

// A folder of files for one test, removed at the end.
struct Folder {
  fs::path dir;
  explicit Folder(const std::string& name) : dir(fs::temp_directory_path() / ("moreau_texture_" + name)) {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~Folder() { fs::remove_all(dir); }
  void write(const std::string& name, const std::string& bytes) const {
    fs::create_directories((dir / name).parent_path());
    std::ofstream(dir / name, std::ios::binary) << bytes;
  }
  Model load(const std::string& xml) const {
    write("model.xml", xml);
    return moreau::load_model((dir / "model.xml").string());
  }
};

Bytes pixels(const Model& m, int t) {
  const auto* p = m.tex_rgb.data() + m.tex_adr[t];
  return Bytes(p, p + 3 * static_cast<size_t>(m.tex_width[t]) * m.tex_height[t]);
}

std::string one_texture(const std::string& texture) {
  return "<mujoco><asset>" + texture + "</asset><worldbody><geom size=\"1\"/></worldbody></mujoco>";
}

// A w x h image whose pixel (r, c) is (base + r, 10 c, 7 r + c): every pixel tells where it is.
Bytes pattern(int w, int h, int base = 0) {
  Bytes b;
  for (int r = 0; r < h; ++r)
    for (int c = 0; c < w; ++c) {
      b.push_back(static_cast<unsigned char>(base + r));
      b.push_back(static_cast<unsigned char>(10 * c));
      b.push_back(static_cast<unsigned char>(7 * r + c));
    }
  return b;
}

std::string loader_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const moreau::LoadError& e) {
    return e.what();
  }
  return "";
}

TEST(Texture, PngFileIn2dTextureThroughTexturedir) {
  Folder f("png2d");
  const Bytes img = pattern(5, 3);
  f.write("tex/a.png", rgb_png(5, 3, img));
  const Model m = f.load("<mujoco><compiler texturedir=\"tex\"/><asset><texture name=\"a\" type=\"2d\" file=\"a.png\"/>"
                         "</asset><worldbody><geom size=\"1\"/></worldbody></mujoco>");
  ASSERT_EQ(m.ntex, 1);
  EXPECT_EQ(m.tex_width[0], 5);
  EXPECT_EQ(m.tex_height[0], 3);
  EXPECT_EQ(m.tex_adr[0], 0);
  EXPECT_EQ(m.ntexdata, 45);
  EXPECT_EQ(pixels(m, 0), img);
  EXPECT_EQ(m.tex_file[0], "tex/a.png");
}

// Every PNG colour type and depth decodes to 8-bit RGB as lodepng does for 2.2.2: palettes expanded,
// gray replicated and scaled to 0..255, alpha and tRNS dropped (no blending), 16-bit samples cut to
// their high byte, interlaced images de-interlaced.
TEST(Texture, PngEncodingsDecodeToRgb) {
  Folder f("encodings");
  struct Case {
    const char* name;
    PngSpec png;
    Bytes want;
  };
  std::vector<Case> cases;
  {  // palette with transparency: colours of the palette, alpha ignored
    PngSpec s{2, 2, PNG_COLOR_TYPE_PALETTE, 8, false, {0, 1, 2, 1}, {{10, 20, 30}, {40, 50, 60}, {70, 80, 90}}, {0, 128, 255}};
    cases.push_back({"palette", s, {10, 20, 30, 40, 50, 60, 70, 80, 90, 40, 50, 60}});
  }
  {  // 2-bit gray: 0, 1, 2, 3 -> 0, 85, 170, 255 (packed: 00 01 10 11 in one byte)
    PngSpec s{4, 1, PNG_COLOR_TYPE_GRAY, 2, false, {0x1b}, {}, {}};
    cases.push_back({"gray2", s, {0, 0, 0, 85, 85, 85, 170, 170, 170, 255, 255, 255}});
  }
  {  // 16-bit gray: the high byte (0x12ff -> 0x12, not the rounded 0x13)
    PngSpec s{2, 1, PNG_COLOR_TYPE_GRAY, 16, false, {0x12, 0xff, 0xfe, 0x01}, {}, {}};
    cases.push_back({"gray16", s, {0x12, 0x12, 0x12, 0xfe, 0xfe, 0xfe}});
  }
  {  // gray + alpha: the gray, alpha dropped
    PngSpec s{2, 1, PNG_COLOR_TYPE_GRAY_ALPHA, 8, false, {100, 0, 200, 50}, {}, {}};
    cases.push_back({"grayalpha", s, {100, 100, 100, 200, 200, 200}});
  }
  {  // RGBA: the colour, alpha dropped (not blended with anything)
    PngSpec s{2, 1, PNG_COLOR_TYPE_RGB_ALPHA, 8, false, {1, 2, 3, 0, 4, 5, 6, 77}, {}, {}};
    cases.push_back({"rgba", s, {1, 2, 3, 4, 5, 6}});
  }
  {  // 16-bit RGB: high bytes
    PngSpec s{1, 1, PNG_COLOR_TYPE_RGB, 16, false, {0xab, 0xcd, 0x01, 0x02, 0xff, 0xff}, {}, {}};
    cases.push_back({"rgb16", s, {0xab, 0x01, 0xff}});
  }
  {  // Adam7 interlacing
    const Bytes img = pattern(9, 7);
    PngSpec s{9, 7, PNG_COLOR_TYPE_RGB, 8, true, img, {}, {}};
    cases.push_back({"interlaced", s, img});
  }
  for (const Case& c : cases) {
    f.write(std::string(c.name) + ".png", write_png(c.png));
    const Model m = f.load(one_texture(std::string("<texture type=\"2d\" file=\"") + c.name + ".png\"/>"));
    EXPECT_EQ(m.tex_width[0], c.png.width) << c.name;
    EXPECT_EQ(m.tex_height[0], c.png.height) << c.name;
    EXPECT_EQ(pixels(m, 0), c.want) << c.name;
  }
}

// 2.2.2's custom format (any extension but .png): int32 width, int32 height, RGB bytes.
TEST(Texture, CustomFormatFile) {
  Folder f("custom");
  const Bytes img = pattern(3, 2);
  std::string bytes(8, '\0');
  const int32_t wh[2] = {3, 2};
  std::memcpy(bytes.data(), wh, 8);
  bytes.append(img.begin(), img.end());
  f.write("a.tex", bytes);
  f.write("short.tex", bytes.substr(0, bytes.size() - 1));
  const Model m = f.load(one_texture("<texture type=\"2d\" file=\"a.tex\"/>"));
  EXPECT_EQ(m.tex_width[0], 3);
  EXPECT_EQ(m.tex_height[0], 2);
  EXPECT_EQ(pixels(m, 0), img);
  const std::string e = loader_error([&] { f.load(one_texture("<texture type=\"2d\" file=\"short.tex\"/>")); });
  EXPECT_NE(e.find("has 25 bytes, expected 26 for 3 x 2"), std::string::npos) << e;
}

TEST(Texture, FlipsMirrorTheImage) {
  Folder f("flip");
  const int w = 3, h = 2;
  const Bytes img = pattern(w, h);
  f.write("a.png", rgb_png(w, h, img));
  const Model m = f.load(one_texture("<texture type=\"2d\" file=\"a.png\" hflip=\"true\"/>"
                                     "<texture type=\"2d\" file=\"a.png\" vflip=\"true\"/>"
                                     "<texture type=\"2d\" file=\"a.png\" hflip=\"true\" vflip=\"true\"/>"));
  for (int t = 0; t < 3; ++t) {
    const Bytes got = pixels(m, t);
    for (int r = 0; r < h; ++r)
      for (int c = 0; c < w; ++c) {
        const int sr = t >= 1 ? h - 1 - r : r, sc = t != 1 ? w - 1 - c : c;
        for (int k = 0; k < 3; ++k) EXPECT_EQ(got[3 * (r * w + c) + k], img[3 * (sr * w + sc) + k]) << t;
      }
  }
}

// One 2-pixel face per colour: the face of symbol s is filled with colour 40 * (index of s in "RLUDFB") + 1.
Bytes grid_image(int rows, int cols, const std::string& layout, int face) {
  const int w = cols * face, h = rows * face;
  Bytes b(3 * static_cast<size_t>(w) * h, 0);
  for (int k = 0; k < rows * cols; ++k) {
    const auto p = std::string("RLUDFB").find(layout[k]);
    const unsigned char v = p == std::string::npos ? 250 : static_cast<unsigned char>(40 * p + 1);
    for (int r = 0; r < face; ++r)
      for (int c = 0; c < face; ++c) {
        const size_t at = 3 * ((static_cast<size_t>(k / cols) * face + r) * w + (k % cols) * face + c);
        b[at] = v, b[at + 1] = static_cast<unsigned char>(r), b[at + 2] = static_cast<unsigned char>(c);
      }
  }
  return b;
}

TEST(Texture, CubeFromAGridPlacesEachFace) {
  Folder f("grid");
  const std::string layout = ".U..LFRB.D..";
  f.write("grid.png", rgb_png(8, 6, grid_image(3, 4, layout, 2)));
  // all six faces; then only two, the others rgb1
  const Model m = f.load(one_texture("<texture name=\"a\" file=\"grid.png\" gridsize=\"3 4\" gridlayout=\"" + layout +
                                     "\"/><texture name=\"b\" type=\"skybox\" file=\"grid.png\" gridsize=\"3 4\" "
                                     "gridlayout=\"R..........L\" rgb1=\"1 0 0.5\"/>"));
  for (int t = 0; t < 2; ++t) {
    EXPECT_EQ(m.tex_width[t], 2);
    EXPECT_EQ(m.tex_height[t], 12);
    const Bytes got = pixels(m, t);
    for (int face = 0; face < 6; ++face)
      for (int r = 0; r < 2; ++r)
        for (int c = 0; c < 2; ++c) {
          const unsigned char* px = got.data() + 3 * ((face * 2 + r) * 2 + c);
          if (t == 1 && face <= 1) {  // 'R' and 'L' sit in cells that hold '.' of the image: 250
            EXPECT_EQ(px[0], 250);
          } else if (t == 0) {
            EXPECT_EQ(px[0], 40 * face + 1) << "texture " << t << " face " << face;
            EXPECT_EQ(px[1], r);
            EXPECT_EQ(px[2], c);
          } else {
            EXPECT_EQ(Bytes(px, px + 3), (Bytes{255, 0, 127})) << "face " << face;
          }
        }
  }
}

TEST(Texture, CubeFromOneSquareImageRepeats) {
  Folder f("repeat");
  const Bytes img = pattern(4, 4);
  f.write("a.png", rgb_png(4, 4, img));
  f.write("b.png", rgb_png(4, 3, pattern(4, 3)));
  const Model m = f.load(one_texture("<texture type=\"cube\" file=\"a.png\"/>"));
  EXPECT_EQ(m.tex_width[0], 4);
  EXPECT_EQ(m.tex_height[0], 4);  // stored once, not six times (2.2.2)
  EXPECT_EQ(pixels(m, 0), img);
  const std::string e = loader_error([&] { f.load(one_texture("<texture type=\"cube\" file=\"b.png\"/>")); });
  EXPECT_NE(e.find("is not 'gridsize' (1 x 1) square cells"), std::string::npos) << e;
}

TEST(Texture, CubeFromSeparateFiles) {
  Folder f("separate");
  f.write("r.png", rgb_png(2, 2, pattern(2, 2, 100)));
  f.write("d.png", rgb_png(2, 2, pattern(2, 2, 200)));
  f.write("big.png", rgb_png(3, 3, pattern(3, 3)));
  f.write("wide.png", rgb_png(3, 2, pattern(3, 2)));
  const Model m = f.load(one_texture("<texture type=\"skybox\" fileright=\"r.png\" filedown=\"d.png\" rgb1=\"0 1 0\"/>"));
  EXPECT_EQ(m.tex_width[0], 2);
  EXPECT_EQ(m.tex_height[0], 12);
  const Bytes got = pixels(m, 0);
  const Bytes r = pattern(2, 2, 100), d = pattern(2, 2, 200);
  EXPECT_EQ(Bytes(got.begin(), got.begin() + 12), r);
  EXPECT_EQ(Bytes(got.begin() + 36, got.begin() + 48), d);
  for (int face : {1, 2, 4, 5})
    for (int i = 0; i < 4; ++i) EXPECT_EQ(Bytes(got.begin() + 12 * face + 3 * i, got.begin() + 12 * face + 3 * i + 3), (Bytes{0, 255, 0}));
  EXPECT_EQ(m.tex_cubefile[0], "r.png");
  EXPECT_EQ(m.tex_cubefile[3], "d.png");
  EXPECT_EQ(m.tex_file[0], "");
  std::string e = loader_error([&] { f.load(one_texture("<texture type=\"cube\" fileright=\"r.png\" fileup=\"big.png\"/>")); });
  EXPECT_NE(e.find("'fileup' is 3 pixels wide, the first face 2"), std::string::npos) << e;
  e = loader_error([&] { f.load(one_texture("<texture type=\"cube\" fileleft=\"wide.png\"/>")); });
  EXPECT_NE(e.find("'fileleft' is not square (3 x 2)"), std::string::npos) << e;
  e = loader_error([&] { f.load(one_texture("<texture type=\"2d\" fileleft=\"r.png\"/>")); });
  EXPECT_NE(e.find("face files ('fileright', ...) are for cube and skybox"), std::string::npos) << e;
}

// The asset map gives the same pixels as the disk, by name or by the path with texturedir.
TEST(Texture, FromTheAssetMap) {
  Folder f("assets");
  const Bytes img = pattern(4, 2);
  const std::string png = rgb_png(4, 2, img);
  const std::string xml = "<mujoco><compiler texturedir=\"t\"/><asset><texture type=\"2d\" file=\"a.png\"/>"
                          "<texture type=\"cube\" fileup=\"b.png\"/></asset><worldbody><geom size=\"1\"/></worldbody></mujoco>";
  f.write("t/a.png", png);
  f.write("t/b.png", rgb_png(2, 2, pattern(2, 2)));
  const Model disk = f.load(xml);
  for (const moreau::AssetMap& assets :
       {moreau::AssetMap{{"a.png", png}, {"b.png", rgb_png(2, 2, pattern(2, 2))}},
        moreau::AssetMap{{"t/a.png", png}, {"t/b.png", rgb_png(2, 2, pattern(2, 2))}}}) {
    const Model m = moreau::load_model_from_string(xml, assets, "/nonexistent/model.xml");
    EXPECT_EQ(m.tex_rgb, disk.tex_rgb);
    EXPECT_EQ(m.tex_width, disk.tex_width);
    EXPECT_EQ(m.tex_height, disk.tex_height);
  }
  EXPECT_EQ(pixels(disk, 0), img);
}

TEST(Texture, FileErrorsNameTheFileAndTheElement) {
  Folder f("errors");
  f.write("not.png", "this is not a PNG");
  f.write("grid.png", rgb_png(8, 6, grid_image(3, 4, ".U..LFRB.D..", 2)));
  std::string e = loader_error([&] { f.load(one_texture("<texture type=\"2d\" file=\"missing.png\"/>")); });
  EXPECT_NE(e.find("missing.png"), std::string::npos) << e;
  EXPECT_NE(e.find("texture"), std::string::npos) << e;
  e = loader_error([&] { f.load(one_texture("<texture type=\"2d\" file=\"not.png\"/>")); });
  EXPECT_NE(e.find("is not a PNG file"), std::string::npos) << e;
  e = loader_error([&] { f.load(one_texture("<texture file=\"grid.png\" gridsize=\"3 4\" gridlayout=\".U..LFRB.X..\"/>")); });
  EXPECT_NE(e.find("'gridlayout' needs one of '.RLUDFB'"), std::string::npos) << e;
  e = loader_error([&] { f.load(one_texture("<texture file=\"grid.png\" gridsize=\"4 4\"/>")); });
  EXPECT_NE(e.find("at most 12 cells"), std::string::npos) << e;
  e = loader_error([&] { f.load(one_texture("<texture file=\"grid.png\" gridsize=\"2 4\"/>")); });
  EXPECT_NE(e.find("is not 'gridsize' (2 x 4) square cells"), std::string::npos) << e;
  e = loader_error([&] { f.load(one_texture("<texture type=\"2d\"/>")); });
  EXPECT_NE(e.find("needs a 'builtin' kind, a 'file' or cube face files"), std::string::npos) << e;
}

// Builtin images by their definition: checker quadrants, flat (a cube's down face in rgb2), edge
// and cross marks; colours as bytes 255 x, truncated.
TEST(Texture, BuiltinImages) {
  const Model m = moreau::load_model_from_string(one_texture(
      "<texture type=\"2d\" builtin=\"checker\" width=\"4\" height=\"2\" rgb1=\"1 0 0\" rgb2=\"0 0 1\"/>"
      "<texture type=\"cube\" builtin=\"flat\" width=\"3\" height=\"3\" rgb1=\"0.5 0.5 0.5\" rgb2=\"0.1 0.2 0.3\"/>"
      "<texture type=\"2d\" builtin=\"flat\" width=\"3\" height=\"3\" rgb1=\"0 0 0\" mark=\"edge\" markrgb=\"1 1 1\"/>"
      "<texture type=\"2d\" builtin=\"flat\" width=\"5\" height=\"3\" rgb1=\"0 0 0\" mark=\"cross\" markrgb=\"0 1 0\"/>"));
  const Bytes red{255, 0, 0}, blue{0, 0, 255};
  Bytes want;
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 4; ++c) {
      const Bytes& px = (r < 1) == (c < 2) ? red : blue;
      want.insert(want.end(), px.begin(), px.end());
    }
  EXPECT_EQ(pixels(m, 0), want);
  EXPECT_EQ(m.tex_height[1], 18);
  const Bytes cube = pixels(m, 1);
  for (int i = 0; i < 54; ++i) {
    const Bytes px(cube.begin() + 3 * i, cube.begin() + 3 * i + 3);
    EXPECT_EQ(px, i / 9 == 3 ? (Bytes{25, 51, 76}) : (Bytes{127, 127, 127})) << i;
  }
  const Bytes edge = pixels(m, 2);
  for (int i = 0; i < 9; ++i) EXPECT_EQ(edge[3 * i], i == 4 ? 0 : 255) << i;
  const Bytes cross = pixels(m, 3);
  for (int i = 0; i < 15; ++i) EXPECT_EQ(cross[3 * i + 1], (i / 5 == 1 || i % 5 == 2) ? 255 : 0) << i;
}

// A builtin texture is at most 2^26 pixels, a cube's six faces counted: the error names the element
// and the size before any memory is taken.
TEST(Texture, BuiltinSizeIsBounded) {
  std::string e = loader_error([] {
    moreau::load_model_from_string(one_texture("<texture type=\"skybox\" builtin=\"gradient\" width=\"3345\" height=\"3345\"/>"));
  });
  EXPECT_NE(e.find("builtin texture of 3345 x 20070 pixels is too large"), std::string::npos) << e;
  EXPECT_NE(e.find("texture"), std::string::npos) << e;
  e = loader_error([] {
    moreau::load_model_from_string(
        one_texture("<texture type=\"2d\" builtin=\"flat\" width=\"8193\" height=\"8192\"/>"));
  });
  EXPECT_NE(e.find("8193 x 8192 pixels is too large (at most 2^26"), std::string::npos) << e;
  // the largest cube that fits loads
  const Model m = moreau::load_model_from_string(one_texture("<texture type=\"cube\" builtin=\"flat\" width=\"3344\" height=\"3344\"/>"));
  EXPECT_EQ(m.tex_height[0], 6 * 3344);
}

// Random dots: the same on every load, about `random` of the pixels.
TEST(Texture, RandomDotsAreReproducible) {
  const std::string xml = one_texture(
      "<texture type=\"2d\" builtin=\"flat\" width=\"100\" height=\"100\" rgb1=\"0 0 0\" mark=\"random\" random=\"0.1\" markrgb=\"1 1 1\"/>");
  const Model a = moreau::load_model_from_string(xml), b = moreau::load_model_from_string(xml);
  EXPECT_EQ(a.tex_rgb, b.tex_rgb);
  int dots = 0;
  for (size_t i = 0; i < a.tex_rgb.size(); i += 3) dots += a.tex_rgb[i] == 255;
  EXPECT_GT(dots, 800);  // 1000 expected; the binomial's standard deviation is 30
  EXPECT_LT(dots, 1200);
}

// save_xml writes file textures with their grid and flips; the reloaded pixels are the same.
TEST(Texture, SaveXmlKeepsFileTextures) {
  Folder f("save");
  f.write("tex/grid.png", rgb_png(8, 6, grid_image(3, 4, ".U..LFRB.D..", 2)));
  f.write("tex/a.png", rgb_png(3, 2, pattern(3, 2)));
  f.write("tex/sq.png", rgb_png(2, 2, pattern(2, 2)));
  const Model m = f.load("<mujoco><compiler texturedir=\"tex\"/><asset>"
                         "<texture file=\"grid.png\" gridsize=\"3 4\" gridlayout=\".U..LFRB.D..\" vflip=\"true\"/>"
                         "<texture type=\"2d\" file=\"a.png\" hflip=\"true\"/><texture type=\"skybox\" fileback=\"sq.png\" "
                         "fileleft=\"sq.png\" hflip=\"true\"/></asset><worldbody><geom size=\"1\"/></worldbody></mujoco>");
  ASSERT_EQ(m.ntex, 3);
  const std::string xml = moreau::save_xml_to_string(m);
  const Model r = moreau::load_model_from_string(xml, (f.dir / "saved.xml").string());
  EXPECT_EQ(r.tex_rgb, m.tex_rgb);
  EXPECT_EQ(r.tex_width, m.tex_width);
  EXPECT_EQ(r.tex_height, m.tex_height);
  EXPECT_EQ(r.tex_file, m.tex_file);
  EXPECT_EQ(r.tex_cubefile, m.tex_cubefile);
  EXPECT_EQ(r.tex_gridlayout, m.tex_gridlayout);
  EXPECT_EQ(r.tex_gridsize, m.tex_gridsize);
  EXPECT_EQ(r.tex_hflip, m.tex_hflip);
  EXPECT_EQ(r.tex_vflip, m.tex_vflip);
}

TEST(Statistic, CentreExtentAndMeanSizeFromTheModel) {
  // box: the body's frame, com and joint anchor at (1, 2, 3), its sphere (radius 0.5), a site at
  // (1, 2, 5), the plane at the origin with a tenth of its larger half size (0.3)
  const Model m = moreau::load_model_from_string(R"(<mujoco><worldbody>
    <geom type="plane" size="3 2 0.1"/>
    <body pos="1 2 3"><freejoint/><geom size="0.5"/><site pos="0 0 2"/></body>
  </worldbody></mujoco>)");
  EXPECT_NEAR(m.stat.center[0], 0.5 * (-0.3 + 1.5), 1e-15);
  EXPECT_NEAR(m.stat.center[1], 0.5 * (-0.3 + 2.5), 1e-15);
  EXPECT_NEAR(m.stat.center[2], 0.5 * (-0.3 + 5), 1e-15);
  EXPECT_NEAR(m.stat.extent, 5.3, 1e-15);
  EXPECT_NEAR(m.stat.meansize, 0.5, 1e-15);  // the sphere's radius: com and joint coincide

  // a chain: the parent's size reaches its child's joint anchor
  const Model c = moreau::load_model_from_string(R"(<mujoco><worldbody>
    <body><joint/><geom size="0.1" mass="1"/>
      <body pos="0 0 -2"><joint/><geom size="0.1" mass="1"/></body></body>
  </worldbody></mujoco>)");
  EXPECT_NEAR(c.stat.meansize, 0.5 * (2 + 0.1), 1e-15);
  EXPECT_NEAR(c.stat.extent, 2.2, 1e-15);
  // extent at least twice meansize: a body whose com (x = 0.15) is far from its light geom's
  // far side (0.1 + 0.45) in a box 0.8 long
  const Model s = moreau::load_model_from_string(R"(<mujoco><worldbody>
    <body><joint/><geom size="0.1" pos="0.3 0 0" mass="3"/><geom size="0.1" pos="-0.3 0 0" mass="1"/></body>
  </worldbody></mujoco>)");
  EXPECT_NEAR(s.stat.meansize, 0.55, 1e-15);
  EXPECT_NEAR(s.stat.extent, 1.1, 1e-15);
}

TEST(Statistic, EmptyModelKeepsTheDefaultsAndGivenValuesWin) {
  const Model e = moreau::load_model_from_string("<mujoco/>");
  EXPECT_EQ(e.stat.meansize, 0.2);  // 2.2.2's defaults
  EXPECT_EQ(e.stat.extent, 2);
  EXPECT_EQ(e.stat.center[0], 0);
  Model m = moreau::load_model_from_string(R"(<mujoco><statistic extent="7" center="1 2 3" meansize="0.05"/>
    <worldbody><body><freejoint/><geom size="0.5"/></body></worldbody></mujoco>)");
  EXPECT_EQ(m.stat.extent, 7);
  EXPECT_EQ(m.stat.meansize, 0.05);
  EXPECT_EQ(m.stat.center[2], 3);
  // set_const recomputes every statistic (as 2.2.2's mj_setConst)
  moreau::set_const(m);
  EXPECT_NEAR(m.stat.extent, 1, 1e-15);
  EXPECT_NEAR(m.stat.meansize, 0.5, 1e-15);
  EXPECT_EQ(m.stat.center[2], 0);
}

}  // namespace
