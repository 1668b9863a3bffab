struct A { a‮b: f32 }
