//! "Did you mean" suggestions and lists of accepted names for hints.

/// The candidate closest to `typo`, if it is close enough to be a likely typo.
///
/// Close enough: an optimal-string-alignment distance of at most a third of the
/// name's length (at least 1), ignoring case: `glas` finds `glass`, `wood` finds
/// nothing in `glass, ground, metal`.
pub(crate) fn did_you_mean<'a>(typo: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let budget = (typo.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .map(|c| (strsim::osa_distance(&typo.to_lowercase(), &c.to_lowercase()), c))
        .filter(|&(distance, _)| distance <= budget)
        .min_by_key(|&(distance, _)| distance)
        .map(|(_, c)| c)
}

/// `` `a`, `b` or `c` `` (at most `max` names, then how many more there are).
pub(crate) fn one_of<'a>(names: impl IntoIterator<Item = &'a str>, max: usize) -> String {
    let names: Vec<&str> = names.into_iter().collect();
    let shown: Vec<String> = names.iter().take(max).map(|n| format!("`{n}`")).collect();
    match (shown.split_last(), names.len().saturating_sub(max)) {
        (None, _) => "nothing".to_owned(),
        (Some((only, [])), 0) => only.clone(),
        (Some((last, rest)), 0) => format!("{} or {last}", rest.join(", ")),
        (Some(_), more) => format!("{} (and {more} more)", shown.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggests_the_closest_name_within_budget() {
        let names = ["glass", "ground", "metal"];
        assert_eq!(did_you_mean("glas", names), Some("glass"));
        assert_eq!(did_you_mean("Metal", names), Some("metal"));
        assert_eq!(did_you_mean("gruond", names), Some("ground"));
        assert_eq!(did_you_mean("wood", names), None);
        assert_eq!(did_you_mean("x", Vec::<&str>::new()), None);
    }

    #[test]
    fn lists_names_readably() {
        assert_eq!(one_of(["a"], 5), "`a`");
        assert_eq!(one_of(["a", "b", "c"], 5), "`a`, `b` or `c`");
        assert_eq!(one_of(["a", "b", "c"], 2), "`a`, `b` (and 1 more)");
        assert_eq!(one_of([], 2), "nothing");
    }
}
