#include "opconform/validator/guard_pages.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstring>
#include <mutex>
#include <vector>

namespace opconform::validator {

namespace {

constexpr std::size_t kAlignment = 64;
constexpr std::size_t kMinGuardBytes = std::size_t{1} << 20;
constexpr std::size_t kMaxGuardBytes = std::size_t{256} << 20;
constexpr std::size_t kMaxPayloadBytes = std::size_t{1} << 46;

std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

std::size_t page_size() {
  static const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  return page;
}

// What the fault handler knows of each live buffer: plain values, written before the buffer is
// handed out and cleared when it is freed.
struct Entry {
  std::atomic<bool> live{false};
  std::uintptr_t low = 0, high = 0;            // the whole mapping
  std::uintptr_t open_low = 0, open_high = 0;  // the accessible pages
  std::uintptr_t data = 0, end = 0;            // the payload
  char label[96] = {};
};
constexpr int kSlots = 8192;
Entry g_entries[kSlots];
std::atomic<int> g_used{0};  // slots [0, g_used) may be live
std::atomic<int> g_next{0};  // where the search for a free slot starts: after the last one taken,
                             // so a call with thousands of outputs does not rescan the taken ones
std::atomic<int> g_live{0};  // slots taken; at kSlots a new buffer is not searched a slot for

int register_buffer(const Entry& e, std::string_view label) {
  if (g_live.load() >= kSlots) return -1;
  const int start = g_next.load();
  for (int k = 0; k < kSlots; ++k) {
    const int i = (start + k) % kSlots;
    if (g_entries[i].live.load()) continue;
    Entry& slot = g_entries[i];
    slot.low = e.low, slot.high = e.high, slot.open_low = e.open_low, slot.open_high = e.open_high;
    slot.data = e.data, slot.end = e.end;
    const std::size_t n = std::min(label.size(), sizeof slot.label - 1);
    std::memcpy(slot.label, label.data(), n);
    slot.label[n] = '\0';
    slot.live.store(true);
    ++g_live;
    g_next.store((i + 1) % kSlots);
    int used = g_used.load();
    while (used < i + 1 && !g_used.compare_exchange_weak(used, i + 1)) {
    }
    return i;
  }
  return -1;  // full: the buffer still has its guard pages, a fault just is not named
}

// Mappings of freed buffers, kept for the next buffer of the same capacity: reusing one saves
// the mmap, the munmap and the zeroing of fresh pages. Payloads up to kMaxKeptCapacity are laid
// out in a power-of-two capacity (the part they do not use belongs to the lower guard), so
// buffers of similar sizes share mappings. A kept mapping is inaccessible as a whole, so a late
// access to a freed buffer still faults. The pool takes at most a sixteenth of the address-space
// limit, up to 512 MiB (guards included: a call that allocates a block per string element makes
// hundreds); when it is full, mappings of other capacities make room, oldest first.
constexpr std::size_t kMinKeptCapacity = std::size_t{64} << 10;
constexpr std::size_t kMaxKeptCapacity = std::size_t{4} << 20;

std::size_t max_kept_bytes() {
  static const std::size_t bytes = [] {
    rlimit limit{};
    std::size_t most = std::size_t{512} << 20;
    if (::getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
      most = std::min<std::size_t>(most, static_cast<std::size_t>(limit.rlim_cur / 16));
    return most;
  }();
  return bytes;
}

std::mutex g_kept_mutex;
std::vector<std::pair<std::uint8_t*, std::size_t>> g_kept;  // base, mapped bytes; oldest first
std::size_t g_kept_bytes = 0;

// The bytes a payload whose accessible pages take `open` bytes is laid out in.
std::size_t capacity_for(std::size_t open) {
  return open > kMaxKeptCapacity ? open : std::max(kMinKeptCapacity, std::bit_ceil(open));
}

// A kept mapping of `mapped` bytes (nullptr when there is none), taken out of the pool.
std::uint8_t* take_kept(std::size_t mapped) {
  std::lock_guard<std::mutex> lock(g_kept_mutex);
  for (std::size_t i = g_kept.size(); i-- > 0;) {
    if (g_kept[i].second != mapped) continue;
    std::uint8_t* base = g_kept[i].first;
    g_kept.erase(g_kept.begin() + static_cast<std::ptrdiff_t>(i));
    g_kept_bytes -= mapped;
    return base;
  }
  return nullptr;
}

// Keeps the mapping of a freed buffer, its accessible pages [open, open + open_bytes) made
// inaccessible, when the pool has room for its capacity; else unmaps it.
void keep_or_unmap(std::uint8_t* base, std::size_t mapped, std::size_t capacity, std::uint8_t* open,
                   std::size_t open_bytes) {
  std::lock_guard<std::mutex> lock(g_kept_mutex);
  const std::size_t most = max_kept_bytes();
  while (capacity <= kMaxKeptCapacity && mapped <= most && g_kept_bytes > most - mapped) {
    const auto other = std::find_if(g_kept.begin(), g_kept.end(), [&](const auto& k) { return k.second != mapped; });
    if (other == g_kept.end()) break;
    ::munmap(other->first, other->second);
    g_kept_bytes -= other->second;
    g_kept.erase(other);
  }
  if (capacity > kMaxKeptCapacity || mapped > most || g_kept_bytes > most - mapped ||
      (open_bytes > 0 && ::mprotect(open, open_bytes, PROT_NONE) != 0)) {
    ::munmap(base, mapped);
    return;
  }
  g_kept.emplace_back(base, mapped);
  g_kept_bytes += mapped;
}

// Unmaps every kept mapping (before giving up on the address space).
void release_kept() {
  std::lock_guard<std::mutex> lock(g_kept_mutex);
  for (const auto& [base, mapped] : g_kept) ::munmap(base, mapped);
  g_kept.clear();
  g_kept_bytes = 0;
}

// Whether all of [begin, end) holds the canary byte.
bool canary_intact(const std::uint8_t* begin, const std::uint8_t* end) {
  static const auto pattern = [] {
    std::array<std::uint8_t, 4096> p;
    p.fill(kCanaryByte);
    return p;
  }();
  while (begin < end) {
    const std::size_t n = std::min<std::size_t>(pattern.size(), static_cast<std::size_t>(end - begin));
    if (std::memcmp(begin, pattern.data(), n) != 0) return false;
    begin += n;
  }
  return true;
}

struct sigaction g_previous_segv {};
struct sigaction g_previous_bus {};

// Async-signal-safe text building for the handler.
struct Line {
  char text[256];
  std::size_t size = 0;
  void add(const char* s) {
    while (*s && size < sizeof text - 1) text[size++] = *s++;
  }
  void add(std::uintptr_t n) {
    char digits[24];
    int k = 0;
    do digits[k++] = static_cast<char>('0' + n % 10);
    while ((n /= 10) != 0 && k < 24);
    while (k > 0 && size < sizeof text - 1) text[size++] = digits[--k];
  }
};

bool is_write(void* context) {
#if defined(__x86_64__)
  const auto* uc = static_cast<const ucontext_t*>(context);
  return (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0;
#else
  (void)context;
  return false;
#endif
}

// Writes the line naming the buffer `e` a fault at `address` belongs to, and ends the worker.
[[noreturn]] void report_fault(const Entry& e, std::uintptr_t address, void* context, bool beyond_guard) {
  Line line;
  line.add(kGuardFaultMarker.data());
  line.add(e.label);
  line.add(": ");
#if defined(__x86_64__)
  line.add(is_write(context) ? "wrote " : "read ");
#else
  line.add("accessed ");
#endif
  const char* where = beyond_guard ? " (beyond its guard pages)" : "";
  if (address >= e.end) {
    line.add("past the end of its buffer");
    line.add(where);
    line.add("; at offset +");
    line.add(address - e.end);
    line.add(" from its end\n");
  } else {
    line.add("before the start of its buffer");
    line.add(where);
    line.add("; at offset -");
    line.add(e.data - address);
    line.add(" from its start\n");
  }
  ssize_t ignored = ::write(STDERR_FILENO, line.text, line.size);
  (void)ignored;
  ::_exit(kWorkerExitGuardFault);
}

extern "C" void on_fault(int sig, siginfo_t* info, void* context) {
  const auto address = reinterpret_cast<std::uintptr_t>(info->si_addr);
  const int used = g_used.load();
  for (int i = 0; i < used; ++i) {
    const Entry& e = g_entries[i];
    if (!e.live.load() || address < e.low || address >= e.high) continue;
    if (address >= e.open_low && address < e.open_high) continue;
    report_fault(e, address, context, false);
  }
  // A fault the kernel raised outside every mapping but within kMaxGuardBytes of one: a stray
  // access that jumped the guard. The nearest buffer on that side is named.
  if (info->si_code > 0) {
    const Entry* nearest = nullptr;
    std::uintptr_t distance = kMaxGuardBytes;
    for (int i = 0; i < used; ++i) {
      const Entry& e = g_entries[i];
      if (!e.live.load()) continue;
      if (address >= e.high && address - e.high < distance) distance = address - e.high, nearest = &e;
      if (address < e.low && e.low - address < distance) distance = e.low - address, nearest = &e;
    }
    if (nearest != nullptr) report_fault(*nearest, address, context, true);
  }
  // Not ours: the previous disposition handles the fault when the instruction runs again, or,
  // for a signal that was sent rather than caused, when it is delivered again.
  ::sigaction(sig, sig == SIGBUS ? &g_previous_bus : &g_previous_segv, nullptr);
  if (info->si_code <= 0) ::raise(sig);
}

}  // namespace

std::unique_ptr<GuardedBuffer> GuardedBuffer::make(std::size_t size, std::uint8_t fill, std::string_view label) {
  if (size > kMaxPayloadBytes) return nullptr;
  const std::size_t page = page_size();
  const std::size_t span = round_up(size, kAlignment);
  const std::size_t open = round_up(span, page);
  const std::size_t capacity = capacity_for(open);
  const std::size_t guard = std::clamp(capacity, kMinGuardBytes, kMaxGuardBytes);
  const std::size_t mapped = guard + capacity + guard;
  auto* bytes = take_kept(mapped);
  if (bytes == nullptr) {
    void* base = ::mmap(nullptr, mapped, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED) {
      release_kept();
      base = ::mmap(nullptr, mapped, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (base == MAP_FAILED) return nullptr;
    }
    bytes = static_cast<std::uint8_t*>(base);
  }
  // The accessible pages end where the upper guard begins; the capacity they leave unused
  // widens the lower guard.
  std::uint8_t* const open_begin = bytes + guard + (capacity - open);
  if (open > 0 && ::mprotect(open_begin, open, PROT_READ | PROT_WRITE) != 0) {
    ::munmap(bytes, mapped);
    return nullptr;
  }
  std::unique_ptr<GuardedBuffer> b(new GuardedBuffer());
  b->base_ = bytes;
  b->mapped_ = mapped;
  b->open_begin_ = open_begin;
  b->open_end_ = open_begin + open;
  b->data_ = b->open_end_ - span;
  b->size_ = size;
  std::memset(b->open_begin_, kCanaryByte, static_cast<std::size_t>(b->data_ - b->open_begin_));
  std::memset(b->data_, fill, size);
  std::memset(b->data_ + size, kCanaryByte, span - size);
  Entry e;
  e.low = reinterpret_cast<std::uintptr_t>(bytes);
  e.high = e.low + mapped;
  e.open_low = reinterpret_cast<std::uintptr_t>(b->open_begin_);
  e.open_high = reinterpret_cast<std::uintptr_t>(b->open_end_);
  e.data = reinterpret_cast<std::uintptr_t>(b->data_);
  e.end = e.data + size;
  b->slot_ = register_buffer(e, label);
  return b;
}

GuardedBuffer::~GuardedBuffer() {
  if (slot_ >= 0) {
    g_entries[slot_].live.store(false);
    --g_live;
  }
  const std::size_t open = static_cast<std::size_t>(open_end_ - open_begin_);
  keep_or_unmap(base_, mapped_, capacity_for(open), open_begin_, open);
}

bool GuardedBuffer::contains(const char* p, std::int64_t n) const {
  const auto* begin = reinterpret_cast<const char*>(data_);
  return p >= begin && n >= 0 && static_cast<std::uint64_t>(n) <= size_ &&
         static_cast<std::size_t>(p - begin) <= size_ - static_cast<std::size_t>(n);
}

std::string GuardedBuffer::damage() const {
  std::string d;
  if (!canary_intact(open_begin_, data_)) d = "wrote before the start";
  if (!canary_intact(data_ + size_, open_end_)) d += std::string(d.empty() ? "" : " and ") + "wrote past the end";
  return d;
}

void install_guard_fault_handler() {
  static const bool installed = [] {
    static char stack[1 << 16];
    stack_t alt{};
    alt.ss_sp = stack;
    alt.ss_size = sizeof stack;
    ::sigaltstack(&alt, nullptr);
    struct sigaction action {};
    action.sa_sigaction = on_fault;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    ::sigaction(SIGSEGV, &action, &g_previous_segv);
    ::sigaction(SIGBUS, &action, &g_previous_bus);
    return true;
  }();
  (void)installed;
}

}  // namespace opconform::validator
