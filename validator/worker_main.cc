// opconform-worker PLUGIN.so: speaks the subprocess protocol (docs/plugin-abi.md) on
// stdin/stdout for a C-ABI plug-in, so that the validator never loads the library itself.
// The plug-in's own writes to stdout go to stderr. Exits 0 at EOF, kWorkerExitOutOfMemory when
// the plug-in runs out of memory, kWorkerExitGuardFault when it touched an output's guard pages
// (guard_pages.h), 2 on a protocol error.
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <string>
#include <new>

#include "opconform/validator/plugin_host.h"
#include "opconform/validator/protocol.h"

using namespace opconform;
using namespace opconform::validator;

namespace {

// Which open file an fd is: {0, 0} when it is closed.
struct FdIdentity {
  dev_t device = 0;
  ino_t inode = 0;
  bool operator==(const FdIdentity&) const = default;
};

FdIdentity identity(int fd) {
  struct stat st {};
  return ::fstat(fd, &st) == 0 ? FdIdentity{st.st_dev, st.st_ino} : FdIdentity{};
}

using StdioIdentity = std::array<FdIdentity, 3>;

StdioIdentity stdio_identity() { return {identity(0), identity(1), identity(2)}; }

// "" when fds 0-2 are what they were, else which one the plug-in closed or replaced.
std::string stdio_change(const StdioIdentity& before) {
  static const char* const names[] = {"standard input (fd 0, the protocol's input)", "standard output (fd 1)",
                                      "standard error (fd 2)"};
  const StdioIdentity now = stdio_identity();
  for (int fd = 0; fd < 3; ++fd)
    if (!(now[fd] == before[fd])) return std::string("the plug-in closed or replaced the worker's ") + names[fd];
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: opconform-worker PLUGIN.so\n");
    return 2;
  }
  const int out = ::dup(STDOUT_FILENO);
  ::dup2(STDERR_FILENO, STDOUT_FILENO);
  install_guard_fault_handler();  // an access in an output's guard pages names the output
  const StdioIdentity stdio = stdio_identity();

  std::string body, error;
  if (!read_message(STDIN_FILENO, &body, &error)) return error.empty() ? 0 : 2;
  const int protocol = negotiate_protocol(body);
  std::unique_ptr<PluginHost> host;
  const Status loaded = PluginHost::load(argv[1], &host);
  if (!loaded.ok()) {
    write_message(out, load_error_message(loaded.message()));
    return 0;
  }
  Manifest manifest = host->manifest();
  manifest.protocol = protocol;
  if (!write_message(out, manifest_message(manifest))) return 2;

  try {
    while (read_message(STDIN_FILENO, &body, &error)) {
      std::int64_t id = -1;
      conformance::Case c;
      ImplAnswer answer;
      if (const Status parsed = parse_run_message(body, &id, &c, protocol); !parsed.ok()) {
        if (id < 0) {
          std::fprintf(stderr, "opconform-worker: bad request: %s\n", parsed.message().c_str());
          return 2;
        }
        answer.kind = ImplAnswer::Kind::kFault;
        answer.fault = "the worker could not read the request: " + parsed.message();
      } else {
        answer = host->run(c);
      }
      if (const std::string change = stdio_change(stdio); !change.empty()) {
        // The case that broke the worker's channel is the one to blame: its answer says so, and
        // the worker ends. Its input closes first, so that the validator sees the channel broken
        // as it reads this answer and starts a fresh worker for the next case.
        answer.kind = ImplAnswer::Kind::kFault;
        answer.fault = change + " during the case; the worker cannot go on";
        ::close(STDIN_FILENO);
        write_message(out, result_message(id, c, answer, protocol));
        return 2;
      }
      if (!write_message(out, result_message(id, c, answer, protocol))) return 2;
    }
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "opconform-worker: out of memory (std::bad_alloc)\n");
    std::fflush(stderr);
    ::_exit(kWorkerExitOutOfMemory);
  }
  if (!error.empty()) {
    std::fprintf(stderr, "opconform-worker: %s\n", error.c_str());
    return 2;
  }
  return 0;
}
