/* Reading WGSL compile errors and scanning WGSL for its bindings (spec/spec.h), on
 * messages captured from wgpu-native 29 (naga) and Dawn (Tint) for real shaders, and on text
 * that only looks like them: a place is reported only where the text really gives one, and
 * nothing crashes. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "spec.h"

/* ---- captured from wgpuDeviceCreateShaderModule (label 'k') for the sources beside them ---- */

static const char UNKNOWN_SOURCE[] = "@group(0) @binding(0) var<storage, read_write> v: array<f32>;\n"
                                     "@compute @workgroup_size(64)\n"
                                     "fn main(@builtin(global_invocation_id) id: vec3u) {\n"
                                     "    v[id.x] = v[id.x] + undefined_thing;\n"
                                     "}\n";
static const char UNKNOWN[] = "Validation Error\n"
                              "\n"
                              "Caused by:\n"
                              "  In wgpuDeviceCreateShaderModule, label = 'k'\n"
                              "    \n"
                              "Shader 'k' parsing error: no definition in scope for identifier: `undefined_thing`\n"
                              "  ┌─ wgsl:4:25\n"
                              "  │\n"
                              "4 │     v[id.x] = v[id.x] + undefined_thing;\n"
                              "  │                         ^^^^^^^^^^^^^^^ unknown identifier\n"
                              "\n"
                              "\n";

static const char VALIDATION_SOURCE[] = "@group(0) @binding(0) var<storage, read_write> v: array<f32>;\n"
                                        "@compute @workgroup_size(64)\n"
                                        "fn main(@builtin(global_invocation_id) id: vec3u) {\n"
                                        "    var x: i32 = 0;\n"
                                        "    v[id.x] = f32(x) + 1.0;\n"
                                        "    return 5;\n"
                                        "}\n";
/* A validation error: the place is named after the label, and wgpu-native repeats the notes. */
static const char VALIDATION[] = "Validation Error\n"
                                 "\n"
                                 "Caused by:\n"
                                 "  In wgpuDeviceCreateShaderModule, label = 'k'\n"
                                 "    \n"
                                 "Shader validation error: Entry point main at Compute is invalid\n"
                                 "  ┌─ k:6:12\n"
                                 "  │\n"
                                 "6 │     return 5;\n"
                                 "  │            ^ naga::ir::Expression [10]\n"
                                 "  │\n"
                                 "  = Expression [10] is invalid\n"
                                 "  = Abstract types may only appear in constant expressions\n"
                                 "\n"
                                 "\n"
                                 "      Expression [10] is invalid\n"
                                 "        Abstract types may only appear in constant expressions\n";

static const char REDEFINITION[] = "Validation Error\n"
                                   "\n"
                                   "Caused by:\n"
                                   "  In wgpuDeviceCreateShaderModule, label = 'k'\n"
                                   "    \n"
                                   "Shader 'k' parsing error: redefinition of `f`\n"
                                   "  ┌─ wgsl:2:4\n"
                                   "  │\n"
                                   "2 │ fn f() {}\n"
                                   "  │    ^ previous definition of `f`\n"
                                   "3 │ fn f() {}\n"
                                   "  │    ^ redefinition of `f`\n"
                                   "\n"
                                   "\n";

/* Columns count characters: three two-byte ones come before the place. */
static const char UNICODE_SOURCE[] = "@group(0) @binding(0) var<storage, read_write> v: array<f32>;\n"
                                     "@compute @workgroup_size(64)\n"
                                     "fn main() {\n"
                                     "    /* ééé */ v[0] = qq;\n"
                                     "}\n";
static const char UNICODE[] = "Validation Error\n"
                              "\n"
                              "Caused by:\n"
                              "  In wgpuDeviceCreateShaderModule, label = 'k'\n"
                              "    \n"
                              "Shader 'k' parsing error: no definition in scope for identifier: `qq`\n"
                              "  ┌─ wgsl:4:22\n"
                              "  │\n"
                              "4 │     /* ééé */ v[0] = qq;\n"
                              "  │                      ^^ unknown identifier\n"
                              "\n"
                              "\n";

