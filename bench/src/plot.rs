//! The P4 plot: median latency against data size, log-log, one line per system.

use crate::Series;
use plotters::prelude::*;

pub fn latency_plot(
    path: &std::path::Path,
    series: &[Series],
) -> Result<(), Box<dyn std::error::Error>> {
    let root = SVGBackend::new(path, (900, 560)).into_drawing_area();
    root.fill(&WHITE)?;
    let xs: Vec<f64> = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0 as f64))
        .collect();
    let ys: Vec<f64> = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .collect();
    let (x_min, x_max) = (
        xs.iter().cloned().fold(f64::MAX, f64::min),
        xs.iter().cloned().fold(0.0, f64::max),
    );
    let (y_min, y_max) = (
        ys.iter().cloned().fold(f64::MAX, f64::min).max(0.1),
        ys.iter().cloned().fold(0.0, f64::max),
    );
    let mut chart = ChartBuilder::on(&root)
        .caption("median latency against data size", ("sans-serif", 22))
        .margin(20)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(
            (x_min * 0.8..x_max * 1.25).log_scale(),
            (y_min * 0.5..y_max * 2.0).log_scale(),
        )?;
    chart
        .configure_mesh()
        .x_desc("N (posts)")
        .y_desc("µs")
        .draw()?;
    let colors = [
        RED,
        RGBColor(240, 140, 140),
        BLUE,
        RGBColor(130, 150, 240),
        GREEN,
        RGBColor(120, 200, 120),
    ];
    for (s, color) in series.iter().zip(colors) {
        let points: Vec<(f64, f64)> = s.points.iter().map(|(n, y)| (*n as f64, *y)).collect();
        chart
            .draw_series(LineSeries::new(points.clone(), color.stroke_width(2)))?
            .label(s.name.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
        chart.draw_series(points.iter().map(|p| Circle::new(*p, 3, color.filled())))?;
    }
    chart
        .configure_series_labels()
        .border_style(BLACK)
        .background_style(WHITE.mix(0.9))
        .draw()?;
    root.present()?;
    Ok(())
}
