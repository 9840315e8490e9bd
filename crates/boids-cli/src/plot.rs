//! PNG plots of experiment figures and sweep heatmaps, drawn with plotters' bitmap backend.
//!
//! Text is rendered with a font compiled into the binary (DejaVu Sans, `assets/`), through
//! plotters' `ab_glyph` feature: no system fonts or font libraries are needed, so plots come out
//! the same on a bare CI machine. The PNG goes to an output being written ([`Pending`]), which
//! the command puts in place with its other outputs.

use std::sync::Once;

use std::io::Write;

use anyhow::{Result, anyhow};
use boids_core::params::Value;
use boids_io::output::Pending;
use boids_lab::experiments::{Figure, Mode, Panel};
use boids_lab::sweep::Heatmap;
use image::ColorType;
use image::ImageEncoder;
use image::codecs::png::PngEncoder;
use plotters::prelude::*;
use plotters::style::FontStyle;

const FONT: &str = "sans-serif";
const PANEL: (u32, u32) = (720, 520);
const TITLE_HEIGHT: u32 = 50;
const COLORS: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
];

fn register_font() -> Result<()> {
    static REGISTER: Once = Once::new();
    let mut result = Ok(());
    REGISTER.call_once(|| {
        result = plotters::style::register_font(
            FONT,
            FontStyle::Normal,
            include_bytes!("../assets/DejaVuSans.ttf"),
        )
        .map_err(|_| anyhow!("the embedded font cannot be read"));
    });
    result
}

/// Writes a PNG to `out`: `draw` renders into an RGB buffer of `size`.
fn write_png(
    out: &mut Pending,
    size: (u32, u32),
    draw: impl FnOnce(DrawingArea<BitMapBackend, plotters::coord::Shift>) -> Result<()>,
) -> Result<()> {
    register_font()?;
    let mut pixels = vec![0u8; size.0 as usize * size.1 as usize * 3];
    {
        let root = BitMapBackend::with_buffer(&mut pixels, size).into_drawing_area();
        root.fill(&WHITE).map_err(plot_error)?;
        draw(root.clone())?;
        root.present().map_err(plot_error)?;
    }
    // The encoder's error repeats its I/O cause as its source: keep the message alone.
    PngEncoder::new(&mut *out)
        .write_image(&pixels, size.0, size.1, ColorType::Rgb8)
        .map_err(|e| anyhow!("{e}"))?;
    out.flush()?;
    Ok(())
}

fn plot_error<E: std::fmt::Debug>(e: E) -> anyhow::Error {
    anyhow!("cannot draw the plot: {e:?}")
}

/// Draws `figure` (panels two per row) as a PNG into `out`.
pub fn figure(figure: &Figure, out: &mut Pending) -> Result<()> {
    let cols = figure.panels.len().clamp(1, 2) as u32;
    let rows = figure.panels.len().div_ceil(2).max(1) as u32;
    let size = (PANEL.0 * cols, PANEL.1 * rows + TITLE_HEIGHT);
    write_png(out, size, |root| {
        let body = root
            .titled(&figure.title, (FONT, 26).into_font())
            .map_err(plot_error)?;
        let areas = body.split_evenly((rows as usize, cols as usize));
        for (panel, area) in figure.panels.iter().zip(areas) {
            draw_panel(panel, &area)?;
        }
        Ok(())
    })
}

fn draw_panel(
    panel: &Panel,
    area: &DrawingArea<BitMapBackend, plotters::coord::Shift>,
) -> Result<()> {
    let mut chart = ChartBuilder::on(area)
        .caption(&panel.title, (FONT, 18).into_font())
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d(
            panel.x_range.0..panel.x_range.1,
            panel.y_range.0..panel.y_range.1,
        )
        .map_err(plot_error)?;
    chart
        .configure_mesh()
        .x_desc(&panel.x_label)
        .y_desc(&panel.y_label)
        .label_style((FONT, 14).into_font())
        .axis_desc_style((FONT, 15).into_font())
        .light_line_style(RGBColor(235, 235, 235))
        .draw()
        .map_err(plot_error)?;
    let mut color_index = 0;
    let mut legend = false;
    for series in &panel.series {
        let points: Vec<(f64, f64)> = series
            .points
            .iter()
            .copied()
            .filter(|(x, y)| x.is_finite() && y.is_finite())
            .collect();
        let color = match series.mode {
            Mode::Guide => RGBColor(110, 110, 110),
            _ => {
                color_index += 1;
                COLORS[(color_index - 1) % COLORS.len()]
            }
        };
        let drawn = match series.mode {
            Mode::Line => {
                let style = color.stroke_width(2);
                chart
                    .draw_series(PointSeries::of_element(
                        points.clone(),
                        4,
                        color.filled(),
                        &|c, s, st| EmptyElement::at(c) + Circle::new((0, 0), s, st),
                    ))
                    .map_err(plot_error)?;
                chart
                    .draw_series(LineSeries::new(points, style))
                    .map_err(plot_error)?
            }
            Mode::Scatter => chart
                .draw_series(
                    points
                        .into_iter()
                        .map(|p| Circle::new(p, 3, color.mix(0.45).filled())),
                )
                .map_err(plot_error)?,
            Mode::Guide => chart
                .draw_series(DashedLineSeries::new(points, 6, 4, color.stroke_width(1)))
                .map_err(plot_error)?,
        };
        if !series.label.is_empty() {
            legend = true;
            drawn.label(&series.label).legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2))
            });
        }
    }
    if legend {
        chart
            .configure_series_labels()
            .label_font((FONT, 13).into_font())
            .background_style(WHITE.mix(0.85))
            .border_style(RGBColor(180, 180, 180))
            .position(emptiest_corner(panel))
            .draw()
            .map_err(plot_error)?;
    }
    Ok(())
}

