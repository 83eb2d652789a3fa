//! The simple scheduler: every match of every rule, every iteration (the default, and the only
//! one that never hides a rewrite a sketch needs).

use super::{Iteration, RuleScheduler};
use crate::pass::PassOutcome;

/// Every match of every rule, every iteration.
#[derive(Clone, Copy, Debug, Default)]
pub struct Simple;

impl RuleScheduler for Simple {
    fn iterate(&mut self, iteration: &mut Iteration) -> PassOutcome {
        iteration.pass_of_every_rule(None)
    }

    fn end_iteration(&mut self, changed: bool) -> bool {
        !changed
    }

    fn name(&self) -> String {
        "simple".to_string()
    }
}
