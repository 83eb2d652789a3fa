//! Writing the files risec produces so that nothing half-written is left behind: each file is
//! written to a temporary file beside it ([`tempfile`]) and renamed over the target only when
//! complete; a failure leaves the target as it was.

use std::io::Write as _;
use std::path::{Path, PathBuf};

/// A file that could not be written. `Display` is the message risec prints.
#[derive(Debug, thiserror::Error)]
#[error("error: cannot write `{}`: {reason}", path.display())]
pub struct WriteError {
    /// The file.
    pub path: PathBuf,
    /// Why (the system's message, or what is wrong with the path).
    pub reason: String,
}

impl WriteError {
    fn new(path: &Path, reason: impl ToString) -> WriteError {
        WriteError {
            path: path.to_path_buf(),
            reason: reason.to_string(),
        }
    }
}

/// The folder a file is written in (`.` for a bare file name).
fn folder(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// The permissions a written file gets: those of the file it replaces, else read-write for its
/// owner and readable by all (what a plain create gives under the usual umask; a temporary
/// file alone would be private to its owner).
fn permissions_for(path: &Path) -> Option<std::fs::Permissions> {
    match std::fs::metadata(path) {
        Ok(m) => Some(m.permissions()),
        #[cfg(unix)]
        Err(_) => Some(std::os::unix::fs::PermissionsExt::from_mode(0o644)),
        #[cfg(not(unix))]
        Err(_) => None,
    }
}

/// Checks, before long work, that `path` can later be written: its folder exists and it is not
/// a folder itself.
pub fn check_writable(path: &Path) -> Result<(), WriteError> {
    let dir = folder(path);
    if !dir.is_dir() {
        let reason = format!("the folder `{}` does not exist", dir.display());
        return Err(WriteError::new(path, reason));
    }
    if path.is_dir() {
        return Err(WriteError::new(path, "it is a folder"));
    }
    Ok(())
}

/// An output path that names one of the run's input files: writing it would replace the
/// input. `Display` is the message risec prints.
#[derive(Debug, thiserror::Error)]
#[error(
    "error: writing `{}` would overwrite the input `{}`: nothing was written; choose another output path",
    output.display(),
    input.display()
)]
pub struct OverwritesInput {
    /// The path that would be written.
    pub output: PathBuf,
    /// The input it names, as given.
    pub input: PathBuf,
}

/// Whether `a` and `b` name the same existing file, through whatever path, symbolic link or
/// hard link: the same device and inode on Unix, else the same canonical path.
pub fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(x), Ok(y)) = (std::fs::metadata(a), std::fs::metadata(b)) {
            return x.dev() == y.dev() && x.ino() == y.ino();
        }
    }
    matches!((a.canonicalize(), b.canonicalize()), (Ok(x), Ok(y)) if x == y)
}

/// Checks that no output path names an input file (see [`same_file`]).
pub fn check_not_inputs(outputs: &[&Path], inputs: &[&Path]) -> Result<(), OverwritesInput> {
    for output in outputs {
        if let Some(input) = inputs.iter().find(|i| same_file(output, i)) {
            return Err(OverwritesInput {
                output: output.to_path_buf(),
                input: input.to_path_buf(),
            });
        }
    }
    Ok(())
}

/// Writes `contents` to `path` atomically.
pub fn write_atomically(path: &Path, contents: &str) -> Result<(), WriteError> {
    write_all_atomically(&[(path, contents)])
}

/// Writes several files (a C source and its header): every one is written completely to a
/// temporary file before any is renamed into place, so a failure to write leaves all of them as
/// they were.
pub fn write_all_atomically(files: &[(&Path, &str)]) -> Result<(), WriteError> {
    let mut written = Vec::with_capacity(files.len());
    for (path, contents) in files {
        check_writable(path)?;
        let mut builder = tempfile::Builder::new();
        builder.prefix(".risec-");
        if let Some(permissions) = permissions_for(path) {
            builder.permissions(permissions);
        }
        let mut tmp = builder
            .tempfile_in(folder(path))
            .map_err(|e| WriteError::new(path, e))?;
        tmp.write_all(contents.as_bytes())
            .and_then(|()| tmp.as_file().sync_all())
            .map_err(|e| WriteError::new(path, e))?;
        written.push((path, tmp));
    }
    for (path, tmp) in written {
        tmp.persist(path).map_err(|e| WriteError::new(path, e.error))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("risec-output-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn outputs_naming_an_input_are_found_through_other_paths_and_links() {
        let dir = scratch("inputs");
        let input = dir.join("prog.rise");
        std::fs::write(&input, "def f = 1.0").unwrap();
        let other = dir.join("sub/../prog.rise");
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        let e = check_not_inputs(&[&dir.join("x.c"), &other], &[&input]).unwrap_err();
        assert_eq!(e.output, other);
        assert!(e.to_string().contains("would overwrite the input"), "{e}");
        assert!(check_not_inputs(&[&dir.join("new.c")], &[&input]).is_ok());
        #[cfg(unix)]
        {
            let link = dir.join("link.rise");
            std::os::unix::fs::symlink(&input, &link).unwrap();
            assert!(same_file(&link, &input));
            let hard = dir.join("hard.rise");
            std::fs::hard_link(&input, &hard).unwrap();
            assert!(same_file(&hard, &input));
        }
    }

    #[test]
    fn writes_and_replaces_whole_files() {
        let dir = scratch("replace");
        let (c, h) = (dir.join("mm.c"), dir.join("mm.h"));
        std::fs::write(&c, "old").unwrap();
        write_all_atomically(&[(&c, "int f(void);\n"), (&h, "header\n")]).unwrap();
        assert_eq!(std::fs::read_to_string(&c).unwrap(), "int f(void);\n");
        assert_eq!(std::fs::read_to_string(&h).unwrap(), "header\n");
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
        assert_eq!(left.len(), 2, "no temporary file is left behind");
    }

    #[test]
    fn a_failure_leaves_every_file_as_it_was() {
        let dir = scratch("fail");
        let c = dir.join("mm.c");
        std::fs::write(&c, "old").unwrap();
        let missing = dir.join("no-such-folder/mm.h");
        let e = write_all_atomically(&[(&c, "new"), (&missing, "h")]).unwrap_err();
        assert!(e.to_string().contains("does not exist"), "{e}");
        assert_eq!(std::fs::read_to_string(&c).unwrap(), "old");
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
        assert_eq!(left.len(), 1, "no temporary file is left behind");
    }

    #[test]
    #[cfg(unix)]
    fn new_files_are_readable_by_all_and_replaced_ones_keep_their_mode() {
        use std::os::unix::fs::PermissionsExt;
        let dir = scratch("mode");
        let (new, old) = (dir.join("new.c"), dir.join("old.c"));
        std::fs::write(&old, "x").unwrap();
        std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_all_atomically(&[(&new, "a"), (&old, "b")]).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&new), 0o644);
        assert_eq!(mode(&old), 0o640);
    }

    #[test]
    fn a_folder_is_not_a_file() {
        let dir = scratch("folder");
        let e = write_atomically(&dir, "x").unwrap_err();
        assert_eq!(e.reason, "it is a folder");
    }
}
