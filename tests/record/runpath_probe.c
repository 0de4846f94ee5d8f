/* The library tests/record/dlopen_runpath.c finds in its run path. */
__attribute__((visibility("default"))) int wgprof_runpath_probe(void);
int wgprof_runpath_probe(void) { return 42; }
