//! Writing the files risec produces so that nothing half-written is left behind: each file is
//! written to a temporary file beside it ([`tempfile`]) and renamed over the target only when
//! complete; a failure leaves the target as it was, and a signal removes the temporary file
//! ([`super::cleanup`]).
//!
//! An existing target that is not a regular file is never renamed over: a character device
//! (`/dev/null`, a terminal) or a FIFO is opened and written directly, as a shell's `>` would;
//! block devices and sockets are refused. Every file a user names for risec to write goes
//! through [`write_atomically`] or [`write_all_atomically`].

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

/// What an output path names now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// Nothing, or a regular file: written to a temporary file renamed over it.
    File,
    /// A character device or a FIFO: opened and written directly.
    Stream,
}

/// What `path` names (following symbolic links), or why risec does not write it: a folder, a
/// block device, a socket.
pub fn target(path: &Path) -> Result<Target, WriteError> {
    let Ok(meta) = std::fs::metadata(path) else {
        return Ok(Target::File);
    };
    let kind = meta.file_type();
    if kind.is_file() {
        return Ok(Target::File);
    }
    if kind.is_dir() {
        return Err(WriteError::new(path, "it is a folder"));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_char_device() || kind.is_fifo() {
            return Ok(Target::Stream);
        }
        if kind.is_block_device() {
            return Err(WriteError::new(
                path,
                "it is a block device (risec writes regular files, character devices and FIFOs)",
            ));
        }
    }
    Err(WriteError::new(
        path,
        "it is not a regular file (risec writes regular files, character devices and FIFOs)",
    ))
}

/// Checks, before long work, that `path` can later be written: its folder exists and it is not
/// a folder, a block device or a socket.
pub fn check_writable(path: &Path) -> Result<(), WriteError> {
    let dir = folder(path);
    if !dir.is_dir() {
        let reason = format!("the folder `{}` does not exist", dir.display());
        return Err(WriteError::new(path, reason));
    }
    target(path).map(|_| ())
}

/// Checks, before long work, a C source path and its header's: both writable, and a source
/// that is a device or a FIFO only with a header that is one too (else the header would be
/// made beside a device: `-o /dev/null` would create `/dev/null.h`).
pub fn check_writable_pair(source: &Path, header: &Path) -> Result<(), WriteError> {
    check_writable(source)?;
    check_writable(header)?;
    if target(source)? == Target::Stream && target(header)? == Target::File {
        return Err(WriteError::new(
            source,
            format!(
                "it is a device or a FIFO, and its header `{}` would be made as a new file beside it; \
                 name a regular file for the C (`-o OUT.c`)",
                header.display()
            ),
        ));
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
/// they were. Devices and FIFOs among them ([`Target::Stream`]) are written directly, after the
/// temporary files and before the renames.
pub fn write_all_atomically(files: &[(&Path, &str)]) -> Result<(), WriteError> {
    let mut staged = Vec::with_capacity(files.len());
    let mut streams = Vec::new();
    for (path, contents) in files {
        check_writable(path)?;
        if target(path)? == Target::Stream {
            streams.push((*path, *contents));
            continue;
        }
        let mut builder = tempfile::Builder::new();
        builder.prefix(".risec-");
        if let Some(permissions) = permissions_for(path) {
            builder.permissions(permissions);
        }
        let (mut tmp, registered) =
            super::cleanup::register_while(|| builder.tempfile_in(folder(path)), |t| t.path())
                .map_err(|e| WriteError::new(path, e))?;
        tmp.write_all(contents.as_bytes())
            .and_then(|()| tmp.as_file().sync_all())
            .map_err(|e| WriteError::new(path, e))?;
        super::cleanup::test_pause("write", tmp.path());
        staged.push((path, tmp, registered));
    }
    for (path, contents) in streams {
        std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .and_then(|mut f| f.write_all(contents.as_bytes()).and_then(|()| f.flush()))
            .map_err(|e| WriteError::new(path, e))?;
    }
    // Each registration is dropped after its rename: a signal in between finds no file.
    for (path, tmp, _registered) in staged {
        tmp.persist(path)
            .map_err(|e| WriteError::new(path, e.error))?;
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

    /// A FIFO at `path`, made with `mkfifo`.
    #[cfg(unix)]
    fn fifo(path: &Path) {
        let made = std::process::Command::new("mkfifo").arg(path).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo {}", path.display());
    }

    #[test]
    #[cfg(unix)]
    fn a_fifo_is_written_directly_and_stays_a_fifo() {
        use std::os::unix::fs::FileTypeExt;
        let dir = scratch("fifo");
        let (pipe, file) = (dir.join("pipe.c"), dir.join("file.h"));
        fifo(&pipe);
        let reader = {
            let pipe = pipe.clone();
            std::thread::spawn(move || std::fs::read_to_string(pipe).unwrap())
        };
        write_all_atomically(&[(&pipe, "int f(void);\n"), (&file, "header\n")]).unwrap();
        assert_eq!(reader.join().unwrap(), "int f(void);\n");
        assert!(std::fs::metadata(&pipe).unwrap().file_type().is_fifo());
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "header\n");
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
        assert_eq!(left.len(), 2, "no temporary file is left behind");
    }

    #[test]
    #[cfg(unix)]
    fn devices_are_streams_and_a_stream_source_needs_a_stream_header() {
        // Only looked at, never written: a test that replaced /dev/null would break the
        // machine.
        assert_eq!(target(Path::new("/dev/null")).unwrap(), Target::Stream);
        let dir = scratch("pair");
        let (source, header) = (dir.join("lone.c"), dir.join("lone.h"));
        fifo(&source);
        let e = check_writable_pair(&source, &header).unwrap_err();
        assert!(e.reason.contains("would be made as a new file"), "{e}");
        assert!(!header.exists());
        fifo(&header);
        check_writable_pair(&source, &header).unwrap();
        check_writable_pair(&dir.join("new.c"), &dir.join("new.h")).unwrap();
    }

    #[test]
    fn a_folder_is_not_a_file() {
        let dir = scratch("folder");
        let e = write_atomically(&dir, "x").unwrap_err();
        assert_eq!(e.reason, "it is a folder");
    }
}
