//! A case as files and a `risec` command line: what a defect's report shows, so that it replays
//! without the fuzzer (`cd DIR && sh replay.sh`).

use super::{Case, Input, Settings};
use std::path::Path;
use std::time::Duration;

/// `text` quoted for `sh`.
fn quote(text: &str) -> String {
    if !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,".contains(c))
    {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

/// A byte count as `risec` reads it.
fn bytes(n: u64) -> String {
    if n % (1 << 20) == 0 {
        format!("{}MiB", n >> 20)
    } else {
        format!("{n}B")
    }
}

/// The options every command shares, from the case's settings.
fn options(settings: &Settings, time: Duration, memory: bool, iterations: bool) -> String {
    let mut out = format!(" --time {}ms", time.as_millis());
    if let (true, Some(m)) = (memory, settings.memory) {
        out.push_str(&format!(" --memory {}", bytes(m)));
    }
    if let Some(n) = settings.nodes {
        out.push_str(&format!(" --nodes {n}"));
    }
    if let (true, Some(n)) = (iterations, settings.iterations) {
        out.push_str(&format!(" --iterations {n}"));
    }
    if settings.scheduler != Default::default() {
        out.push_str(&format!(
            " --scheduler {}",
            quote(&settings.scheduler.to_string())
        ));
    }
    if settings.seed != 0 {
        out.push_str(&format!(" --seed {}", settings.seed));
    }
    out
}

/// The files of `case` and the `risec` command that runs it, run from the folder the files are
/// in; `default_time` is the campaign's budget for cases that draw none.
pub fn files_and_command(case: &Case, default_time: Duration) -> (Vec<(String, String)>, String) {
    let settings = &case.settings;
    let time = settings.time.unwrap_or(default_time);
    let (files, command) = match &case.input {
        Input::MainJob {
            program,
            sketch,
            files,
        } => {
            let mut all = files.clone();
            all.push(sketch.clone());
            all.push(("program.rise".into(), program.clone()));
            let command = format!(
                "risec program.rise --sketch {} --emit c{}",
                quote(&sketch.0),
                options(settings, time, true, false)
            );
            (all, command)
        }
        Input::EmitC { program } => (
            vec![("program.rise".into(), program.clone())],
            "risec emit-c program.rise".to_string(),
        ),
        Input::Prove {
            start,
            goal,
            rules,
            normalize,
        } => (
            vec![
                ("start.rise".into(), start.clone()),
                ("goal.rise".into(), goal.clone()),
            ],
            format!(
                "risec prove start.rise goal.rise --rules {}{}{}",
                quote(rules),
                if *normalize { "" } else { " --no-normalize" },
                options(settings, time, true, true)
            ),
        ),
        Input::La { text } => (
            vec![("case.la".into(), text.clone())],
            format!("risec la case.la{}", options(settings, time, false, true)),
        ),
    };
    let command = match settings.address_space {
        Some(limit) => format!("(ulimit -v {}; {command})", limit >> 10),
        None => command,
    };
    (files, command)
}

/// Writes the files of `case` under `dir` with `replay.sh` (the command) and `case.txt` (the
/// case as drawn); returns the command.
pub fn write(case: &Case, dir: &Path, default_time: Duration) -> std::io::Result<String> {
    let (files, command) = files_and_command(case, default_time);
    for (path, text) in &files {
        let target = dir.join(path.replace("..", "__"));
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(target, text)?;
    }
    std::fs::write(dir.join("replay.sh"), format!("{command}\n"))?;
    std::fs::write(dir.join("case.txt"), format!("{case:#?}\n"))?;
    Ok(command)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Family;

    #[test]
    fn commands_name_every_setting() {
        let case = Case {
            family: Family::Prove,
            seed: 1,
            origin: String::new(),
            input: Input::Prove {
                start: "s".into(),
                goal: "g".into(),
                rules: "split-join(64),map-fusion".into(),
                normalize: false,
            },
            settings: Settings {
                time: Some(Duration::from_millis(250)),
                memory: Some(64 << 20),
                iterations: Some(3),
                scheduler: "mcts(2, 3)".parse().unwrap(),
                seed: 4,
                ..Settings::default()
            },
        };
        let (files, command) = files_and_command(&case, Duration::from_millis(300));
        assert_eq!(files.len(), 2);
        assert_eq!(
            command,
            "risec prove start.rise goal.rise --rules 'split-join(64),map-fusion' --no-normalize \
             --time 250ms --memory 64MiB --iterations 3 --scheduler 'mcts(2, 3)' --seed 4"
        );
    }
}
