// Binary Model images: save_model, load_model_binary and their in-memory forms.
//
// Layout (little-endian as written by this machine; the byte-order word refuses the others):
//   "MOREAUBM"  u32 version  u32 0x01020304  u64 payload bytes  u64 FNV-1a of the payload
//   payload: per field of MOREAU_MODEL_FIELDS, in order:
//     u32 name length, name, u8 element type, u64 element count, the elements
//   (strings: their bytes; string lists: per string a u64 length and the bytes).
#include <cstring>
#include <fstream>
#include <sstream>
#include <type_traits>

#include "io/model_fields.h"
#include "moreau/io.h"
#include "moreau/moreau.h"

namespace moreau {

namespace {

constexpr char kMagic[8] = {'M', 'O', 'R', 'E', 'A', 'U', 'B', 'M'};
constexpr uint32_t kVersion = 3;
constexpr uint32_t kByteOrder = 0x01020304;
constexpr size_t kHeader = 8 + 4 + 4 + 8 + 8;

enum Tag : uint8_t { kInt = 1, kLong = 2, kDouble = 3, kFloat = 4, kByte = 5, kString = 6, kStrings = 7 };

template <class T>
constexpr Tag tag_of() {
  if constexpr (std::is_same_v<T, int>) return kInt;
  else if constexpr (std::is_same_v<T, long long>) return kLong;
  else if constexpr (std::is_same_v<T, double>) return kDouble;
  else if constexpr (std::is_same_v<T, float>) return kFloat;
  else if constexpr (std::is_same_v<T, uint8_t>) return kByte;
  else static_assert(sizeof(T) == 0, "no binary tag for this element type");
}

const char* tag_name(int t) {
  switch (t) {
    case kInt: return "int32";
    case kLong: return "int64";
    case kDouble: return "float64";
    case kFloat: return "float32";
    case kByte: return "uint8";
    case kString: return "string";
    case kStrings: return "string list";
    default: return "unknown type";
  }
}

uint64_t fnv1a(const char* p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; ++i) {
    h ^= static_cast<unsigned char>(p[i]);
    h *= 1099511628211ull;
  }
  return h;
}

template <class T>
void put(std::string& out, const T& v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof(T));
}

// Visits every field: f(name, member, count) with count the expected vector length or -1.
template <class M, class F>
void for_each_field(M& m, F&& f) {
#define MOREAU_VISIT_FIELD(name, count) f(#name, m.name, static_cast<long long>(count));
  MOREAU_MODEL_FIELDS(MOREAU_VISIT_FIELD)
#undef MOREAU_VISIT_FIELD
}

struct Writer {
  std::string& out;
  void head(const char* name, Tag tag, uint64_t count) {
    put(out, static_cast<uint32_t>(std::strlen(name)));
    out.append(name);
    put(out, static_cast<uint8_t>(tag));
    put(out, count);
  }
  template <class T>
  void operator()(const char* name, const T& v, long long) {
    if constexpr (std::is_arithmetic_v<T>) {
      head(name, tag_of<T>(), 1);
      put(out, v);
    } else if constexpr (std::is_array_v<T>) {
      using E = std::remove_extent_t<T>;
      head(name, tag_of<E>(), std::extent_v<T>);
      out.append(reinterpret_cast<const char*>(v), sizeof(T));
    } else if constexpr (std::is_same_v<T, std::string>) {
      head(name, kString, v.size());
      out.append(v);
    } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
      head(name, kStrings, v.size());
      for (const auto& s : v) {
        put(out, static_cast<uint64_t>(s.size()));
        out.append(s);
      }
    } else {
      using E = typename T::value_type;
      head(name, tag_of<E>(), v.size());
      if (!v.empty()) out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(E));
    }
  }
};

struct Reader {
  const std::string& file;
  const char* p;
  const char* end;

  [[noreturn]] void fail(const std::string& what) const { throw LoadError(file, 0, "binary model", what); }

  void need(uint64_t n, const char* what) {
    if (n > static_cast<uint64_t>(end - p)) fail(std::string("unexpected end of data in ") + what);
  }
  template <class T>
  T get(const char* what) {
    need(sizeof(T), what);
    T v;
    std::memcpy(&v, p, sizeof(T));
    p += sizeof(T);
    return v;
  }
  // Reads a field header and checks its name and element type; returns the element count.
  uint64_t head(const char* name, Tag tag) {
    const uint32_t len = get<uint32_t>(name);
    need(len, name);
    const std::string found(p, len);
    p += len;
    if (found != name) fail("expected field '" + std::string(name) + "', found '" + found + "'");
    const uint8_t t = get<uint8_t>(name);
    if (t != tag)
      fail("field '" + std::string(name) + "': expected " + tag_name(tag) + " elements, found " + tag_name(t));
    return get<uint64_t>(name);
  }
  void expect_count(const char* name, uint64_t got, long long want) {
    if (want >= 0 && got != static_cast<uint64_t>(want))
      fail("field '" + std::string(name) + "': expected " + std::to_string(want) +
           " elements for the model's sizes, found " + std::to_string(got));
  }
  template <class T>
  void operator()(const char* name, T& v, long long count) {
    if constexpr (std::is_arithmetic_v<T>) {
      expect_count(name, head(name, tag_of<T>()), 1);
      v = get<T>(name);
    } else if constexpr (std::is_array_v<T>) {
      using E = std::remove_extent_t<T>;
      expect_count(name, head(name, tag_of<E>()), std::extent_v<T>);
      need(sizeof(T), name);
      std::memcpy(v, p, sizeof(T));
      p += sizeof(T);
    } else if constexpr (std::is_same_v<T, std::string>) {
      const uint64_t n = head(name, kString);
      need(n, name);
      v.assign(p, n);
      p += n;
    } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
      const uint64_t n = head(name, kStrings);
      expect_count(name, n, count);
      need(n * 8, name);  // every string has at least its length word
      v.resize(n);
      for (auto& s : v) {
        const uint64_t len = get<uint64_t>(name);
        need(len, name);
        s.assign(p, len);
        p += len;
      }
    } else {
      using E = typename T::value_type;
      const uint64_t n = head(name, tag_of<E>());
      expect_count(name, n, count);
      if (n > static_cast<uint64_t>(end - p) / sizeof(E)) fail(std::string("unexpected end of data in ") + name);
      v.resize(n);
      if (n) std::memcpy(v.data(), p, n * sizeof(E));
      p += n * sizeof(E);
    }
  }
};

