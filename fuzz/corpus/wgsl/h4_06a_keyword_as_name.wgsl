struct struct { a: f32 }
@group(0) @binding(0) var<uniform> u: struct;
