#include "opconform/fuzz/case_codec.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <string>
#include <type_traits>

#include "opconform/conformance/floats.h"
#include "opconform/fuzz/byte_stream.h"

namespace opconform::fuzz {

namespace {

using conformance::Case;

constexpr int kMaxRank = 15;
constexpr int kMaxThreads = 4;
constexpr std::int64_t kMaxTileBytes = std::int64_t{1} << 30;
constexpr std::int64_t kTileChoices[8] = {0, 1, 3, 64, 100, 4096, 65536, std::int64_t{1} << 20};

// Structure bytes at or above these marks select the rarer encodings.
constexpr std::uint8_t kSizeMid = 0xE0;  // read_size: [0xE0, 0xF0) are sizes 8..23
constexpr std::uint8_t kWide = 0xF0;     // read_size/read_int/memory limit: a 64-bit value follows;
                                         // threads: streaming stores for every output as well
static_assert(kWide % (kMaxThreads + 1) == 0, "a threads byte kWide + t decodes to t threads");
constexpr std::uint8_t kTileWide = 0xF8;     // tile size: a 64-bit value follows
constexpr std::uint8_t kAnyDType = 0xE0;     // dtype: any of the 19, not only the preferred ones
constexpr std::uint8_t kOtherLength = 0xF0;  // list length: not the same as the first list's

// Shape modes (the byte modulo 8). Codes 0-3 all mean "the template", the common case.
constexpr std::uint8_t kShapeTemplate = 0, kShapeExplicit = 4, kShapeSuffix = 5, kShapePrefix = 6, kShapeLead = 7;
enum PayloadMode : std::uint8_t { kRaw, kIota, kFill, kSmall, kCopy, kNumPayloadModes };

struct Hints {
  std::vector<DType> dtypes;        // preferred dtypes, most likely first (empty: all 19)
  std::optional<Shape> shape;       // template shape
  const Tensor* payload = nullptr;  // template tensor for kCopy
};

const std::vector<DType>& every_dtype() {
  static const std::vector<DType> all(all_dtypes(), all_dtypes() + kNumDTypes);
  return all;
}
const std::vector<DType> kIndexDTypes = {DType::kInt32, DType::kInt64};
// What a string attr can be: data_format's values, and near misses of them.
constexpr std::string_view kStringAttrChoices[] = {"NHWC", "NCHW", "NCHW_VECT_C", "nhwc", "", "NHWC ", "NHCW", "HWCN"};
// TensorFlow's CPU registrations of SpaceToBatchND/BatchToSpaceND first.
const std::vector<DType> kSpaceBatchDTypes = {DType::kFloat32, DType::kInt32,  DType::kUInt8,   DType::kFloat64,
                                              DType::kInt64,   DType::kInt8,   DType::kInt16,   DType::kUInt16,
                                              DType::kUInt32,  DType::kUInt64, DType::kFloat16, DType::kBFloat16};

// --- Elements of the iota and small payload modes -------------------------------------------

template <class T>
T from_integer(std::int64_t v) {
  if constexpr (std::is_same_v<T, bool>)
    return (v & 1) != 0;
  else if constexpr (std::is_integral_v<T> || std::is_floating_point_v<T>)
    return static_cast<T>(v);
  else if constexpr (std::is_same_v<T, float16>)
    return float16{
        static_cast<std::uint16_t>(conformance::round_to_format(static_cast<double>(v), conformance::kFloat16))};
  else if constexpr (std::is_same_v<T, bfloat16>)
    return bfloat16{
        static_cast<std::uint16_t>(conformance::round_to_format(static_cast<double>(v), conformance::kBFloat16))};
  else if constexpr (std::is_same_v<T, qint8>)
    return qint8{static_cast<std::int8_t>(v)};
  else if constexpr (std::is_same_v<T, quint8>)
    return quint8{static_cast<std::uint8_t>(v)};
  else if constexpr (std::is_same_v<T, qint32>)
    return qint32{static_cast<std::int32_t>(v)};
  else
    return T(static_cast<typename T::value_type>(v), 0);  // complex
}

// Element i of kIota: distinct values 1, 2, 3, ... (complex: (i+1, -(i+1)); bool alternates).
template <class T>
T iota_element(std::int64_t i) {
  if constexpr (std::is_same_v<T, std::string>)
    return std::to_string(i + 1);
  else if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>)
    return T(static_cast<typename T::value_type>(i + 1), -static_cast<typename T::value_type>(i + 1));
  else
    return from_integer<T>(i + 1);
}

// An element of kSmall from one signed payload byte (string: that one character).
template <class T>
T small_element(std::int8_t v) {
  if constexpr (std::is_same_v<T, std::string>)
    return std::string(1, static_cast<char>(v));
  else
    return from_integer<T>(v);
}

// The signed byte that small_element<T> most likely maps back to `x` (checked by the caller).
template <class T>
std::int8_t small_guess(const T& x) {
  auto clamp = [](double d) { return d >= -128 && d <= 127 ? static_cast<std::int8_t>(d) : std::int8_t{0}; };
  if constexpr (std::is_same_v<T, std::string>)
    return x.empty() ? 0 : static_cast<std::int8_t>(x[0]);
  else if constexpr (std::is_integral_v<T>)
    return static_cast<std::int8_t>(x);
  else if constexpr (std::is_floating_point_v<T>)
    return clamp(x);
  else if constexpr (std::is_same_v<T, float16>)
    return clamp(conformance::format_to_double(x.bits, conformance::kFloat16));
  else if constexpr (std::is_same_v<T, bfloat16>)
    return clamp(conformance::format_to_double(x.bits, conformance::kBFloat16));
  else if constexpr (std::is_same_v<T, qint8> || std::is_same_v<T, quint8> || std::is_same_v<T, qint32>)
    return static_cast<std::int8_t>(x.value);
  else
    return clamp(x.real());  // complex
}

// --- Payloads -------------------------------------------------------------------------------

// Reads `n` elements in raw form into p: strings as a length byte (0..16) and that many payload
// bytes, others as their storage bytes (bool: the low bit of one byte).
template <class T>
void read_raw(ByteReader& in, T* p, std::int64_t n) {
  if constexpr (std::is_same_v<T, std::string>) {
    for (std::int64_t i = 0; i < n; ++i) {
      p[i].resize(in.u8() % (kMaxStringBytes + 1));
      in.payload(p[i].data(), p[i].size());
    }
  } else {
    in.payload(p, static_cast<std::size_t>(n) * sizeof(T));
    if constexpr (std::is_same_v<T, bool>) {
      auto* bytes = reinterpret_cast<unsigned char*>(p);
      for (std::int64_t i = 0; i < n; ++i) bytes[i] &= 1;
    }
  }
}

template <class T>
bool write_raw(ByteWriter& out, const T* p, std::int64_t n) {
  if constexpr (std::is_same_v<T, std::string>) {
    for (std::int64_t i = 0; i < n; ++i) {
      if (p[i].size() > static_cast<std::size_t>(kMaxStringBytes)) return false;
      out.u8(static_cast<std::uint8_t>(p[i].size()));
      out.payload(p[i].data(), p[i].size());
    }
  } else {
    out.payload(p, static_cast<std::size_t>(n) * sizeof(T));
  }
  return true;
}

// Fills t (already shaped and value-initialised) from the payload in `mode`.
void read_payload(ByteReader& in, std::uint8_t mode, Tensor& t, const Tensor* copy_from) {
  visit_dtype(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = t.data<T>();
    const std::int64_t n = t.num_elements();
    switch (mode % kNumPayloadModes) {
      case kRaw: read_raw(in, p, n); break;
      case kIota:
        for (std::int64_t i = 0; i < n; ++i) p[i] = iota_element<T>(i);
        break;
      case kFill: {
        T value{};
        read_raw(in, &value, 1);
        std::fill_n(p, n, value);
        break;
      }
      case kSmall:
        for (std::int64_t i = 0; i < n; ++i) {
          std::uint8_t byte;
          in.payload(&byte, 1);
          p[i] = small_element<T>(static_cast<std::int8_t>(byte));
        }
        break;
      case kCopy:
        if (copy_from && copy_from->dtype() == t.dtype() && copy_from->num_elements() == n)
          std::copy_n(copy_from->data<T>(), n, p);
        break;
    }
  });
}

