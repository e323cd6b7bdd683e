//! The reference fuzzy evaluator: every node's degree from its inputs', plainly and recursively,
//! with recursion (cycles) iterated to its least fixpoint; what the compiled circuit is tested
//! against.

use super::{Formulas, FIXPOINT_ROUNDS, FIXPOINT_TOLERANCE};
use crate::params::{Logic, WithLogic};
use propnet::net::{Kind, NodeId};

/// The plain evaluator: each node's degree from its inputs' degrees, recursively, memoised.
pub(super) struct Plain<'a> {
    f: &'a Formulas,
    base: &'a dyn Fn(usize) -> f64,
    values: Vec<f64>,
    done: Vec<bool>,
}

impl<'a> Plain<'a> {
    pub(super) fn new(f: &'a Formulas, base: &'a dyn Fn(usize) -> f64) -> Plain<'a> {
        Plain { f, base, values: vec![0.0; f.len()], done: vec![false; f.len()] }
    }

    fn value<L: Logic>(&mut self, logic: L, n: NodeId) -> f64 {
        if !self.done[n as usize] {
            match self.f.cycle_of[n as usize] {
                u32::MAX => {
                    self.values[n as usize] = self.gate(logic, n, &mut |me, i| me.value(logic, i));
                    self.done[n as usize] = true;
                }
                c => self.cycle(logic, c as usize),
            }
        }
        self.values[n as usize]
    }

    /// A gate's degree, reading each input's degree through `input`.
    fn gate<L: Logic>(&mut self, logic: L, n: NodeId, input: &mut dyn FnMut(&mut Self, NodeId) -> f64) -> f64 {
        let f = self.f;
        let net = &f.net;
        let inputs = &net.inputs[n as usize];
        let fold = |me: &mut Self, input: &mut dyn FnMut(&mut Self, NodeId) -> f64, op: &dyn Fn(f64, f64) -> f64| {
            let first = input(me, inputs[0]);
            inputs[1..].iter().fold(first, |acc, &i| op(acc, input(me, i)))
        };
        match net.kinds[n as usize] {
            Kind::Const(c) => f64::from(u8::from(c)),
            Kind::Base(i) => (self.base)(i as usize),
            Kind::Input(_) => 0.0,
            Kind::Not => 1.0 - input(self, inputs[0]),
            Kind::And if inputs.is_empty() => 1.0,
            Kind::Or if inputs.is_empty() => 0.0,
            Kind::And => fold(self, input, &|a, b| logic.and(a, b)),
            Kind::Or => fold(self, input, &|a, b| logic.or(a, b)),
        }
    }

    /// The least fixpoint of a recursive component: every member from 0, all updated together
    /// from the previous round's degrees until none moves.
    fn cycle<L: Logic>(&mut self, logic: L, c: usize) {
        let f = self.f;
        let members = &f.cycles[c];
        for &m in members {
            self.values[m as usize] = 0.0;
        }
        let mut next = vec![0.0; members.len()];
        for _ in 0..FIXPOINT_ROUNDS {
            for (k, &m) in members.iter().enumerate() {
                next[k] = self.gate(logic, m, &mut |me, i| {
                    if me.f.cycle_of[i as usize] == c as u32 {
                        me.values[i as usize]
                    } else {
                        me.value(logic, i)
                    }
                });
            }
            let mut moved = 0.0f64;
            for (k, &m) in members.iter().enumerate() {
                moved = moved.max((next[k] - self.values[m as usize]).abs());
                self.values[m as usize] = next[k];
            }
            if moved <= FIXPOINT_TOLERANCE {
                break;
            }
        }
        for &m in members {
            self.done[m as usize] = true;
        }
    }
}

impl WithLogic for Plain<'_> {
    type Output = Vec<f64>;
    fn run<L: Logic>(mut self, logic: L) -> Vec<f64> {
        for n in 0..self.f.len() as NodeId {
            self.value(logic, n);
        }
        self.values
    }
}
