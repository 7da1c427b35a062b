// SPDX-License-Identifier: Apache-2.0
// Output buffers of the C-ABI worker (docs/plugin-abi.md, "The C worker"), fenced so that an
// access outside them is caught however far it goes: the payload sits between two inaccessible
// guard regions (PROT_NONE pages, at least 1 MiB each, as large as the payload up to 256 MiB),
// and the few bytes between the 64-byte aligned payload and the pages hold a canary pattern
// checked after the call. A fault inside a guard region kills the worker through the handler of
// install_guard_fault_handler(), which names the buffer on stderr. A payload of up to 4 MiB is
// laid out in a power-of-two capacity whose unused part belongs to the lower guard; a freed
// buffer's mapping is made wholly inaccessible and kept (a sixteenth of the address-space limit
// at most, up to 512 MiB; given up when address space runs out) for the next buffer of its
// capacity, freshly filled.
//
//   install_guard_fault_handler();                         // once, in the worker
//   auto b = GuardedBuffer::make(100, kPoisonByte, "output 0 (int16 [50])");
//   kernel_writes(b->data());
//   if (std::string d = b->damage(); !d.empty()) ...        // "wrote past the end"
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace opconform::validator {

// opconform-worker's exit status after an access inside a guard region, and the start of the
// stderr line that says which buffer and where.
inline constexpr int kWorkerExitGuardFault = 87;
inline constexpr std::string_view kGuardFaultMarker = "opconform-worker: guard fault: ";
// The canary byte between a payload and its guard pages.
inline constexpr std::uint8_t kCanaryByte = 0xC3;

class GuardedBuffer {
 public:
  // A payload of `size` bytes filled with `fill`; nullptr when the memory (or address space)
  // cannot be had. `label` names the buffer in fault reports (its first 95 bytes).
  static std::unique_ptr<GuardedBuffer> make(std::size_t size, std::uint8_t fill, std::string_view label);
  ~GuardedBuffer();
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;

  std::uint8_t* data() const { return data_; }
  std::size_t size() const { return size_; }
  // Whether [p, p + n) lies inside the payload.
  bool contains(const char* p, std::int64_t n) const;
  // "" when the canary bytes on both sides are intact, else which side was written.
  std::string damage() const;

 private:
  GuardedBuffer() = default;
  std::uint8_t* base_ = nullptr;  // the whole mapping
  std::size_t mapped_ = 0;
  std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
  std::uint8_t* open_begin_ = nullptr;  // the accessible pages
  std::uint8_t* open_end_ = nullptr;
  int slot_ = -1;  // in the fault handler's registry
};

// Installs a SIGSEGV/SIGBUS handler (on its own stack) for this process: a fault at an address
// inside a live GuardedBuffer's guard regions writes one line, kGuardFaultMarker followed by
// "<label>: wrote past the end of its buffer; at offset +100 from its end" (or "read", or
// "accessed" where a read cannot be told from a write; or "before the start"), and exits with kWorkerExitGuardFault. Any other
// fault goes to the handler that was installed before (by default: death by the signal).
void install_guard_fault_handler();

}  // namespace opconform::validator
