// One step of a flock of particles in the [-1, 1] square: each particle steers towards the
// centre of its neighbours (cohesion), away from those too close (separation), and along their
// mean velocity (alignment), its speed capped; positions wrap around the edges. Every particle
// looks at every other, so a step costs count^2 distance tests. The step reads one buffer and
// writes the other; the spec's two dispatches swap them (ping-pong).

struct SimParams {
    delta_t: f32,
    cohesion_distance: f32,
    separation_distance: f32,
    alignment_distance: f32,
    cohesion_scale: f32,
    separation_scale: f32,
    alignment_scale: f32,
    max_speed: f32,
    count: u32, // particles in use, at most the buffers' capacity
}

struct Particle {
    pos: vec2f,
    vel: vec2f,
}

@group(0) @binding(0) var<uniform> sim: SimParams;
@group(0) @binding(1) var<storage, read> current: array<Particle>;
@group(0) @binding(2) var<storage, read_write> next: array<Particle>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3u) {
    let me = id.x;
    if (me >= sim.count) {
        return;
    }
    let p = current[me];
    var centre = vec2f(0.0);
    var near_centre = 0u;
    var away = vec2f(0.0);
    var heading = vec2f(0.0);
    var near_heading = 0u;
    for (var j = 0u; j < sim.count; j++) {
        if (j == me) {
            continue;
        }
        let q = current[j];
        let d = distance(q.pos, p.pos);
        if (d < sim.cohesion_distance) {
            centre += q.pos;
            near_centre++;
        }
        if (d < sim.separation_distance) {
            away += p.pos - q.pos;
        }
        if (d < sim.alignment_distance) {
            heading += q.vel;
            near_heading++;
        }
    }
    var vel = p.vel;
    if (near_centre > 0u) {
        vel += (centre / f32(near_centre) - p.pos) * sim.cohesion_scale;
    }
    vel += away * sim.separation_scale;
    if (near_heading > 0u) {
        vel += heading / f32(near_heading) * sim.alignment_scale;
    }
    let speed = length(vel);
    if (speed > sim.max_speed) {
        vel *= sim.max_speed / speed;
    }
    let moved = p.pos + vel * sim.delta_t;
    next[me] = Particle(select(moved, moved - 2.0 * sign(moved), abs(moved) > vec2f(1.0)), vel);
}
