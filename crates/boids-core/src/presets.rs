//! The five seed models as named presets.
//!
//! Each preset reproduces one document of `shared/seeds/` with the rules and numbers the document
//! gives. Where a document is silent (world size, boid count, starting state), the choice is ours
//! and says so. Where the document's literal code has a quirk that breaks the model, we keep the
//! model sane and write the deviation down in [`Preset::deviations`], which `boids presets --long`
//! prints.
//!
//! Two deviations hold for every preset, by design (see the crate docs): the update is
//! synchronous (seeds 001 and 002 update boids in place while they loop, so later boids there see
//! earlier boids' new state), and numbers are `f32` in the hot loop.

use crate::error::ParamsError;
use glam::Vec2;

use crate::obstacles::{Obstacle, Shape};
use crate::params::{Boundary, Camera, Model, NoiseDistribution, Params, ParamsBuilder, Source};

/// A named parameter set reproducing one seed document.
#[derive(Clone, Copy, Debug)]
pub struct Preset {
    /// Name used on the command line.
    pub name: &'static str,
    /// The seed document it reproduces.
    pub source: &'static str,
    /// One line on what the model is.
    pub summary: &'static str,
    /// Every way the preset differs from its document, and why.
    pub deviations: &'static str,
    /// Builds the preset's parameters.
    pub params: fn() -> Params,
}

