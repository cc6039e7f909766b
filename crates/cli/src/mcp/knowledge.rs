//! The knowledge tools: `search_knowledge` (the ranked index the chat
//! uses, kept open for the session), `add_learning`, `rate_bullet`.

use rmcp::{Json, handler::server::wrapper::Parameters, tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use switchboard_model::knowledge::search::{HitKind, SearchQuery};
use switchboard_store::{
    clock,
    knowledge::{learnings, playbooks},
};

use super::{Server, ToolError};

/// `search_knowledge`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    /// What to look for.
    pub query: String,
    /// Only these kinds: `learning`, `bullet`, `profile`, `memory`, `spec`.
    #[serde(default)]
    pub kinds: Vec<String>,
    /// At most this many hits (default 10, at most 100).
    #[serde(default)]
    pub limit: Option<usize>,
}

/// One hit, best first.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Hit {
    /// `learning`, `bullet`, `profile`, `memory` or `spec`.
    pub kind: String,
    /// The file, workspace-relative.
    pub path: String,
    /// The 1-based line it starts on (0 for bullets and whole files).
    pub line: usize,
    /// Its title.
    pub title: String,
    /// The text around the match.
    pub snippet: String,
    /// The ranking score: relevance × utility^0.5 × recency^0.3.
    pub score: f64,
    /// For a bullet: its playbook's task type (for `rate_bullet`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task_type: Option<String>,
    /// For a bullet: its id (for `rate_bullet`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bullet_id: Option<String>,
    /// For a bullet: helpful votes.
    pub helpful: u32,
    /// For a bullet: harmful votes.
    pub harmful: u32,
}

/// `search_knowledge`'s result.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Hits {
    /// Best first.
    pub hits: Vec<Hit>,
    /// Files that could not be indexed, and similar notes.
    pub warnings: Vec<String>,
}

/// `add_learning`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LearningArgs {
    /// The learnings file's category (e.g. `testing`, `architecture`).
    pub category: String,
    /// The entry's heading.
    pub title: String,
    /// What was learned (markdown).
    pub body: String,
}

/// Where a learning landed.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Learned {
    /// The file, workspace-relative.
    pub path: String,
    /// The line its heading is on.
    pub line: usize,
}

/// `rate_bullet`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RateArgs {
    /// The playbook's task type (from a search hit's `task_type`).
    pub task_type: String,
    /// The bullet's id (`strat-…`).
    pub bullet_id: String,
    /// Whether it helped (`true`) or harmed (`false`).
    pub helpful: bool,
}

/// A bullet after a vote.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Rated {
    /// The bullet's id.
    pub bullet_id: String,
    /// Helpful votes now.
    pub helpful: u32,
    /// Harmful votes now.
    pub harmful: u32,
}

fn kind(name: &str) -> Result<HitKind, ToolError> {
    HitKind::ALL
        .into_iter()
        .find(|kind| kind.as_str() == name)
        .ok_or_else(|| {
            ToolError::invalid(format!(
                "unknown kind {name:?}; use learning, bullet, profile, memory or spec"
            ))
        })
}

#[tool_router(router = knowledge_tools, vis = "pub(super)")]
impl Server {
    /// Searches the project's knowledge.
    #[tool(
        description = "Search the project's knowledge — learnings, playbook bullets, profiles, \
                       memories and spec files — best first, ranked as the chat ranks them \
                       (relevance × utility^0.5 × recency^0.3)."
    )]
    pub async fn search_knowledge(
        &self,
        Parameters(args): Parameters<SearchArgs>,
    ) -> Result<Json<Hits>, ToolError> {
        let kinds = args
            .kinds
            .iter()
            .map(|name| kind(name))
            .collect::<Result<Vec<_>, _>>()?;
        let query = SearchQuery {
            kinds,
            ..SearchQuery::new(args.query, args.limit.unwrap_or(10).clamp(1, 100))
        };
        let index = self.search.clone();
        let results = self
            .blocking(move |workspace| {
                Ok(index.with(workspace, |index| {
                    index.sync_and_search(workspace, &query, clock::now())
                })?)
            })
            .await?;
        Ok(Json(Hits {
            hits: results
                .hits
                .into_iter()
                .map(|hit| Hit {
                    kind: hit.kind.as_str().to_owned(),
                    path: hit.path,
                    line: hit.line,
                    title: hit.title,
                    snippet: hit.snippet,
                    score: hit.score,
                    task_type: hit.task_type,
                    bullet_id: hit.bullet_id,
                    helpful: hit.helpful,
                    harmful: hit.harmful,
                })
                .collect(),
            warnings: results.warnings,
        }))
    }

    /// Records a learning.
    #[tool(
        description = "Record a learning in the project's learnings file for a category (Naide's \
                       format), so the chat and other agents find it later."
    )]
    pub async fn add_learning(
        &self,
        Parameters(args): Parameters<LearningArgs>,
    ) -> Result<Json<Learned>, ToolError> {
        let appended = self
            .blocking(move |workspace| {
                Ok(learnings::append(
                    workspace,
                    &args.category,
                    &args.title,
                    &args.body,
                    clock::now(),
                )?)
            })
            .await?;
        Ok(Json(Learned {
            path: appended.path,
            line: appended.line,
        }))
    }

    /// Votes on a playbook bullet.
    #[tool(
        description = "Count one helpful or harmful vote on a playbook bullet (from a \
                       search_knowledge hit's task_type and bullet_id); the curator prunes \
                       bullets that keep harming."
    )]
    pub async fn rate_bullet(
        &self,
        Parameters(args): Parameters<RateArgs>,
    ) -> Result<Json<Rated>, ToolError> {
        let bullet = self
            .blocking(move |workspace| {
                Ok(playbooks::vote(
                    workspace,
                    &args.task_type,
                    &args.bullet_id,
                    args.helpful,
                    clock::now(),
                )?)
            })
            .await?;
        Ok(Json(Rated {
            bullet_id: bullet.id.unwrap_or_default(),
            helpful: bullet.helpful_count,
            harmful: bullet.harmful_count,
        }))
    }
}
