//! How the parallel loops of a translated function run: copy loops between parallel loops made
//! parallel too, and the parallel loops whose iterations compute much shared dynamically.

use super::*;

/// In a function that has parallel loops, the copy loops that run on one thread between them
/// (an accumulator the size of the output filled before a reduction, say) run in parallel too:
/// a sequential pass over a large array would be the only part of the function that one thread
/// does alone (1 of 45 ms with 2 threads for the register-blocked GEMM at 1536³). Those are the
/// copy loops at the top level and in sequential loops that themselves contain parallel loops
/// (a block of columns zeroed before its reduction); copies inside parallel loops, or in
/// sequential loops with no parallel loop inside, stay as they are. A program without `mapPar`
/// stays sequential.
pub(super) fn parallelise_top_level_copies(stmts: &mut [Stmt]) {
    if !stmts.iter().any(Stmt::has_parallel_loop) {
        return;
    }
    for s in stmts {
        match s {
            Stmt::For {
                origin: LoopOrigin::Copy,
                schedule: schedule @ Schedule::Sequential,
                ..
            } => *schedule = Schedule::Parallel,
            Stmt::For {
                schedule: Schedule::Sequential | Schedule::NestedParallel,
                body,
                ..
            } => parallelise_top_level_copies(body),
            Stmt::Unrolled { body, .. } => parallelise_top_level_copies(body),
            Stmt::IfElse {
                then, otherwise, ..
            } => {
                parallelise_top_level_copies(then);
                parallelise_top_level_copies(otherwise);
            }
            _ => {}
        }
    }
}

/// A parallel loop whose body computes (holds a reduction loop) shares its iterations among
/// the threads one at a time, as each thread becomes free, rather than in equal parts decided
/// up front: when another thread or process takes a core (OpenBLAS's threads spinning after
/// its call, a busy machine), the free thread does more of the work instead of waiting at the
/// end for the slow one. Measured on the AVX-512 register-blocked GEMM, 2 threads, static
/// against dynamic in the same processes (medians of 5–7 rounds; this 2-core VM is noisy, so
/// ranges over 2–6 processes): quiet, 1000³ 12.6–22.2 against 9.9–22.7 ms (medians 13.2 and
/// 10.4), 1536³ 30–40 against 28–34 ms, 128×3072×768 equal (5.5–5.7 ms); with another process
/// spinning on one core, 1000³ 19.1–22.5 against 16.2–16.9 ms (1 thread: 15.2–15.5) and
/// 1536³ 57–117 against 49–116 ms (1 thread: 61–76). Copy loops (packing) keep the static
/// split: sharing them dynamically as well was slower (128×3072×768: 4.2 → 8.6 ms). So do
/// loops whose reductions are small (a stencil's 3 or 9 products per element): their work is
/// streaming memory, and neighbouring iterations read the same rows, which one thread's
/// contiguous part keeps in its cache (the five-point Jacobi step at 4094², 2 threads: static
/// 8.2 ms, dynamic 9.5 ms, guided 8.6 ms).
pub(super) fn share_computing_loops_dynamically(stmts: &mut [Stmt]) {
    for s in stmts {
        match s {
            Stmt::For {
                schedule: schedule @ Schedule::Parallel,
                body,
                ..
            } if has_large_reduction(body) => *schedule = Schedule::ParallelDynamic,
            Stmt::For {
                schedule: Schedule::Parallel,
                ..
            } => {}
            Stmt::For { body, .. } | Stmt::Unrolled { body, .. } => {
                share_computing_loops_dynamically(body)
            }
            Stmt::IfElse {
                then, otherwise, ..
            } => {
                share_computing_loops_dynamically(then);
                share_computing_loops_dynamically(otherwise);
            }
            _ => {}
        }
    }
}

/// The least work of a reduction (in innermost loop iterations, [`iteration_work`]) for a
/// parallel loop holding it to be shared dynamically.
const MIN_DYNAMIC_WORK: u64 = 1024;

/// An estimate of the work of running `stmts` once, in statements run: a loop counts its trip
/// count times its body, a loop of symbolic extent as `u64::MAX` (large).
fn iteration_work(stmts: &[Stmt]) -> u64 {
    stmts
        .iter()
        .map(|s| match s {
            Stmt::For { extent, body, .. } => {
                let trips = extent
                    .as_const()
                    .map_or(u64::MAX, |n| u64::try_from(n).unwrap_or(0));
                trips.saturating_mul(iteration_work(body).max(1))
            }
            Stmt::Unrolled { body, .. } => iteration_work(body),
            Stmt::IfElse {
                then, otherwise, ..
            } => iteration_work(then).max(iteration_work(otherwise)),
            _ => 1,
        })
        .fold(0, u64::saturating_add)
}

/// Whether `stmts` hold a loop of a reduction (`reduceSeq`, `reduceSeqUnroll`), at any depth,
/// whose work is at least [`MIN_DYNAMIC_WORK`].
fn has_large_reduction(stmts: &[Stmt]) -> bool {
    stmts.iter().any(|s| match s {
        Stmt::For { origin, body, .. } | Stmt::Unrolled { origin, body, .. } => {
            (matches!(
                origin,
                LoopOrigin::Primitive(Primitive::ReduceSeq | Primitive::ReduceSeqUnroll)
            ) && iteration_work(std::slice::from_ref(s)) >= MIN_DYNAMIC_WORK)
                || has_large_reduction(body)
        }
        Stmt::IfElse {
            then, otherwise, ..
        } => has_large_reduction(then) || has_large_reduction(otherwise),
        _ => false,
    })
}