/// All presets; the first is the default.
pub const PRESETS: &[Preset] = &[
    Preset {
        name: "cornell",
        source: "seed 001: Cornell ECE 4760/5730 boids (after Couzin et al. 2005)",
        summary: "640x480 screen with turning margins, visual and protected ranges, min/max speed, two scout groups biased to +x and -x",
        deviations: "Follows the per-boid pseudocode order exactly (averages, avoidance, margins, dynamic bias, bias, speed clamp, move). \
The seed's prose max-speed clamp scales vy by minspeed, a typo its own pseudocode does not repeat; we follow the pseudocode. \
Averages are taken over neighbour offsets (mean of x_j - x_i) rather than absolute positions: algebraically the same, and correct across a torus if the boundary is changed. \
Our choices where the seed is silent: 500 boids, positions uniform over the screen, velocity components uniform in [-6, 6]; \
scout groups of 10% each (the seed makes their size configurable); static bias by default (ECE 4760), `dynamic_bias = true` gives ECE 5730's rule.",
        params: cornell,
    },
    Preset {
        name: "functional",
        source: "seed 000: functional flocking in Haskell (torus, KD-tree, debug vectors)",
        summary: "torus [-8, 8]^2, neighbours within 0.4 including the boid itself, speed boost 1.0025 and limit 0.04",
        deviations: "The seed's findNeighbors prepends the boid to a range search that already finds it, so the boid counts twice in its own averages; we count it once, as its text describes. \
Ranges are inclusive (the seed's neighbourhood is `d <= 0.4`); the separation radius is then also inclusive where the seed has `< 0.1`: they differ only for a neighbour at exactly 0.1. \
The seed's alignment weight is 1/1.8 (its `aParam`); the KD-tree is replaced by our exact grid, which finds the same neighbours.",
        params: functional,
    },
    Preset {
        name: "canvas",
        source: "seed 002: TypeScript canvas boids with sliders",
        summary: "600x480 walls with a 100 px push-in buffer and bounce, neighbours < 100, close < 33, 30 boids at 20..100 px/s",
        deviations: "The seed's alignment and cohesion use an average of zero when a boid has no neighbours, so a lone boid brakes and steers toward the canvas origin; we apply no alignment or cohesion without neighbours. \
The seed applies separation to vx before alignment reads it (a difference of align*avoid*close = 0.001*close per step); all three rules here read the frame's velocity. \
dt is fixed at 1/60 s where the seed uses the measured frame time. The wall push uses avoid_factor, as in the seed.",
        params: canvas,
    },
    Preset {
        name: "allegheny",
        source: "seed 003: Allegheny College Haskell slides (Weisman, Yarbrough 2015)",
        summary: "torus, one sight radius for all three rules (self included), weights S, K, M, position += velocity / 500",
        deviations: "The slides' alignment adds the neighbours' mean velocity itself, so speed grows without bound; we use mean velocity minus own (Reynolds' rule). \
The slides' separation formula has its sign flipped against their code; we follow the code (away from neighbours). \
Our choices where the slides are silent: a 640x480 torus, sight radius 40, S = 0.005, K = 0.02, M = 0.05 (K > n S for small neighbourhoods keeps groups together), \
200 boids, velocity components uniform in [-100, 100]; there is no speed limit, as in the slides.",
        params: allegheny,
    },
    Preset {
        name: "occoids",
        source: "seed 004: CHP concurrent Haskell boids (rules from occoids)",
        summary: "unit torus, neighbours < 0.05, repulsion < 0.02, a shared bias heading that turns 0.5 rad periodically, speed limit 0.007",
        deviations: "The seed's limiter multiplies by limit^2/|v|^2 (not limit/|v|), leaving fast boids below the limit; we clamp to the limit. \
Its average of an empty list is zero, so a boid without neighbours brakes by v/40 per step; we apply no alignment without neighbours. \
Its bias counter runs 0..100 before turning, so the heading turns every 101 frames (the text says 100); we keep 101. \
Our choices where the seed is silent: 300 boids, positions uniform on the torus, velocity components uniform in [-0.007, 0.007].",
        params: occoids,
    },
    Preset {
        name: "vicsek",
        source: "Vicsek, Czirok, Ben-Jacob, Cohen, Shochet: Novel type of phase transition in a system of self-driven particles, PRL 75, 1226 (1995)",
        summary: "400 particles on a 10x10 torus (density 4), radius r = 1, speed v0 = 0.03, uniform angular noise eta = 2",
        deviations: "None in the rule (synchronous, self included, new velocity moves the particle, as in the paper). \
Our choice: eta = 2 by default, inside the ordered phase for this N; the paper sweeps eta over [0, 5] (see `boids experiment vicsek`). \
Initial headings come from velocity components uniform in [-1, 1], so they are not exactly uniform in angle; the first step sets every speed to v0.",
        params: vicsek,
    },
    Preset {
        name: "couzin",
        source: "Couzin, Krause, Franks, Levin: Effective leadership and decision-making in animal groups on the move, Nature 433, 513 (2005)",
        summary: "100 individuals in the open plane, repulsion within 1, orientation and attraction within 6, speed 1, turning rate 2 rad per unit time, dt 0.2, gaussian noise 0.01 rad; 10% informed toward +x with omega = 0.5",
        deviations: "The open plane is the margins boundary with zero margin and turn (nothing turns a boid back). \
The individual's own heading counts in the orientation sum (`include_self = true`), as in the paper's sum over the zone. \
Our choices where the paper is silent or gives a range: individuals start in a 20x20 square (spacing about 2, one connected group) with random headings; \
10% informed in scout group 1 (the paper varies this; see `boids experiment couzin-accuracy`). \
The time step (0.2), turning rate (2 rad per unit time) and noise (0.01 rad) follow published re-implementations of the model; \
they have not been checked against the paper's Methods section, which was not at hand. \
The camera follows the largest group (`camera = \"follow\"`): in the open plane the group leaves the 20x20 start region within about 100 steps (speed 1, dt 0.2), and the world view would soon show nothing.",
        params: couzin,
    },
    Preset {
        name: "predator",
        source: "seed 001's suggestion: \"a predator that all the boids must avoid\"",
        summary: "the cornell flock hunted by two predators: slower than a fleeing boid, faster than a dawdling one, less agile than either; boids flee within 80, a predator catches within 6",
        deviations: "The seed only suggests predators; the rules are ours (see `world::predator`): a predator turns at most 0.1 rad a step toward the nearest boid within 150, or wanders; it moves at 5 (the boids fly at 3 to 6) and catches the nearest boid within 6, which starts again at a random free place. Boids within 80 of a predator add 0.5 * (1 - d/80) times the unit vector away from it to their velocity, with the margins' turn, before the speed clamp.",
        params: predator,
    },
    Preset {
        name: "pillars",
        source: "after OpenSteer's obstacle demos (Reynolds 1999, steering around obstacles)",
        summary: "400 cornell boids start in a staggered field of 20 round pillars between two attractors and stream through it to the nearer one",
        deviations: "Not a seed: a scene for steer-to-avoid. The flock follows the cornell rules in a 900x500 box with 60-wide margins; each boid seeks the nearer of the attractors at (80, 250) and (820, 250) with attract_factor 0.0005 (cornell's cohesion weight, so goal and cohesion weigh alike), steers around the pillars as every preset steers around obstacles: it looks 120 ahead (20 steps at its top speed of 6), keeps 30 clear of a pillar beside it and turns away with obstacle_avoid_factor 1. Drag the attractors in the viewer to set the flock moving again.",
        params: pillars,
    },
    Preset {
        name: "perching",
        source: "seed 001's suggestion: boids \"near the bottom of the screen rest for a moment before rejoining the flock\"",
        summary: "the cornell flock with perching: a boid that dives below the ground line 60 above the bottom edge lands, rests 50 to 200 steps, then takes off",
        deviations: "The seed only suggests perching; the rule is ours (see `world::perch`): a boid lands where it crosses the ground line (the bottom margin's turn lets boids dive about 90 deep, so many reach it), rests a number of steps drawn uniformly from [50, 200], and takes off straight up at 4.5 (midway between the speed limits), or at once when a predator comes within fear_range. Resting boids are still seen by flying ones, so a flock that lands together tends to stay together. Perching takes the general path (the countdown is per-boid state).",
        params: perching,
    },
    Preset {
        name: "vicsek3d",
        source: "the Vicsek model in three dimensions: Czirok, Vicsek, Vicsek, Physica A 264, 299 (1999); vectorial noise as in Chate, Ginelli, Gregoire, Raynaud, Phys. Rev. E 77, 046113 (2008)",
        summary: "3D: 2000 particles in a 10x10x10 torus (density 2), radius r = 1, speed v0 = 0.03, noise uniform on the cap of half-angle eta/2 around the mean heading, eta = 1.5",
        deviations: "The rule is the 2D preset's with unit vectors for headings (synchronous, self included, the new velocity moves the particle): the new heading is the neighbours' mean heading turned to a direction drawn uniformly (by solid angle) on the sphere's cap of half-angle eta/2 around it, Chate et al.'s vectorial noise of amplitude eta/(2 pi) in their units (eta = 2 pi: any direction). \
Our choices: the 2D preset's radius, speed and box side, with density 2 per unit volume (about 8 neighbours within r) and eta = 1.5, inside the ordered phase for this N; initial velocity components uniform in [-1, 1] on each axis, so headings are not exactly uniform on the sphere; the first step sets every speed to v0.",
        params: vicsek3d,
    },
    Preset {
        name: "murmuration",
        source: "starling flocks: topological interaction with about seven neighbours (Ballerini et al., PNAS 105, 1232, 2008); after the StarDisplay model of Hildenbrandt, Carere, Hemelrijk, Behav. Ecol. 21, 1349 (2010); a blind cone behind each bird as in Couzin, Krause, James, Ruxton, Franks, J. Theor. Biol. 218, 1 (2002)",
        summary: "3D: 20,000 boids in metres and seconds, each aligning with and drawn to its 7 nearest neighbours in view (not in the 90-degree cone behind it) at any distance, kept 1 m apart, flying 8 to 13 m/s around a roost at the centre of a 400 m airspace",
        deviations: "Not a seed: the boids rules (cornell's form) in 3D with topological neighbours. \
From the literature: k = 7 nearest neighbours for alignment and cohesion (Ballerini et al. measured a topological range of six to seven birds); separation within 1 m (their nearest-neighbour distances were 0.7 to 1.5 m), metric, as a collision does not care how many others are nearer; a speed of 8 to 13 m/s around the starling's cruise speed of about 10 m/s (StarDisplay flies at 10 m/s); a roost that holds the flock in place (StarDisplay's birds are attracted to theirs); a blind cone behind each bird, of half-angle 45 degrees (blind_angle = pi/2), Couzin et al.'s field of perception of 270 degrees, which they give their 3D fish and birds. \
Our choices: dt = 0.1 s; matching 0.6 a step, so a turn passes from bird to bird within a few tenths of a second and the flock turns as one (with weaker matching a turn spreads slower than the birds fly, and the flock tears apart at every turn); centering 0.3 a step, and avoid 1.0 a step, which holds nearest neighbours about 1 m apart in the full flock (with 0.3 the flock of 20,000 packs to about 0.4 m); \
the roost is the margins boundary with margins of 195 m in a 400 m cube: outside the central 10 m of each axis a bird turns toward the centre by 0.1 m/s a step (1 m/s2), so the flock circles above the roost about every 50 s instead of flying off (StarDisplay's birds turn by banking, ours by that pull); \
that narrow band also holds the flock's altitude to a few metres, so it flies as a thin sheet level with the ground, as real flocks do (Ballerini et al., Anim. Behav. 76, 201, 2008: thin flocks that slide parallel to the ground and change their orientation to the direction of motion as they turn); at 10,000 birds its principal extents (2 sd) are 5 to 6 m thick, 15 to 20 m wide and 22 to 32 m long from 30 s to 60 s (about 6 x 14 x 22 m without the blind cone below, where a 20 m band made a 10 x 11 x 20 m cigar); \
the flock starts as a 60x30x60 m block (about 0.19 birds per m3, nearest neighbours about 1 m apart) 80 m off the roost along z, flying along +x at 8 to 10 m/s with 1 m/s across, so the roost's pull turns it into its circle. \
The dense, shifting bands come from the blind cone: a bird takes its 7 neighbours from ahead and beside it, never from behind, so nothing holds the front of the flock back as the rest is drawn forward. Without the cone the flock is a rigid, evenly dense pancake: seen from below, the column of 2 m squares over the bird at the 90th percentile holds 1.4 to 1.7 times the birds of the one over the bird at the 10th (20,000 birds, seed 0, every 10 s from 30 s to 200 s). With it the flock keeps changing shape, folds over itself, opens holes, splits into lobes that merge again, and dense bands run through it: that ratio is 2.0 to 4.0 from 40 s on, while the flock stays polarised (0.84 to 0.99 over 400 s, seeds 0 to 2) at the birds' spacing. Tried and not kept, as the flock stayed an even pancake: weaker matching or centering, a wider central box, a spring toward the roost, a gentle predator (it opens a hole, as a falcon does, and the hole closes behind it), random steering (a fuzzier pancake, or with more of it a flock that evaporates), and sinking in turns as a banking bird loses lift (the flock sags into a column). What it still does not show: the denser border Ballerini et al. measured, and the bands of real murmurations that are waves of banking birds after a falcon's attack (StarDisplay models the aerodynamics of banking, these rules do not). There is no predator (a falcon gives real murmurations their flash expansions): `--set predator_count=1` adds one, hunting in 3D; with the guide's peregrine settings (its chapter on the world) it splits a flock of 4,000 into 5 to 15 groups that stream away from it. visual_range (4 m) is not used by the rules here (k nearest at any distance): it is the distance that links birds into one flock in the metrics and the camera. \
The camera fits the flock (`camera = \"fit\"`): the flock, some 50 m across, would be a speck in the world view of the 400 m airspace.",
        params: murmuration,
    },
    Preset {
        name: "couzin2002",
        source: "Couzin, Krause, James, Ruxton, Franks: Collective memory and spatial sorting in animal groups, J. theor. Biol. 218, 1 (2002)",
        summary: "3D: 100 individuals in open space with nested zones: repulsion within r_r = 1, orientation out to r_o = 3 (width 2), attraction out to r_a = 17 (width 14); a blind cone of 90 degrees behind (field of perception 270 degrees), speed 3, turning rate 40 degrees per second, tau = 0.1 s, spherically wrapped gaussian noise 0.05 rad: a torus (mill)",
        deviations: "The paper's model (its section 2) and the constants its figures use: d_r = -sum of unit vectors to the neighbours within r_r, taking priority; else d_o, the sum of the headings of the neighbours in the zone of orientation (r_r to r_o), and d_a, the sum of unit vectors to those in the zone of attraction (r_o to r_a), averaged when both zones hold neighbours (the average has the sum's direction, which is all the step uses); no neighbour, or a zero sum: the heading is kept. The noise turns d by a spherically wrapped gaussian angle of s.d. sigma = 0.05 rad, then the heading turns toward it by at most theta * tau = 4 degrees a step, and the individual moves s * tau = 0.3. \
The individual's own heading is not in d_o (`include_self = false`): eq. 2 sums over the neighbours in the zone of orientation, which lies outside the zone of repulsion, where the individual itself is. \
The blind volume (alpha = 270 degrees: a cone of half-angle 45 degrees behind) hides neighbours from every zone, repulsion included, as the paper's figure 1 draws it (some re-implementations exempt the zone of repulsion). \
The open space is the margins boundary with zero margin and turn (nothing turns an individual back); the world box is the start region. \
Our choices where the paper is silent: individuals start uniformly in a cube of side 10 (spacing about 2, one group within r_a) with headings from velocity components uniform in [-1, 1] (the first step sets every speed to s). \
The zone widths (delta r_o = 2, delta r_a = 14) are one point of the paper's phase plane, where it finds the torus; `boids experiment couzin-phases` sweeps the plane and `couzin-memory` the collective memory. \
The camera follows the largest group (`camera = \"follow\"`): the group drifts out of the start box.",
        params: couzin2002,
    },
];

