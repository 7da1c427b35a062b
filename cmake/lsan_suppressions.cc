// Linked into every executable of a sanitized build (OPCONFORM_SANITIZE; the top CMakeLists).
// LLVM's OpenMP runtime does not free the blocks it allocates for a parallel region's thread
// team before the program exits, and LeakSanitizer reports them as leaks at exit in every
// program that ran a 2-thread region. The suppression names libomp's frames only (the runtime is
// built without frame pointers, so a report's stack often ends there); a leak anywhere else,
// ours or a plug-in's, is still reported.
extern "C" const char* __lsan_default_suppressions() { return "leak:libomp.so\n"; }
