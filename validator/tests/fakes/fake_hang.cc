// For int16 data: never returns. With $OPCONFORM_FAKE_HANG_MARKER set, it first writes its pid
// to that file (whole, by rename), so that a test can wait for the hang instead of sleeping.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "fake_common.h"

namespace {

void write_marker() {
  const char* marker = std::getenv("OPCONFORM_FAKE_HANG_MARKER");
  if (marker == nullptr || *marker == '\0') return;
  const std::string temporary = std::string(marker) + ".tmp";
  if (FILE* f = std::fopen(temporary.c_str(), "w")) {
    std::fprintf(f, "%d\n", static_cast<int>(::getpid()));
    if (std::fclose(f) == 0) std::rename(temporary.c_str(), marker);
  }
}

}  // namespace

FAKE_STITCH_MANIFEST("fake: hang")
FAKE_DYNAMIC_STITCH {
  if (fake::triggered(data, num_data)) {
    write_marker();
    while (true) ::pause();
  }
  return fake::correct_stitch(call, indices, num_indices, data, num_data);
}