// Writes t's payload in `mode`; false when that mode cannot hold it (the caller verifies the
// rest by decoding).
bool write_payload(ByteWriter& out, std::uint8_t mode, const Tensor& t) {
  out.u8(mode);
  return visit_dtype(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = t.data<T>();
    const std::int64_t n = t.num_elements();
    switch (mode) {
      case kRaw: return write_raw(out, p, n);
      case kFill: return n > 0 && write_raw(out, p, 1);
      case kSmall:
        for (std::int64_t i = 0; i < n; ++i) {
          const std::int8_t v = small_guess(p[i]);
          out.payload(&v, 1);
        }
        return true;
      default: return true;  // kIota, kCopy: nothing to write
    }
  });
}

// --- Small integers -------------------------------------------------------------------------

// A value in [0, hi] from 8 structure bytes (an encoder writes the value itself).
std::int64_t up_to(std::uint64_t v, std::int64_t hi) {
  return static_cast<std::int64_t>(v % (static_cast<std::uint64_t>(hi) + 1));
}

// The decoder and the encoder walk the same layout (see `layout` below): every method of one
// has a mirror in the other.
class Decoder {
 public:
  Decoder(const std::uint8_t* data, std::size_t size) : in_(data, size) {}
  bool ok() const { return ok_; }

