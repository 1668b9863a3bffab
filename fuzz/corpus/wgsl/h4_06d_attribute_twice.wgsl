struct A { @size(8) @size(16) a: f32 }
