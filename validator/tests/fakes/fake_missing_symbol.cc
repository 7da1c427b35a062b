// Lists DynamicStitch in its manifest but does not export opconform_dynamic_stitch.
#include "fake_common.h"

FAKE_STITCH_MANIFEST("fake: missing symbol")