  void knobs(Knobs& o, std::int64_t& memory_limit) {
    const std::uint8_t threads = in_.u8();
    o.num_threads = threads % (kMaxThreads + 1);
    o.streaming_min_bytes = threads < kWide ? 0 : 1;
    const std::uint8_t tile = in_.u8();
    o.tile_bytes = tile < kTileWide ? kTileChoices[tile % 8] : up_to(in_.u64(), kMaxTileBytes);
    const std::uint8_t limit = in_.u8();
    memory_limit = limit < kWide ? kDefaultFuzzMemoryLimit : up_to(in_.u64(), kMaxFuzzMemoryLimit);
  }
  void length(std::size_t& n) { n = in_.u8() % (kMaxListLength + 1); }
  void length_like(std::size_t& n, std::size_t like) {
    const std::uint8_t b = in_.u8();
    n = b < kOtherLength ? like : (b - kOtherLength) % (kMaxListLength + 1);
  }
  void attr(std::int64_t& v) {
    const std::uint8_t b = in_.u8();
    v = b < kWide ? static_cast<std::int64_t>(b % 40) - 8 : static_cast<std::int64_t>(in_.u64());
  }
  void string_attr(std::string& v) { v = kStringAttrChoices[in_.u8() % std::size(kStringAttrChoices)]; }

  void tensor(Tensor& t, const Hints& h) {
    if (!ok_) return;
    const std::vector<DType>& preferred = h.dtypes.empty() ? every_dtype() : h.dtypes;
    const std::uint8_t d = in_.u8();
    const DType dtype = d < kAnyDType ? preferred[d % preferred.size()] : all_dtypes()[(d - kAnyDType) % kNumDTypes];
    const Shape shape = read_shape(h.shape);
    // The bounds, before anything is allocated.
    const std::int64_t count = checked_num_elements(shape);
    if (count < 0 || count > kMaxCaseElements - elements_) {
      ok_ = false;
      return;
    }
    elements_ += count;
    t = Tensor(dtype, shape);
    read_payload(in_, in_.u8(), t, h.payload);
  }

 private:
  int rank() {
    const std::uint8_t r = in_.u8();
    return r < kWide ? r % 5 : r - kWide;
  }
  std::int64_t size() {
    const std::uint8_t b = in_.u8();
    if (b < kSizeMid) return b % 8;
    if (b < kWide) return 8 + (b - kSizeMid);
    return static_cast<std::int64_t>(in_.u64());
  }
  void dims(int count, Shape& shape) {
    for (int i = 0; i < count; ++i) shape.push_back(size());
  }
  Shape read_shape(const std::optional<Shape>& tmpl) {
    const std::uint8_t mode = in_.u8() % 8;
    Shape shape;
    if (!tmpl || mode == kShapeExplicit) {
      dims(rank(), shape);
    } else if (mode == kShapeSuffix) {
      shape = *tmpl;
      dims(rank(), shape);
    } else if (mode == kShapePrefix) {
      shape.assign(tmpl->begin(), tmpl->begin() + in_.u8() % (tmpl->size() + 1));
    } else if (mode == kShapeLead) {
      shape.push_back(size());
      shape.insert(shape.end(), tmpl->begin(), tmpl->end());
    } else {
      shape = *tmpl;
    }
    return shape;
  }

