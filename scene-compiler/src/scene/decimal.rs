//! The fast reader's number path: decimals as scene files write them (`-0.4447733`,
//! `12`, `0.5`) read to the same `f32` as `f32::from_str`, in one pass over the
//! digits. At 1M spheres the file holds 5M numbers, and `from_str` (which first
//! re-scans the text for every syntax it accepts) was a third of the parse.
//!
//! Exactness (Clinger 1990): with at most 15 significant digits the digits are an
//! integer `m < 2^53` and `10^k` (k <= 15) are exact doubles, so `m / 10^k` is the
//! correctly rounded double `x` of the decimal `v`. Rounding `x` to `f32` gives
//! `v`'s correctly rounded `f32` unless `x` lies exactly halfway between two floats:
//! such a midpoint is itself a double, so no midpoint lies strictly between `v` and
//! its nearest double `x`, and both round the same way. When `x` is a midpoint, `v`
//! may be one too (a true tie) or merely close; those rare texts go to `from_str`.

/// `10^k` for `k` in `0..=15`, each exact as `f64`.
const POW10: [f64; 16] =
    [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];
/// Significant digits the exact path takes: `10^15 < 2^53`.
const MAX_DIGITS: usize = 15;

/// The value of `text` when it is `-?[0-9]+(\.[0-9]+)?` with at most 15 digits and no
/// rounding tie in the way: the same `f32` as `f32::from_str`. `None` for anything
/// else (exponents, more digits, ties), which the caller reads with `from_str`.
#[inline]
pub(super) fn plain_f32(text: &[u8]) -> Option<f32> {
    let (negative, digits) = match text {
        [b'-', rest @ ..] => (true, rest),
        _ => (false, text),
    };
    let dot = digits.iter().position(|&b| b == b'.');
    let (whole, fraction) = match dot {
        Some(at) => (&digits[..at], &digits[at + 1..]),
        None => (digits, &[][..]),
    };
    if whole.is_empty() || (dot.is_some() && fraction.is_empty()) || whole.len() + fraction.len() > MAX_DIGITS
    {
        return None;
    }
    let mut mantissa = 0u64;
    for &b in whole.iter().chain(fraction) {
        let digit = b.wrapping_sub(b'0');
        if digit > 9 {
            return None;
        }
        mantissa = mantissa * 10 + u64::from(digit);
    }
    let x = mantissa as f64 / POW10[fraction.len()];
    // The 29 bits of a double's significand below an f32's last bit (for x in f32's
    // normal range, which every nonzero x here is: 1e-15 <= x < 1e15): exactly half
    // of that last bit means a midpoint.
    const BELOW_F32: u64 = (1 << 29) - 1;
    if x.to_bits() & BELOW_F32 == 1 << 28 {
        return None;
    }
    let value = x as f32;
    Some(if negative { -value } else { value })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn same_as_from_str(text: &str) {
        let expected: Result<f32, _> = text.parse();
        if let Some(value) = plain_f32(text.as_bytes()) {
            assert_eq!(Ok(value.to_bits()), expected.map(f32::to_bits), "{text}");
        }
    }

    #[test]
    fn common_spellings_take_the_fast_path() {
        for (text, value) in [("0", 0.0), ("-0.0", -0.0), ("12", 12.0), ("0.5", 0.5), ("-1000.25", -1000.25)]
        {
            let read = plain_f32(text.as_bytes()).expect(text);
            assert_eq!(read.to_bits(), f32::to_bits(value), "{text}");
        }
        assert_eq!(plain_f32(b"0.44477326"), Some(0.444_773_26));
    }

    #[test]
    fn other_spellings_are_left_to_from_str() {
        for text in
            ["", "-", ".5", "1.", "1e3", "1.5E-2", "+1", "1.2.3", "--1", "1_000", "0.1234567890123456"]
        {
            assert_eq!(plain_f32(text.as_bytes()), None, "{text}");
        }
    }

    #[test]
    fn ties_between_two_floats_are_left_to_from_str() {
        // 2^24 + 1 is halfway between the floats 2^24 and 2^24 + 2.
        assert_eq!(plain_f32(b"16777217"), None);
        assert_eq!(plain_f32(b"16777217.0"), None);
        same_as_from_str("16777217");
        same_as_from_str("16777219");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20_000))]

        #[test]
        fn decimals_read_as_from_str_reads_them(
            negative: bool,
            whole in 0u64..10_000_000_000,
            fraction in proptest::option::of("[0-9]{1,12}"),
        ) {
            let sign = if negative { "-" } else { "" };
            let text = match fraction {
                Some(f) => format!("{sign}{whole}.{f}"),
                None => format!("{sign}{whole}"),
            };
            same_as_from_str(&text);
        }

        #[test]
        fn printed_floats_read_back_exactly(bits in 0u32..0x7f80_0000) {
            // What scene generators write: Rust's shortest round-trip decimal.
            let value = f32::from_bits(bits);
            let text = format!("{value:?}");
            same_as_from_str(&text);
            same_as_from_str(&format!("{value}"));
        }
    }
}
