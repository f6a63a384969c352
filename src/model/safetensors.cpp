// safetensors: 8-byte little-endian header length, JSON header, then the raw tensor bytes.
#include "model/safetensors.h"

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>

#include "core/error.h"
#include "model/atomic_writer.h"

namespace ec::model {
namespace {

using nlohmann::json;

// Deepest nesting accepted in a header: root object, tensor entry, shape list (3) plus slack.
constexpr int kMaxHeaderDepth = 8;

bool parse_dtype(std::string_view s, DType& out) {
  for (DType t : {DType::f32, DType::f16, DType::bf16, DType::i8, DType::u8, DType::i32}) {
    if (dtype_name(t) == s) {
      out = t;
      return true;
    }
  }
  return false;
}

uint64_t read_le64(const std::byte* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}

// A non-negative JSON integer, or nullopt.
std::optional<uint64_t> as_u64(const json& v) {
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  if (v.is_number_integer() && v.get<int64_t>() >= 0)
    return static_cast<uint64_t>(v.get<int64_t>());
  return std::nullopt;
}

struct Entry {
  std::string name;
  DType dtype;
  std::vector<int64_t> shape;
  uint64_t begin, end;
};

Entry parse_entry(const std::string& file, const std::string& name, const json& v) {
  if (!v.is_object()) fail("{}: tensor '{}': header entry is not an object", file, name);
  Entry e{name, DType::f32, {}, 0, 0};

  auto dtype = v.find("dtype");
  if (dtype == v.end() || !dtype->is_string()) {
    fail("{}: tensor '{}': missing or non-string 'dtype'", file, name);
  }
  if (!parse_dtype(dtype->get_ref<const std::string&>(), e.dtype)) {
    fail("{}: tensor '{}': unsupported dtype \"{}\" (supported: F32, F16, BF16, I8, U8, I32)", file,
         name, dtype->get<std::string>());
  }

  auto shape = v.find("shape");
  if (shape == v.end() || !shape->is_array()) {
    fail("{}: tensor '{}': 'shape' must be a list of non-negative integers", file, name);
  }
  uint64_t numel = 1;
  bool overflow = false;
  for (const json& d : *shape) {
    auto dim = as_u64(d);
    if (!dim || *dim > static_cast<uint64_t>(INT64_MAX)) {
      fail("{}: tensor '{}': 'shape' must be a list of non-negative integers, got {}", file, name,
           shape->dump());
    }
    e.shape.push_back(static_cast<int64_t>(*dim));
    if (*dim != 0 && numel > (uint64_t{1} << 62) / *dim) overflow = true;
    numel *= *dim;
  }

  auto offsets = v.find("data_offsets");
  if (offsets == v.end() || !offsets->is_array() || offsets->size() != 2 ||
      !as_u64((*offsets)[0]) || !as_u64((*offsets)[1])) {
    fail("{}: tensor '{}': 'data_offsets' must be [begin, end] non-negative integers", file, name);
  }
  e.begin = *as_u64((*offsets)[0]);
  e.end = *as_u64((*offsets)[1]);
  if (e.begin > e.end) {
    fail("{}: tensor '{}': data_offsets [{}, {}] has begin after end", file, name, e.begin, e.end);
  }
  const uint64_t span = e.end - e.begin;
  if (overflow || numel * dtype_size(e.dtype) != span) {
    fail("{}: tensor '{}': shape {} of {} needs {} bytes but data_offsets [{}, {}] span {} bytes",
         file, name, shape->dump(), dtype_name(e.dtype),
         overflow ? std::string("too many") : std::to_string(numel * dtype_size(e.dtype)), e.begin,
         e.end, span);
  }
  return e;
}

// The checks made while the header streams past: nesting, duplicate tensor names, tensor count.
class HeaderScan : public json::json_sax_t {
 public:
  explicit HeaderScan(const std::string& file) : file_(file) {}
  const std::string& duplicate() const { return duplicate_; }

