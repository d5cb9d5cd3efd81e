//! Shared helpers of the developer tools.
