#include "opconform/validator/plugin_host.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <iterator>
#include <map>
#include <new>

#include "opconform/conformance/format.h"
#include "opconform/exec.h"
#include "opconform/op_registry.h"

namespace opconform::validator {

namespace {

// The typed entry points of ABI 1.0, frozen: the six ops that had one. Every op, these six
// included, can be called through opconform_run_op instead.
constexpr const char* kTypedEntrySymbols[] = {
    OPCONFORM_SYMBOL_SPACE_TO_BATCH_ND,       OPCONFORM_SYMBOL_BATCH_TO_SPACE_ND, OPCONFORM_SYMBOL_DYNAMIC_STITCH,
    OPCONFORM_SYMBOL_PARALLEL_DYNAMIC_STITCH, OPCONFORM_SYMBOL_DYNAMIC_PARTITION, OPCONFORM_SYMBOL_SPARSE_CONCAT};
constexpr int kNumTypedEntryPoints = static_cast<int>(std::size(kTypedEntrySymbols));
constexpr std::int64_t kMaxMessageLength = 1 << 16;
constexpr std::uint64_t kAllDTypes = (std::uint64_t{1} << OPCONFORM_NUM_DTYPES) - 1;

struct alignas(64) EmptyData {
  char bytes[64] = {};
};
const EmptyData kEmptyData;

// Every buffer handed to a plug-in is guarded by inaccessible pages (guard_pages.h).
using FencedBuffer = GuardedBuffer;

struct OutputBuffer {
  DType dtype;
  Shape shape;
  std::int64_t elements;
  std::unique_ptr<FencedBuffer> buffer;
};

// Everything the callbacks of one call see.
struct CallState {
  std::int64_t num_outputs = 0;
  std::int64_t memory_limit = 0;
  // What allocate_output provides in total: the memory limit, or the inputs' size when that is
  // more (an identity path returns its input, which the spec does not count as a request).
  std::int64_t output_allowance = 0;
  std::int64_t requested_bytes = 0;
  std::map<std::int32_t, OutputBuffer> outputs;
  std::vector<std::unique_ptr<FencedBuffer>> byte_blocks;
  std::vector<std::pair<const char*, std::int64_t>> input_strings;
  std::string message;
  std::vector<std::string> faults;
};

void* allocate_output_cb(void* caller, std::int32_t index, std::int32_t dtype, std::int32_t rank,
                         const std::int64_t* dims) {
  auto* state = static_cast<CallState*>(caller);
  auto invalid = [&](const std::string& why) -> void* {
    state->faults.push_back(str_cat("allocate_output(", index, ", dtype ", dtype, ", rank ", rank, "): ", why));
    return nullptr;
  };
  if (index < 0 || index >= state->num_outputs)
    return invalid(str_cat("index out of range [0, ", state->num_outputs, ")"));
  if (state->outputs.count(index)) return invalid("output allocated twice");
  if (dtype < 0 || dtype >= OPCONFORM_NUM_DTYPES) return invalid("unknown dtype");
  if (rank < 0 || rank > kMaxDims) return invalid("rank outside [0, 254]");
  if (rank > 0 && dims == nullptr) return invalid("dims is NULL");
  Shape shape(dims, dims + rank);
  const std::int64_t elements = checked_num_elements(shape);
  if (elements < 0) return invalid("bad dims " + shape_string(shape));
  const auto d = static_cast<DType>(dtype);
  // The caller's memory limit, as the spec accounts it; refusing is not a fault.
  const std::int64_t request = output_request_bytes(d, shape);
  if (request < 0 || request > state->output_allowance - state->requested_bytes) return nullptr;
  state->requested_bytes += request;
  const std::size_t bytes = static_cast<std::size_t>(elements) * dtype_storage_size(d);
  const std::size_t slot_bytes =
      d == DType::kString ? static_cast<std::size_t>(elements) * sizeof(opconform_string) : bytes;
  auto buffer = FencedBuffer::make(slot_bytes, d == DType::kString ? 0 : kPoisonByte,
                                   str_cat("output ", index, " (", dtype_name(d), " ", shape_string(shape), ")"));
  if (buffer == nullptr) return nullptr;
  OutputBuffer out{d, std::move(shape), elements, std::move(buffer)};
  void* data = out.buffer->data();
  state->outputs.emplace(index, std::move(out));
  return data;
}

char* allocate_bytes_cb(void* caller, std::int64_t size) {
  auto* state = static_cast<CallState*>(caller);
  if (size < 0 || size > state->memory_limit) {
    state->faults.push_back(str_cat("allocate_bytes(", size, "): size outside [0, memory limit]"));
    return nullptr;
  }
  auto block = FencedBuffer::make(static_cast<std::size_t>(size), kPoisonByte,
                                  str_cat("allocate_bytes block of ", size, " bytes"));
  if (block == nullptr) return nullptr;
  state->byte_blocks.push_back(std::move(block));
  return reinterpret_cast<char*>(state->byte_blocks.back()->data());
}

void set_message_cb(void* caller, const char* message, std::int64_t size) {
  auto* state = static_cast<CallState*>(caller);
  if (message == nullptr || size < 0) {
    state->faults.push_back(str_cat("set_message(", message ? "..." : "NULL", ", ", size, ")"));
    return;
  }
  state->message.assign(message, static_cast<std::size_t>(std::min(size, kMaxMessageLength)));
}

// Descriptors of a case's inputs; keeps the dims and string slots alive.
class InputDescriptors {
 public:
  explicit InputDescriptors(CallState* state) : state_(state) {}
  opconform_tensor describe(const Tensor& t) {
    opconform_tensor d{};
    d.dtype = static_cast<std::int32_t>(t.dtype());
    d.rank = t.rank();
    d.dims = t.shape().data();
    if (t.num_elements() == 0) {
      d.data = &kEmptyData;
    } else if (t.dtype() == DType::kString) {
      auto& slots = strings_.emplace_back();
      for (const std::string& s : t.values<std::string>()) {
        slots.push_back({s.data(), static_cast<std::int64_t>(s.size())});
        state_->input_strings.emplace_back(s.data(), static_cast<std::int64_t>(s.size()));
      }
      d.data = slots.data();
    } else {
      d.data = t.raw_data();
    }
    return d;
  }
  std::vector<opconform_tensor> describe(const std::vector<Tensor>& list) {
    std::vector<opconform_tensor> out;
    for (const Tensor& t : list) out.push_back(describe(t));
    return out;
  }

