// Height field files as MuJoCo 2.2.2 reads them: grayscale PNG images and its custom binary
// format. Reusable by the compiler; the values are returned raw (the compiler normalizes).
#pragma once

#include <string>
#include <vector>

namespace moreau::mesh {

struct HeightField {
  int nrow = 0, ncol = 0;
  std::vector<double> data;  // nrow * ncol, row 0 first (row 0 is at -y, as in mjModel)
};

// Reads a height field file: ".png" (any case) as an image, anything else as the binary format
// (int32 nrow, int32 ncol, float32 data[nrow * ncol], row 0 first). Throws std::runtime_error
// with a message that says what is wrong.
HeightField read_hfield_file(const std::string& path);

}  // namespace moreau::mesh
