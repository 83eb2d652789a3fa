//! Generated programs whose lowering and C generation must stay near-linear in their size
//! (issue 19), shared by `benches/codegen.rs` and `examples/codegen_table.rs`.

/// A program generator: the program's text for a number of terms.
pub type Generator = fn(usize) -> String;

/// The shapes, by name.
pub const SHAPES: [(&str, Generator); 4] = [
    ("flat-sum", flat_sum),
    ("map-body", map_body),
    ("reduce-body", reduce_body),
    ("map-chain", map_chain),
];

/// `def sum (x : f32) : f32 = x + x + … + x` with `n` terms: `risec emit-c` input as it is.
pub fn flat_sum(n: usize) -> String {
    format!(
        "def sum (x : f32) : f32 = x{}\n",
        " + x".repeat(n.saturating_sub(1))
    )
}

/// A `map` whose body is `x + x + … + x` with `n` terms.
pub fn map_body(n: usize) -> String {
    format!(
        "def f {{n : nat}} (xs : n.f32) : n.f32 = xs |> map (fun x => x{})\n",
        " + x".repeat(n.saturating_sub(1))
    )
}

/// A reduction of a `map` whose body is `x * x * … * x` with `n` factors.
pub fn reduce_body(n: usize) -> String {
    format!(
        "def f {{n : nat}} (xs : n.f32) : f32 = xs |> map (fun x => x{}) |> reduce (+) 0.0\n",
        " * x".repeat(n.saturating_sub(1))
    )
}

/// `n` maps one after the other, which lowering fuses into one loop.
pub fn map_chain(n: usize) -> String {
    format!(
        "def f {{n : nat}} (xs : n.f32) : n.f32 = xs{}\n",
        " |> map (fun a => a + 1.0)".repeat(n)
    )
}