/// The corner of the panel with the fewest data points, where the legend hides least.
fn emptiest_corner(panel: &Panel) -> SeriesLabelPosition {
    let mid_x = (panel.x_range.0 + panel.x_range.1) / 2.0;
    let mid_y = (panel.y_range.0 + panel.y_range.1) / 2.0;
    let mut counts = [0usize; 4];
    for &(x, y) in panel.series.iter().flat_map(|s| &s.points) {
        if x.is_finite() && y.is_finite() {
            counts[usize::from(x < mid_x) + 2 * usize::from(y < mid_y)] += 1;
        }
    }
    let corners = [
        SeriesLabelPosition::UpperRight,
        SeriesLabelPosition::UpperLeft,
        SeriesLabelPosition::LowerRight,
        SeriesLabelPosition::LowerLeft,
    ];
    let best = (0..4).min_by_key(|&i| counts[i]).unwrap_or(0);
    corners[best].clone()
}

/// A perceptually ordered colour for `t` in [0, 1] (viridis, by linear interpolation between
/// five of its stops); grey for undefined values.
fn viridis(t: f64) -> RGBColor {
    const STOPS: [(f64, f64, f64); 5] = [
        (68.0, 1.0, 84.0),
        (59.0, 82.0, 139.0),
        (33.0, 145.0, 140.0),
        (94.0, 201.0, 98.0),
        (253.0, 231.0, 37.0),
    ];
    if !t.is_finite() {
        return RGBColor(200, 200, 200);
    }
    let x = t.clamp(0.0, 1.0) * (STOPS.len() - 1) as f64;
    let i = (x.floor() as usize).min(STOPS.len() - 2);
    let f = x - i as f64;
    let (a, b) = (STOPS[i], STOPS[i + 1]);
    let mix = |p: f64, q: f64| (p + (q - p) * f).round() as u8;
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// Draws `map` as a heatmap with a colour bar to the PNG file `path`.
pub fn heatmap(map: &Heatmap, out: &mut Pending) -> Result<()> {
    let (nx, ny) = (map.x.1.len(), map.y.1.len());
    let finite = map
        .cells
        .iter()
        .flatten()
        .copied()
        .filter(|v| v.is_finite());
    let (low, high) = finite.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| {
        (l.min(v), h.max(v))
    });
    let (low, high) = if low < high {
        (low, high)
    } else if low.is_finite() {
        (low - 0.5, low + 0.5)
    } else {
        (0.0, 1.0)
    };
    let scale = |v: f64| (v - low) / (high - low);
    let title = format!("mean {} over {} x {}", map.metric, map.x.0, map.y.0);
    write_png(out, (940, 700), |root| {
        let (main, bar) = root.split_horizontally(800);
        let x_values = map.x.1.clone();
        let y_values = map.y.1.clone();
        let mut chart = ChartBuilder::on(&main)
            .caption(&title, (FONT, 22).into_font())
            .margin(15)
            .x_label_area_size(50)
            .y_label_area_size(80)
            // A segmented range `0..m` holds m + 1 segments: one per value.
            .build_cartesian_2d(
                (0..(nx as i32 - 1).max(1)).into_segmented(),
                (0..(ny as i32 - 1).max(1)).into_segmented(),
            )
            .map_err(plot_error)?;
        chart
            .configure_mesh()
            .disable_mesh()
            .x_desc(&map.x.0)
            .y_desc(&map.y.0)
            .x_labels(nx.min(12))
            .y_labels(ny.min(12))
            .x_label_formatter(&|v| tick_label(&x_values, v))
            .y_label_formatter(&|v| tick_label(&y_values, v))
            .label_style((FONT, 14).into_font())
            .axis_desc_style((FONT, 16).into_font())
            .draw()
            .map_err(plot_error)?;
        chart
            .draw_series(map.cells.iter().enumerate().flat_map(|(iy, row)| {
                row.iter().enumerate().map(move |(ix, &v)| {
                    let (x, y) = (ix as i32, iy as i32);
                    Rectangle::new(
                        [
                            (SegmentValue::Exact(x), SegmentValue::Exact(y)),
                            (SegmentValue::Exact(x + 1), SegmentValue::Exact(y + 1)),
                        ],
                        viridis(scale(v)).filled(),
                    )
                })
            }))
            .map_err(plot_error)?;
        let mut bar_chart = ChartBuilder::on(&bar)
            .margin_top(60)
            .margin_bottom(65)
            .margin_right(10)
            .margin_left(20)
            .y_label_area_size(70)
            .build_cartesian_2d(0.0..1.0, low..high)
            .map_err(plot_error)?;
        bar_chart
            .configure_mesh()
            .disable_mesh()
            .disable_x_axis()
            .label_style((FONT, 13).into_font())
            .draw()
            .map_err(plot_error)?;
        let steps = 100;
        bar_chart
            .draw_series((0..steps).map(|k| {
                let a = low + (high - low) * k as f64 / steps as f64;
                let b = low + (high - low) * (k + 1) as f64 / steps as f64;
                Rectangle::new([(0.0, a), (1.0, b)], viridis(scale(a)).filled())
            }))
            .map_err(plot_error)?;
        Ok(())
    })
}

/// The axis value at the centre of a cell (other ticks stay blank).
fn tick_label(values: &[Value], v: &SegmentValue<i32>) -> String {
    let SegmentValue::CenterOf(index) = v else {
        return String::new();
    };
    match usize::try_from(*index).ok().and_then(|i| values.get(i)) {
        Some(Value::Number(x)) => format!("{}", (x * 1e6).round() / 1e6),
        Some(Value::Choice(name)) => (*name).to_owned(),
        Some(other) => other.to_string(),
        None => String::new(),
    }
}
