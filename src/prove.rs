//! `risec prove START GOAL --rules …`: is GOAL reachable from START with these rules?

/// What `risec prove` prints, and whether the goal was found (exit status 0, else 2).
#[derive(Clone, Debug)]
pub struct ProveOutput {
    /// The outcome's summary (`eqsat::prove::ProveOutcome::summary`).
    pub text: String,
    /// Whether the goal was found.
    pub found: bool,
}

/// `risec prove START GOAL --rules …`: searches for GOAL from START and writes the statistics to
/// `stats` (as JSON, atomically) when given. Errors (unreadable files, unknown rules, different
/// types, an unwritable statistics file) are rendered messages.
pub fn prove(
    start: &str,
    goal: &str,
    options: &crate::eqsat::prove::ProveOptions,
    stats: Option<&str>,
) -> Result<ProveOutput, String> {
    if let Some(path) = stats {
        // Fail before a long search rather than after it; never replace the programs.
        let path = std::path::Path::new(path);
        crate::support::output::check_writable(path).map_err(|e| e.to_string())?;
        let inputs = [std::path::Path::new(start), std::path::Path::new(goal)];
        crate::support::output::check_not_inputs(&[path], &inputs).map_err(|e| e.to_string())?;
    }
    let outcome = crate::eqsat::prove::prove(start, goal, options).map_err(|e| e.to_string())?;
    let mut text = outcome.summary();
    if options.explain {
        text.push_str(
            &outcome
                .explanation_text()
                .unwrap_or_else(|| "explanation: none (the goal was not found)\n".to_string()),
        );
    }
    if let Some(path) = stats {
        crate::support::output::write_atomically(
            std::path::Path::new(path),
            &crate::eqsat::stats::to_json(&outcome.stats()),
        )
        .map_err(|e| format!("{text}{e}"))?;
    }
    Ok(ProveOutput {
        text,
        found: outcome.found(),
    })
}
