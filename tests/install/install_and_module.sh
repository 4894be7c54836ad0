#!/usr/bin/env bash
# What an HPC site does with hplx: install it into a prefix, then load it
# through an environment module in a clean shell and run it.
#   install_and_module.sh BUILD_DIR VERSION
# Checks: the installed tree (binary, examples, docs, man pages, Lmod and
# Tcl modulefiles); no build-tree path in the installed binary or
# modulefiles; from `env -i` + Lmod's `module load hplx`: hplx on PATH from
# the prefix, `hplx lu --n 1000` PASSED, `man hplx` and `man hplx-lu`
# render, a system spec found by name among the installed examples, the
# system's man pages still found; the Tcl modulefile loads too (through
# Lmod, which reads both).
# Exit 0 passed, 1 failed, 77 skipped (Lmod not installed: it prints why;
# scripts/install-deps.sh --test installs it).
set -u
build=$(cd "${1:?usage: install_and_module.sh BUILD_DIR VERSION}" && pwd)
version=${2:?usage: install_and_module.sh BUILD_DIR VERSION}
lmod_init=/usr/share/lmod/lmod/init/bash
if [ ! -r "$lmod_init" ]; then
  echo "SKIP: Lmod is not installed ($lmod_init is missing; scripts/install-deps.sh --test installs lmod)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
fail=0
bad() { echo "FAIL: $*"; fail=1; }

if ! cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1; then
  cat "$work/install.log"
  echo "FAIL: cmake --install"
  exit 1
fi
echo "== installed tree (files under $prefix, examples and docs counted)"
(cd "$prefix" && find . \( -type f -o -type l \) | sort | grep -v -e '^./share/doc/' -e '^./share/hplx/examples/')
echo "   + $(find "$prefix/share/hplx/examples" -type f | wc -l) files in share/hplx/examples," \
  "$(find "$prefix/share/doc/hplx" -type f | wc -l) in share/doc/hplx"
for f in bin/hplx share/man/man1/hplx.1 share/man/man1/hplx-lu.1 share/man/man1/hplx-mxp.1 \
  share/man/man1/hplx-model.1 share/man/man1/hplx-report.1 "share/lmod/hplx/$version.lua" \
  "share/modulefiles/hplx/$version" share/hplx/examples/HPL.dat \
  share/hplx/examples/systems/summit.toml share/doc/hplx/README.md share/doc/hplx/USAGE.md; do
  [ -e "$prefix/$f" ] || bad "$f was not installed"
done
# The installed files must not point back into the build tree.
for f in bin/hplx "share/lmod/hplx/$version.lua" "share/modulefiles/hplx/$version"; do
  if grep -q -F -- "$build" "$prefix/$f" 2>/dev/null; then bad "$f names the build tree $build"; fi
done
grep -q -F "\"$prefix\"" "$prefix/share/lmod/hplx/$version.lua" || bad "the Lmod modulefile does not name the prefix"

# A clean environment: no PATH to the build tree, no MANPATH, no LD_LIBRARY_PATH.
clean() {
  env -i HOME="$work" USER=root LOGNAME=root TERM=dumb PATH=/usr/bin:/bin \
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
    MANPAGER=cat MANWIDTH=80 bash --noprofile --norc -c "source $lmod_init && $1" 2>&1
}
echo "== Lmod: module use $prefix/share/lmod; module load hplx"
out=$(clean "module use $prefix/share/lmod && module load hplx && echo \"which: \$(command -v hplx)\" &&
  echo \"MANPATH=\$MANPATH\" && echo \"HPLX_EXAMPLES=\$HPLX_EXAMPLES\" && hplx lu --n 1000 &&
  echo '== man hplx' && man hplx | head -n 12 && echo '== man hplx-lu' && man hplx-lu | grep -m1 -e '--rpeak' &&
  echo '== hplx model summit (a spec by name)' && hplx model summit | tail -n 2 &&
  echo '== man ls (the system pages)' && (man -w ls || true)")
echo "$out"
grep -q "^which: $prefix/bin/hplx$" <<<"$out" || bad "hplx on PATH is not $prefix/bin/hplx"
grep -Eq "^MANPATH=$prefix/share/man:" <<<"$out" || bad "MANPATH does not start with $prefix/share/man"
grep -Eq "WR11C2R4 +1000 .*" <<<"$out" || bad "no result line for N = 1000"
grep -q "PASSED" <<<"$out" || bad "hplx lu --n 1000 did not pass"
grep -Eq "^HPLX(-LU)?\(1\)" <<<"$out" || bad "man hplx did not render a page header"
grep -Eq "hplx +- +HPC +benchmarks" <<<"$out" || bad "man hplx has no NAME line"
grep -q -e "--rpeak" <<<"$out" || bad "man hplx-lu lacks --rpeak"
grep -Eq "Summit|summit" <<<"$out" || bad "hplx model summit did not find the installed spec"
# (Only where the system has the page: slim images drop /usr/share/man.)
if ls /usr/share/man/man1/ls.1* >/dev/null 2>&1; then
  grep -Eq "^/usr/share/man/man1/ls\.1" <<<"$out" || bad "man no longer finds the system's pages"
fi

echo "== Lmod reading the Tcl modulefile: module use $prefix/share/modulefiles; module load hplx"
out=$(clean "module use $prefix/share/modulefiles && module load hplx && command -v hplx && hplx --version | head -n 1")
echo "$out"
grep -q "^$prefix/bin/hplx$" <<<"$out" || bad "the Tcl modulefile did not put hplx on PATH"
grep -q "hplx $version\|$version" <<<"$out" || bad "hplx --version did not run"
[ $fail -eq 0 ] && echo "install and module test passed"
exit $fail
