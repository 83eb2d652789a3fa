//! The shipped inputs the families draw from, compiled in (`include_str!`) so that a case is a
//! function of its seed alone: programs, sketch files with the libraries they import, the
//! low-level programs, `risec prove`'s start/goal pairs and the `.la` workloads.

macro_rules! shipped {
    ($($path:literal),* $(,)?) => {
        &[$(($path, include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../..", "/", $path)))),*]
    };
}

macro_rules! shipped1 {
    ($path:literal) => {
        (
            $path,
            include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../..", "/", $path)),
        )
    };
}

/// A shipped file: its path in the repository and its text.
pub type Shipped = (&'static str, &'static str);

/// The high-level programs the `sketch` family mutates.
pub const PROGRAMS: &[Shipped] = shipped!(
    "examples/matmul.rise",
    "examples/matvec.rise",
    "examples/dot.rise",
    "examples/fuse-transpose.rise",
);

/// The low-level programs mutated (C generation without a search).
pub const LOW_LEVEL: &[Shipped] = shipped!(
    "examples/lowlevel/naive.rise",
    "examples/lowlevel/dot.rise",
    "examples/lowlevel/fuse-transpose.rise",
    "examples/lowlevel/loop-perm.rise",
    "examples/lowlevel/blocking.rise",
    "examples/lowlevel/vectorization.rise",
    "examples/lowlevel/array-packing.rise",
    "examples/lowlevel/cache-blocks.rise",
    "examples/lowlevel/parallel.rise",
);

/// The sketch files the `sketch` family mutates (matmul's and matvec's).
pub const SKETCHES: &[Shipped] = shipped!(
    "sketches/matmul/baseline.sk",
    "sketches/matmul/loop-perm.sk",
    "sketches/matmul/blocking.sk",
    "sketches/matmul/vectorization.sk",
    "sketches/matmul/array-packing.sk",
    "sketches/matmul/cache-blocks.sk",
    "sketches/matmul/parallel.sk",
    "sketches/matmul/blocking-64x64-k8.sk",
    "sketches/matmul/register-blocking.sk",
    "sketches/matmul/register-blocking-avx512.sk",
    "sketches/matmul/register-blocking-any.sk",
    "sketches/matvec/blocking.sk",
);

/// The libraries the shipped sketch files import, at their paths.
pub const LIBRARIES: &[Shipped] = shipped!(
    "sketches/matmul/lib.sk",
    "sketches/blur/lib.sk",
    "examples/goals/lib.sk",
    "examples/goals/lib-4d.sk",
);

/// The library the matmul sketches import.
pub const MATMUL_LIB: Shipped = LIBRARIES[0];

macro_rules! kernels {
    ($(($program:literal, $sketch:literal)),* $(,)?) => {
        &[$(
            (
                ($program, include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../..", "/", $program))),
                ($sketch, include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../..", "/", $sketch))),
            )
        ),*]
    };
}

/// Every shipped program with a shipped sketch file for it: `(program, sketch)`; the sketch's
/// imports are among [`LIBRARIES`].
pub const KERNELS: &[(Shipped, Shipped)] = kernels!(
    (
        "examples/abt.rise",
        "sketches/abt/register-blocking-avx512.sk"
    ),
    ("examples/asum.rise", "sketches/asum/parallel.sk"),
    ("examples/axpy.rise", "sketches/axpy/parallel.sk"),
    ("examples/blur.rise", "sketches/blur/parallel.sk"),
    ("examples/blur.rise", "sketches/blur/scanline.sk"),
    ("examples/blur.rise", "sketches/blur/separated.sk"),
    ("examples/bmm.rise", "sketches/bmm/parallel.sk"),
    ("examples/dot.rise", "sketches/dot/parallel.sk"),
    ("examples/dot.rise", "sketches/dot/vectorized.sk"),
    ("examples/gemvt.rise", "sketches/gemvt/parallel.sk"),
    ("examples/gemvt.rise", "sketches/gemvt/rows.sk"),
    ("examples/harris.rise", "sketches/harris/fused.sk"),
    ("examples/harris.rise", "sketches/harris/parallel.sk"),
    ("examples/jacobi1d.rise", "sketches/jacobi1d/parallel.sk"),
    ("examples/jacobi2d.rise", "sketches/jacobi2d/parallel.sk"),
    (
        "examples/mmbr.rise",
        "sketches/mmbr/register-blocking-avx512.sk"
    ),
    ("examples/scal.rise", "sketches/scal/parallel.sk"),
    ("examples/sumsq.rise", "sketches/sumsq/parallel.sk"),
    ("examples/unsharp.rise", "sketches/unsharp/parallel.sk"),
    ("examples/matvec.rise", "sketches/matvec/blocking.sk"),
    ("examples/matvec.rise", "sketches/matvec/vectorized.sk"),
    ("examples/matmul.rise", "sketches/matmul/blocking.sk"),
    ("examples/matmul.rise", "sketches/matmul/array-packing.sk"),
    ("examples/matmul.rise", "sketches/matmul/parallel.sk"),
    (
        "examples/matmul.rise",
        "sketches/matmul/register-blocking.sk"
    ),
    (
        "examples/matmul.rise",
        "sketches/matmul/blocking-unguided.sk"
    ),
    ("examples/goals/tile-2d.rise", "examples/goals/tile-2d.sk"),
    (
        "examples/goals/tile-2d.rise",
        "examples/goals/tile-2d-unguided.sk"
    ),
    ("examples/goals/tile-3d.rise", "examples/goals/tile-3d.sk"),
    (
        "examples/goals/tile-3d.rise",
        "examples/goals/tile-3d-unguided.sk"
    ),
    ("examples/goals/tile-4d.rise", "examples/goals/tile-4d.sk"),
    (
        "examples/goals/tile-4d.rise",
        "examples/goals/tile-4d-stepwise.sk"
    ),
);

/// `risec prove`'s shipped start/goal pairs: start, goal, the rules that reach the goal, and
/// whether the search starts from normal forms (`lambda-compose-many` needs `--no-normalize`).
pub const GOALS: &[(Shipped, Shipped, &str, bool)] = &[
    (
        shipped1!("examples/goals/binomial.start.rise"),
        shipped1!("examples/goals/binomial.goal.rise"),
        SEPARATION,
        true,
    ),
    (
        shipped1!("examples/goals/binomial-parametric.start.rise"),
        shipped1!("examples/goals/binomial-parametric.goal.rise"),
        SEPARATION,
        true,
    ),
    (
        shipped1!("examples/goals/lambda-compose-many.start.rise"),
        shipped1!("examples/goals/lambda-compose-many.goal.rise"),
        "eta,beta",
        false,
    ),
    (
        shipped1!("examples/goals/map-fission-fusion.start.rise"),
        shipped1!("examples/goals/map-fission-fusion.goal.rise"),
        "map-fusion,map-fission,eta,beta",
        true,
    ),
];

/// The rules that separate the binomial filter (examples/goals/binomial.goal.rise).
const SEPARATION: &str = "transpose-pair-elimination,map-fusion,map-fission,slide-before-map,\
map-slide-before-transpose,slide-before-map-map-f,separate-dot-vh,separate-dot-hv,eta,beta";

/// The `.la` workloads and identities.
pub const LA_FILES: &[Shipped] = shipped!(
    "examples/la/als.la",
    "examples/la/glm.la",
    "examples/la/identities.la",
    "examples/la/l2svm.la",
    "examples/la/loss.la",
    "examples/la/mlr.la",
    "examples/la/pnmf.la",
);

/// The shipped programs whose sizes have offsets (stencils: `(n+2).(m+2)` inputs).
pub const OFFSET_PROGRAMS: &[Shipped] = shipped!(
    "examples/jacobi1d.rise",
    "examples/jacobi2d.rise",
    "examples/blur.rise",
    "examples/unsharp.rise",
    "examples/harris.rise",
    "examples/goals/binomial.start.rise",
);
