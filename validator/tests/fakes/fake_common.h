// Shared by the test fakes: small plug-ins that run the optimized kernels through the ABI and
// misbehave in one way, for one trigger (data of dtype int16 unless a fake says otherwise).
#pragma once

#include <cstring>
#include <functional>
#include <memory>
#include <vector>

#include "opconform/plugin_abi.h"
#include "opconform/optimized/op_table.h"
#include "opconform/plugin_sdk/abi_export.h"

namespace fake {

using namespace opconform;
using namespace opconform::plugin_sdk;

inline const OpTable& table() { return optimized::op_table(); }

inline bool triggered(const opconform_tensor* data, int64_t num_data, int32_t dtype = OPCONFORM_DTYPE_INT16) {
  for (int64_t i = 0; i < num_data; ++i)
    if (data[i].dtype == dtype) return true;
  return false;
}

// A manifest with DynamicStitch only, every dtype, any rank.
inline const opconform_manifest* stitch_manifest(const char* name) {
  static const opconform_op_caps caps[] = {abi_export::unlimited_caps(OPCONFORM_OP_DYNAMIC_STITCH)};
  static const opconform_manifest manifest = {
      OPCONFORM_ABI_VERSION, sizeof(opconform_manifest), name, "tf-cpu", 1, caps};
  return &manifest;
}

inline int32_t correct_stitch(const opconform_call* call, const opconform_tensor* indices, int64_t num_indices,
                              const opconform_tensor* data, int64_t num_data) {
  return abi_export::dynamic_stitch(table(), call, indices, num_indices, data, num_data);
}

// A call that forwards to the real one, and lets the fake choose where the kernel's writes go.
class ProxyCall {
 public:
  // on_allocate(index, real buffer, bytes): the buffer the kernel writes into.
  using OnAllocate = std::function<void*(int32_t, void*, std::size_t)>;
  // The kernel writes straight into the real outputs.
  explicit ProxyCall(const opconform_call* real)
      : ProxyCall(real, [](int32_t, void* buffer, std::size_t) { return buffer; }) {}
  ProxyCall(const opconform_call* real, OnAllocate on_allocate) : real_(real), on_allocate_(std::move(on_allocate)) {
    proxy_ = *real;
    proxy_.caller = this;
    proxy_.allocate_output = [](void* self, int32_t index, int32_t dtype, int32_t rank, const int64_t* dims) -> void* {
      auto* p = static_cast<ProxyCall*>(self);
      void* buffer = p->real_->allocate_output(p->real_->caller, index, dtype, rank, dims);
      if (buffer == nullptr) return nullptr;
      std::size_t n = 1;
      for (int32_t i = 0; i < rank; ++i) n *= static_cast<std::size_t>(dims[i]);
      const std::size_t bytes = n * (dtype == OPCONFORM_DTYPE_STRING ? sizeof(opconform_string)
                                                                     : dtype_storage_size(static_cast<DType>(dtype)));
      p->outputs.push_back({buffer, bytes});
      return p->on_allocate_(index, buffer, bytes);
    };
    proxy_.allocate_bytes = [](void* self, int64_t size) {
      auto* p = static_cast<ProxyCall*>(self);
      return p->real_->allocate_bytes(p->real_->caller, size);
    };
    proxy_.set_message = [](void* self, const char* message, int64_t size) {
      auto* p = static_cast<ProxyCall*>(self);
      p->real_->set_message(p->real_->caller, message, size);
    };
  }
  const opconform_call* call() const { return &proxy_; }
  // Flips the lowest bit of byte `byte` of output 0, when it has that byte.
  void flip_bit(std::size_t byte) {
    if (!outputs.empty() && outputs[0].second > byte) static_cast<unsigned char*>(outputs[0].first)[byte] ^= 1;
  }
  std::vector<std::pair<void*, std::size_t>> outputs;  // the real buffers

 private:
  const opconform_call* real_;
  OnAllocate on_allocate_;
  opconform_call proxy_{};
};

}  // namespace fake

#define FAKE_EXPORT extern "C" OPCONFORM_PLUGIN_EXPORT
// opconform_abi_version and opconform_manifest_get of a fake with stitch_manifest(name).
#define FAKE_STITCH_MANIFEST(name) OPCONFORM_PLUGIN_MANIFEST(*fake::stitch_manifest(name))
// The head of a fake's opconform_dynamic_stitch; its body follows in braces.
#define FAKE_DYNAMIC_STITCH                                                                                 \
  FAKE_EXPORT int32_t opconform_dynamic_stitch(const opconform_call* call, const opconform_tensor* indices, \
                                               int64_t num_indices, const opconform_tensor* data, int64_t num_data)
