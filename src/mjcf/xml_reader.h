// XML -> Node tree with file:line on every element, <include> expanded in place, and typed
// attribute readers that report errors as "FILE:LINE: <element>: expectation".
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "moreau/moreau.h"

namespace moreau::mjcf {

struct Node {
  std::string name;
  std::string file;  // file the element was read from (the included file for included elements)
  int line = 0;
  std::vector<std::pair<std::string, std::string>> attrs;
  std::vector<Node> children;
  std::string text;
};

// Read an MJCF file (or text, with `path` naming it) into a tree. <include file="..."/> is
// replaced by the children of the included file's root <mujoco>, resolved relative to the
// directory of the including file. Throws LoadError.
Node read_xml_file(const std::string& path);
Node read_xml_string(const std::string& xml, const std::string& path);

[[noreturn]] void fail(const Node& n, const std::string& message);

// Reads the attributes of one element. Every successful lookup marks the attribute as used;
// finish() rejects the attributes that were never looked up (not in 2.2.2's schema for this
// element).
class Attrs {
 public:
  explicit Attrs(const Node& n);
  const Node& node() const { return n_; }
  bool has(const char* name) const;
  const std::string* find(const char* name);
  bool str(const char* name, std::string& out);
  // Exactly one number.
  bool num(const char* name, double& out);
  // Exactly n numbers.
  bool nums(const char* name, double* out, int n);
  // Between lo and hi numbers; returns how many were read (0 if the attribute is absent).
  int numvar(const char* name, double* out, int lo, int hi);
  std::vector<double> numlist(const char* name, bool* present = nullptr);
  bool integer(const char* name, int& out);
  bool ints(const char* name, int* out, int n);
  bool boolean(const char* name, bool& out);
  // One of the given keywords; out receives its value.
  bool keyword(const char* name, const std::vector<std::pair<const char*, int>>& words, int& out);
  // Mark attributes as accepted without interpreting them (visual-only attributes).
  void accept(std::initializer_list<const char*> names);
  void finish();
  [[noreturn]] void error(const std::string& message) const { fail(n_, message); }

 private:
  const Node& n_;
  std::vector<bool> used_;
};

std::vector<double> parse_numbers(const Node& n, const char* attr, const std::string& text);

}  // namespace moreau::mjcf
