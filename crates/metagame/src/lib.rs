//! What a player learns of a game beyond its rules, and the playouts that use it.
//!
//! The analysis (crate `analysis`) proves what holds in every state: latches, goal forms,
//! factors. This crate learns what random and guided games show: the roles' pieces and where
//! they stand better ([`Pieces`], [`Placement`], built on [`Material`]), a fitted outlook where
//! there are none ([`Outlook`]), whether the playouts' tactics pay ([`TacticsCost`]) and whether
//! move averages can steer them ([`MoveVariety`]). [`Knowledge`] bundles what was found for the
//! search, and [`playout`] plays games with it: the tree search (crate `search`) plays its
//! leaves out there, and the learning plays its games there, so that what it learns is about the
//! games the search will sample. [`prepare`] is the one way a start clock is spent on all of it,
//! within a [`Budget`] of the clock's shares, learning what the search will use ([`Wanted`]);
//! [`leaf_evaluator`] turns the knowledge into a depth-limited search's [`Evaluator`].
//!
//! The models hold what was found and say nothing of how; the `discover` module finds them, by
//! games played with the knowledge so far, so no module here imports one that imports it back.

mod calibrate;
mod discover;
mod evaluate;
mod knowledge;
mod material;
mod outlook;
mod pace;
mod pieces;
mod placement;
pub mod playout;
mod prepare;
mod rejected;

pub use self::calibrate::{MoveVariety, TacticsCost};
pub use self::evaluate::{leaf_evaluator, Evaluator, GoalEvaluator, UNKNOWN};
pub use self::knowledge::Knowledge;
pub use self::material::{Fit, FitTerm, Group, Material};
pub use self::outlook::{Curve, LeadSource, Outlook};
pub use self::pieces::{Balance, PieceKind, PieceSet, Pieces};
pub use self::placement::Placement;
pub use self::prepare::{prepare, prepare_with, Budget, Prepared, Report, Wanted};
pub use self::rejected::Rejected;