/// Finds a preset by name.
pub fn find(name: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|preset| preset.name == name)
}

/// The names of all presets.
pub fn names() -> Vec<&'static str> {
    PRESETS.iter().map(|preset| preset.name).collect()
}

// Named presets are one layer of parameters: they are built here, so that `params` (the
// catalogue and its checks) does not depend on the presets built from it.
impl Params {
    /// The validated defaults of a named preset (see [`PRESETS`]).
    pub fn preset(name: &str) -> Result<Params, ParamsError> {
        ParamsBuilder::preset(name)?.build()
    }
}

impl ParamsBuilder {
    /// Starts from a named preset's defaults.
    pub fn preset(name: &str) -> Result<Self, ParamsError> {
        let preset = find(name).ok_or_else(|| ParamsError::UnknownPreset {
            name: name.to_owned(),
            valid: names().join(", "),
        })?;
        Ok(Self::from_params(
            with_avoidance(with_depth((preset.params)())),
            Source::Preset(name.to_owned()),
        ))
    }
}

/// Every two-dimensional preset's third axis, for `dimensions = 3`: the world as deep as it is
/// high, and z (and vz) drawn at the start as y (and vy) are. For seed 001 that is the depth of
/// 480 its 3D reading asks for; in two dimensions these values are not used. A preset of three
/// dimensions keeps its own.
fn with_depth(p: Params) -> Params {
    if p.dimensions == 3 {
        return p;
    }
    Params {
        world_z_min: p.world_y_min,
        world_depth: p.world_height,
        init_z: p.init_y,
        init_vz: p.init_vy,
        ..p
    }
}

