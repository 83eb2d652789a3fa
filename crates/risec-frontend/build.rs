//! Generates the parser of `grammar/rise.lalrpop` with LALRPOP at build time.
fn main() {
    lalrpop::Configuration::new()
        .set_in_dir("grammar")
        .set_out_dir(std::env::var("OUT_DIR").unwrap())
        .emit_rerun_directives(true)
        .process()
        .unwrap();
}