// Address tables must point inside the arrays they index, so that a Model from a foreign but
// well-formed file cannot make the engine read out of bounds.
void check_addresses(const Model& m, Reader& r) {
  auto range = [&](const char* what, const std::vector<int>& adr, const std::vector<int>& num, size_t size) {
    for (size_t i = 0; i < adr.size(); ++i) {
      const long long a = adr[i], n = num.empty() ? 1 : num[i];
      if (a == -1 && n == 0) continue;
      if (a < 0 || n < 0 || static_cast<size_t>(a + n) > size)
        r.fail(std::string(what) + " " + std::to_string(i) + " lies outside its array");
    }
  };
  range("body joints of body", m.body_jntadr, m.body_jntnum, m.njnt);
  range("body dofs of body", m.body_dofadr, m.body_dofnum, m.nv);
  range("body geoms of body", m.body_geomadr, m.body_geomnum, m.ngeom);
  range("qpos address of joint", m.jnt_qposadr, {}, m.nq);
  range("dof address of joint", m.jnt_dofadr, {}, m.nv);
  range("vertices of mesh", m.mesh_vertadr, m.mesh_vertnum, m.nmeshvert);
  range("faces of mesh", m.mesh_faceadr, m.mesh_facenum, m.nmeshface);
  range("wraps of tendon", m.tendon_adr, m.tendon_num, m.nwrap);
  range("data of numeric", m.numeric_adr, m.numeric_size, m.nnumericdata);
  range("data of sensor", m.sensor_adr, m.sensor_dim, m.nsensordata);
  range("M address of dof", m.dof_Madr, {}, m.nM);
  for (int h = 0; h < m.nhfield; ++h) {
    const long long n = static_cast<long long>(m.hfield_nrow[h]) * m.hfield_ncol[h];
    if (m.hfield_adr[h] < 0 || n < 0 || m.hfield_adr[h] + n > m.nhfielddata)
      r.fail("data of height field " + std::to_string(h) + " lies outside its array");
  }
}

Model read(const std::string& bytes, const std::string& name) {
  Reader r{name, bytes.data(), bytes.data() + bytes.size()};
  if (bytes.size() < 8 || std::memcmp(bytes.data(), kMagic, 8) != 0)
    r.fail("not a Moreau binary model: expected the magic 'MOREAUBM' at the start");
  if (bytes.size() < kHeader)
    r.fail("truncated: expected a " + std::to_string(kHeader) + "-byte header, found " +
           std::to_string(bytes.size()) + " bytes");
  r.p += 8;
  const uint32_t version = r.get<uint32_t>("header");
  const uint32_t order = r.get<uint32_t>("header");
  const uint64_t size = r.get<uint64_t>("header");
  const uint64_t hash = r.get<uint64_t>("header");
  if (order != kByteOrder) r.fail("written on a machine of another byte order");
  if (version != kVersion)
    r.fail("format version " + std::to_string(version) + ", expected version " + std::to_string(kVersion));
  if (size != bytes.size() - kHeader)
    r.fail("truncated or padded: expected " + std::to_string(size) + " bytes of fields, found " +
           std::to_string(bytes.size() - kHeader));
  if (fnv1a(r.p, size) != hash) r.fail("checksum mismatch: the file is corrupt");
  Model m;
  for_each_field(m, r);
  if (r.p != r.end) r.fail("unexpected data after the last field");
  check_addresses(m, r);
  return m;
}

}  // namespace

std::string save_model_to_string(const Model& m) {
  std::string payload;
  Writer w{payload};
  for_each_field(m, w);
  std::string out(kMagic, 8);
  put(out, kVersion);
  put(out, kByteOrder);
  put(out, static_cast<uint64_t>(payload.size()));
  put(out, fnv1a(payload.data(), payload.size()));
  out += payload;
  return out;
}

void save_model(const Model& m, const std::string& path) {
  const std::string bytes = save_model_to_string(m);
  std::ofstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("save_model: cannot open '" + path + "' for writing");
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!f) throw std::runtime_error("save_model: cannot write '" + path + "'");
}

Model load_model_binary_from_string(const std::string& bytes, const std::string& name) {
  return read(bytes, name);
}

Model load_model_binary(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw LoadError(path, 0, "binary model", "cannot open file '" + path + "'");
  std::stringstream ss;
  ss << f.rdbuf();
  return read(ss.str(), path);
}

}  // namespace moreau