/* Tabs count one column each; naga draws them as spaces. */
static const char TABS_SOURCE[] = "@group(0) @binding(0) var<storage, read_write> v: array<f32>;\n"
                                  "@compute @workgroup_size(64)\n"
                                  "fn main() {\n"
                                  "\t\tv[0] = qq;\n"
                                  "}\n";
static const char TABS[] = "Validation Error\n"
                           "\n"
                           "Caused by:\n"
                           "  In wgpuDeviceCreateShaderModule, label = 'k'\n"
                           "    \n"
                           "Shader 'k' parsing error: no definition in scope for identifier: `qq`\n"
                           "  ┌─ wgsl:4:10\n"
                           "  │\n"
                           "4 │         v[0] = qq;\n"
                           "  │                ^^ unknown identifier\n"
                           "\n"
                           "\n";

/* From wgpuDeviceCreateComputePipeline: no place in the WGSL. */
static const char NO_ENTRY[] = "Validation Error\n"
                               "\n"
                               "Caused by:\n"
                               "  In wgpuDeviceCreateComputePipeline, label = 'k'\n"
                               "    Error matching shader requirements against the pipeline\n"
                               "      Unable to find entry point 'main'\n"
                               "\n";

/* ---- captured from Dawn (Tint) on an NVIDIA GPU, for the sources above ---------------------- */

static const char DAWN_UNKNOWN[] =
    "Error while parsing WGSL: :4:25 error: unresolved value 'undefined_thing'\n"
    "    v[id.x] = v[id.x] + undefined_thing;\n"
    "                        ^^^^^^^^^^^^^^^\n"
    "\n"
    "\n"
    " - While calling [Device \"wgprof\"].CreateShaderModule([ShaderModuleDescriptor \"\"k\"\"]).\n";

/* Two errors: the first is the one reported. */
static const char DAWN_SYNTAX[] =
    "Error while parsing WGSL: :2:10 error: expected ')' for function declaration\n"
    "fn main( {\n"
    "         ^\n"
    "\n"
    ":2:11 error: expected '}' for function body\n"
    "fn main( {\n"
    "          ^\n"
    "\n"
    "\n"
    " - While calling [Device \"wgprof\"].CreateShaderModule([ShaderModuleDescriptor \"\"k\"\"]).\n";

static const char DAWN_REDEFINITION[] =
    "Error while parsing WGSL: :3:1 error: redeclaration of 'f'\n"
    "fn f() {}\n"
    "^^^^^^^^^\n"
    "\n"
    ":2:1 note: 'f' previously declared here\n"
    "fn f() {}\n"
    "^^^^^^^^^\n"
    "\n"
    "\n"
    " - While calling [Device \"wgprof\"].CreateShaderModule([ShaderModuleDescriptor \"\"k\"\"]).\n";

/* Tint counts the column in bytes: 25 where naga says 22. */
static const char DAWN_UNICODE[] =
    "Error while parsing WGSL: :4:25 error: unresolved value 'qq'\n"
    "    /* ééé */ v[0] = qq;\n"
    "\n"
    "\n"
    " - While calling [Device \"wgprof\"].CreateShaderModule([ShaderModuleDescriptor \"\"k\"\"]).\n";

static int count(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle)) {
        n++;
    }
    return n;
}

