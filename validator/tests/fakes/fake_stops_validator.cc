// Answers int16 cases correctly, after trying to freeze the process that runs it (the
// validator) with SIGSTOP: by kill() and by a thread-directed tgkill().
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fake_common.h"

FAKE_STITCH_MANIFEST("fake: stops the validator")
FAKE_DYNAMIC_STITCH {
  if (fake::triggered(data, num_data)) {
    const pid_t validator = ::getppid();
    ::kill(validator, SIGSTOP);
    ::syscall(SYS_tgkill, validator, validator, SIGSTOP);
  }
  return fake::correct_stitch(call, indices, num_indices, data, num_data);
}
