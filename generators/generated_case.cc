#include "opconform/generators/generated_case.h"

#include <algorithm>

#include "opconform/conformance/format.h"
#include "check_generators.h"

namespace opconform::generators {

void showValue(const GeneratedCase& g, std::ostream& os) {
  os << op_name(g.c.op) << (g.check.empty() ? " valid case" : " case failing check " + g.check);
  if (!g.also_breaks.empty()) os << " (and breaking " << g.also_breaks << ")";
  os << "\n";
  for (const auto& [name, value] : g.c.attrs) os << "  attr " << name << " = " << value << "\n";
  if (g.c.memory_limit != kDefaultMemoryLimit) os << "  memory_limit = " << g.c.memory_limit << "\n";
  os << conformance::format_values(g.c.inputs, "  ");
}

GeneratedCase make_case(Op op, conformance::Values inputs, std::map<std::string, std::int64_t> attrs,
                        std::string check) {
  GeneratedCase g;
  g.c.op = op;
  g.c.inputs = std::move(inputs);
  g.c.attrs = std::move(attrs);
  g.check = std::move(check);
  return g;
}

const Tensor& input_tensor(const conformance::Case& c, const std::string& name) {
  return std::get<Tensor>(c.inputs.at(name));
}
const std::vector<Tensor>& input_list(const conformance::Case& c, const std::string& name) {
  return std::get<std::vector<Tensor>>(c.inputs.at(name));
}

Tensor& input_tensor(conformance::Case& c, const std::string& name) { return std::get<Tensor>(c.inputs.at(name)); }

std::vector<Tensor>& input_list(conformance::Case& c, const std::string& name) {
  return std::get<std::vector<Tensor>>(c.inputs.at(name));
}

Tensor index_tensor(DType dtype, Shape shape, const std::vector<std::int64_t>& values) {
  Tensor t(dtype, std::move(shape));
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (dtype == DType::kInt32)
      t.data<std::int32_t>()[i] = static_cast<std::int32_t>(values[i]);
    else
      t.data<std::int64_t>()[i] = values[i];
  }
  return t;
}

std::vector<std::int64_t> index_values(const Tensor& t) {
  std::vector<std::int64_t> values(static_cast<std::size_t>(t.num_elements()));
  for (std::int64_t i = 0; i < t.num_elements(); ++i) values[i] = t.index_value(i);
  return values;
}

Tensor reshaped(const Tensor& t, Shape shape) {
  Tensor out(t.dtype(), std::move(shape));
  visit_dtype(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    std::copy_n(t.data<T>(), t.num_elements(), out.data<T>());
  });
  return out;
}

std::vector<DType> registered_dtypes(Op op) { return op_generators(op).registered_dtypes(); }

std::vector<DType> unregistered_dtypes(Op op) { return dtypes_except(registered_dtypes(op)); }

std::vector<DType> dtypes_except(std::vector<DType> excluded) {
  std::vector<DType> out;
  for (int i = 0; i < kNumDTypes; ++i)
    if (std::find(excluded.begin(), excluded.end(), all_dtypes()[i]) == excluded.end()) out.push_back(all_dtypes()[i]);
  return out;
}

rc::Gen<DType> gen_index_dtype() { return rc::gen::element(DType::kInt32, DType::kInt64); }

rc::Gen<DType> gen_dtype_among(std::vector<DType> dtypes) { return rc::gen::elementOf(std::move(dtypes)); }

std::int64_t SizeBudget::draw(std::int64_t lo, std::int64_t hi) {
  const std::int64_t top = std::max(lo, std::min(hi, left_));
  const std::int64_t d = *rc::gen::inRange(lo, top + 1);
  take(d);
  return d;
}

void SizeBudget::take(std::int64_t factor) {
  left_ = std::max<std::int64_t>(1, left_ / std::max<std::int64_t>(1, factor));
}

