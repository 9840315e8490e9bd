//! One validated parameter set, declared once and built in layers.
//!
//! Every knob of the model is a field of the flat [`Params`] struct, declared once in the
//! [`catalogue`] with its type, default, range, unit, section, models and meaning; validation,
//! `boids params`, the viewer's panel and the event log all read that declaration. Inside the core
//! values are typed ([`Value`]); TOML (config files, `--set`) is read and written only in
//! `toml`, JSON only in the server.
//!
//! [`ParamsBuilder`] applies the layers in order (preset, then file, then flags; or the viewer's
//! current flock, then a message) and remembers where each value came from, so an error can name
//! the value, the range it breaks and its source (`checks` holds the rules).

mod builder;
pub mod catalogue;
mod checks;
pub mod kinds;
mod obstacles;
mod toml;

pub use builder::{ParamsBuilder, Source, edit_distance, nearest_name};
pub use catalogue::{
    MAX_COUNT, MAX_PREDATORS, MAX_TOPOLOGICAL_K, PARAMS, ParamInfo, Params, param_info,
};
pub use kinds::{
    Boundary, Camera, Field, Kind, Model, NoiseDistribution, Raw, Section, Unit, Value,
    describe_range, show_number,
};
pub use obstacles::{read_shapes, shape_entries};
pub use toml::parse_value;

impl Params {
    /// The world's top-left corner and extent, in the state's precision.
    pub fn world_rect(&self) -> (glam::Vec2, glam::Vec2) {
        let (min, size) = self.world_box::<2>();
        (min.into(), size.into())
    }

    /// The world's near corner and extent along each of `D` axes (x, y, then z), as given:
    /// the one list of the world's axes.
    pub fn world_axes<const D: usize>(&self) -> ([f64; D], [f64; D]) {
        let min = [self.world_x_min, self.world_y_min, self.world_z_min];
        let size = [self.world_width, self.world_height, self.world_depth];
        (
            std::array::from_fn(|a| min[a]),
            std::array::from_fn(|a| size[a]),
        )
    }

    /// [`Params::world_axes`] in the state's precision.
    pub fn world_box<const D: usize>(&self) -> ([f32; D], [f32; D]) {
        let (min, size) = self.world_axes::<D>();
        (min.map(|c| c as f32), size.map(|c| c as f32))
    }

    /// The periods of a world of `D` dimensions for [`crate::space::minimum_image`]: its
    /// extent on a torus, zero (no wrapping) otherwise.
    pub fn periods<const D: usize>(&self) -> [f32; D] {
        match self.is_torus() {
            true => self.world_box().1,
            false => [0.0; D],
        }
    }

    /// Whether the world wraps around.
    pub fn is_torus(&self) -> bool {
        self.boundary == Boundary::Torus
    }

    /// Whether the step can take the grid's neighbour walk: every model and neighbourhood, but
    /// not perching (a resting boid's countdown is state the walk's frame does not carry;
    /// perching flocks are small), which runs the general path of [`crate::models`].
    pub fn uses_fast_path(&self) -> bool {
        !self.perch
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn later_layers_override_earlier_ones() {
        let params = ParamsBuilder::preset("cornell")
            .unwrap()
            .apply_toml("visual_range = 50\nturnfactor = 0.3\n", "a.toml")
            .unwrap()
            .apply_assignment(
                "visual_range=60",
                Source::Flag("--set visual_range=60".into()),
            )
            .unwrap()
            .build()
            .unwrap();
        assert_eq!(params.visual_range, 60.0);
        assert_eq!(params.turnfactor, 0.3);
    }

    #[test]
    fn unknown_key_names_its_line_and_suggests_the_right_name() {
        let err = ParamsBuilder::preset("cornell")
            .unwrap()
            .apply_toml("count = 10\n\nvisual_rang = 3\n", "my.toml")
            .unwrap_err()
            .to_string();
        assert!(err.contains("visual_rang"), "{err}");
        assert!(err.contains("my.toml, line 3"), "{err}");
        assert!(err.contains("did you mean `visual_range`"), "{err}");
    }

    fn refusal(assignment: &str) -> String {
        let source = Source::Flag(format!("--set {assignment}"));
        match ParamsBuilder::preset("cornell")
            .unwrap()
            .apply_assignment(assignment, source)
        {
            Ok(builder) => builder.build().unwrap_err().to_string(),
            Err(err) => err.to_string(),
        }
    }

    #[test]
    fn suggestions_only_for_plausible_typos() {
        for (typo, meant) in [
            ("visual_rang", "visual_range"),
            ("visualrange", "visual_range"),
            ("max_sped", "max_speed"),
            ("d", "dt"),
        ] {
            let err = refusal(&format!("{typo}=1"));
            assert!(err.contains(&format!("did you mean `{meant}`")), "{err}");
        }
        for far in ["k0", "xyz", "speedy_gonzales"] {
            let err = refusal(&format!("{far}=1"));
            assert!(err.contains(&format!("unknown parameter `{far}`")), "{err}");
            assert!(!err.contains("did you mean"), "{err}");
        }
    }

    #[test]
    fn empty_parameter_name_is_named_as_such() {
        for assignment in ["=5", " = 5"] {
            let err = refusal(assignment);
            assert!(
                err.contains(&format!("empty parameter name in `{assignment}`")),
                "{err}"
            );
            assert!(!err.contains("did you mean"), "{err}");
        }
        let err = ParamsBuilder::preset("cornell")
            .unwrap()
            .apply_toml("\"\" = 5\n", "empty.toml")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("empty.toml, line 1: empty parameter name"),
            "{err}"
        );
        assert!(!err.contains("did you mean"), "{err}");
    }