  ByteReader in_;
  bool ok_ = true;
  std::int64_t elements_ = 0;
};

class Encoder {
 public:
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  std::vector<std::uint8_t> bytes() const { return out_.bytes(); }

  void knobs(const Knobs& o, std::int64_t memory_limit) {
    const auto threads = static_cast<std::uint8_t>(std::clamp(o.num_threads, 0, kMaxThreads));
    out_.u8(o.streaming_min_bytes > 0 ? kWide + threads : threads);
    const std::int64_t tile = std::clamp<std::int64_t>(o.tile_bytes, 0, kMaxTileBytes);
    const auto* choice = std::find(std::begin(kTileChoices), std::end(kTileChoices), tile);
    if (choice != std::end(kTileChoices)) {
      out_.u8(static_cast<std::uint8_t>(choice - std::begin(kTileChoices)));
    } else {
      out_.u8(kTileWide);
      out_.u64(static_cast<std::uint64_t>(tile));
    }
    // A limit above the harness's cap (a vector's default 4 GiB) becomes the harness default.
    const std::int64_t limit =
        memory_limit > kMaxFuzzMemoryLimit ? kDefaultFuzzMemoryLimit : std::max<std::int64_t>(memory_limit, 0);
    if (limit == kDefaultFuzzMemoryLimit) {
      out_.u8(0);
    } else {
      out_.u8(kWide);
      out_.u64(static_cast<std::uint64_t>(limit));
    }
  }
  void length(std::size_t& n) {
    if (n > static_cast<std::size_t>(kMaxListLength))
      return fail("a list of " + std::to_string(n) + " tensors (at most 8)");
    out_.u8(static_cast<std::uint8_t>(n));
  }
  void length_like(std::size_t& n, std::size_t like) {
    if (n == like) return out_.u8(0);
    if (n > static_cast<std::size_t>(kMaxListLength))
      return fail("a list of " + std::to_string(n) + " tensors (at most 8)");
    out_.u8(static_cast<std::uint8_t>(kOtherLength + n));
  }
  void attr(std::int64_t& v) {
    if (v >= -8 && v < 32) return out_.u8(static_cast<std::uint8_t>(v + 8));
    out_.u8(kWide);
    out_.u64(static_cast<std::uint64_t>(v));
  }
  void string_attr(std::string& v) {
    const auto* it = std::find(std::begin(kStringAttrChoices), std::end(kStringAttrChoices), v);
    if (it == std::end(kStringAttrChoices)) return fail("the string attr \"" + v + "\"");
    out_.u8(static_cast<std::uint8_t>(it - std::begin(kStringAttrChoices)));
  }

  void tensor(Tensor& t, const Hints& h) {
    if (!ok()) return;
    const std::vector<DType>& preferred = h.dtypes.empty() ? every_dtype() : h.dtypes;
    const auto it = std::find(preferred.begin(), preferred.end(), t.dtype());
    out_.u8(it != preferred.end() ? static_cast<std::uint8_t>(it - preferred.begin())
                                  : static_cast<std::uint8_t>(kAnyDType + static_cast<int>(t.dtype())));
    write_shape(t.shape(), h.shape);
    elements_ += t.num_elements();
    if (elements_ > kMaxCaseElements) return fail("more than " + std::to_string(kMaxCaseElements) + " input elements");
    // The first payload mode whose encoding decodes back to exactly t.
    for (std::uint8_t mode : {kIota, kCopy, kFill, kSmall, kRaw}) {
      ByteWriter candidate;
      if (!write_payload(candidate, mode, t)) continue;
      const std::vector<std::uint8_t> bytes = candidate.bytes();
      ByteReader in(bytes.data(), bytes.size());
      Tensor decoded(t.dtype(), t.shape());
      read_payload(in, in.u8(), decoded, h.payload);
      if (decoded.bit_equal(t)) return out_.append(candidate);
    }
    fail("a " + std::string(dtype_name(t.dtype())) +
         " tensor whose elements the format cannot hold (strings of more than 16 bytes)");
  }

