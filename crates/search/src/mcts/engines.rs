//! The engines the tree search runs on. The search itself needs only a [`StateMachine`]; what
//! an engine adds is how it plays out leaves and whether other threads can share its states.
//! The propnet plays 64 leaves at once, bit-sliced, or steers playouts by the goal latches, and
//! its states mean the same to every machine of the net, so workers on other threads play
//! leaves while the tree thread selects. The reasoner plays one leaf at a time, and its states
//! are ids in its own term store, so it searches on one thread.

use machine::{MachineError, StateMachine};
use metagame::playout::{self, Outcome, Settings};
use propnet::{PropnetMachine, PropnetState};
use rand::rngs::SmallRng;
use reasoner::Reasoner;

/// A state machine the tree search can run on.
pub trait SearchMachine: StateMachine<State: Send, Move: Copy + Send> + Send + Sized {
    /// What a playing thread keeps between batches of playouts.
    type Scratch: Default + Send;

    /// A machine whose states and moves mean the same as this one's, for another thread; `None`
    /// when they mean something only to this machine (the search then runs on one thread).
    fn fork(&self) -> Option<Self>;

    /// The state as the bitset over the net's base propositions that goal latches read, where
    /// the machine's states are such bitsets.
    fn bits(state: &Self::State) -> Option<&[u64]>;

    /// The move as an index into the net's moves, where moves are such indices.
    fn move_index(mv: &Self::Move) -> Option<u32>;

    /// How many moves [`move_index`](Self::move_index) numbers (0 where moves are not indices).
    fn move_count(&self) -> usize;

    /// The heap bytes a state takes, for the pool's memory budget.
    fn state_bytes(state: &Self::State) -> usize;

    /// The lowest and highest goal value the game can give `role`, if the machine knows them.
    fn goal_range(&self, role: usize) -> Option<(u32, u32)>;

    /// How many guided playouts advance side by side (see [`playout::guided_each`]), with what
    /// `scratch` has learned: 1 where they run one at a time.
    fn side_by_side(&self, _scratch: &Self::Scratch) -> usize {
        1
    }

    /// One playout from each of `starts`, in order, as `settings` say; `None` where the
    /// deadline cut it short.
    fn play_out(
        &mut self,
        scratch: &mut Self::Scratch,
        starts: &[Self::State],
        rng: &mut SmallRng,
        settings: &Settings,
    ) -> Result<Vec<Option<Outcome<Self::Move>>>, MachineError>;
}

impl SearchMachine for PropnetMachine {
    type Scratch = playout::Lookahead;

    fn fork(&self) -> Option<PropnetMachine> {
        Some(self.sibling())
    }

    fn bits(state: &PropnetState) -> Option<&[u64]> {
        Some(state.words())
    }

    fn move_index(mv: &u32) -> Option<u32> {
        Some(*mv)
    }

    fn move_count(&self) -> usize {
        self.program().move_count()
    }

    fn state_bytes(state: &PropnetState) -> usize {
        std::mem::size_of_val(state.words())
    }

    fn goal_range(&self, role: usize) -> Option<(u32, u32)> {
        let values = self.program().goal_values(role);
        Some((*values.first()?, *values.last()?))
    }

    fn side_by_side(&self, scratch: &playout::Lookahead) -> usize {
        scratch.side_by_side(self.program())
    }

    fn play_out(
        &mut self,
        scratch: &mut playout::Lookahead,
        starts: &[PropnetState],
        rng: &mut SmallRng,
        settings: &Settings,
    ) -> Result<Vec<Option<Outcome<u32>>>, MachineError> {
        match &settings.knowledge {
            Some(knowledge) => playout::guided_each(self, scratch, starts, knowledge, rng, settings),
            None => Ok(playout::bit_sliced(self, starts, rng, settings)),
        }
    }
}

impl SearchMachine for Reasoner {
    type Scratch = ();

    fn fork(&self) -> Option<Reasoner> {
        None
    }

    fn bits(_: &reasoner::State) -> Option<&[u64]> {
        None
    }

    fn move_index(_: &reasoner::TermId) -> Option<u32> {
        None
    }

    fn move_count(&self) -> usize {
        0
    }

    fn state_bytes(state: &reasoner::State) -> usize {
        std::mem::size_of_val(state.props())
    }

    fn goal_range(&self, _role: usize) -> Option<(u32, u32)> {
        None
    }

    fn play_out(
        &mut self,
        _: &mut (),
        starts: &[reasoner::State],
        rng: &mut SmallRng,
        settings: &Settings,
    ) -> Result<Vec<Option<Outcome<reasoner::TermId>>>, MachineError> {
        starts.iter().map(|start| playout::random(self, start, rng, settings)).collect()
    }
}