 private:
  CallState* state_;
  std::vector<std::vector<opconform_string>> strings_;  // inner vectors never move their data
};

const Tensor& tensor_in(const conformance::Case& c, const char* name) { return std::get<Tensor>(c.inputs.at(name)); }
const std::vector<Tensor>& list_in(const conformance::Case& c, const char* name) {
  return std::get<std::vector<Tensor>>(c.inputs.at(name));
}
const opconform_tensor* first(const std::vector<opconform_tensor>& v) { return v.empty() ? nullptr : v.data(); }

// Copies one output buffer into a Tensor; false with *fault set when its contents break the
// ABI (a bool that is not 0/1, a string pointing outside allowed bytes).
bool read_output(const CallState& state, std::int32_t index, const OutputBuffer& out, Tensor* t, std::string* fault) {
  Tensor result(out.dtype, out.shape);
  const std::uint8_t* src = out.buffer->data();
  if (out.dtype == DType::kString) {
    const auto* slots = reinterpret_cast<const opconform_string*>(src);
    std::string* dst = result.data<std::string>();
    for (std::int64_t i = 0; i < out.elements; ++i) {
      const opconform_string s = slots[i];
      bool allowed = s.size == 0 ||
                     (s.size > 0 && s.data != nullptr &&
                      (std::any_of(state.byte_blocks.begin(), state.byte_blocks.end(),
                                   [&](const auto& b) { return b->contains(s.data, s.size); }) ||
                       std::any_of(state.input_strings.begin(), state.input_strings.end(), [&](const auto& in) {
                         return s.data >= in.first && s.size <= in.second && s.data - in.first <= in.second - s.size;
                       })));
      if (!allowed) {
        *fault = str_cat("output ", index, " element ", conformance::format_coordinate(out.shape, i), ": string {",
                         static_cast<const void*>(s.data), ", ", s.size,
                         "} does not point into allocate_bytes or input bytes");
        return false;
      }
      if (s.size > 0) dst[i].assign(s.data, static_cast<std::size_t>(s.size));
    }
  } else if (out.dtype == DType::kBool) {
    bool* dst = result.data<bool>();
    for (std::int64_t i = 0; i < out.elements; ++i) {
      if (src[i] > 1) {
        *fault = str_cat("output ", index, " element ", conformance::format_coordinate(out.shape, i), ": bool byte ",
                         int{src[i]}, src[i] == kPoisonByte ? " (never written)" : "");
        return false;
      }
      dst[i] = src[i] == 1;
    }
  } else if (out.elements > 0) {
    std::memcpy(result.raw_data(), src, out.buffer->size());
  }
  *t = std::move(result);
  return true;
}

// c's input tensors in the order the entry point takes them, each with its name ("input",
// "block_shape", "indices[0]", ...).
std::vector<std::pair<std::string, const Tensor*>> ordered_inputs(const conformance::Case& c) {
  std::vector<std::pair<std::string, const Tensor*>> out;
  for (const Slot& slot : op_signature(c.op).inputs) {
    auto it = c.inputs.find(std::string(slot.name));
    if (it == c.inputs.end()) continue;
    if (const auto* t = std::get_if<Tensor>(&it->second)) {
      out.emplace_back(std::string(slot.name), t);
      continue;
    }
    const auto& list = std::get<std::vector<Tensor>>(it->second);
    for (std::size_t i = 0; i < list.size(); ++i) out.emplace_back(str_cat(slot.name, "[", i, "]"), &list[i]);
  }
  return out;
}

bool same_element(const Tensor& a, const Tensor& b, std::int64_t i) {
  if (a.dtype() == DType::kString) return a.data<std::string>()[i] == b.data<std::string>()[i];
  const std::size_t size = dtype_storage_size(a.dtype());
  return std::memcmp(static_cast<const char*>(a.raw_data()) + i * size,
                     static_cast<const char*>(b.raw_data()) + i * size, size) == 0;
}

// Deep copies of a case's inputs taken before the call, to tell whether the call changed them
// (through a cast-away const or a stray pointer).
class InputSnapshot {
 public:
  explicit InputSnapshot(const conformance::Case& c) {
    for (const auto& [name, t] : ordered_inputs(c)) copies_.push_back(t->clone());
  }
  // "" when every input of c still has its snapshot's dtype, shape and bits; else the first
  // change: "modified input 2 (data[0]): element [1] was 5, now 7".
  std::string changes(const conformance::Case& c) const {
    const auto now = ordered_inputs(c);
    for (std::size_t k = 0; k < now.size() && k < copies_.size(); ++k) {
      const Tensor& was = copies_[k];
      const Tensor& is = *now[k].second;
      const std::string which = str_cat("modified input ", k, " (", now[k].first, "): ");
      if (was.dtype() != is.dtype() || was.shape() != is.shape())
        return which + str_cat("was ", dtype_name(was.dtype()), " ", shape_string(was.shape()), ", now ",
                               dtype_name(is.dtype()), " ", shape_string(is.shape()));
      std::int64_t first = -1, changed = 0;
      for (std::int64_t i = 0; i < was.num_elements(); ++i)
        if (!same_element(was, is, i)) {
          if (first < 0) first = i;
          ++changed;
        }
      if (first >= 0)
        return which + str_cat(changed, " of ", was.num_elements(), " elements changed; element ",
                               conformance::format_coordinate(was.shape(), first), " was ",
                               conformance::format_element(was, first), ", now ",
                               conformance::format_element(is, first));
    }
    return "";
  }

