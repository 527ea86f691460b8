//! The P4 plot: median latency against table size, log-log, one panel per
//! read shape, one line per system.

use crate::reads::{SizeRun, SHAPES};
use crate::timing::Stats;
use plotters::prelude::*;

/// A fixed colour per system, so a system looks the same in every panel.
fn color(system: &str) -> RGBColor {
    match system {
        "rqc (lmdb)" => RGBColor(200, 30, 30),
        "rqc (redb)" => RGBColor(150, 40, 120),
        "rqc (sled)" => RGBColor(240, 140, 140),
        "SQLite" => RGBColor(30, 60, 200),
        "SQLite mmap" => RGBColor(120, 150, 240),
        "raw redb" => RGBColor(30, 150, 30),
        "raw LMDB" => RGBColor(200, 140, 0),
        _ => RGBColor(120, 120, 120),
    }
}

pub fn latency_plot(
    path: &std::path::Path,
    runs: &[SizeRun],
) -> Result<(), Box<dyn std::error::Error>> {
    let root = SVGBackend::new(path, (1200, 760)).into_drawing_area();
    root.fill(&WHITE)?;
    let panels = root.split_evenly((2, 3));
    let ns: Vec<f64> = runs.iter().map(|r| r.n as f64).collect();
    let (x_min, x_max) = (
        ns.iter().cloned().fold(f64::MAX, f64::min),
        ns.iter().cloned().fold(0.0, f64::max),
    );
    for (panel, shape) in panels.iter().zip(SHAPES) {
        // (system, [(n, median µs)]) in the order systems first appear.
        let mut lines: Vec<(String, Vec<(f64, f64)>)> = Vec::new();
        for run in runs {
            for s in run.shapes.iter().filter(|s| s.shape == shape) {
                for m in &s.measured {
                    let point = (run.n as f64, Stats::of(&m.samples).median / 1000.0);
                    match lines.iter_mut().find(|l| l.0 == m.system) {
                        Some(line) => line.1.push(point),
                        None => lines.push((m.system.clone(), vec![point])),
                    }
                }
            }
        }
        let ys: Vec<f64> = lines.iter().flat_map(|l| l.1.iter().map(|p| p.1)).collect();
        let y_min = ys.iter().cloned().fold(f64::MAX, f64::min).max(0.01);
        let y_max = ys.iter().cloned().fold(0.0, f64::max).max(y_min * 2.0);
        let mut chart = ChartBuilder::on(panel)
            .caption(shape.short(), ("sans-serif", 18))
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(50)
            .build_cartesian_2d(
                (x_min * 0.7..x_max * 1.4).log_scale(),
                (y_min * 0.7..y_max * 1.5).log_scale(),
            )?;
        chart
            .configure_mesh()
            .x_desc("N (rows in the table read)")
            .y_desc("median µs")
            .x_label_formatter(&|x| format!("1e{:.0}", x.log10()))
            .draw()?;
        for (system, points) in &lines {
            let c = color(system);
            chart
                .draw_series(LineSeries::new(points.clone(), c.stroke_width(2)))?
                .label(system.clone())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 16, y)], c.stroke_width(2))
                });
            chart.draw_series(points.iter().map(|p| Circle::new(*p, 3, c.filled())))?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .label_font(("sans-serif", 11))
            .border_style(BLACK)
            .background_style(WHITE.mix(0.85))
            .draw()?;
    }
    root.present()?;
    Ok(())
}
