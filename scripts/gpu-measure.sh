#!/usr/bin/env bash
# The GPU engine measured beside the hand-written CUDA reference on one card in one run, and
# the CPU engine on the same machine's cores: issue 30's table (W3, --neighbors 25, torus, at
# 10^5, 10^6, 10^7 and 3*10^7 boids, 2D and 3D). Runs on a machine with an NVIDIA GPU, its
# driver and nvcc, and no Rust toolchain; everything else is carried:
#
#   BOIDS=.gpu/boids   a boids binary built with `cargo build --release --features gpu`, stripped
#   REF=.gpu/reference a copy of shared/gpu-reference (boids_ref.cu)
#   GL=.gl             Debian's libvulkan1 .deb, unpacked when the machine has no Vulkan loader
#   OUT=dir            where the JSON reports and the table go (default: a temporary folder)
#
# About four minutes on an H100, most of it the CPU engine at 3*10^7 boids and nvcc.
set -uo pipefail
BOIDS="${BOIDS:-.gpu/boids}"
REF="${REF:-.gpu/reference}"
GL="${GL:-.gl}"
OUT="${OUT:-$(mktemp -d)}"
SIZES="${SIZES:-100000 1000000 10000000 30000000}"
mkdir -p "$OUT"

# The Vulkan loader, and NVIDIA's driver for it.
if ! ldconfig -p | grep -q 'libvulkan.so.1'; then
  for f in "$GL"/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
for icd in /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json /usr/share/vulkan/icd.d/nvidia_icd.json \
           /etc/vulkan/icd.d/nvidia_icd.json; do
  if [ -f "$icd" ]; then export VK_DRIVER_FILES="$icd"; break; fi
done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv
"$BOIDS" info | tee "$OUT/info.txt"
grep -q 'engine gpu: .*Vulkan' "$OUT/info.txt" || { echo "no Vulkan adapter for the GPU engine"; exit 1; }

# The CUDA reference: its check, then its counting-sort pipeline at every size.
nvcc -O3 -arch=sm_90 -std=c++17 -o "$OUT/boids_ref" "$REF/boids_ref.cu" || echo "# nvcc failed"
if [ -x "$OUT/boids_ref" ]; then
  for d in 2 3; do "$OUT/boids_ref" --check --dim "$d" --n 4096 --spin-ms 0; done | tee "$OUT/reference-check.txt"
  for d in 2 3; do for n in $SIZES; do
    "$OUT/boids_ref" --dim "$d" --n "$n" --sort counting
  done; done | tee "$OUT/reference.txt"
fi

# Our GPU engine (the flock comes back to the host once a batch) and our CPU engine.
for d in 2 3; do for n in $SIZES; do
  steps=100; [ "$n" -ge 10000000 ] && steps=50
  "$BOIDS" bench --engine gpu --count "$n" --neighbors 25 --set dimensions=$d \
    --warmup 10 --steps $steps --batch 50 --json > "$OUT/gpu-$d-$n.json" \
    && echo "gpu $d $n done" || echo "# gpu $d $n FAILED"
done; done
for d in 2 3; do for n in $SIZES; do
  steps=20; [ "$n" -ge 10000000 ] && steps=5
  "$BOIDS" bench --count "$n" --neighbors 25 --set dimensions=$d --warmup 2 --steps $steps \
    --json > "$OUT/cpu-$d-$n.json" && echo "cpu $d $n done" || echo "# cpu $d $n FAILED"
done; done

python3 - "$OUT" "$SIZES" <<'PY' | tee "$OUT/table.md"
import json, re, sys
out, sizes = sys.argv[1], sys.argv[2].split()
ref = {}
for line in open(f"{out}/reference.txt") if __import__("os").path.exists(f"{out}/reference.txt") else []:
    m = re.search(r"dim=(\d) N=(\d+) .*boid_steps_per_s=([0-9.e+]+)", line)
    if m: ref[(m[1], m[2])] = float(m[3])
def report(kind, d, n):
    try: return json.load(open(f"{out}/{kind}-{d}-{n}.json"))
    except Exception: return None
print("| W3 | N | GPU engine, device (boid-steps/s) | GPU engine, with the copy back | CUDA reference | ratio (device / CUDA) | CPU engine, all cores |")
print("|---|---|---|---|---|---|---|")
for d in "23":
    for n in sizes:
        g, c, r = report("gpu", d, n), report("cpu", d, n), ref.get((d, n))
        device = end = cpu = None
        if g:
            device = int(n) / (g["stages_ms"]["interact"] / 1e3)
            end = g["boid_steps_per_second"]
        if c: cpu = c["boid_steps_per_second"]
        f = lambda x: f"{x:.2e}" if x else "n/a"
        ratio = f"{device / r:.2f}" if device and r else "n/a"
        print(f"| {d}D | {int(n):.0e} | {f(device)} | {f(end)} | {f(r)} | {ratio} | {f(cpu)} |")
PY