static void test_read(void)
{
    spec_wgsl_diagnostic d;
    CHECK(spec_wgsl_read_error(UNKNOWN, &d));
    CHECK(d.line == 4 && d.column == 25 && d.length == 15);
    CHECK(strcmp(d.message, "no definition in scope for identifier: `undefined_thing`") == 0);
    CHECK(strcmp(d.label, "unknown identifier") == 0);
    CHECK(d.note_count == 0);

    CHECK(spec_wgsl_read_error(VALIDATION, &d));
    CHECK(d.line == 6 && d.column == 12 && d.length == 1);
    CHECK(strcmp(d.message, "Entry point main at Compute is invalid") == 0);
    CHECK(d.label[0] == '\0'); /* naga::ir::Expression [10] names no WGSL */
    CHECK(d.note_count == 2);
    CHECK(d.note_count == 2 && strcmp(d.notes[0].text, "Expression [10] is invalid") == 0 && d.notes[0].line == 0);
    CHECK(d.note_count == 2 && strcmp(d.notes[1].text, "Abstract types may only appear in constant expressions") == 0);

    CHECK(spec_wgsl_read_error(REDEFINITION, &d));
    CHECK(d.line == 2 && d.column == 4);
    CHECK(strcmp(d.label, "previous definition of `f`") == 0);
    CHECK(d.note_count == 1 && d.notes[0].line == 3 && strcmp(d.notes[0].text, "redefinition of `f`") == 0);

    CHECK(spec_wgsl_read_error(UNICODE, &d) && d.line == 4 && d.column == 22);
    CHECK(!spec_wgsl_read_error(NO_ENTRY, &d));
    CHECK(!spec_wgsl_read_error("", &d));
    CHECK(!spec_wgsl_read_error(NULL, &d));
}

static void test_format(void)
{
    char out[4096];
    spec_wgsl_format_error(out, sizeof out, "kernels/k.wgsl", UNKNOWN, UNKNOWN_SOURCE);
    CHECK_MSG(strcmp(out, "kernels/k.wgsl:4:25: error: no definition in scope for identifier: `undefined_thing`\n"
                          "    4 |     v[id.x] = v[id.x] + undefined_thing;\n"
                          "      |                         ^~~~~~~~~~~~~~~ unknown identifier") == 0,
              "%s", out);

    spec_wgsl_format_error(out, sizeof out, "spec.json: $.kernels[2].wgsl", VALIDATION, VALIDATION_SOURCE);
    CHECK_MSG(strcmp(out, "spec.json: $.kernels[2].wgsl:6:12: error: Entry point main at Compute is invalid\n"
                          "    6 |     return 5;\n"
                          "      |            ^\n"
                          "  note: Expression [10] is invalid\n"
                          "  note: Abstract types may only appear in constant expressions") == 0,
              "%s", out);
    CHECK(count(out, "Expression [10] is invalid") == 1);
    CHECK(count(out, "naga::") == 0);

    spec_wgsl_format_error(out, sizeof out, "k.wgsl", REDEFINITION, "@group(0) @binding(0) var<storage> v: u32;\n"
                                                                   "fn f() {}\nfn f() {}\n");
    CHECK_MSG(strstr(out, "k.wgsl:2:4: error: redefinition of `f`\n") == out, "%s", out);
    CHECK_MSG(strstr(out, "\nk.wgsl:3: note: redefinition of `f`") != NULL, "%s", out);

    /* The caret sits under the place: after 21 characters, 24 bytes. */
    spec_wgsl_format_error(out, sizeof out, "u.wgsl", UNICODE, UNICODE_SOURCE);
    const char *caret = strstr(out, "      | ");
    CHECK_MSG(caret && strncmp(caret + 8, "                     ^~ unknown", 31) == 0, "%s", out);
    /* Tabs stay tabs under a tab, so that the caret lines up however the terminal draws them. */
    spec_wgsl_format_error(out, sizeof out, "t.wgsl", TABS, TABS_SOURCE);
    CHECK_MSG(strstr(out, "\n    4 | \t\tv[0] = qq;\n      | \t\t       ^~ unknown identifier") != NULL, "%s", out);

    /* No place: the device's words, trimmed of the framing and of blank lines. */
    spec_wgsl_format_error(out, sizeof out, "k.wgsl", NO_ENTRY, UNKNOWN_SOURCE);
    CHECK_MSG(strcmp(out, "k.wgsl: error: WGSL does not compile:\n"
                          "  Error matching shader requirements against the pipeline\n"
                          "    Unable to find entry point 'main'") == 0,
              "%s", out);
    spec_wgsl_format_error(out, sizeof out, "k.wgsl", "\n\n  \n", NULL);
    CHECK_MSG(strcmp(out, "k.wgsl: error: WGSL does not compile") == 0, "%s", out);
    spec_wgsl_format_error(out, sizeof out, "k.wgsl", NULL, NULL);
    CHECK_MSG(strcmp(out, "k.wgsl: error: WGSL does not compile") == 0, "%s", out);

    /* Nothing ends in a blank line or a line break. */
    const char *all[] = {UNKNOWN, VALIDATION, REDEFINITION, UNICODE, TABS, NO_ENTRY};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) {
        spec_wgsl_format_error(out, sizeof out, "x.wgsl", all[i], UNKNOWN_SOURCE);
        size_t n = strlen(out);
        CHECK_MSG(n > 0 && out[n - 1] != '\n' && out[n - 1] != ' ', "%zu: '%s'", i, out);
    }
}

