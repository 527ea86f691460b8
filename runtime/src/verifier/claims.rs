//! A plan's claims held to what the bound pass recomputed: each claimed measure within the ceiling and over the cost found (E0631, E0632), and the steps in memory and the largest value walked within the checker's room (E0634).

use super::abstract_value::Abs;
use super::bounds::Verifier;
use crate::error::Result;
use rqc_cost::{Cost, Poly, CEILING};
use rqc_plan::{Bound, Node};

/// How many times the checker's room of steps a plan may take
/// ([`Verifier::steps_within`]).
const PLAN_STEPS_SLACK: u64 = 4;

impl<'p> Verifier<'p> {
    /// E0634 when the plan may take more steps in memory than the
    /// checker lets a definition that reads as many rows take
    /// (`rqc_cost::steps_room`): a forged plan is held to it as a checked
    /// one is (spec/cost.md §2, "Steps").
    pub(super) fn steps_within(&self, node: &Node, cost: &Cost) -> Result<()> {
        // What the caller passes in counts as what the plan reads.
        let passed = self
            .params
            .iter()
            .filter_map(|p| p.values().max_value())
            .fold(0, u64::saturating_add);
        let rows = cost
            .rows
            .max_value()
            .unwrap_or(u64::MAX)
            .saturating_add(passed);
        let walk_room = rows
            .saturating_add(1)
            .saturating_mul(rows.saturating_add(1))
            .max(rqc_cost::MAX_VALUE_PARTS)
            .saturating_mul(PLAN_STEPS_SLACK);
        if self.largest_walk > walk_room {
            return self.fault(
                "E0634",
                node,
                format!(
                    "it walks a value of {} values whole, more than the {walk_room} a plan over {rows} rows and argument values may",
                    self.largest_walk
                ),
            );
        }
        // A plan has more nodes than its source had expressions (a `let`
        // is a node of its own, a call is inlined with its arguments), so
        // the checked program's steps are within a few times its room.
        let room = rqc_cost::steps_room(rows).saturating_mul(PLAN_STEPS_SLACK);
        match cost.steps.max_value() {
            Some(steps) if steps <= room => Ok(()),
            steps => self.fault(
                "E0634",
                node,
                format!(
                    "it may take {} steps in memory, more than the {room} a plan over {rows} rows and argument values may take",
                    steps.map_or("more than 2^64".to_string(), |s| s.to_string())
                ),
            ),
        }
    }

    /// The values of `value`, a value the run walks whole, as steps; the
    /// largest one is kept for the value room.
    pub fn walked(&mut self, value: &Abs<'p>) -> Poly {
        let most = value.values().max_value().unwrap_or(u64::MAX);
        self.largest_walk = self.largest_walk.max(most);
        value.walk_steps()
    }

    /// Each claimed measure (seeks, rows, round trips; the steps are
    /// claimed by no plan, and held by [`Verifier::steps_within`]).
    pub(super) fn within(&self, node: &Node, claim: &Bound, cost: &Cost) -> Result<()> {
        let claimed = [claim.seeks, claim.rows, claim.round_trips];
        for ((measure, poly), claimed) in cost.measures().into_iter().zip(claimed) {
            if claimed > CEILING {
                return self.fault(
                    "E0632",
                    node,
                    format!("it claims {claimed} {measure}, above the ceiling of {CEILING}"),
                );
            }
            let computed = poly.max_value().unwrap_or(u64::MAX);
            if computed > claimed {
                return self.fault(
                    "E0631",
                    node,
                    format!(
                        "it claims at most {claimed} {measure}, and the plan may make {}",
                        if computed > CEILING {
                            format!("more than {CEILING}")
                        } else {
                            computed.to_string()
                        }
                    ),
                );
            }
        }
        Ok(())
    }
}
