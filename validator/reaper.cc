#include "opconform/validator/reaper.h"

#include <dirent.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <string>

#include "opconform/validator/clock.h"

namespace opconform::validator {

namespace {

std::mutex g_mutex;
std::set<pid_t> g_workers;

struct ProcStat {
  pid_t ppid = 0;
  pid_t pgrp = 0;
};

// Fields 4 and 5 of /proc/<pid>/stat (after the parenthesised command, which may hold spaces).
bool read_stat(pid_t pid, ProcStat* out) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  FILE* f = std::fopen(path, "re");
  if (f == nullptr) return false;
  char buffer[1024];
  const std::size_t n = std::fread(buffer, 1, sizeof buffer - 1, f);
  std::fclose(f);
  buffer[n] = '\0';
  const char* close = std::strrchr(buffer, ')');
  if (close == nullptr) return false;
  char state = 0;
  int ppid = 0, pgrp = 0;
  if (std::sscanf(close + 1, " %c %d %d", &state, &ppid, &pgrp) != 3) return false;
  out->ppid = ppid;
  out->pgrp = pgrp;
  return true;
}

}  // namespace

void become_subreaper() {
  static const bool done = [] {
    ::prctl(PR_SET_CHILD_SUBREAPER, 1);
    return true;
  }();
  (void)done;
}

void note_worker_started(pid_t pid) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_workers.insert(pid);
}

void note_worker_reaped(pid_t pid) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_workers.erase(pid);
}

std::vector<pid_t> adopted_processes() {
  const pid_t self = ::getpid();
  const pid_t own_group = ::getpgrp();
  std::set<pid_t> workers;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    workers = g_workers;
  }
  std::vector<pid_t> adopted;
  DIR* proc = ::opendir("/proc");
  if (proc == nullptr) return adopted;
  while (const dirent* entry = ::readdir(proc)) {
    char* end = nullptr;
    const long pid = std::strtol(entry->d_name, &end, 10);
    if (end == entry->d_name || *end != '\0' || pid <= 0) continue;
    ProcStat stat;
    if (!read_stat(static_cast<pid_t>(pid), &stat)) continue;
    if (stat.ppid == self && stat.pgrp != own_group && !workers.count(static_cast<pid_t>(pid)))
      adopted.push_back(static_cast<pid_t>(pid));
  }
  ::closedir(proc);
  return adopted;
}

int kill_adopted_processes(pid_t group, double max_seconds) {
  int killed = 0;
  const double deadline = now_seconds() + max_seconds;
  for (;;) {
    const std::vector<pid_t> adopted = adopted_processes();
    for (pid_t pid : adopted) {
      ::kill(pid, SIGKILL);
      int status = 0;
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      ++killed;
    }
    // Members of `group` still dying re-parent their children to us when they are gone.
    const bool group_gone = group <= 0 || (::kill(-group, 0) != 0 && errno == ESRCH);
    if ((adopted.empty() && group_gone) || now_seconds() > deadline) return killed;
    if (adopted.empty()) ::usleep(1000);
  }
}

}  // namespace opconform::validator
