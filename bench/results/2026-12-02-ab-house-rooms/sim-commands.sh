#!/bin/bash
# usage: simab.sh HPLX
H=$1
run() { echo "$*: $($H sim "$@" 2>&1 | grep -E '^W' | head -1)"; }
run examples/systems/summit.toml --n 20000 --nb 256 --grid 4x2 --nodes 2 --swap bin-exch
run examples/systems/summit.toml --n 20000 --nb 256 --grid 4x2 --nodes 2 --swap long
run examples/systems/dgx-h100.toml --n 40000 --nb 512 --grid 4x2 --swap long
run examples/systems/dgx-h100.toml --n 40000 --nb 512 --grid 4x2 --fact-on device --rfact crout --pfact left
run examples/systems/dgx-h100.toml --n 40000 --nb 512 --grid 4x2 --fact-on host --rfact crout --pfact left
run examples/systems/h200.toml --n 60000 --nb 1024 --fact-on device
run examples/systems/h200.toml --n 60000 --nb 1024 --fact-on host
