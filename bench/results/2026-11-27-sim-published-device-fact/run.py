import tomllib, subprocess, sys, re, os
specs = sys.argv[1:]
errs = []
for spec in specs:
    path = f"/work/main/examples/systems/{spec}.toml"
    src = open(path).read()
    d = tomllib.loads(src)
    link = d["node"]["link"]
    host = f'''
[host]
name = "experiment: the link only (FACT on the device)"
fact_gflops = 1.0
fact_column_us = 0.0
[host.link]
name = "{link['name']}"
alpha_us = {link['alpha_us']}
bandwidth_gbs = {link['bandwidth_gbs']}
'''
    out = src.replace("\n[network]", host + "\n[network]", 1)
    tmp = f"/tmp/specexp/{spec}.toml"
    open(tmp, "w").write(out)
    for p in d.get("published", []):
        pq = [int(x) for x in p["grid"].split("x")]
        if pq[0] * pq[1] > 16: continue
        r = subprocess.run(["nice", "/work/main/build/bin/hplx", "sim", tmp, "--n", str(p["n"]), "--nb", str(p["nb"]),
                            "--grid", p["grid"], "--nodes", str(p["nodes"]), "--fact-on", "device", "--quiet"],
                           capture_output=True, text=True, timeout=600)
        m = re.search(r"^WR\S+\s+\d+\s+\d+\s+\d+\s+\d+\s+\S+\s+(\S+)", r.stdout, re.M)
        if not m:
            print(spec, p.get("label"), "failed", (r.stdout + r.stderr)[-300:]); continue
        g = float(m.group(1))
        pub = p.get("rmax_gflops")
        if pub is None:
            # efficiency of rpeak: rpeak per device * ranks
            dev = d["device"]
            rpeak = dev["cores"] * dev["flops_per_cycle"] * dev["clock_ghz"]
            pub = p["efficiency_pct"] / 100 * rpeak * pq[0] * pq[1]
        e = (g - pub) / pub
        errs.append(abs(e))
        print(f"{spec:18s} {p.get('label',''):8s} ranks {pq[0]*pq[1]:3d} N {p['n']:7d} published {pub:10.0f} sim {g:10.0f} {100*e:+6.1f}%", flush=True)
print(f"mean |error| over {len(errs)}: {100*sum(errs)/len(errs):.1f}%")
