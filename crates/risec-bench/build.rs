//! Records the target triple: risec drives the C compiler through the `cc` crate at run time.
fn main() {
    println!(
        "cargo:rustc-env=RISEC_TARGET={}",
        std::env::var("TARGET").unwrap()
    );
}
