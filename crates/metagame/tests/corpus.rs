//! Material estimates on corpus games, where they should and should not be found.

use metagame::Material;
use std::time::{Duration, Instant};

/// The material estimates of a corpus game from a second of random games.
fn material(stem: &str) -> Option<(propnet::Net, Material)> {
    let net = testkit::shared::net(env!("CARGO_MANIFEST_DIR"), stem)?;
    let material = Material::discover(&net, None, Instant::now() + Duration::from_secs(1), 1);
    Some((net, material))
}

#[test]
fn boxes_held_predict_dots_and_boxes() {
    let Some((net, material)) = material("dotsAndBoxes") else { return };
    for (role, own) in [(0, "x"), (1, "o")] {
        let fit = material.fits[role].as_ref().unwrap_or_else(|| panic!("no estimate for role {role}: {material:?}"));
        assert!(fit.holdout_correlation > 0.2, "{fit:?}");
        let term = fit.terms.iter().find(|t| material.groups[t.group].name == format!("(box ? ? {own})"));
        assert!(term.is_some_and(|t| t.weight > 0.0), "{} gains from its own boxes: {material:?}", net.roles[role]);
        // More of its own boxes, everything else equal, is no lower an estimate (within 0..1).
        let group = &material.groups[term.expect("found").group];
        let mut state = vec![0u64; net.bases.len().div_ceil(64)];
        let low = material.value(&state, role).expect("an estimate");
        for (w, m) in state.iter_mut().zip(&group.mask) {
            *w |= m;
        }
        let high = material.value(&state, role).expect("an estimate");
        assert!((0.0..=1.0).contains(&low) && (0.0..=1.0).contains(&high) && high >= low, "{low} {high}");
    }
}

#[test]
fn counting_discs_predicts_nothing_in_connect_four() {
    let Some((_, material)) = material("connectFour") else { return };
    assert!(material.is_empty(), "{material:?}");
}
