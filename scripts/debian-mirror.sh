# Sourced by the scripts that make a Debian root (check-bare-system.sh,
# check-hip-build.sh): debian_mirror prints the Debian mirror this
# machine's apt uses (deb822 .sources first, then one-line sources.list),
# nothing where none is found (debootstrap's own default then).
debian_mirror() {
  local f
  for f in /etc/apt/sources.list.d/*.sources; do
    [[ -r $f ]] || continue
    awk '/^URIs:/ {for (i = 2; i <= NF; i++) if ($i !~ /security/) {print $i; exit}}' "$f"
  done | head -n1 | grep . && return
  grep -hsE '^deb[[:space:]]+(\[[^]]*\][[:space:]]+)?[a-z]+://' /etc/apt/sources.list /etc/apt/sources.list.d/*.list |
    awk '{for (i = 2; i <= NF; i++) if ($i ~ /:\/\// && $i !~ /security/) {print $i; exit}}' | head -n1
}
