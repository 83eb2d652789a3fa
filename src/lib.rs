pub mod core;
pub mod diagnostics;
pub mod nat;
pub mod primitive;
pub mod syntax;
pub mod types;
