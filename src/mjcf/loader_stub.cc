// TEMPORARY: placeholder until the MJCF loader lands (owner: loader). Delete this file then.
#include "moreau/moreau.h"
namespace moreau {
LoadError::LoadError(std::string file, int line, std::string element, std::string message)
    : std::runtime_error(file + ":" + std::to_string(line) + ": <" + element + ">: " + message),
      file_(std::move(file)), line_(line), element_(std::move(element)), message_(std::move(message)) {}
Model load_model(const std::string& path) { throw LoadError(path, 0, "mujoco", "loader not implemented"); }
Model load_model_from_string(const std::string&, const std::string& path) {
  throw LoadError(path, 0, "mujoco", "loader not implemented");
}
int name2id(const Model&, ObjType, const std::string&) { return -1; }
}  // namespace moreau