/* Text shaped like naga's or Tint's from elsewhere, and text that is cut short. */
static void test_other_text(void)
{
    spec_wgsl_diagnostic d;
    char text[1024];
    /* Tint's, through Dawn. */
    CHECK(spec_wgsl_read_error(DAWN_UNKNOWN, &d));
    CHECK(d.line == 4 && d.column == 25 && d.length == 15 && d.column_in_bytes);
    CHECK(strcmp(d.message, "unresolved value 'undefined_thing'") == 0 && d.note_count == 0);
    spec_wgsl_format_error(text, sizeof text, "kernels/k.wgsl", DAWN_UNKNOWN, UNKNOWN_SOURCE);
    CHECK_MSG(strcmp(text, "kernels/k.wgsl:4:25: error: unresolved value 'undefined_thing'\n"
                           "    4 |     v[id.x] = v[id.x] + undefined_thing;\n"
                           "      |                         ^~~~~~~~~~~~~~~") == 0,
              "%s", text);
    CHECK(spec_wgsl_read_error(DAWN_SYNTAX, &d) && d.line == 2 && d.column == 10 && d.note_count == 0);
    CHECK(strcmp(d.message, "expected ')' for function declaration") == 0);
    CHECK(spec_wgsl_read_error(DAWN_REDEFINITION, &d) && d.line == 3 && d.column == 1 && d.length == 9);
    CHECK(d.note_count == 1 && d.notes[0].line == 2 && strcmp(d.notes[0].text, "'f' previously declared here") == 0);
    /* The caret under the place though the column counts bytes: after 21 characters. */
    CHECK(spec_wgsl_read_error(DAWN_UNICODE, &d) && d.line == 4 && d.column == 25 && d.length == 0);
    spec_wgsl_format_error(text, sizeof text, "u.wgsl", DAWN_UNICODE, UNICODE_SOURCE);
    const char *caret = strstr(text, "      | ");
    CHECK_MSG(caret && strcmp(caret + 8, "                     ^") == 0, "%s", text);
    /* Dawn's framing goes; its context stays. */
    spec_device_message(text, sizeof text,
                        "Entry point \"\"other\"\" doesn't exist in the shader module [ShaderModule \"k\"].\n"
                        " - While validating compute stage ([ShaderModule \"k\"], entryPoint: \"other\").\n"
                        " - While calling [Device \"wgprof\"].CreateComputePipeline([ComputePipelineDescriptor "
                        "\"\"k\"\"]).\n",
                        2);
    CHECK_MSG(strcmp(text, "  Entry point \"\"other\"\" doesn't exist in the shader module [ShaderModule \"k\"].\n"
                           "   - While validating compute stage ([ShaderModule \"k\"], entryPoint: \"other\").") == 0,
              "%s", text);

    /* A place line without its source line is not believed: a label can hold any text. */
    CHECK(!spec_wgsl_read_error("Shader 'x' parsing error: boom\n  ┌─ wgsl:9:1\n\n", &d));
    CHECK(!spec_wgsl_read_error("  ┌─ wgsl:0:3\n0 │ x\n", &d));             /* line 0 is no line */
    CHECK(!spec_wgsl_read_error("  ┌─ wgsl:99999999999:3\n", &d));          /* too many digits */
    CHECK(!spec_wgsl_read_error("error: something went wrong at 4:17", &d)); /* no "NAME:" before */

    /* Every prefix of a real message: read or refused, never out of bounds. */
    char cut[sizeof VALIDATION], out[512];
    for (size_t n = 0; n < sizeof VALIDATION; n++) {
        memcpy(cut, VALIDATION, n);
        cut[n] = '\0';
        bool read = spec_wgsl_read_error(cut, &d);
        CHECK(!read || (d.line == 6 && d.column == 12));
        spec_wgsl_format_error(out, sizeof out, "x.wgsl", cut, VALIDATION_SOURCE);
        CHECK(strlen(out) < sizeof out);
    }
    /* A place past the end of the source: said, with no source line. */
    spec_wgsl_format_error(out, sizeof out, "x.wgsl", UNKNOWN, "fn main() {}\n");
    CHECK_MSG(strcmp(out, "x.wgsl:4:25: error: no definition in scope for identifier: `undefined_thing`") == 0,
              "%s", out);
    /* Small buffers stay terminated. */
    for (size_t cap = 1; cap < 40; cap++) {
        char small[40];
        memset(small, 'x', sizeof small);
        spec_wgsl_format_error(small, cap, "x.wgsl", UNKNOWN, UNKNOWN_SOURCE);
        CHECK(memchr(small, '\0', cap) != NULL);
        spec_wgsl_format_error(small, cap, "x.wgsl", NO_ENTRY, NULL);
        CHECK(memchr(small, '\0', cap) != NULL);
    }
}

