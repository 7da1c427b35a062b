// Wrong in the ways the validator judges, by dtype of data:
//   int64:  rejects every input (value-vs-error);
//   uint8:  accepts inputs the spec rejects, answering an empty vector (error-vs-value);
//   others: flips the lowest bit of the first byte of a non-empty result (mismatch; strings
//           are left alone), and every error message is "wrong message" (both-error, or
//           error-mismatch under --strict-messages).
#include "fake_common.h"

namespace {
void message(const opconform_call* call, const char* text) {
  call->set_message(call->caller, text, static_cast<int64_t>(std::strlen(text)));
}
}  // namespace

FAKE_STITCH_MANIFEST("fake: wrong results")
FAKE_DYNAMIC_STITCH {
  if (fake::triggered(data, num_data, OPCONFORM_DTYPE_INT64)) {
    message(call, "int64 is not for me");
    return OPCONFORM_CODE_INVALID_ARGUMENT;
  }
  fake::ProxyCall proxy(call);
  const int32_t code = fake::correct_stitch(proxy.call(), indices, num_indices, data, num_data);
  if (code == OPCONFORM_CODE_OK) {
    if (!fake::triggered(data, num_data, OPCONFORM_DTYPE_UINT8) &&
        !fake::triggered(data, num_data, OPCONFORM_DTYPE_STRING))
      proxy.flip_bit(0);
    return code;
  }
  if (fake::triggered(data, num_data, OPCONFORM_DTYPE_UINT8)) {
    const int64_t dims[] = {0};
    call->allocate_output(call->caller, 0, OPCONFORM_DTYPE_UINT8, 1, dims);
    return OPCONFORM_CODE_OK;
  }
  message(call, "wrong message");
  return code;
}
