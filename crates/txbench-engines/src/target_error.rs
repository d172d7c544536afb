//! Why a `--db` value could not be understood: its own leaf, so that the
//! engines' URL parsers and the dispatch over them do not import each other.

/// A `--db` value that could not be understood, said in one line that names
/// it (secrets removed).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct TargetError(pub String);