/* A long line (minified WGSL) shows a window around the place, the caret still under it. */
static void test_long_line(void)
{
    enum { LEN = 1000 };
    static char source[LEN + 2];
    char text[256], out[2048];
    memset(source, 'a', LEN);
    source[499] = 'Q';
    source[LEN] = '\n';
    source[LEN + 1] = '\0';
    snprintf(text, sizeof text, "Shader 'k' parsing error: bad\n  ┌─ wgsl:1:500\n  │\n1 │ aaaa\n  │ ^ here\n\n");
    spec_wgsl_format_error(out, sizeof out, "m.wgsl", text, source);
        const char *shown = strstr(out, "    1 | ...");
    const char *caret = strstr(out, "      |    ");
    CHECK_MSG(shown && caret && strlen(out) < 600, "%s", out);
    if (shown && caret) {
        size_t q = (size_t)(strchr(shown, 'Q') - shown), c = (size_t)(strchr(caret, '^') - caret);
        CHECK_MSG(q == c, "Q at %zu, caret at %zu", q, c);
    }
}

static const spec_wgsl_binding *find(const spec_wgsl_bindings *b, uint32_t group, uint32_t binding)
{
    for (size_t i = 0; i < b->count; i++) {
        if (b->items[i].group == group && b->items[i].binding == binding) {
            return &b->items[i];
        }
    }
    return NULL;
}

