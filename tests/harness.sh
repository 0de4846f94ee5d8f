# What the shell tests share: a scratch folder ($tmp, removed at exit) and the count of checks.
# Source it, then call `ok` or `bad "what failed"` for each check and `finish` at the end: it
# fails where a check failed or where none ran.
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); printf 'FAIL: %s\n' "$*" >&2; }
finish() {
  echo "$passed passed, $failed failed"
  if [ $((passed + failed)) -eq 0 ]; then
    echo "no check ran" >&2
    return 1
  fi
  [ "$failed" -eq 0 ]
}
# Filters out what an implementation prints on stderr by itself whatever the program does, for
# the tests that read wgprof's own messages: Dawn on lavapipe announces two limits it lowers.
without_implementation_lines() {
  grep -Ev '^Warning: maxDynamic(Uniform|Storage)BuffersPerPipelineLayout artificially reduced ' || true
}
# full_fs CMD...: CMD run with TMPDIR on a small tmpfs filled up, in a mount namespace of its own
# (so the mount goes with it); exit 77 where this machine allows neither (not root, no unshare).
full_fs() {
  unshare -m bash -c 'fs="$(mktemp -d)" && mount -t tmpfs -o size=64k tmpfs "$fs" || exit 77
    dd if=/dev/zero of="$fs/fill" bs=4k 2>/dev/null
    TMPDIR="$fs" "$@"' full_fs "$@"
}
# layer_built DIR: wgprof's Vulkan layer and its manifest are in DIR (built where Vulkan's
# headers are).
layer_built() { [ -f "$1/libwgprof_layer.so" ] && [ -f "$1/VkLayer_wgprof_timing.json" ]; }
# need_layer DIR: exit 77 (skipped, saying why) where the layer is not built in DIR.
need_layer() {
  if ! layer_built "$1"; then
    echo "skipped: wgprof's Vulkan layer is not built ($1/libwgprof_layer.so and VkLayer_wgprof_timing.json)"
    exit 77
  fi
}