std::int64_t draw_edge(std::int64_t lo, std::int64_t hi) {
  auto clamp = [&](__int128 v) { return static_cast<std::int64_t>(std::clamp<__int128>(v, lo, hi)); };
  std::vector<std::int64_t> edges = {lo, hi};
  for (int p : {31, 32, 62, 63})
    for (int delta : {-1, 0, 1}) {
      const __int128 v = (static_cast<__int128>(1) << p) + delta;
      edges.push_back(clamp(v));
      edges.push_back(clamp(-v));
    }
  if (*rc::gen::weightedElement<bool>({{2, true}, {1, false}})) return *rc::gen::elementOf(edges);
  // Uniform over [lo, hi] (not scaled by RapidCheck's size: the edges matter at every size).
  const auto span = static_cast<std::uint64_t>(static_cast<__int128>(hi) - lo);
  const auto r = *rc::gen::resize(100, rc::gen::arbitrary<std::uint64_t>());
  return static_cast<std::int64_t>(static_cast<__int128>(lo) + (span == UINT64_MAX ? r : r % (span + 1)));
}

std::int64_t draw_log_uniform(std::int64_t lo, std::int64_t hi) {
  if (*rc::gen::weightedElement<bool>({{1, true}, {2, false}})) return draw_edge(lo, hi);
  const int bits = *rc::gen::inRange(0, 64);  // a value below 2^bits, at least 2^(bits - 1)
  const __int128 top = (static_cast<__int128>(1) << bits) - 1;
  const __int128 bottom = bits == 0 ? 0 : static_cast<__int128>(1) << (bits - 1);
  const auto low = static_cast<std::int64_t>(std::clamp<__int128>(bottom, lo, hi));
  const auto high = static_cast<std::int64_t>(std::clamp<__int128>(top, lo, hi));
  const auto r = *rc::gen::resize(100, rc::gen::arbitrary<std::uint64_t>());
  return low + static_cast<std::int64_t>(r % (static_cast<std::uint64_t>(high - low) + 1));
}

std::int64_t headroom(std::int64_t a) { return kInt64Max / a; }

Shape draw_empty_huge_dims(int rank, int zero, std::int64_t lead) {
  Shape dims(static_cast<std::size_t>(rank), 0);
  std::int64_t running = lead;
  for (int i = 0; i < zero; ++i) {
    dims[i] = draw_log_uniform(1, headroom(running));
    running *= dims[i];
  }
  for (int i = zero + 1; i < rank; ++i) dims[i] = draw_log_uniform(0, kInt64Max);
  return dims;
}

std::int64_t min_factor_reaching_2pow63(std::int64_t a) {
  const unsigned __int128 target = static_cast<unsigned __int128>(1) << 63;
  return static_cast<std::int64_t>((target + static_cast<unsigned __int128>(a) - 1) / a);
}

std::vector<std::int64_t> factors_reaching_2pow63(int m, std::int64_t dmax) {
  const __int128 two63 = static_cast<__int128>(1) << 63;
  const __int128 threshold = (two63 + dmax - 1) / dmax;  // the prefix product must reach this
  std::vector<std::int64_t> factors;
  __int128 p = 1;
  for (int j = 0; j + 1 < m; ++j) {
    __int128 reach = p;                  // p times the largest product of the prefix factors after this one
    for (int k = j + 1; k + 1 < m; ++k)  // saturates at 2^63 * dmax (no __int128 overflow)
      reach = reach >= two63 ? two63 * dmax : std::min(reach * dmax, two63 * dmax);
    const __int128 hi = std::min<__int128>(dmax, (two63 - 1) / p);
    const __int128 lo = std::min(hi, std::max<__int128>(1, (threshold + reach - 1) / reach));
    const std::int64_t f = draw_edge(static_cast<std::int64_t>(lo), static_cast<std::int64_t>(hi));
    factors.push_back(f);
    p *= f;
  }
  factors.push_back(draw_edge(static_cast<std::int64_t>((two63 + p - 1) / p), dmax));
  return factors;
}

std::optional<std::vector<PredictedOutput>> predicted_outputs(const conformance::Case& c) {
  return op_generators(c.op).predicted_outputs(c);
}

std::int64_t predicted_request_bytes(const std::vector<PredictedOutput>& outputs) {
  std::int64_t total = 0;
  for (const PredictedOutput& o : outputs) {
    const std::int64_t bytes = output_request_bytes(o.dtype, o.shape);
    if (bytes < 0 || __builtin_add_overflow(total, bytes, &total)) return -1;
  }
  return total;
}

}  // namespace opconform::generators
