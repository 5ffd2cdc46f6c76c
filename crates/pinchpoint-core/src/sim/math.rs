//! Logarithm, exponential, power and cube root that give the same bits on every machine.
//!
//! `f64::ln`, `exp`, `powf` and `cbrt` call the platform's C maths library. Its results may
//! differ in the last bit between glibc releases, between the FMA and plain variants glibc
//! picks at run time from the CPU it finds, and on macOS or Windows. One such bit in an
//! exponential draw, a RED average or CUBIC's K can change when a packet is sent, and from there
//! the whole run: the same scenario and seed would not give the same results on two machines.
//! These wrap the `libm` crate (a Rust port of musl's maths library): the same code everywhere,
//! hence the same bits. Every transcendental function the simulation computes goes through here;
//! `tests/determinism.rs` fails on a direct call in the model's code.
//!
//! `sqrt` needs no wrapper: IEEE 754 rounds it correctly everywhere. `f64::powi` is left to
//! LLVM, which does not promise how it rounds; [`powi`] squares and multiplies in a fixed order.

/// Natural logarithm.
#[inline]
pub fn ln(x: f64) -> f64 {
    libm::log(x)
}

/// e to the power `x`.
#[inline]
pub fn exp(x: f64) -> f64 {
    libm::exp(x)
}

/// `x` to the power `y`.
#[inline]
pub fn pow(x: f64, y: f64) -> f64 {
    libm::pow(x, y)
}

/// Cube root.
#[inline]
pub fn cbrt(x: f64) -> f64 {
    libm::cbrt(x)
}

/// `x` to the power `n`, by binary exponentiation: the product of the squares of `x` whose bit is
/// set in `n`, lowest first (the order of compiler-rt's `__powidf2`, which `f64::powi` calls on
/// x86-64 for an exponent not known at compile time).
#[inline]
pub fn powi(mut x: f64, mut n: u32) -> f64 {
    let mut r = 1.0;
    loop {
        if n & 1 == 1 {
            r *= x;
        }
        n >>= 1;
        if n == 0 {
            return r;
        }
        x *= x;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What every machine must compute, bit for bit. On this project's build machine (glibc
    /// 2.36, x86-64) `f64::ln`, `exp` and `powf` gave other last bits than these functions for
    /// 7 to 12 % of 2 million random arguments: the reason this module exists.
    #[test]
    fn values_are_pinned() {
        assert_eq!(ln(0.3).to_bits(), 0xbff3_4378_fcbd_a721);
        assert_eq!(exp(-1.5).to_bits(), 0x3fcc_8f87_724b_5c1d);
        assert_eq!(pow(0.7, 1.0 / 1.2).to_bits(), 0x3fe7_c59f_3ece_92e8);
        assert_eq!(cbrt(12.5).to_bits(), 0x4002_90fc_a9c7_61f8);
    }

    #[test]
    fn powi_multiplies_in_a_fixed_order() {
        assert_eq!(powi(0.9, 0), 1.0);
        assert_eq!(powi(3.0, 5), 243.0);
        // Same bits as std's powi on x86-64 (compiler-rt's loop) for exponents not known at
        // compile time; black_box keeps the compiler from folding std's call.
        for n in [1u32, 2, 3, 7, 19, 100, 1_000, 123_457] {
            let std = std::hint::black_box(0.99f64).powi(std::hint::black_box(n as i32));
            assert_eq!(powi(0.99, n).to_bits(), std.to_bits(), "n = {n}");
        }
    }
}
