//! The balance series as plots (SVG, drawn with `plotters`): each seat's mean score with its 95%
//! interval, and how many games lasted each number of joint moves.

use crate::balance::Series;
use anyhow::{anyhow, Result};
use plotters::prelude::*;

/// The roles' colours, as the boards draw their pieces.
fn colour(seat: usize) -> RGBColor {
    let hex = board::COLOURS[seat % board::COLOURS.len()];
    let byte = |k: usize| u8::from_str_radix(&hex[1 + 2 * k..3 + 2 * k], 16).unwrap_or(0);
    RGBColor(byte(0), byte(1), byte(2))
}

/// Each seat's mean score over each series, a dot with its interval as a bar, one row per seat
/// and series.
pub fn scores(series: &[Series]) -> Result<String> {
    let rows: Vec<(String, usize, f64, f64, f64)> = series
        .iter()
        .flat_map(|s| {
            s.seats.iter().enumerate().map(move |(k, seat)| {
                let h = seat.half_width.unwrap_or(0.0);
                (
                    format!("{}: {}", s.player, seat.role),
                    k,
                    (seat.mean - h).max(0.0),
                    seat.mean,
                    (seat.mean + h).min(100.0),
                )
            })
        })
        .collect();
    let mut svg = String::new();
    {
        let height = 70 + 30 * rows.len() as u32;
        let root = SVGBackend::with_string(&mut svg, (640, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| anyhow!("{e}"))?;
        let mut chart = ChartBuilder::on(&root)
            .margin(12)
            .caption("mean score per seat, with its 95% interval", ("sans-serif", 15))
            .x_label_area_size(30)
            .y_label_area_size(170)
            // The segments run over 0..=n - 1 (a segmented range holds its end); the first row on top.
            .build_cartesian_2d(0f64..100f64, (0..rows.len().max(1) - 1).into_segmented())
            .map_err(|e| anyhow!("{e}"))?;
        let row = |i: usize| rows.len() - 1 - i;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .x_desc("score")
            .label_style(("sans-serif", 13))
            .axis_desc_style(("sans-serif", 13))
            .y_label_formatter(&|v| match v {
                SegmentValue::CenterOf(i) if *i < rows.len() => rows[row(*i)].0.clone(),
                _ => String::new(),
            })
            .draw()
            .map_err(|e| anyhow!("{e}"))?;
        chart
            .draw_series(rows.iter().enumerate().map(|(i, &(_, seat, lo, mean, hi))| {
                ErrorBar::new_horizontal(
                    SegmentValue::CenterOf(row(i)),
                    lo,
                    mean,
                    hi,
                    colour(seat).filled().stroke_width(2),
                    10,
                )
            }))
            .map_err(|e| anyhow!("{e}"))?;
        root.present().map_err(|e| anyhow!("{e}"))?;
    }
    Ok(svg)
}

/// How many of the series' games lasted each number of joint moves.
pub fn lengths(s: &Series) -> Result<String> {
    let (lo, hi) = match (s.lengths.first_key_value(), s.lengths.last_key_value()) {
        (Some((&lo, _)), Some((&hi, _))) => (lo, hi),
        _ => (0, 0),
    };
    let most = s.lengths.values().copied().max().unwrap_or(0);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (640, 260)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| anyhow!("{e}"))?;
        let mut chart = ChartBuilder::on(&root)
            .margin(12)
            .caption(format!("game lengths, {} against itself ({} games)", s.player, s.games), ("sans-serif", 15))
            .x_label_area_size(32)
            .y_label_area_size(44)
            .build_cartesian_2d((lo..hi).into_segmented(), 0..most + 1)
            .map_err(|e| anyhow!("{e}"))?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_desc("joint moves")
            .y_desc("games")
            .label_style(("sans-serif", 13))
            .axis_desc_style(("sans-serif", 13))
            .draw()
            .map_err(|e| anyhow!("{e}"))?;
        chart
            .draw_series(
                Histogram::vertical(&chart)
                    .style(RGBColor(0x15, 0x65, 0xc0).filled())
                    .margin(1)
                    .data(s.lengths.iter().map(|(&l, &n)| (l, n))),
            )
            .map_err(|e| anyhow!("{e}"))?;
        root.present().map_err(|e| anyhow!("{e}"))?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::balance::{Seat, Verdict};
    use std::collections::BTreeMap;

    fn series() -> Series {
        let seat = |role: &str, mean: f64| Seat {
            role: role.into(),
            mean,
            half_width: Some(5.0),
            wins: 6,
            draws: 1,
            losses: 3,
            edge: (2.0 * mean - 100.0, Some(10.0)),
        };
        Series {
            player: "random".into(),
            games: 10,
            seats: vec![seat("xplayer", 66.8), seat("oplayer", 33.2)],
            lengths: BTreeMap::from([(5, 2), (7, 5), (9, 3)]),
            verdict: Verdict::Favours { favoured: "xplayer".into() },
            seconds: 1.0,
            journal: String::new(),
        }
    }

    #[test]
    fn the_plots_are_svg_naming_the_seats_and_lengths() {
        let s = series();
        let plot = scores(std::slice::from_ref(&s)).expect("drawn");
        roxmltree::Document::parse(&plot).expect("well-formed SVG");
        assert!(plot.contains("random: xplayer") && plot.contains("random: oplayer"), "{plot}");
        let plot = lengths(&s).expect("drawn");
        roxmltree::Document::parse(&plot).expect("well-formed SVG");
        assert!(plot.contains("joint moves") && plot.contains("10 games"), "{plot}");
        // One bar per length seen.
        assert!(plot.matches("<rect").count() >= 3, "{plot}");
    }
}
