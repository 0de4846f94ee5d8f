#version 450
// vk_compute's first kernel: every element v[i] = 3 v[i] + 1 (unsigned, wrapping), 64 a workgroup,
// one-dimensional. Integer arithmetic: the checksum is the same on every device.
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Data { uint v[]; };

void main()
{
    uint i = gl_GlobalInvocationID.x;
    v[i] = v[i] * 3u + 1u;
}