 private:
  void fail(std::string why) {
    if (error_.empty()) error_ = std::move(why);
  }
  void rank(std::size_t r) {
    if (r > static_cast<std::size_t>(kMaxRank)) return fail("rank " + std::to_string(r) + " (at most 15)");
    out_.u8(static_cast<std::uint8_t>(r < 5 ? r : kWide + r));
  }
  void size(std::int64_t v) {
    if (v >= 0 && v < 8) return out_.u8(static_cast<std::uint8_t>(v));
    if (v >= 8 && v < 24) return out_.u8(static_cast<std::uint8_t>(kSizeMid + (v - 8)));
    out_.u8(kWide);
    out_.u64(static_cast<std::uint64_t>(v));
  }
  void write_shape(const Shape& shape, const std::optional<Shape>& tmpl) {
    auto starts_with = [](const Shape& a, const Shape& b) {
      return a.size() >= b.size() && std::equal(b.begin(), b.end(), a.begin());
    };
    if (tmpl && shape == *tmpl) return out_.u8(kShapeTemplate);
    if (tmpl && starts_with(shape, *tmpl)) {
      out_.u8(kShapeSuffix);
      rank(shape.size() - tmpl->size());
      for (std::size_t i = tmpl->size(); i < shape.size(); ++i) size(shape[i]);
      return;
    }
    if (tmpl && starts_with(*tmpl, shape)) {
      out_.u8(kShapePrefix);
      return out_.u8(static_cast<std::uint8_t>(shape.size()));
    }
    if (tmpl && shape.size() == tmpl->size() + 1 && std::equal(tmpl->begin(), tmpl->end(), shape.begin() + 1)) {
      out_.u8(kShapeLead);
      return size(shape[0]);
    }
    out_.u8(kShapeExplicit);
    rank(shape.size());
    for (std::int64_t d : shape) size(d);
  }

  ByteWriter out_;
  std::string error_;
  std::int64_t elements_ = 0;
};

// --- Per-op layouts, shared by Decoder and Encoder ------------------------------------------

Tensor& single(Case& c, const char* name) {
  auto& v = c.inputs[name];
  if (!std::holds_alternative<Tensor>(v)) v = Tensor();
  return std::get<Tensor>(v);
}
std::vector<Tensor>& list(Case& c, const char* name) {
  auto& v = c.inputs[name];
  if (!std::holds_alternative<std::vector<Tensor>>(v)) v = std::vector<Tensor>{};
  return std::get<std::vector<Tensor>>(v);
}

// input, block_shape [M] (template M = rank - 2, or 1 for rank 2), paddings/crops [M, 2].
template <class IO>
void space_batch_layout(IO& io, Case& c, const char* third) {
  Tensor& input = single(c, "input");
  io.tensor(input, {kSpaceBatchDTypes, std::nullopt});
  const std::int64_t m_guess = input.rank() >= 3 ? input.rank() - 2 : input.rank() == 2 ? 1 : 0;
  Tensor& block = single(c, "block_shape");
  io.tensor(block, {kIndexDTypes, Shape{m_guess}});
  const std::int64_t m = block.rank() == 1 ? block.dim(0) : block.num_elements();
  io.tensor(single(c, third), {kIndexDTypes, Shape{m, 2}});
}

// indices[N] (int32), then data[N'] with data[m].shape = indices[m].shape + data[0]'s trailing
// shape as the template.
template <class IO>
void stitch_layout(IO& io, Case& c) {
  std::vector<Tensor>& indices = list(c, "indices");
  std::vector<Tensor>& data = list(c, "data");
  std::size_t n = indices.size(), n_data = data.size();
  io.length(n);
  io.length_like(n_data, n);
  indices.resize(n);
  data.resize(n_data);
  for (Tensor& t : indices) io.tensor(t, {{DType::kInt32}, std::nullopt});
  for (std::size_t m = 0; m < n_data; ++m) {
    Hints h;
    if (m == 0) {
      if (n > 0) h.shape = indices[0].shape();
    } else {
      h.dtypes = {data[0].dtype()};
      Shape trailing = data[0].shape();
      if (n > 0 && data[0].rank() >= indices[0].rank())
        trailing.erase(trailing.begin(), trailing.begin() + indices[0].rank());
      Shape shape = m < n ? indices[m].shape() : data[0].shape();
      if (m < n) shape.insert(shape.end(), trailing.begin(), trailing.end());
      h.shape = shape;
    }
    io.tensor(data[m], h);
  }
}