 private:
  std::vector<Tensor> copies_;
};

std::optional<Code> code_from_abi(std::int32_t code) {
  switch (code) {
    case OPCONFORM_CODE_OK: return Code::kOk;
    case OPCONFORM_CODE_INVALID_ARGUMENT: return Code::kInvalidArgument;
    case OPCONFORM_CODE_RESOURCE_EXHAUSTED: return Code::kResourceExhausted;
    case OPCONFORM_CODE_UNIMPLEMENTED: return Code::kUnimplemented;
    case OPCONFORM_CODE_INTERNAL: return Code::kInternal;
  }
  return std::nullopt;
}

// The fault of an error returned after allocating: "returned INVALID_ARGUMENT after
// allocating output 0 (float32 [2]), 1 allocate_bytes block; ...". Only RESOURCE_EXHAUSTED may
// follow an allocation (outputs are requested in order, and a later one may not fit); any
// other error means the entry point allocated before it had validated its inputs.
std::string allocated_then_failed(const CallState& state, Code code) {
  std::string what;
  for (const auto& [index, out] : state.outputs)
    what += str_cat(what.empty() ? "" : ", ", "output ", index, " (", dtype_name(out.dtype), " ",
                    shape_string(out.shape), ")");
  if (!state.byte_blocks.empty())
    what += str_cat(what.empty() ? "" : ", ", state.byte_blocks.size(), " allocate_bytes block",
                    state.byte_blocks.size() == 1 ? "" : "s");
  return str_cat("returned ", code_name(code), " after allocating ", what,
                 ": nothing may be allocated before the inputs are validated (only "
                 "RESOURCE_EXHAUSTED may follow an allocation)");
}

ImplAnswer fault(std::string text) {
  ImplAnswer a;
  a.kind = ImplAnswer::Kind::kFault;
  a.fault = std::move(text);
  return a;
}

// The state of a call of c before it starts: how many outputs it allocates (DynamicPartition:
// num_partitions), its memory limit and its output allowance.
CallState call_state(const conformance::Case& c) {
  CallState state;
  state.memory_limit = c.memory_limit;
  state.num_outputs = 0;
  for (const Slot& slot : op_signature(c.op).outputs)
    state.num_outputs += slot.is_list ? std::max<std::int64_t>(0, c.attrs.at(std::string(slot.length_attr))) : 1;
  std::int64_t input_bytes = 0;
  for (const auto& [name, value] : c.inputs) {
    auto add = [&](const Tensor& t) {
      input_bytes += std::max<std::int64_t>(0, output_request_bytes(t.dtype(), t.shape()));
    };
    if (const auto* t = std::get_if<Tensor>(&value))
      add(*t);
    else
      for (const Tensor& t : std::get<std::vector<Tensor>>(value)) add(t);
  }
  state.output_allowance = std::max(c.memory_limit, input_bytes);
  return state;
}

opconform_call call_of(const conformance::Case& c, CallState* state) {
  opconform_call call{};
  call.struct_size = sizeof(opconform_call);
  call.memory_limit_bytes = c.memory_limit;
  call.caller = state;
  call.allocate_output = allocate_output_cb;
  call.allocate_bytes = allocate_bytes_cb;
  call.set_message = set_message_cb;
  return call;
}

// Calls opconform_run_op with c's inputs and attrs in its op's signature order and callbacks
// into *state; the status code it returned. Whatever the entry point throws propagates.
std::int32_t call_run_op(opconform_run_op_fn run_op, const conformance::Case& c, CallState* state) {
  const opconform_call call = call_of(c, state);
  const OpSignature& signature = op_signature(c.op);
  InputDescriptors in(state);
  std::vector<std::vector<opconform_tensor>> tensors;
  for (const Slot& slot : signature.inputs) {
    const Value& value = c.inputs.at(std::string(slot.name));
    if (const Tensor* t = std::get_if<Tensor>(&value))
      tensors.push_back({in.describe(*t)});
    else
      tensors.push_back(in.describe(std::get<std::vector<Tensor>>(value)));
  }
  std::vector<opconform_input> inputs;
  for (const auto& list : tensors) inputs.push_back({first(list), static_cast<std::int64_t>(list.size())});
  std::vector<opconform_attr> attrs;
  for (std::string_view name : signature.attrs) attrs.push_back({c.attrs.at(std::string(name)), {nullptr, 0}});
  for (std::string_view name : signature.string_attrs) {
    const std::string& value = c.string_attrs.at(std::string(name));
    attrs.push_back({0, {value.data(), static_cast<std::int64_t>(value.size())}});
  }
  return run_op(&call, static_cast<std::int32_t>(c.op), inputs.data(), static_cast<std::int32_t>(inputs.size()),
                attrs.data(), static_cast<std::int32_t>(attrs.size()));
}

// Calls entry, the typed ABI 1.0 entry point of c's op, with c's inputs and callbacks into
// *state; the status code it returned. Whatever the entry point throws propagates.
std::int32_t call_typed_entry(void* entry, const conformance::Case& c, CallState* state) {
  const opconform_call call = call_of(c, state);
  InputDescriptors in(state);
  switch (c.op) {
    case Op::kSpaceToBatchND:
    case Op::kBatchToSpaceND: {
      const opconform_tensor input = in.describe(tensor_in(c, "input"));
      const opconform_tensor block = in.describe(tensor_in(c, "block_shape"));
      const opconform_tensor amounts = in.describe(tensor_in(c, c.op == Op::kSpaceToBatchND ? "paddings" : "crops"));
      return reinterpret_cast<opconform_space_to_batch_nd_fn>(entry)(&call, &input, &block, &amounts);
    }
    case Op::kDynamicStitch:
    case Op::kParallelDynamicStitch: {
      const auto indices = in.describe(list_in(c, "indices"));
      const auto data = in.describe(list_in(c, "data"));
      return reinterpret_cast<opconform_dynamic_stitch_fn>(entry)(&call, first(indices),
                                                                  static_cast<std::int64_t>(indices.size()),
                                                                  first(data), static_cast<std::int64_t>(data.size()));
    }
    case Op::kDynamicPartition: {
      const opconform_tensor data = in.describe(tensor_in(c, "data"));
      const opconform_tensor partitions = in.describe(tensor_in(c, "partitions"));
      return reinterpret_cast<opconform_dynamic_partition_fn>(entry)(&call, &data, &partitions,
                                                                     c.attrs.at("num_partitions"));
    }
    case Op::kSparseConcat: {
      const auto indices = in.describe(list_in(c, "indices"));
      const auto values = in.describe(list_in(c, "values"));
      const auto shapes = in.describe(list_in(c, "shapes"));
      return reinterpret_cast<opconform_sparse_concat_fn>(entry)(
          &call, first(indices), static_cast<std::int64_t>(indices.size()), first(values),
          static_cast<std::int64_t>(values.size()), first(shapes), static_cast<std::int64_t>(shapes.size()),
          c.attrs.at("concat_dim"));
    }
    default: break;
  }
  return OPCONFORM_CODE_UNIMPLEMENTED;  // no typed entry point: load() required opconform_run_op
}

// Adds to state->faults what the finished call broke: c's inputs, the guards of its buffers, the
// status code (unknown, or an error other than RESOURCE_EXHAUSTED after allocating).
void check_finished_call(const conformance::Case& c, const InputSnapshot& inputs_before, std::int32_t code,
                         CallState* state) {
  if (std::string changed = inputs_before.changes(c); !changed.empty()) state->faults.push_back(changed);
  for (const auto& [index, out] : state->outputs)
    if (std::string d = out.buffer->damage(); !d.empty())
      state->faults.push_back(str_cat("output ", index, " (", dtype_name(out.dtype), " ", shape_string(out.shape),
                                      "): ", d, " of its buffer"));
  for (const auto& block : state->byte_blocks)
    if (std::string d = block->damage(); !d.empty())
      state->faults.push_back(str_cat("allocate_bytes block of ", std::uint64_t{block->size()}, " bytes: ", d));
  const std::optional<Code> status_code = code_from_abi(code);
  if (!status_code)
    state->faults.push_back(str_cat("returned the unknown status code ", code));
  else if (*status_code != Code::kOk && *status_code != Code::kResourceExhausted &&
           (!state->outputs.empty() || !state->byte_blocks.empty()))
    state->faults.push_back(allocated_then_failed(*state, *status_code));
}

// "fault; fault; ...": one ImplAnswer fault for all of them.
std::string join_faults(const std::vector<std::string>& faults) {
  std::string text;
  for (const std::string& f : faults) text += (text.empty() ? "" : "; ") + f;
  return text;
}

// What a call that broke no rule answered: its error, or (OK) outputs 0 .. n-1, every one of
// them allocated and readable, under the names of c's op signature.
ImplAnswer answer_of(const conformance::Case& c, const CallState& state, Code code) {
  ImplAnswer answer;
  if (code != Code::kOk) {
    answer.kind = ImplAnswer::Kind::kError;
    answer.error = Status(code, state.message);
    return answer;
  }
  std::vector<Tensor> tensors;
  for (std::int64_t i = 0; i < state.num_outputs; ++i) {
    auto it = state.outputs.find(static_cast<std::int32_t>(i));
    if (it == state.outputs.end()) return fault(str_cat("returned OK without allocating output ", i));
    std::string problem;
    Tensor t;
    if (!read_output(state, static_cast<std::int32_t>(i), it->second, &t, &problem)) return fault(problem);
    tensors.push_back(std::move(t));
  }
  answer.kind = ImplAnswer::Kind::kOutputs;
  auto next = tensors.begin();
  for (const Slot& slot : op_signature(c.op).outputs) {
    if (!slot.is_list) {
      answer.outputs.emplace(std::string(slot.name), std::move(*next++));
      continue;
    }
    const auto length =
        static_cast<std::ptrdiff_t>(std::max<std::int64_t>(0, c.attrs.at(std::string(slot.length_attr))));
    answer.outputs.emplace(std::string(slot.name),
                           std::vector<Tensor>(std::make_move_iterator(next), std::make_move_iterator(next + length)));
    next += length;
  }
  return answer;
}

}  // namespace

Status PluginHost::load(const std::string& path, std::unique_ptr<PluginHost>* out) {
  std::unique_ptr<PluginHost> host(new PluginHost());
  host->handle_ = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (host->handle_ == nullptr) return invalid_argument("cannot load ", path, ": ", ::dlerror());
  auto symbol = [&](const char* name) { return ::dlsym(host->handle_, name); };

  void* version_fn = symbol(OPCONFORM_SYMBOL_ABI_VERSION);
  if (version_fn == nullptr) return invalid_argument(path, ": missing symbol ", OPCONFORM_SYMBOL_ABI_VERSION);
  const std::uint32_t version = reinterpret_cast<std::uint32_t (*)()>(version_fn)();
  if (version != OPCONFORM_ABI_VERSION)
    return invalid_argument(path, ": ABI version ", std::uint64_t{version}, ", this validator speaks ",
                            std::uint64_t{OPCONFORM_ABI_VERSION});
  void* manifest_fn = symbol(OPCONFORM_SYMBOL_MANIFEST);
  if (manifest_fn == nullptr) return invalid_argument(path, ": missing symbol ", OPCONFORM_SYMBOL_MANIFEST);
  const opconform_manifest* m = reinterpret_cast<const opconform_manifest* (*)()>(manifest_fn)();
  if (m == nullptr) return invalid_argument(path, ": ", OPCONFORM_SYMBOL_MANIFEST, " returned NULL");
  if (m->abi_version != OPCONFORM_ABI_VERSION)
    return invalid_argument(path, ": manifest abi_version ", std::uint64_t{m->abi_version}, ", expected 1");
  if (m->struct_size < sizeof(opconform_manifest))
    return invalid_argument(path, ": manifest struct_size ", std::uint64_t{m->struct_size}, " < ",
                            std::uint64_t{sizeof(opconform_manifest)});
  Manifest manifest;
  manifest.name = m->name ? m->name : "(unnamed)";
  manifest.profile = m->profile ? m->profile : "";
  if (manifest.profile != "tf-cpu" && manifest.profile != "xla" && manifest.profile != "tflite")
    return invalid_argument(path, ": manifest profile \"", manifest.profile, "\" (tf-cpu, xla, tflite)");
  host->run_op_ = reinterpret_cast<opconform_run_op_fn>(symbol(OPCONFORM_SYMBOL_RUN_OP));
  if (m->num_ops < 0 || m->num_ops > OPCONFORM_NUM_OPS || (m->num_ops > 0 && m->ops == nullptr))
    return invalid_argument(path, ": manifest num_ops ", m->num_ops, " with ops ", m->ops ? "set" : "NULL");
  for (int i = 0; i < m->num_ops; ++i) {
    const opconform_op_caps& caps = m->ops[i];
    if (caps.op < 0 || caps.op >= OPCONFORM_NUM_OPS)
      return invalid_argument(path, ": manifest ops[", i, "]: unknown op ", caps.op);
    const Op op = kAllOps[caps.op];
    if (manifest.find(op)) return invalid_argument(path, ": manifest lists ", op_name(op), " twice");
    if ((caps.dtypes & ~kAllDTypes) || (caps.param_dtypes & ~kAllDTypes))
      return invalid_argument(path, ": manifest ", op_name(op), ": dtype mask beyond the 19 dtypes");
    if (caps.min_rank < 0 || caps.max_rank < -1 || caps.min_block_dims < 0 || caps.max_block_dims < -1)
      return invalid_argument(path, ": manifest ", op_name(op), ": negative limits");
    void* entry =
        host->run_op_ == nullptr && caps.op < kNumTypedEntryPoints ? symbol(kTypedEntrySymbols[caps.op]) : nullptr;
    if (host->run_op_ == nullptr && entry == nullptr)
      return invalid_argument(path, ": the manifest lists ", op_name(op), " but the symbol ",
                              caps.op < kNumTypedEntryPoints ? kTypedEntrySymbols[caps.op] : OPCONFORM_SYMBOL_RUN_OP,
                              " is missing");
    host->entry_[caps.op] = entry;
    manifest.ops.push_back(OpCaps{op, caps.dtypes, caps.param_dtypes, caps.min_rank, caps.max_rank, caps.min_block_dims,
                                  caps.max_block_dims});
  }
  host->manifest_ = std::move(manifest);
  *out = std::move(host);
  return Status();
}

PluginHost::~PluginHost() {
  // The library stays loaded: its static destructors may be what crashes, and the worker exits
  // right after.
}

ImplAnswer PluginHost::run(const conformance::Case& c) {
  void* entry = entry_[static_cast<int>(c.op)];
  if (!manifest_.find(c.op)) return fault(str_cat(op_name(c.op), " is not in the manifest"));
  CallState state = call_state(c);
  const InputSnapshot inputs_before(c);
  std::int32_t code = OPCONFORM_CODE_OK;
  try {
    code = run_op_ ? call_run_op(run_op_, c, &state) : call_typed_entry(entry, c, &state);
  } catch (const std::bad_alloc&) {
    throw;  // the worker reports running out of memory
  } catch (const std::exception& e) {
    return fault(str_cat("a C++ exception crossed the C ABI: ", e.what()));
  } catch (...) {
    return fault("an exception crossed the C ABI");
  }
  check_finished_call(c, inputs_before, code, &state);
  if (!state.faults.empty()) return fault(join_faults(state.faults));
  return answer_of(c, state, *code_from_abi(code));
}

}  // namespace opconform::validator
