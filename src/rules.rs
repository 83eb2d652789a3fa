//! `risec rules` and `risec costs`: what a sketch step or `risec prove` may name.

/// `risec rules`: every rule of the library as an aligned table: its name with parameters and
/// its description, and under them its shape (`lhs =>> rhs`).
pub fn rules() -> String {
    let catalogue = crate::eqsat::rules::catalogue();
    let signatures: Vec<String> = catalogue.iter().map(|r| r.signature()).collect();
    let width = signatures
        .iter()
        .map(|s| s.chars().count())
        .chain(["rule".len()])
        .max()
        .unwrap_or(0);
    let mut out = format!(
        "{:<width$}  description\n{:<width$}    shape\n\n",
        "rule", ""
    );
    for (info, signature) in catalogue.iter().zip(&signatures) {
        out.push_str(&format!("{signature:<width$}  {}\n", info.doc));
        out.push_str(&format!("{:<width$}    {}\n", "", info.shape));
    }
    out.push_str(&format!(
        "\n{} rules. Pass them to `risec prove --rules`, comma-separated, with size arguments \
         where they take some: `--rules map-fusion,split-join(32)`.\n",
        catalogue.len()
    ));
    out
}

/// `risec costs`: the cost models a sketch step may name, with what each prefers.
pub fn costs() -> String {
    crate::sketch::cost::COST_MODELS
        .iter()
        .map(|(name, _, doc)| format!("{name:<18} {doc}\n"))
        .collect()
}