// num_partitions, data, partitions (int32, template data.shape: prefixes are one mode away).
template <class IO>
void partition_layout(IO& io, Case& c) {
  io.attr(c.attrs["num_partitions"]);
  Tensor& data = single(c, "data");
  io.tensor(data, {{}, std::nullopt});
  io.tensor(single(c, "partitions"), {{DType::kInt32}, data.shape()});
}

// concat_dim, list lengths, shapes[i] (int64 [r], shapes[0] the template of the others),
// indices[i] (int64 [nnz_i, r]), values[i] ([nnz_i]).
template <class IO>
void sparse_concat_layout(IO& io, Case& c) {
  io.attr(c.attrs["concat_dim"]);
  std::vector<Tensor>& indices = list(c, "indices");
  std::vector<Tensor>& values = list(c, "values");
  std::vector<Tensor>& shapes = list(c, "shapes");
  std::size_t n = indices.size(), n_values = values.size(), n_shapes = shapes.size();
  io.length(n);
  io.length_like(n_values, n);
  io.length_like(n_shapes, n);
  indices.resize(n);
  values.resize(n_values);
  shapes.resize(n_shapes);
  for (std::size_t i = 0; i < n_shapes; ++i) {
    if (i == 0)
      io.tensor(shapes[0], {{DType::kInt64}, std::nullopt});
    else
      io.tensor(shapes[i], {{DType::kInt64}, shapes[0].shape(), &shapes[0]});
  }
  for (std::size_t i = 0; i < n; ++i) {
    const Tensor* shape = i < n_shapes ? &shapes[i] : n_shapes > 0 ? &shapes[0] : nullptr;
    io.tensor(indices[i], {{DType::kInt64}, Shape{shape ? shape->num_elements() : 0}});
  }
  for (std::size_t i = 0; i < n_values; ++i) {
    Hints h;
    if (i > 0) h.dtypes = {values[0].dtype()};
    h.shape = Shape{i < n && indices[i].rank() >= 1 ? indices[i].dim(0) : 0};
    io.tensor(values[i], h);
  }
}

// Any op, from its registry signature: integer attrs, string attrs, then each input (a list:
// its length, then its tensors; T any dtype, index-like inputs int32/int64 first).
template <class IO>
void signature_layout(IO& io, Case& c) {
  const OpSignature& signature = op_signature(c.op);
  for (std::string_view name : signature.attrs) io.attr(c.attrs[std::string(name)]);
  for (std::string_view name : signature.string_attrs) io.string_attr(c.string_attrs[std::string(name)]);
  for (const Slot& slot : signature.inputs) {
    const Hints hints{slot.dtype_role == "T" ? std::vector<DType>{} : kIndexDTypes, std::nullopt};
    if (!slot.is_list) {
      io.tensor(single(c, std::string(slot.name).c_str()), hints);
      continue;
    }
    std::vector<Tensor>& tensors = list(c, std::string(slot.name).c_str());
    std::size_t n = tensors.size();
    io.length(n);
    tensors.resize(n);
    for (Tensor& t : tensors) io.tensor(t, hints);
  }
}

// The ops whose layout shapes each input after the ones before it have their own; every other
// op takes signature_layout.
template <class IO>
void layout(IO& io, Case& c) {
  switch (c.op) {
    case Op::kSpaceToBatchND: return space_batch_layout(io, c, "paddings");
    case Op::kBatchToSpaceND: return space_batch_layout(io, c, "crops");
    case Op::kDynamicStitch:
    case Op::kParallelDynamicStitch: return stitch_layout(io, c);
    case Op::kDynamicPartition: return partition_layout(io, c);
    case Op::kSparseConcat: return sparse_concat_layout(io, c);
    default: return signature_layout(io, c);
  }
}

