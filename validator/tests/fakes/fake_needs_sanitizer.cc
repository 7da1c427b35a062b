// SPDX-License-Identifier: Apache-2.0
// A library that leaves an ASan runtime symbol undefined, as an instrumented plug-in does
// (install_layout_test.cc: choose_worker sends such a plug-in to the sanitized worker).
extern "C" void __asan_report_load8(unsigned long address);

extern "C" void touch(unsigned long address) { __asan_report_load8(address); }
