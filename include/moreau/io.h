// Model input and output beyond load_model: binary save/load (also to and from memory), MJCF
// saving, and loading from memory with the assets in a map.
#pragma once

#include <map>
#include <string>

#include "moreau/model.h"

namespace moreau {

// ------------------------------------------------------------------------------------ binary
// A compact binary image of every Model field (src/io/model_fields.h lists them): loading it
// gives a Model bitwise equal to the saved one, without parsing or compiling. The format has a
// magic ("MOREAUBM"), a version, the byte order, the payload size and an FNV-1a checksum; each
// field is stored with its name, element type and count. A truncated, corrupt or foreign file, or
// one written by another version, throws LoadError naming the file and what was expected.

void save_model(const Model& m, const std::string& path);
std::string save_model_to_string(const Model& m);  // the same bytes, in memory (for pickling)
Model load_model_binary(const std::string& path);
// `name` names the buffer in messages.
Model load_model_binary_from_string(const std::string& bytes, const std::string& name = "<buffer>");

// ------------------------------------------------------------------------------------ MJCF
// MJCF that loads back (load_model / load_model_from_string) to a Model bitwise equal to m (but
// an inertial quaternion whose bits no MJCF orientation reloads to, at most 2 ulps away, and the
// constants derived from it; and meshes changed after loading, equal to float rounding:
// docs/model_io.md). Everything is written explicitly in the compiled model's local frames
// (compiler angle="radian", inertia given per body, actuators as <general>), with meshes (from
// their source vertices, refpos, refquat and scale) and height fields inline.

void save_xml(const Model& m, const std::string& path);
std::string save_xml_to_string(const Model& m);

// ------------------------------------------------------------------------------------ assets
// File name -> file contents. A file the model reads (an <include>d XML file, a mesh, a height
// field PNG) is looked up in the map first, as MuJoCo's virtual file system does: by its resolved
// path (model folder + meshdir + file), then by that path relative to the model's folder, then by
// its base name. A file not in the map is read from disk.
using AssetMap = std::map<std::string, std::string>;

// Parse and compile MJCF text with assets from `assets`; `path` names the model and its folder
// anchors relative file names. Throws LoadError.
Model load_model_from_string(const std::string& xml, const AssetMap& assets,
                             const std::string& path = "<string>");
// Parse and compile an MJCF file, with its assets looked up in `assets` first.
Model load_model(const std::string& path, const AssetMap& assets);

}  // namespace moreau
