//! A plot described as data: panels of labelled series. The experiments build one from their
//! rows; the `boids` command draws it. Keeping the numbers here lets the tests check what a
//! figure shows without looking at pixels.

/// A figure: panels drawn in a grid, two per row.
#[derive(Clone, Debug, PartialEq)]
pub struct Figure {
    /// Title over the whole figure.
    pub title: String,
    /// The panels, row by row.
    pub panels: Vec<Panel>,
}

/// One set of axes.
#[derive(Clone, Debug, PartialEq)]
pub struct Panel {
    /// Title over the axes.
    pub title: String,
    /// Label of the x axis.
    pub x_label: String,
    /// Label of the y axis.
    pub y_label: String,
    /// Range of the x axis.
    pub x_range: (f64, f64),
    /// Range of the y axis.
    pub y_range: (f64, f64),
    /// What is drawn, in drawing order.
    pub series: Vec<Series>,
}

/// How a series is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// A line through the points, with a marker at each.
    Line,
    /// Markers only.
    Scatter,
    /// A thin dashed guide (expected values, published thresholds).
    Guide,
}

/// A labelled set of points (NaN points are skipped when drawn).
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// Legend text (empty: no legend entry).
    pub label: String,
    /// The points, in drawing order.
    pub points: Vec<(f64, f64)>,
    /// How to draw them.
    pub mode: Mode,
}

impl Series {
    /// A series drawn as `mode`.
    pub fn new(label: impl Into<String>, points: Vec<(f64, f64)>, mode: Mode) -> Self {
        Self {
            label: label.into(),
            points,
            mode,
        }
    }
}
