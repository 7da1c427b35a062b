// OPCONFORM_ASAN: defined as 1 when this translation unit is built with AddressSanitizer
// (g++ defines __SANITIZE_ADDRESS__, clang 14 only __has_feature). Internal to the validator
// and its tests; not installed.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define OPCONFORM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define OPCONFORM_ASAN 1
#endif
#endif