/// Steps of flight at top speed that a boid looks ahead for obstacles, at the least.
const LOOKAHEAD_STEPS: f64 = 20.0;

/// Every preset's steer-to-avoid weight.
const AVOID_FACTOR: f64 = 1.0;

/// Every preset's steer-to-avoid (`obstacle_lookahead`, `obstacle_avoid_factor`), from one
/// rule over its own units and speeds, so that an obstacle placed in any flock (the viewer's
/// tool bar) is streamed around, not rammed. Without obstacles they do nothing, so no preset's
/// results change.
///
/// - The lookahead is as far as the boid sees its neighbours (`visual_range`), or the
///   [`LOOKAHEAD_STEPS`] steps it flies at top speed (`max_speed`, or the heading models'
///   `speed`, times `dt`) if that is farther: a fast boid in a short visual range (the
///   murmuration's 4 m at 13 m/s) still starts its turn early enough to keep the clearance,
///   a quarter of the lookahead, that the obstacle pass gives it beside a surface.
/// - The weight has no unit (a turn per step, as a share of the boid's own speed): at 1 a boid
///   heading straight at a surface turns up to 45 degrees a step, more than the other pulls of
///   any preset push it toward one (a margin's turn, cohesion, fleeing, Vicsek's noise in the
///   mean), so one value serves every preset.
fn with_avoidance(p: Params) -> Params {
    let top_speed = match p.model {
        Model::Boids => p.max_speed,
        Model::Vicsek | Model::Couzin => p.speed,
    };
    let flight = LOOKAHEAD_STEPS * top_speed * p.dt;
    Params {
        obstacle_lookahead: match flight.is_finite() {
            true => p.visual_range.max(flight),
            false => p.visual_range,
        },
        obstacle_avoid_factor: AVOID_FACTOR,
        ..p
    }
}