    #[test]
    fn shown_range_matches_the_check() {
        let err = refusal("visual_range=1e-30");
        assert!(
            err.contains("`visual_range` = 1e-30")
                && err.contains("allowed range is [1e-12, 1e9]")
                && err.contains("--set visual_range=1e-30"),
            "{err}"
        );
        // The minimum itself is accepted, as the closed bracket says.
        let ok = ParamsBuilder::preset("cornell")
            .unwrap()
            .apply_assignment("visual_range=1e-12", Source::Flag("--set".into()))
            .unwrap()
            .apply_assignment("protected_range=0", Source::Flag("--set".into()))
            .unwrap()
            .build();
        assert!(ok.is_ok(), "{ok:?}");
        // Every numeric parameter: just below its minimum is refused with that minimum shown.
        for info in PARAMS {
            let Kind::Number {
                min,
                max,
                unlimited,
            } = info.kind
            else {
                continue;
            };
            let below = if min == 0.0 {
                -1e-300
            } else {
                min - min.abs() * 1e-9
            };
            let err = refusal(&format!("{}={below:e}", info.name));
            let range = describe_range(min, max, unlimited);
            assert!(
                range.starts_with(&format!("[{}", show_number(min))),
                "{range}"
            );
            assert!(
                err.contains(&format!("allowed range is {range}")),
                "{}: {err}",
                info.name
            );
        }
    }

    #[test]
    fn syntax_error_names_its_line() {
        let err = ParamsBuilder::preset("cornell")
            .unwrap()
            .apply_toml("count = 10\nmargin = = 3\n", "bad.toml")
            .unwrap_err()
            .to_string();
        assert!(err.contains("bad.toml") && err.contains("line 2"), "{err}");
    }

    #[test]
    fn out_of_range_values_name_value_range_and_source() {
        for (assignment, key) in [
            ("visual_range=-1", "visual_range"),
            ("avoid_factor=nan", "avoid_factor"),
            ("dt=inf", "dt"),
            ("count=0", "count"),
            ("bias=1.5", "bias"),
        ] {
            let err = refusal(assignment);
            assert!(
                err.contains(key) && err.contains("allowed") && err.contains(assignment),
                "{err}"
            );
        }
    }

    #[test]
    fn inconsistent_pairs_are_refused() {
        for (assignment, expected) in [
            ("protected_range=50", "must not exceed visual_range"),
            ("min_speed=7", "must not exceed max_speed"),
            ("margin=300", "margins cross"),
        ] {
            let err = refusal(assignment);
            assert!(err.contains(expected), "{err}");
        }
    }

    #[test]
    fn couzins_zones_must_nest_and_stay_metric() {
        let refused = |assignments: &[&str]| {
            let mut builder = ParamsBuilder::preset("couzin2002").unwrap();
            for a in assignments {
                builder = builder
                    .apply_assignment(a, Source::Flag(format!("--set {a}")))
                    .unwrap();
            }
            builder.build().unwrap_err().to_string()
        };
        // The preset: r_r = 1, r_o = 3, r_a = 17.
        let err = refused(&["orientation_range=20"]);
        assert!(
            err.contains("orientation_range = 20 must not exceed visual_range = 17")
                && err.contains("--set orientation_range=20")
                && err.contains("preset `couzin2002`"),
            "{err}"
        );
        let err = refused(&["orientation_range=0.5"]);
        assert!(
            err.contains("orientation_range = 0.5 must not be below protected_range = 1"),
            "{err}"
        );
        let err = refused(&["topological_k=7"]);
        assert!(
            err.contains("topological_k = 7 replaces both zones")
                && err.contains("set orientation_range = inf or topological_k = 0"),
            "{err}"
        );
        // The zones' edges themselves, and the 2005 paper's one zone with k nearest, are valid.
        for assignments in [
            &["orientation_range=1"][..],
            &["orientation_range=17"],
            &["orientation_range=inf", "topological_k=7"],
        ] {
            let mut builder = ParamsBuilder::preset("couzin2002").unwrap();
            for a in assignments {
                builder = builder
                    .apply_assignment(a, Source::Flag(a.to_string()))
                    .unwrap();
            }
            assert!(builder.build().is_ok(), "{assignments:?}");
        }
    }

