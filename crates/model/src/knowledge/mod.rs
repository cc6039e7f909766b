//! What agents and developers learned, in the formats of the tools that
//! write it: Naide's learnings (markdown), Delia's playbooks (JSON), with
//! Delia's validation, curation and ranking rules.

pub mod curate;
pub mod learning;
pub mod playbook;
pub mod rank;
pub mod search;
pub mod validate;