/// The preset used when none is named.
pub const DEFAULT_PRESET: &str = "cornell";

fn cornell() -> Params {
    Params {
        count: 500,
        boundary: Boundary::Margins,
        world_width: 640.0,
        world_height: 480.0,
        margin: 100.0,
        turnfactor: 0.2,
        boid_size: 2.0,
        visual_range: 40.0,
        protected_range: 8.0,
        exclude_protected: true,
        centering_factor: 0.0005,
        matching_factor: 0.05,
        avoid_factor: 0.05,
        min_speed: 3.0,
        max_speed: 6.0,
        scout_group1_fraction: 0.1,
        scout_group2_fraction: 0.1,
        bias: 0.001,
        max_bias: 0.01,
        bias_increment: 0.00004,
        init_x: [0.0, 640.0],
        init_y: [0.0, 480.0],
        init_vx: [-6.0, 6.0],
        init_vy: [-6.0, 6.0],
        ..Params::default()
    }
}

fn functional() -> Params {
    Params {
        count: 500,
        world_x_min: -8.0,
        world_y_min: -8.0,
        world_width: 16.0,
        world_height: 16.0,
        boid_size: 0.05,
        visual_range: 0.4,
        protected_range: 0.1,
        inclusive_ranges: true,
        include_self: true,
        centering_factor: 0.0075,
        matching_factor: 1.0 / 1.8,
        avoid_factor: 1.25,
        steering_gain: 0.1,
        speed_boost: 1.0025,
        max_speed: 0.04,
        init_x: [-2.5, 2.5],
        init_y: [-2.5, 2.5],
        init_vx: [-0.125, 0.125],
        init_vy: [-0.125, 0.125],
        ..Params::default()
    }
}