bool same_value(const conformance::Value& a, const conformance::Value& b) {
  if (a.index() != b.index()) return false;
  if (const auto* t = std::get_if<Tensor>(&a)) return t->bit_equal(std::get<Tensor>(b));
  const auto& la = std::get<std::vector<Tensor>>(a);
  const auto& lb = std::get<std::vector<Tensor>>(b);
  return la.size() == lb.size() &&
         std::equal(la.begin(), la.end(), lb.begin(), [](const Tensor& x, const Tensor& y) { return x.bit_equal(y); });
}

constexpr const char* kHarnessNames[kNumHarnesses] = {
#define OPCONFORM_OP(Name, snake_name, UPPER_NAME, Kernel) "fuzz_" #snake_name,
#include "opconform/op_list.inc"
#undef OPCONFORM_OP
    "fuzz_vector_reader"};

}  // namespace

std::int64_t capped_memory_limit(std::int64_t limit) { return std::clamp<std::int64_t>(limit, 0, kMaxFuzzMemoryLimit); }

std::optional<FuzzCase> decode_case(Op op, const std::uint8_t* data, std::size_t size) {
  // An empty file read into a vector has no storage: FuzzedDataProvider copies from `data` even
  // for zero bytes, and memcpy from a null pointer is undefined.
  static constexpr std::uint8_t kNoBytes = 0;
  Decoder decoder(size == 0 ? &kNoBytes : data, size);
  FuzzCase fc;
  fc.c.op = op;
  decoder.knobs(fc.knobs, fc.c.memory_limit);
  layout(decoder, fc.c);
  if (!decoder.ok()) return std::nullopt;
  return fc;
}

Status encode_case(const Case& c, const Knobs& knobs, std::vector<std::uint8_t>* bytes) {
  const OpSignature& signature = op_signature(c.op);
  for (const Slot& slot : signature.inputs) {
    auto it = c.inputs.find(std::string(slot.name));
    if (it == c.inputs.end() || std::holds_alternative<std::vector<Tensor>>(it->second) != slot.is_list)
      return invalid_argument("the case has no ", slot.is_list ? "list" : "tensor", " input '", slot.name, "'");
  }
  for (std::string_view attr : signature.attrs)
    if (!c.attrs.count(std::string(attr))) return invalid_argument("the case has no attr '", attr, "'");
  for (std::string_view attr : signature.string_attrs)
    if (!c.string_attrs.count(std::string(attr))) return invalid_argument("the case has no attr '", attr, "'");

  Encoder encoder;
  Case copy = c;  // the layout may touch containers; tensors are only read
  encoder.knobs(knobs, c.memory_limit);
  layout(encoder, copy);
  if (!encoder.ok()) return invalid_argument("the harness format cannot express ", encoder.error());

  // Verify by decoding.
  std::vector<std::uint8_t> encoded = encoder.bytes();
  const std::optional<FuzzCase> back = decode_case(c.op, encoded.data(), encoded.size());
  if (!back) return internal_error("encode_case: the encoding does not decode (a codec bug)");
  if (back->c.attrs != c.attrs || back->c.string_attrs != c.string_attrs)
    return internal_error("encode_case: attrs do not round-trip (a codec bug)");
  for (const Slot& slot : signature.inputs) {
    const std::string name(slot.name);
    if (!same_value(back->c.inputs.at(name), c.inputs.at(name)))
      return internal_error("encode_case: input '", name, "' does not round-trip (a codec bug)");
  }
  *bytes = std::move(encoded);
  return Status();
}

std::string_view harness_name(Harness h) { return kHarnessNames[static_cast<int>(h)]; }

std::optional<Harness> harness_from_name(std::string_view name) {
  for (int i = 0; i < kNumHarnesses; ++i)
    if (name == kHarnessNames[i]) return static_cast<Harness>(i);
  return std::nullopt;
}

Harness harness_for_op(Op op) { return static_cast<Harness>(static_cast<int>(op)); }

std::optional<Op> op_of(Harness h) {
  if (h == Harness::kVectorReader) return std::nullopt;
  return static_cast<Op>(static_cast<int>(h));
}

}  // namespace opconform::fuzz
