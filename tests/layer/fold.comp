#version 450
// vk_compute's second kernel: v[i] ^= (v[i] >> 7) + i, 32 a workgroup, over a two-dimensional
// grid (rows of gl_NumWorkGroups.x * 32 elements), so that a dispatch's Y count matters.
layout(local_size_x = 32) in;
layout(std430, set = 0, binding = 0) buffer Data { uint v[]; };

void main()
{
    uint i = gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 32u + gl_GlobalInvocationID.x;
    v[i] ^= (v[i] >> 7) + i;
}