fn canvas() -> Params {
    Params {
        count: 30,
        boundary: Boundary::Walls,
        world_width: 600.0,
        world_height: 480.0,
        wall_buffer: 100.0,
        boid_size: 5.0,
        visual_range: 100.0,
        protected_range: 33.0,
        centering_factor: 0.03,
        matching_factor: 0.02,
        avoid_factor: 0.05,
        min_speed: 20.0,
        max_speed: 100.0,
        dt: 1.0 / 60.0,
        init_x: [10.0, 590.0],
        init_y: [10.0, 470.0],
        init_vx: [-100.0, 100.0],
        init_vy: [-100.0, 100.0],
        ..Params::default()
    }
}

fn allegheny() -> Params {
    Params {
        count: 200,
        world_width: 640.0,
        world_height: 480.0,
        boid_size: 3.0,
        visual_range: 40.0,
        protected_range: 40.0,
        inclusive_ranges: true,
        include_self: true,
        centering_factor: 0.02,
        matching_factor: 0.05,
        avoid_factor: 0.005,
        dt: 1.0 / 500.0,
        init_x: [0.0, 640.0],
        init_y: [0.0, 480.0],
        init_vx: [-100.0, 100.0],
        init_vy: [-100.0, 100.0],
        ..Params::default()
    }
}

fn vicsek() -> Params {
    Params {
        count: 400,
        world_width: 10.0,
        world_height: 10.0,
        boid_size: 0.03,
        visual_range: 1.0,
        include_self: true,
        model: Model::Vicsek,
        speed: 0.03,
        noise: 2.0,
        init_x: [0.0, 10.0],
        init_y: [0.0, 10.0],
        init_vx: [-1.0, 1.0],
        init_vy: [-1.0, 1.0],
        ..Params::default()
    }
}

fn couzin() -> Params {
    Params {
        count: 100,
        boundary: Boundary::Margins,
        world_width: 20.0,
        world_height: 20.0,
        boid_size: 0.2,
        visual_range: 6.0,
        protected_range: 1.0,
        include_self: true,
        model: Model::Couzin,
        speed: 1.0,
        dt: 0.2,
        turn_rate: 2.0,
        noise: 0.01,
        noise_distribution: NoiseDistribution::Gaussian,
        informed_weight: 0.5,
        scout_group1_fraction: 0.1,
        init_x: [0.0, 20.0],
        init_y: [0.0, 20.0],
        init_vx: [-1.0, 1.0],
        init_vy: [-1.0, 1.0],
        camera: Camera::Follow,
        ..Params::default()
    }
}

/// Couzin et al. 2002, in degrees where the paper gives degrees.
fn couzin2002() -> Params {
    let degrees = std::f64::consts::PI / 180.0;
    let (r_r, delta_r_o, delta_r_a) = (1.0, 2.0, 14.0);
    Params {
        dimensions: 3,
        count: 100,
        boundary: Boundary::Margins,
        world_width: 10.0,
        world_height: 10.0,
        world_depth: 10.0,
        boid_size: 0.2,
        protected_range: r_r,
        orientation_range: r_r + delta_r_o,
        visual_range: r_r + delta_r_o + delta_r_a,
        blind_angle: (360.0 - 270.0) * degrees,
        include_self: false,
        model: Model::Couzin,
        speed: 3.0,
        dt: 0.1,
        turn_rate: 40.0 * degrees,
        noise: 0.05,
        noise_distribution: NoiseDistribution::Gaussian,
        init_x: [0.0, 10.0],
        init_y: [0.0, 10.0],
        init_z: [0.0, 10.0],
        init_vx: [-1.0, 1.0],
        init_vy: [-1.0, 1.0],
        init_vz: [-1.0, 1.0],
        camera: Camera::Follow,
        ..Params::default()
    }
}

