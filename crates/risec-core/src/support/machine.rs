//! What the machine risec runs on is: its CPU model, the instruction-set features that matter
//! to generated C, its logical CPUs and cache sizes, read from `/proc/cpuinfo` and
//! `/sys/devices/system/cpu` (Linux). Sketch parameters' constraints name these facts
//! (`require MR * NR / 16 + NR / 16 <= VECTOR_REGISTERS`), and tuning records say which
//! machine they were measured on.

use std::path::Path;

/// The machine's facts that tuning and sketch constraints use (tuning records keep them as
/// JSON).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Machine {
    /// The CPU model as the system names it (`AMD EPYC`, `Intel(R) Xeon(R) …`).
    pub cpu: String,
    /// The features among [`FEATURES`] the CPU has, in that order.
    pub features: Vec<String>,
    /// Logical CPUs online.
    pub cpus: u32,
    /// Level-1 data cache of one core, in bytes (0 when unknown).
    pub l1d: u64,
    /// Level-2 cache of one core, in bytes (0 when unknown).
    pub l2: u64,
    /// Level-3 cache, in bytes (0 when unknown).
    pub l3: u64,
}

/// The CPU features a record lists (those that change which C is fast).
pub const FEATURES: &[&str] = &[
    "sse4_2",
    "avx",
    "avx2",
    "fma",
    "avx512f",
    "avx512bw",
    "avx512vl",
    "avx512_bf16",
    "asimd",
    "sve",
];

/// The names of the facts [`Machine::facts`] gives, with what each is (for messages and docs).
pub const FACT_NAMES: &[(&str, &str)] = &[
    ("CPUS", "logical CPUs online"),
    ("L1D", "level-1 data cache of one core, bytes"),
    ("L2", "level-2 cache of one core, bytes"),
    ("L3", "level-3 cache, bytes"),
    (
        "VECTOR_BITS",
        "widest vector register, bits (512, 256 or 128)",
    ),
    (
        "VECTOR_REGISTERS",
        "vector registers (32 with AVX-512 or on Arm, else 16)",
    ),
];

impl Machine {
    /// The machine this process runs on (facts that cannot be read are 0 or empty).
    pub fn host() -> Machine {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
        let mut m = Machine::from_cpuinfo(&cpuinfo, cpus);
        let caches = Path::new("/sys/devices/system/cpu/cpu0/cache");
        for i in 0..8 {
            let dir = caches.join(format!("index{i}"));
            let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap_or_default();
            let (level, kind, size) = (read("level"), read("type"), read("size"));
            let Some(bytes) = parse_cache_size(size.trim()) else {
                continue;
            };
            match (level.trim(), kind.trim()) {
                ("1", "Data") => m.l1d = bytes,
                ("2", _) => m.l2 = bytes,
                ("3", _) => m.l3 = bytes,
                _ => {}
            }
        }
        m
    }

    /// The CPU model and features from the text of `/proc/cpuinfo` (caches unknown).
    pub fn from_cpuinfo(cpuinfo: &str, cpus: u32) -> Machine {
        let field = |key: &str| {
            cpuinfo
                .lines()
                .filter_map(|l| l.split_once(':'))
                .find(|(k, _)| k.trim() == key)
                .map(|(_, v)| v.trim().to_string())
        };
        let cpu = field("model name")
            .or_else(|| field("CPU part").map(|p| format!("CPU part {p}")))
            .unwrap_or_else(|| "unknown CPU".into());
        let flags = field("flags")
            .or_else(|| field("Features"))
            .unwrap_or_default();
        let have: Vec<&str> = flags.split_whitespace().collect();
        let features = FEATURES
            .iter()
            .filter(|f| have.contains(f))
            .map(|f| f.to_string())
            .collect();
        Machine {
            cpu,
            features,
            cpus,
            l1d: 0,
            l2: 0,
            l3: 0,
        }
    }

    /// Whether the CPU has `feature` (a name of [`FEATURES`]).
    pub fn has(&self, feature: &str) -> bool {
        self.features.iter().any(|f| f == feature)
    }

    /// The facts by the names of [`FACT_NAMES`].
    pub fn facts(&self) -> Vec<(String, u64)> {
        let vector_bits = if self.has("avx512f") {
            512
        } else if self.has("avx") || self.has("sve") {
            256
        } else {
            128
        };
        let registers = if self.has("avx512f") || self.has("asimd") {
            32
        } else {
            16
        };
        [
            ("CPUS", u64::from(self.cpus)),
            ("L1D", self.l1d),
            ("L2", self.l2),
            ("L3", self.l3),
            ("VECTOR_BITS", vector_bits),
            ("VECTOR_REGISTERS", registers),
        ]
        .into_iter()
        .map(|(n, v)| (n.to_string(), v))
        .collect()
    }
}

/// A cache size as sysfs writes it: `48K`, `2048K`, `32M`.
fn parse_cache_size(text: &str) -> Option<u64> {
    let (digits, unit) = text.split_at(text.find(|c: char| !c.is_ascii_digit())?);
    let n: u64 = digits.parse().ok()?;
    match unit {
        "K" => Some(n << 10),
        "M" => Some(n << 20),
        "G" => Some(n << 30),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_and_features_from_cpuinfo() {
        let text = "processor\t: 0\nmodel name\t: AMD EPYC\nflags\t\t: fpu sse4_2 avx avx2 fma avx512f avx512vl\n";
        let m = Machine::from_cpuinfo(text, 2);
        assert_eq!(m.cpu, "AMD EPYC");
        assert_eq!(
            m.features,
            ["sse4_2", "avx", "avx2", "fma", "avx512f", "avx512vl"]
        );
        let facts = m.facts();
        let fact = |n: &str| facts.iter().find(|(k, _)| k == n).unwrap().1;
        assert_eq!(fact("VECTOR_BITS"), 512);
        assert_eq!(fact("VECTOR_REGISTERS"), 32);
        assert_eq!(fact("CPUS"), 2);
        let avx2 = Machine::from_cpuinfo("model name : x\nflags : avx avx2 fma\n", 4);
        assert_eq!(avx2.facts()[4].1, 256);
        assert_eq!(avx2.facts()[5].1, 16);
    }

    #[test]
    fn cache_sizes_as_sysfs_writes_them() {
        assert_eq!(parse_cache_size("48K"), Some(48 << 10));
        assert_eq!(parse_cache_size("32M"), Some(32 << 20));
        assert_eq!(parse_cache_size("12"), None);
        assert_eq!(parse_cache_size(""), None);
    }

    #[test]
    fn facts_are_named_as_documented() {
        let names: Vec<String> = Machine::host().facts().into_iter().map(|f| f.0).collect();
        let documented: Vec<&str> = FACT_NAMES.iter().map(|f| f.0).collect();
        assert_eq!(names, documented);
    }
}
