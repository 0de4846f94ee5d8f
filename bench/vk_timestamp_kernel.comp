#version 450
// vk_timestamp_cost's kernel: a dependent multiply-add loop per element (push constant `loops`
// long), each dispatch reading what the one before it wrote, so that the barriers between them
// are needed. 64 a workgroup.
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer Data { float v[]; };
layout(push_constant) uniform Params { uint loops; } params;

void main()
{
    uint i = gl_GlobalInvocationID.x;
    float x = v[i];
    for (uint k = 0u; k < params.loops; k++) {
        x = x * 0.999 + 0.5;
    }
    v[i] = x;
}
