//! What the C function of an entry point takes and returns, as the driver calls it: the size
//! parameters (`int`), the output (`T *out`), then each value parameter (`const T *` for an
//! array, `T` for a scalar), every array of scalars stored row-major at its real sizes.

use crate::backend_c::c_ast::scalar_c_name;
use crate::core::TypedProgram;
use crate::interp::{eval_nat_in, program_signature, slice_lookup, Value};
use crate::ir::nat::Nat;
use crate::ir::types::{ScalarType, Type, TypeNode};

/// One value the C function takes or writes: a scalar, or an array of scalars.
#[derive(Clone, Debug)]
pub struct Operand {
    /// The parameter's name (`out` for the result).
    pub name: String,
    /// The scalar type of its elements.
    pub scalar: ScalarType,
    /// Its dimensions, outermost first, in the context of the size parameters (empty for a
    /// scalar).
    pub dims: Vec<Nat>,
}

impl Operand {
    fn of(name: &str, ty: &Type) -> Result<Operand, String> {
        let mut dims = Vec::new();
        let mut t = ty;
        while let TypeNode::Array(n, e) = t.get() {
            dims.push(n.clone());
            t = e;
        }
        match t.get() {
            TypeNode::Scalar(s @ (ScalarType::F32 | ScalarType::F64 | ScalarType::I32 | ScalarType::I64)) => {
                Ok(Operand {
                    name: name.to_string(),
                    scalar: *s,
                    dims,
                })
            }
            _ => Err(format!(
                "`{name}` has type {ty}: the generic benchmark takes scalars and arrays of f32, f64, i32 or i64"
            )),
        }
    }

    /// Its number of elements at `sizes` (the size parameters' values, outermost first).
    pub fn len(&self, sizes: &[u64]) -> Result<u64, String> {
        let lookup = slice_lookup(sizes);
        let mut total: u64 = 1;
        for d in &self.dims {
            let v = eval_nat_in(d, &lookup).map_err(|e| e.to_string())?;
            total = total
                .checked_mul(v)
                .ok_or_else(|| format!("`{}` has too many elements", self.name))?;
        }
        Ok(total)
    }

    /// Whether it is a scalar (passed by value).
    pub fn is_scalar(&self) -> bool {
        self.dims.is_empty()
    }

    /// The C spelling of its element type.
    pub fn c_type(&self) -> &'static str {
        scalar_c_name(self.scalar)
    }

    /// The size of one element in bytes.
    pub fn element_bytes(&self) -> u64 {
        match self.scalar {
            ScalarType::F64 | ScalarType::I64 => 8,
            _ => 4,
        }
    }
}

/// The C interface of an entry point.
#[derive(Clone, Debug)]
pub struct Shape {
    /// The entry point's name.
    pub program: String,
    /// The size parameters' names, outermost first.
    pub sizes: Vec<String>,
    /// The value parameters, in order.
    pub inputs: Vec<Operand>,
    /// The result.
    pub output: Operand,
}

impl Shape {
    /// The interface of `p`, or why the generic benchmark cannot call it.
    pub fn of(p: &TypedProgram) -> Result<Shape, String> {
        let (params, result) = program_signature(p).map_err(|e| e.to_string())?;
        let inputs = p
            .value_params
            .iter()
            .zip(&params)
            .map(|(n, t)| Operand::of(n, t))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Shape {
            program: p.name.clone(),
            sizes: p.size_params.clone(),
            inputs,
            output: Operand::of("out", &result)?,
        })
    }

    /// The bytes one call reads and writes at `sizes`: every input once, the output once (what
    /// a memory-bound kernel moves at least).
    pub fn bytes(&self, sizes: &[u64]) -> Result<u64, String> {
        let mut total = 0u64;
        for o in self.inputs.iter().chain([&self.output]) {
            total = total.saturating_add(o.len(sizes)?.saturating_mul(o.element_bytes()));
        }
        Ok(total)
    }

    /// The C prototype of a function of this interface named `f`.
    pub fn prototype(&self, f: &str) -> String {
        let mut params: Vec<String> = self.sizes.iter().map(|_| "int".to_string()).collect();
        params.push(format!("{} *restrict", self.output.c_type()));
        for i in &self.inputs {
            if i.is_scalar() {
                params.push(i.c_type().to_string());
            } else {
                params.push(format!("const {} *restrict", i.c_type()));
            }
        }
        format!("int {f}({})", params.join(", "))
    }
}

/// A flat buffer of scalars read back from the driver, as an interpreter value of the
/// operand's type at `sizes`.
pub fn to_value(o: &Operand, sizes: &[u64], flat: &[f64]) -> Result<Value, String> {
    let lookup = slice_lookup(sizes);
    let dims: Vec<usize> = o
        .dims
        .iter()
        .map(|d| {
            eval_nat_in(d, &lookup)
                .map(|v| v as usize)
                .map_err(|e| e.to_string())
        })
        .collect::<Result<_, _>>()?;
    let scalar = |x: f64| match o.scalar {
        ScalarType::F32 => Value::F32(x as f32),
        ScalarType::F64 => Value::F64(x),
        ScalarType::I32 => Value::I32(x as i32),
        _ => Value::I64(x as i64),
    };
    fn build(dims: &[usize], flat: &[f64], scalar: &dyn Fn(f64) -> Value) -> Value {
        match dims {
            [] => scalar(flat[0]),
            [n, rest @ ..] => {
                let step: usize = rest.iter().product();
                Value::array((0..*n).map(|i| build(rest, &flat[i * step..], scalar)))
            }
        }
    }
    let need: usize = dims.iter().product();
    if flat.len() < need {
        return Err(format!(
            "`{}`: {} values read back, {need} expected",
            o.name,
            flat.len()
        ));
    }
    Ok(build(&dims, flat, &scalar))
}

/// An interpreter value of an operand's type flattened to its scalars, row-major.
pub fn flatten(v: &Value) -> Vec<f64> {
    let mut scalars = Vec::new();
    v.flatten(&mut scalars);
    scalars
        .iter()
        .map(|s| match s {
            Value::F32(x) => f64::from(*x),
            Value::F64(x) => *x,
            Value::I32(x) => f64::from(*x),
            Value::I64(x) => *x as f64,
            _ => f64::NAN,
        })
        .collect()
}