  bool start_object(std::size_t) override { return open(); }
  bool start_array(std::size_t) override { return open(); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool key(string_t& key) override {
    if (depth_ == 1) {
      if (!seen_.insert(key).second && duplicate_.empty()) duplicate_ = key;
      // One of the keys may be __metadata__; the rest are tensors.
      if (seen_.size() > kMaxSafetensorsTensors + 1) {
        fail("{}: header lists more than the limit of {} tensors", file_, kMaxSafetensorsTensors);
      }
    }
    return true;
  }
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  bool open() {
    if (++depth_ > kMaxHeaderDepth)
      fail("{}: header nests deeper than {} levels", file_, kMaxHeaderDepth);
    return true;
  }
  bool close() {
    --depth_;
    return true;
  }

  const std::string& file_;
  int depth_ = 0;
  std::set<std::string> seen_;
  std::string duplicate_;
};

}  // namespace

const Tensor* SafetensorsFile::find(std::string_view name) const {
  for (const Tensor& t : tensors) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

SafetensorsFile read_safetensors(const std::filesystem::path& path) {
  const std::string file = path.string();
  SafetensorsFile out;
  out.path = path;
  out.mapping = MappedFile::open(path);
  const auto bytes = out.mapping->bytes();

  if (bytes.size() < 8) {
    fail("{}: file is {} bytes, shorter than the 8-byte safetensors header length", file,
         bytes.size());
  }
  const uint64_t header_len = read_le64(bytes.data());
  if (header_len > kMaxSafetensorsHeaderBytes) {
    fail("{}: header length {} exceeds the {} byte limit (corrupt or not a safetensors file)", file,
         header_len, kMaxSafetensorsHeaderBytes);
  }
  if (header_len > bytes.size() - 8) {
    fail("{}: header length {} goes beyond the end of the file ({} bytes after the length field)",
         file, header_len, bytes.size() - 8);
  }
  const auto* header_begin = reinterpret_cast<const char*>(bytes.data() + 8);
  const std::byte* data = bytes.data() + 8 + header_len;
  const uint64_t data_size = bytes.size() - 8 - header_len;

  // nlohmann keeps the last of duplicate keys, so a SAX pass sees every top-level key first. It
  // also caps the nesting (a valid header has 3 levels: error messages dump() values, which
  // recurses once per level) and the tensor count, before any DOM is built. (nlohmann's parser
  // callback did this before, but it rescans the top-level object after every tensor entry:
  // quadratic, minutes for 100,000 tensors.)
  HeaderScan scan(file);
  json header;
  try {
    if (json::sax_parse(header_begin, header_begin + header_len, &scan)) {
      header = json::parse(header_begin, header_begin + header_len);
    } else {
      header = json::parse(header_begin, header_begin + header_len);  // throws the syntax error
      fail("{}: header is not valid JSON", file);
    }
  } catch (const json::exception& e) {
    fail("{}: header is not valid JSON: {}", file, e.what());
  }
  const std::string& duplicate = scan.duplicate();
  if (!duplicate.empty()) fail("{}: tensor '{}' appears twice in the header", file, duplicate);
  if (!header.is_object()) fail("{}: header is not a JSON object", file);

  std::vector<Entry> entries;
  for (const auto& [name, value] : header.items()) {
    if (name == "__metadata__") {
      if (!value.is_object()) fail("{}: '__metadata__' must be an object of strings", file);
      for (const auto& [key, v] : value.items()) {
        if (!v.is_string()) fail("{}: '__metadata__' entry '{}' is not a string", file, key);
        out.metadata[key] = v.get<std::string>();
      }
      continue;
    }
    Entry e = parse_entry(file, name, value);
    if (e.end > data_size) {
      fail("{}: tensor '{}': data_offsets end {} is beyond the data section ({} bytes)", file, name,
           e.end, data_size);
    }
    entries.push_back(std::move(e));
  }
  if (entries.size() > kMaxSafetensorsTensors) {
    fail("{}: header lists {} tensors, more than the limit of {}", file, entries.size(),
         kMaxSafetensorsTensors);
  }

  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  uint64_t covered = 0;  // end of the bytes claimed so far
  const Entry* last = nullptr;
  for (const Entry& e : entries) {
    if (e.begin == e.end) continue;  // empty tensors occupy no bytes
    if (last != nullptr && e.begin < covered) {
      fail("{}: tensor '{}' (bytes {}..{}) overlaps tensor '{}' (bytes {}..{})", file, e.name,
           e.begin, e.end, last->name, last->begin, last->end);
    }
    if (e.begin > covered) out.has_gaps = true;
    covered = e.end;
    last = &e;
  }
  if (covered != data_size) out.has_gaps = true;  // trailing bytes nobody claims

  out.tensors.reserve(entries.size());
  for (Entry& e : entries) {
    Tensor t;
    t.name = std::move(e.name);
    t.dtype = e.dtype;
    t.shape = std::move(e.shape);
    t.data = data + e.begin;
    t.nbytes = e.end - e.begin;
    t.owner = out.mapping;
    out.tensors.push_back(std::move(t));
  }
  return out;
}

void write_safetensors(const std::filesystem::path& path, const std::vector<Tensor>& tensors,
                       const std::map<std::string, std::string>& metadata) {
  const std::string file = path.string();
  json header = json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  uint64_t offset = 0;
  for (const Tensor& t : tensors) {
    if (t.name.empty() || t.name == "__metadata__") {
      fail("{}: cannot write a tensor named '{}'", file, t.name);
    }
    if (header.contains(t.name)) fail("{}: tensor '{}' given twice", file, t.name);
    if (t.numel() < 0 || static_cast<uint64_t>(t.numel()) * dtype_size(t.dtype) != t.nbytes) {
      fail("{}: tensor '{}': {} bytes do not match shape × {} ({} elements)", file, t.name,
           t.nbytes, dtype_name(t.dtype), t.numel());
    }
    if (t.nbytes > 0 && t.data == nullptr) fail("{}: tensor '{}' has no data", file, t.name);
    header[t.name] = {{"dtype", dtype_name(t.dtype)},
                      {"shape", t.shape},
                      {"data_offsets", {offset, offset + t.nbytes}}};
    offset += t.nbytes;
  }
  std::string text;
  try {
    text = header.dump();
  } catch (const json::type_error& e) {  // names that are not valid UTF-8
    fail("{}: cannot encode the header: {}", file, e.what());
  }
  // Pad with spaces so the data section starts 8-byte aligned, as the reference writer does.
  text.append((8 - text.size() % 8) % 8, ' ');

  std::byte length[8];
  for (int i = 0; i < 8; ++i) length[i] = static_cast<std::byte>((text.size() >> (8 * i)) & 0xff);
  AtomicFileWriter out(path);
  out.write(std::span<const std::byte>(length, 8));
  out.write(text);
  for (const Tensor& t : tensors) out.write(std::span<const std::byte>(t.data, t.nbytes));
  out.commit();
}

}  // namespace ec::model
