#!/usr/bin/env bash
# Makes every picture the README and the guide show, each with the command the guide names
# beside it, so that "this picture is that command" stays true.
#
#   docs/figures.sh              every figure (about 15 minutes on two cores, most of it the
#                                experiments; `scaling` wants an idle machine)
#   docs/figures.sh NAME...      only those: flock overlay flock3d murmuration world viewer
#                                experiments scaling
#
# Run it from anywhere; it builds the release binary first. `viewer` needs chromium and the
# browser test's npm packages (cd web/tests && npm ci), as the browser test does.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
boids=target/release/boids

flock() {
  $boids render --preset cornell --seed 1 --warmup 400 --steps 700 --every 3 --size 480x360 --out docs/src/figures/flock.gif
}
overlay() {
  $boids render --preset functional --seed 4 --count 90 --set world_x_min=-3 --set world_y_min=-2.25 \
    --set world_width=6 --set world_height=4.5 --steps 400 --overlay --size 640x480 --out docs/src/figures/overlay.png
}
flock3d() {
  $boids render --set dimensions=3 --steps 300 --camera-angle 30,20 --out docs/src/figures/flock3d.png
}
murmuration() {
  $boids render --preset murmuration --steps 1600 --camera fit --camera-angle 20,35 --size 640x400 --out docs/src/figures/murmuration.png
}
world() {
  $boids render --preset pillars --set predator_count=2 --set predator_speed=5 --set predator_vision=150 \
    --set fear_range=80 --set capture_range=6 --steps 400 --size 900x500 --out docs/src/figures/world.png
}
viewer() {
  $boids serve --preset functional --count 300 --port 0 --paused > target/figures-serve.log 2>&1 &
  local server=$!
  trap 'kill $server 2>/dev/null' RETURN
  local url=""
  for _ in $(seq 100); do
    url=$(grep -o 'http://[0-9.:]*/' target/figures-serve.log | head -1 || true)
    [ -n "$url" ] && break
    sleep 0.1
  done
  [ -n "$url" ] || { echo "the viewer did not start: $(cat target/figures-serve.log)" >&2; return 1; }
  node web/tests/screenshot.mjs "$url" docs/src/figures/viewer.png
}
experiments() {
  $boids experiment couzin-accuracy --out docs/src/figures/experiments/couzin-accuracy.csv
  $boids experiment couzin-conflict --out docs/src/figures/experiments/couzin-conflict.csv
  $boids experiment couzin-phases --out docs/src/figures/experiments/couzin-phases.csv
  $boids experiment couzin-memory --out docs/src/figures/experiments/couzin-memory.csv
  $boids experiment scouts --out docs/src/figures/experiments/scouts.csv
  $boids experiment vicsek --out docs/src/figures/experiments/vicsek.csv
  $boids experiment predator --out docs/src/figures/experiments/predator.csv
}
scaling() {
  $boids bench --neighbors 25 --steps 10 --warmup 2 --scaling target/scaling.csv
  cp target/scaling.png docs/src/figures/perf-scaling.png  # docs/src/figures/perf-scaling.png
}

all=(flock overlay flock3d murmuration world viewer experiments scaling)
for name in "${@:-${all[@]}}"; do
  case " ${all[*]} " in
    *" $name "*) echo "== $name"; "$name" ;;
    *) echo "unknown figure $name: choose from ${all[*]}" >&2; exit 2 ;;
  esac
done