static void test_bindings(void)
{
    const char *source =
        "struct Params { n: u32, u: f32 }\n"
        "// @group(0) @binding(7) var<storage> commented_out: array<f32>;\n"
        "/* nested /* @group(0) @binding(8) var<storage> x: u32; */ still a comment */\n"
        "@group(0) @binding(0) var<storage, read_write> v: array<f32>;\n"
        "@binding(1) @group(0)\n    var<storage,  read> u: array<f32>;\n"
        "@group(0) @binding(2u) var<uniform> params: Params;\n"
        "@group(1) @binding(0) var t: texture_2d<f32>;\n"
        "@group(0) @binding(0x3) var<storage, read> unused: array<f32>;\n"
        "const G = 2;\n"
        "@group(G) @binding(0) var<storage, read> by_constant: array<f32>;\n"
        "fn helper(i: u32) -> f32 { return u[i] * params.u; }\n"
        "fn never_called() -> f32 { return unused[0]; }\n"
        "@compute @workgroup_size(64)\n"
        "fn main(@builtin(global_invocation_id) id: vec3u) { v[id.x] = helper(id.x) + f32(params.n); }\n";
    spec_wgsl_bindings b;
    CHECK(spec_wgsl_scan_bindings(source, "main", &b));
    CHECK_MSG(b.count == 5, "%zu", b.count);
    CHECK(b.uses_known && !b.complete);
    const spec_wgsl_binding *x = find(&b, 0, 0);
    CHECK(x && x->used && x->buffer && strcmp(x->declaration, "var<storage, read_write> v: array<f32>") == 0);
    x = find(&b, 0, 1);
    CHECK(x && x->used && strcmp(x->declaration, "var<storage, read> u: array<f32>") == 0); /* through helper */
    x = find(&b, 0, 2);
    CHECK(x && x->used && x->buffer && strcmp(x->declaration, "var<uniform> params: Params") == 0);
    x = find(&b, 1, 0);
    CHECK(x && !x->used && !x->buffer);
    x = find(&b, 0, 3);
    CHECK(x && !x->used); /* used only by a function the entry point never calls */
    CHECK(!find(&b, 0, 7) && !find(&b, 0, 8));
    spec_wgsl_bindings_free(&b);

    /* A member named like a global is no use of it. */
    CHECK(spec_wgsl_scan_bindings("struct S { v: f32 }\n@group(0) @binding(0) var<uniform> s: S;\n"
                                  "@group(0) @binding(1) var<storage> v: f32;\n"
                                  "@compute @workgroup_size(1) fn main() { let a = s.v; }\n",
                                  "main", &b));
    CHECK(b.count == 2 && find(&b, 0, 0) && find(&b, 0, 0)->used && find(&b, 0, 1) && !find(&b, 0, 1)->used);
    spec_wgsl_bindings_free(&b);

    /* No such entry point: uses unknown, declarations still read. */
    CHECK(spec_wgsl_scan_bindings(source, "other", &b));
    CHECK(!b.uses_known && b.count == 5);
    spec_wgsl_bindings_free(&b);

    /* Broken text: no crash, whatever it finds. */
    const char *broken[] = {"", "@", "@group(", "@group(0) @binding(0) var", "fn", "fn main(", "fn main() {",
                            "/* unterminated", "@group(0) @binding(0) var<storage", "}}}{{{", "var<<<>>>;"};
    for (size_t i = 0; i < sizeof broken / sizeof *broken; i++) {
        CHECK(spec_wgsl_scan_bindings(broken[i], "main", &b));
        spec_wgsl_bindings_free(&b);
    }
}

static void test_device_message(void)
{
    char out[512];
    spec_device_message(out, sizeof out,
                        "Validation Error\n\nCaused by:\n  In wgpuDeviceCreateBindGroup\n    Number of bindings in bind "
                        "group descriptor (1) does not match the number of bindings defined in the bind group layout "
                        "(2)\n\n",
                        2);
    CHECK_MSG(strcmp(out, "  Number of bindings in bind group descriptor (1) does not match the number of bindings "
                          "defined in the bind group layout (2)") == 0,
              "%s", out);
    spec_device_message(out, sizeof out, "something else entirely   \n\n\n", 0);
    CHECK(strcmp(out, "something else entirely") == 0);
}

int main(void)
{
    test_read();
    test_format();
    test_other_text();
    test_long_line();
    test_bindings();
    test_device_message();
    return check_summary();
}
