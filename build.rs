//! Generates the parser from `grammar/rise.lalrpop` with LALRPOP at build time.

fn main() {
    lalrpop::Configuration::new()
        .set_in_dir("grammar")
        .set_out_dir(std::env::var("OUT_DIR").unwrap())
        .process()
        .unwrap();
}
