# Sourced by scripts/device-run.sh and scripts/bench-run.sh: the environment a built tree needs on
# a GPU machine that cannot install anything. $root is the tree; $1 a folder for the files it
# writes (the ICD file below).
# - The Vulkan loader and what it pulls in (libglvnd, the X11 client libraries) and jansson (the
#   unit tests) come as Debian .deb files in .gl/, unpacked into / where no loader is installed.
# - NVIDIA's ICD file names libGLX_nvidia.so.0, whose vkCreateInstance fails on a machine without
#   a display ("Could not get 'vkCreateInstance' via 'vk_icdGetInstanceProcAddr'"); the same
#   driver's libEGL_nvidia.so.0 serves Vulkan headless. An ICD file naming it goes into $1, and
#   VK_DRIVER_FILES selects it unless already set.
# - Both WebGPU implementations are found by name on LD_LIBRARY_PATH: the build recorded this
#   machine's paths, not the GPU machine's.
device_env_files="${1:?device-env.sh: a folder for its files}"
if [ -d "$root/.gl" ] && ! ldconfig -p | grep -q 'libvulkan\.so\.1 '; then
  for f in "$root"/.gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
nvidia_lib=/usr/local/nvidia/lib64
if [ -z "${VK_DRIVER_FILES:-}" ] && [ -e "$nvidia_lib/libEGL_nvidia.so.0" ]; then
  mkdir -p "$device_env_files"
  printf '{"file_format_version": "1.0.1", "ICD": {"library_path": "libEGL_nvidia.so.0", "api_version": "1.4.312"}}\n' \
    >"$device_env_files/nvidia_egl_icd.json"
  export VK_DRIVER_FILES="$device_env_files/nvidia_egl_icd.json"
fi
export LD_LIBRARY_PATH="$root/build:$root/.deps/wgpu-native/lib:$root/.deps/dawn/lib:$nvidia_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
