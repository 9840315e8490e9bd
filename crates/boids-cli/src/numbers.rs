//! Whole-number flags whose refusal says what is wrong with the value.
//!
//! clap takes `-5` after a flag for another flag ("unexpected argument '-5'") unless the command
//! allows negative numbers, which every command with a number flag does; then its parser for
//! `u64` says only "invalid digit found in string". [`whole`] says which numbers the flag takes
//! instead. (clap's parsers of smaller integers already say so: "-5 is not in 1..=1024".)

use std::ops::RangeInclusive;

/// A parser of the whole numbers in `range`, refusing anything else (a negative number, a
/// fraction, a word) with the numbers the flag takes: "must be a whole number, at least 1".
pub fn whole(
    range: RangeInclusive<u64>,
) -> impl Fn(&str) -> Result<u64, String> + Clone + Send + Sync + 'static {
    move |text: &str| match text.parse::<u64>() {
        Ok(n) if range.contains(&n) => Ok(n),
        _ if *range.end() == u64::MAX => Err(format!(
            "must be a whole number, at least {}",
            range.start()
        )),
        _ => Err(format!(
            "must be a whole number from {} to {}",
            range.start(),
            range.end()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_says_which_numbers_are_taken() {
        let steps = whole(0..=u64::MAX);
        assert_eq!(steps("18446744073709551615"), Ok(u64::MAX));
        assert_eq!(
            steps("-5").unwrap_err(),
            "must be a whole number, at least 0"
        );
        assert_eq!(
            steps("1.5").unwrap_err(),
            "must be a whole number, at least 0"
        );
        let sizes = whole(100..=1000);
        assert_eq!(sizes("100"), Ok(100));
        assert_eq!(
            sizes("99").unwrap_err(),
            "must be a whole number from 100 to 1000"
        );
    }
}
