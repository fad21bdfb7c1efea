#include "mjcf/xml_reader.h"

#include <tinyxml2.h>

#include "io/assets.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace moreau {

LoadError::LoadError(std::string file, int line, std::string element, std::string message)
    : std::runtime_error(file + ":" + std::to_string(line) + ": <" + element + ">: " + message),
      file_(std::move(file)),
      line_(line),
      element_(std::move(element)),
      message_(std::move(message)) {}

}  // namespace moreau

namespace moreau::mjcf {

void fail(const Node& n, const std::string& message) { throw LoadError(n.file, n.line, n.name, message); }

namespace {

std::string dir_of(const std::string& path) {
  const auto p = path.find_last_of('/');
  return p == std::string::npos ? std::string() : path.substr(0, p + 1);
}

void convert(const tinyxml2::XMLElement* e, const std::string& file, Node& out, int depth,
             std::vector<std::string>& stack);

void parse_doc(tinyxml2::XMLDocument& doc, const std::string& text, const std::string& file) {
  if (doc.Parse(text.c_str(), text.size()) != tinyxml2::XML_SUCCESS) {
    // tinyxml2's message ends with "XMLElement name=NAME" when it knows the element
    const std::string detail = doc.ErrorStr() ? doc.ErrorStr() : "parse error";
    std::string element = "xml";
    const auto at = detail.find("XMLElement name=");
    if (at != std::string::npos) element = detail.substr(at + 16, detail.find_first_of(" \n", at + 16) - at - 16);
    std::string what;
    switch (doc.ErrorID()) {
      case tinyxml2::XML_ERROR_MISMATCHED_ELEMENT: what = "the element is not closed where its parent ends"; break;
      case tinyxml2::XML_ERROR_PARSING_ATTRIBUTE: what = "an attribute is malformed or repeated"; break;
      case tinyxml2::XML_ERROR_EMPTY_DOCUMENT: what = "the document is empty"; break;
      default: what = "not well-formed XML"; break;
    }
    throw LoadError(file, doc.ErrorLineNum(), element, "malformed XML: " + what + " (tinyxml2: " + detail + ")");
  }
  if (!doc.RootElement()) throw LoadError(file, 1, "xml", "no root element");
}

// The file's text: from the asset map of the load in progress if it has the file, else from disk.
std::string read_file_text(const std::string& path, const Node* from) {
  if (const std::string* asset = io::find_asset(path)) return *asset;
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    const std::string what = "cannot open file '" + path + "'" + io::asset_note();
    if (from) fail(*from, what);
    throw LoadError(path, 0, "mujoco", what);
  }
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

void convert_children(const tinyxml2::XMLElement* e, const std::string& file, Node& out, int depth,
                      std::vector<std::string>& stack);

// Replace <include file=...> (element c of `file`) by the children of the included file's root.
// Kept out of line so that the included document and the path strings take stack only on the
// include path, not in every level of the element recursion (a chain of 1000 bodies is 1000
// levels deep).
[[gnu::noinline]] void expand_include(const tinyxml2::XMLElement* c, const std::string& file, Node& out,
                                      int depth, std::vector<std::string>& stack) {
  Node inc;
  inc.name = "include";
  inc.file = file;
  inc.line = c->GetLineNum();
  const char* fn = nullptr;
  for (auto* a = c->FirstAttribute(); a; a = a->Next()) {
    if (std::strcmp(a->Name(), "file") == 0) fn = a->Value();
    else fail(inc, std::string("unknown attribute '") + a->Name() + "'");
  }
  if (!fn || !*fn) fail(inc, "attribute 'file' is required");
  if (c->FirstChildElement()) fail(inc, "include cannot have child elements");
  std::string path = fn;
  if (path[0] != '/') path = dir_of(file) + path;
  for (const auto& s : stack)
    if (s == path) fail(inc, "recursive include of '" + path + "'");
  const std::string text = read_file_text(path, &inc);
  tinyxml2::XMLDocument doc;
  parse_doc(doc, text, path);
  stack.push_back(path);
  // The included file's root element (normally <mujoco>) is dropped; its children are
  // inserted here.
  convert_children(doc.RootElement(), path, out, depth + 1, stack);
  stack.pop_back();
}

// Convert e's children into out.children, expanding <include file=...>.
void convert_children(const tinyxml2::XMLElement* e, const std::string& file, Node& out, int depth,
                      std::vector<std::string>& stack) {
  for (auto* c = e->FirstChildElement(); c; c = c->NextSiblingElement()) {
    if (std::strcmp(c->Name(), "include") == 0) {
      expand_include(c, file, out, depth, stack);
      continue;
    }
    out.children.emplace_back();
    convert(c, file, out.children.back(), depth + 1, stack);
  }
}

void convert(const tinyxml2::XMLElement* e, const std::string& file, Node& out, int depth,
             std::vector<std::string>& stack) {
  out.name = e->Name();
  out.file = file;
  out.line = e->GetLineNum();
  // The limit bounds the recursion of the reader and the parser (under 1 KB of stack per level):
  // enough for a chain of 1000 bodies split over included files (tinyxml2 itself stops a single
  // file at 100 levels).
  if (depth > 2000) fail(out, "elements nested too deeply");
  for (auto* a = e->FirstAttribute(); a; a = a->Next()) {
    for (const auto& p : out.attrs)
      if (p.first == a->Name()) fail(out, std::string("duplicate attribute '") + a->Name() + "'");
    out.attrs.emplace_back(a->Name(), a->Value());
  }
  if (e->GetText()) out.text = e->GetText();
  convert_children(e, file, out, depth, stack);
}

Node from_text(const std::string& text, const std::string& path) {
  tinyxml2::XMLDocument doc;
  parse_doc(doc, text, path);
  Node root;
  std::vector<std::string> stack{path};
  convert(doc.RootElement(), path, root, 0, stack);
  if (root.name != "mujoco") fail(root, "root element must be <mujoco>");
  return root;
}

}  // namespace

Node read_xml_file(const std::string& path) { return from_text(read_file_text(path, nullptr), path); }
Node read_xml_string(const std::string& xml, const std::string& path) { return from_text(xml, path); }

// ------------------------------------------------------------------------------------- numbers

std::vector<double> parse_numbers(const Node& n, const char* attr, const std::string& text) {
  std::vector<double> v;
  const char* s = text.c_str();
  while (true) {
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' || *s == ',') ++s;
    if (!*s) break;
    char* end = nullptr;
    errno = 0;
    const double x = std::strtod(s, &end);
    if (end == s || (*end && !std::strchr(" \t\n\r,", *end)))
      fail(n, std::string("attribute '") + attr + "': cannot parse '" + text + "' as numbers");
    if (!std::isfinite(x))
      fail(n, std::string("attribute '") + attr + "': number '" + std::string(s, static_cast<const char*>(end)) + "' is not finite");
    v.push_back(x);
    s = end;
  }
  return v;
}

Attrs::Attrs(const Node& n) : n_(n), used_(n.attrs.size(), false) {}

bool Attrs::has(const char* name) const {
  for (const auto& a : n_.attrs)
    if (a.first == name) return true;
  return false;
}

const std::string* Attrs::find(const char* name) {
  for (size_t i = 0; i < n_.attrs.size(); ++i)
    if (n_.attrs[i].first == name) {
      used_[i] = true;
      return &n_.attrs[i].second;
    }
  return nullptr;
}

bool Attrs::str(const char* name, std::string& out) {
  const std::string* s = find(name);
  if (!s) return false;
  out = *s;
  return true;
}

static std::string plural(int n) { return n == 1 ? "number" : "numbers"; }

bool Attrs::nums(const char* name, double* out, int n) {
  const std::string* s = find(name);
  if (!s) return false;
  const auto v = parse_numbers(n_, name, *s);
  if (static_cast<int>(v.size()) != n)
    error(std::string("attribute '") + name + "' expects " + std::to_string(n) + " " + plural(n) +
          ", got " + std::to_string(v.size()));
  for (int i = 0; i < n; ++i) out[i] = v[i];
  return true;
}

bool Attrs::num(const char* name, double& out) { return nums(name, &out, 1); }

int Attrs::numvar(const char* name, double* out, int lo, int hi) {
  const std::string* s = find(name);
  if (!s) return 0;
  const auto v = parse_numbers(n_, name, *s);
  const int k = static_cast<int>(v.size());
  if (k < lo || k > hi)
    error(std::string("attribute '") + name + "' expects " + std::to_string(lo) + " to " +
          std::to_string(hi) + " numbers, got " + std::to_string(k));
  for (int i = 0; i < k; ++i) out[i] = v[i];
  return k;
}

std::vector<double> Attrs::numlist(const char* name, bool* present) {
  const std::string* s = find(name);
  if (present) *present = s != nullptr;
  if (!s) return {};
  return parse_numbers(n_, name, *s);
}

bool Attrs::ints(const char* name, int* out, int n) {
  const std::string* s = find(name);
  if (!s) return false;
  const auto v = parse_numbers(n_, name, *s);
  if (static_cast<int>(v.size()) != n)
    error(std::string("attribute '") + name + "' expects " + std::to_string(n) + " integer" +
          (n == 1 ? "" : "s") + ", got " + std::to_string(v.size()));
  for (int i = 0; i < n; ++i) {
    if (v[i] != std::floor(v[i]) || std::fabs(v[i]) > 2147483647.0)
      error(std::string("attribute '") + name + "' expects integers, got '" + *s + "'");
    out[i] = static_cast<int>(v[i]);
  }
  return true;
}

bool Attrs::integer(const char* name, int& out) { return ints(name, &out, 1); }

bool Attrs::boolean(const char* name, bool& out) {
  const std::string* s = find(name);
  if (!s) return false;
  if (*s == "true") out = true;
  else if (*s == "false") out = false;
  else error(std::string("attribute '") + name + "' expects 'true' or 'false', got '" + *s + "'");
  return true;
}

bool Attrs::keyword(const char* name, const std::vector<std::pair<const char*, int>>& words, int& out) {
  const std::string* s = find(name);
  if (!s) return false;
  for (const auto& w : words)
    if (*s == w.first) {
      out = w.second;
      return true;
    }
  std::string list;
  for (const auto& w : words) list += std::string(list.empty() ? "" : ", ") + "'" + w.first + "'";
  error(std::string("attribute '") + name + "' expects one of " + list + ", got '" + *s + "'");
}

void Attrs::accept(std::initializer_list<const char*> names) {
  for (const char* n : names) find(n);
}

void Attrs::finish() {
  for (size_t i = 0; i < used_.size(); ++i)
    if (!used_[i]) error("unknown attribute '" + n_.attrs[i].first + "'");
}

}  // namespace moreau::mjcf