    #[test]
    fn wrong_types_are_refused() {
        let err = ParamsBuilder::preset("cornell")
            .unwrap()
            .apply_assignment(
                "dynamic_bias=3",
                Source::Flag("--set dynamic_bias=3".into()),
            )
            .unwrap_err()
            .to_string();
        assert!(err.contains("true or false"), "{err}");
        let err = ParamsBuilder::preset("cornell")
            .unwrap()
            .apply_assignment(
                "boundary=sphere",
                Source::Flag("--set boundary=sphere".into()),
            )
            .unwrap_err()
            .to_string();
        assert!(err.contains("torus, margins, walls"), "{err}");
    }

    #[test]
    fn obstacles_read_from_tables_and_write_back() {
        let text = "count = 50\n\n[[obstacles]]\nshape = \"circle\"\ncenter = [320, 240.0]\nradius = 60\n\n[[obstacles]]\nshape = \"wall\"\npoints = [[0, 0], [10, 0]]\n";
        let params = ParamsBuilder::preset("cornell")
            .unwrap()
            .apply_toml(text, "world.toml")
            .unwrap()
            .build()
            .unwrap();
        assert_eq!(params.obstacles.len(), 2);
        let back = ParamsBuilder::preset("functional")
            .unwrap()
            .apply_toml(&params.to_toml(), "back.toml")
            .unwrap()
            .build()
            .unwrap();
        assert_eq!(back, params);
        assert!(params.to_toml().contains(
            "[[obstacles]]\nshape = \"circle\"\ncenter = [320.0, 240.0]\nradius = 60.0\n"
        ));
        let err = ParamsBuilder::preset("cornell")
            .unwrap()
            .apply_toml(
                "count = 5\n[[obstacles]]\nshape = \"circle\"\ncenter = [1, 2]\nradius = -3\n",
                "bad.toml",
            )
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("bad.toml, line 2") && err.contains("obstacle 1: radius = -3"),
            "{err}"
        );
    }

    #[test]
    fn world_objects_of_the_other_dimension_are_refused_with_what_to_write() {
        let refused = |text: &str| {
            let layers = ParamsBuilder::preset("cornell")
                .unwrap()
                .apply_toml(text, "world.toml");
            match layers {
                Ok(layers) => layers.build().unwrap_err().to_string(),
                Err(err) => err.to_string(),
            }
        };
        let sphere = "[[obstacles]]\nshape = \"sphere\"\ncenter = [1, 2, 3]\nradius = 4\n";
        let circle = "[[obstacles]]\nshape = \"circle\"\ncenter = [1, 2]\nradius = 4\n";
        let wall = "[[obstacles]]\nshape = \"wall\"\npoints = [[0, 0], [1, 1]]\n";
        for (text, expected) in [
            (
                format!("dimensions = 3\n{sphere}{circle}"),
                "obstacle 2 is a circle, a 2D shape, but dimensions = 3: write shape = \"sphere\", center = [x, y, z]",
            ),
            (
                format!("dimensions = 3\n{sphere}{wall}"),
                "obstacle 2 is a wall, a 2D shape, but dimensions = 3: walls are 2D polylines; use boxes",
            ),
            (
                sphere.to_owned(),
                "obstacle 1 is a sphere, a 3D shape, but dimensions = 2: write shape = \"circle\", center = [x, y]",
            ),
            (
                "[[obstacles]]\nshape = \"box\"\nmin = [0, 0]\nmax = [1, 1, 1]\n".to_owned(),
                "obstacle 1: min = [0, 0] is not an [x, y, z] point ([x, y] pairs are for 2D shapes",
            ),
            (
                "dimensions = 3\nattractors = [[1, 2, 3], [4, 5]]\n".to_owned(),
                "attractor 2 has 2 coordinates, [4.0, 5.0], but dimensions = 3: write [x, y, z]",
            ),
        ] {
            let err = refused(&text);
            assert!(err.contains(expected), "{err}");
        }
        let ok = ParamsBuilder::preset("cornell")
            .unwrap()
            .apply_toml(
                &format!("dimensions = 3\nattractors = [[1, 2, 3]]\n{sphere}"),
                "a",
            )
            .unwrap()
            .build()
            .unwrap();
        let back = ParamsBuilder::preset("cornell")
            .unwrap()
            .apply_toml(&ok.to_toml(), "back")
            .unwrap()
            .build()
            .unwrap();
        assert_eq!(back, ok);
    }

    #[test]
    fn infinite_max_speed_means_no_limit() {
        let params = ParamsBuilder::preset("cornell")
            .unwrap()
            .apply_assignment("max_speed=inf", Source::Flag("--set max_speed=inf".into()))
            .unwrap()
            .build()
            .unwrap();
        assert_eq!(params.max_speed, f64::INFINITY);
    }
}