fn predator() -> Params {
    Params {
        predator_count: 2,
        predator_speed: 5.0,
        predator_vision: 150.0,
        predator_turn_rate: 0.1,
        predator_wander: 0.3,
        fear_range: 80.0,
        flee_factor: 0.5,
        capture_range: 6.0,
        ..cornell()
    }
}

fn pillars() -> Params {
    let pillar = |column: u32, row: u32| {
        let stagger = if column % 2 == 1 { 42.5 } else { 0.0 };
        Obstacle::Plane(Shape::Ball {
            center: Vec2::new(
                300.0 + 75.0 * column as f32,
                80.0 + stagger + 85.0 * row as f32,
            ),
            radius: 18.0,
        })
    };
    Params {
        count: 400,
        world_width: 900.0,
        world_height: 500.0,
        margin: 60.0,
        init_x: [330.0, 570.0],
        init_y: [60.0, 440.0],
        init_vx: [-3.0, 3.0],
        init_vy: [-3.0, 3.0],
        scout_group1_fraction: 0.0,
        scout_group2_fraction: 0.0,
        obstacles: (0..5)
            .flat_map(|c| (0..4).map(move |r| pillar(c, r)))
            .collect(),
        attractors: vec![vec![80.0, 250.0], vec![820.0, 250.0]],
        attract_factor: 0.0005,
        ..cornell()
    }
}

fn perching() -> Params {
    Params {
        perch: true,
        perch_height: 60.0,
        perch_min: 50,
        perch_max: 200,
        ..cornell()
    }
}

fn vicsek3d() -> Params {
    Params {
        dimensions: 3,
        count: 2000,
        world_depth: 10.0,
        noise: 1.5,
        init_z: [0.0, 10.0],
        init_vz: [-1.0, 1.0],
        ..vicsek()
    }
}

fn murmuration() -> Params {
    Params {
        dimensions: 3,
        count: 20_000,
        boundary: Boundary::Margins,
        world_width: 400.0,
        world_height: 400.0,
        world_depth: 400.0,
        margin: 195.0,
        turnfactor: 0.1,
        boid_size: 0.2,
        topological_k: 7,
        blind_angle: std::f64::consts::FRAC_PI_2,
        visual_range: 4.0,
        protected_range: 1.0,
        centering_factor: 0.3,
        matching_factor: 0.6,
        avoid_factor: 1.0,
        min_speed: 8.0,
        max_speed: 13.0,
        dt: 0.1,
        init_x: [170.0, 230.0],
        init_y: [185.0, 215.0],
        init_z: [250.0, 310.0],
        init_vx: [8.0, 10.0],
        init_vy: [-1.0, 1.0],
        init_vz: [-1.0, 1.0],
        camera: Camera::Fit,
        ..Params::default()
    }
}

fn occoids() -> Params {
    Params {
        count: 300,
        boid_size: 0.004,
        visual_range: 0.05,
        protected_range: 0.02,
        centering_factor: 1.0 / 30.0,
        matching_factor: 1.0 / 8.0,
        avoid_factor: 1.0 / 4.0,
        steering_gain: 1.0 / 5.0,
        max_speed: 0.007,
        wander_weight: 1.0 / 10000.0,
        wander_period: 101,
        wander_turn: 0.5,
        init_vx: [-0.007, 0.007],
        init_vy: [-0.007, 0.007],
        ..Params::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_is_valid_and_round_trips_through_toml() {
        for preset in PRESETS {
            let params = Params::preset(preset.name).unwrap();
            let back = ParamsBuilder::preset("cornell")
                .unwrap()
                .apply_toml(&params.to_toml(), "roundtrip.toml")
                .unwrap()
                .build()
                .unwrap();
            assert_eq!(back, params, "{}", preset.name);
        }
    }
}
