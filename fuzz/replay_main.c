/* Replays saved inputs through one fuzz target's LLVMFuzzerTestOneInput, without libFuzzer: each
 * file named on the command line, once, in order. fuzz/CMakeLists.txt builds it beside each target
 * in the ordinary build, so that every seed and regression input runs under ctest: a crash or an
 * abort of the target's own checks fails it, and in the sanitizer build (make check) any report
 * of AddressSanitizer or UBSan. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The whole file, in a buffer of its exact size (so that a read past its end is caught). */
static uint8_t *read_all(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        return NULL;
    }
    uint8_t *data = NULL;
    size_t n = 0;
    for (;;) {
        uint8_t chunk[4096];
        size_t got = fread(chunk, 1, sizeof chunk, f);
        if (got == 0) {
            break;
        }
        uint8_t *grown = realloc(data, n + got);
        if (!grown) {
            free(data);
            fclose(f);
            return NULL;
        }
        data = grown;
        for (size_t i = 0; i < got; i++) {
            data[n + i] = chunk[i];
        }
        n += got;
    }
    int failed = ferror(f);
    fclose(f);
    if (failed) {
        free(data);
        return NULL;
    }
    *size = n;
    return data ? data : malloc(1); /* an empty input is an input too */
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s INPUT...\n", argv[0]);
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        size_t size = 0;
        uint8_t *data = read_all(argv[i], &size);
        if (!data) {
            fprintf(stderr, "%s: cannot read %s\n", argv[0], argv[i]);
            return 1;
        }
        printf("%s (%zu bytes)\n", argv[i], size);
        fflush(stdout); /* the name is out before a crash on it */
        LLVMFuzzerTestOneInput(data, size);
        free(data);
    }
    printf("%d inputs replayed\n", argc - 1);
    return 0;
}
