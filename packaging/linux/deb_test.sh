#!/bin/sh
# Install the .deb, check what it put where, run the INSTALLED app's self-test
# (offscreen and on Xvfb), then remove and purge it and check nothing is left.
#
#   sh packaging/linux/deb_test.sh dist/gradacc-desktop_<version>_<arch>.deb
#
# Needs root (or sudo). The self-test runs with a throwaway HOME and XDG folders.
set -eu

deb=${1:?usage: deb_test.sh PACKAGE.deb}
pkg=gradacc-desktop
[ -f "$deb" ] || { echo "no package at $deb: run make deb" >&2; exit 1; }
if [ "$(id -u)" -eq 0 ]; then SUDO=""; else SUDO="sudo"; fi

fail() { echo "deb-test: FAIL: $*" >&2; exit 1; }
step() { echo "== deb-test: $*"; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# Everything but directories, as paths on the installed system (files, symlinks).
dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { sub(/^\./, "", $6); print $6 }' > "$tmp/files"
[ -s "$tmp/files" ] || fail "cannot list the files of $deb"

step "dpkg -i $deb"
if ! $SUDO dpkg -i "$deb"; then
    step "missing dependencies: apt-get install -f"
    $SUDO apt-get update -qq
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -f -y -qq
fi
status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
[ "$status" = "install ok installed" ] || fail "$pkg is not installed ($status)"
dpkg-query -W -f='${Package} ${Version} ${Architecture}\nDepends: ${Depends}\n' "$pkg"

step "installed files"
while read -r f; do
    [ -e "$f" ] || [ -L "$f" ] || fail "missing after install: $f"
done < "$tmp/files"
echo "$(wc -l < "$tmp/files") files and symlinks present"
for f in /opt/$pkg/$pkg /usr/bin/$pkg; do
    [ -x "$f" ] || fail "not executable: $f"
done
for f in /usr/share/applications/$pkg.desktop \
         /usr/share/icons/hicolor/48x48/apps/$pkg.png \
         /usr/share/icons/hicolor/256x256/apps/$pkg.png \
         /usr/share/icons/hicolor/scalable/apps/$pkg.svg \
         /usr/share/doc/$pkg/copyright; do
    [ -f "$f" ] || fail "missing: $f"
done
bad=$(find /opt/$pkg /usr/bin/$pkg \( ! -user root -o ! -group root \) -print | head -n 3)
[ -z "$bad" ] || fail "not owned by root:root: $bad"
bad=$(find /opt/$pkg ! -type l -perm /022 -print | head -n 3)
[ -z "$bad" ] || fail "group/world-writable: $bad"
exec_cmd=$(sed -n 's/^Exec=\([^ ]*\).*/\1/p' /usr/share/applications/$pkg.desktop | head -n 1)
[ "$(command -v "$exec_cmd")" = "/usr/bin/$pkg" ] || fail "Exec=$exec_cmd does not run /usr/bin/$pkg"

step "shared libraries resolve (bundle first, then the system)"
find /opt/$pkg -type f -name '*.so*' > "$tmp/libs"
missing=$(LD_LIBRARY_PATH=/opt/$pkg/_internal xargs -r ldd < "$tmp/libs" 2>/dev/null \
    | awk '/not found/ { print $1 }' | grep -v '^libQt6' | sort -u || true)
[ -z "$missing" ] || fail "system libraries not found: $(echo "$missing" | tr '\n' ' ')"
echo "ok"

if command -v desktop-file-validate >/dev/null 2>&1; then
    step "desktop-file-validate"
    desktop-file-validate /usr/share/applications/$pkg.desktop
else
    echo "desktop-file-validate not found: skipped (apt-get install desktop-file-utils)"
fi

# The self-test writes selftest.log into the app's data folder: keep it out of $HOME.
mkdir -p "$tmp/home" "$tmp/runtime"
chmod 700 "$tmp/runtime"
isolated() {
    env HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/home/.config" \
        XDG_DATA_HOME="$tmp/home/.local/share" XDG_CACHE_HOME="$tmp/home/.cache" \
        XDG_STATE_HOME="$tmp/home/.local/state" XDG_RUNTIME_DIR="$tmp/runtime" "$@"
}
step "/usr/bin/$pkg --self-test (offscreen)"
isolated env QT_QPA_PLATFORM=offscreen /usr/bin/$pkg --self-test
if command -v xvfb-run >/dev/null 2>&1; then
    step "/usr/bin/$pkg --self-test (Xvfb, xcb)"
    isolated env -u QT_QPA_PLATFORM xvfb-run -a -s '-screen 0 1280x900x24' \
        /usr/bin/$pkg --self-test
else
    echo "xvfb-run not found: X11 self-test skipped (apt-get install xvfb xauth)"
fi
find "$tmp/home" -name selftest.log | grep -q . || fail "no selftest.log in the throwaway home"

step "dpkg -r $pkg"
$SUDO dpkg -r "$pkg"
status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
case "$status" in
    "deinstall ok config-files" | "") ;;
    *) fail "after dpkg -r: $status" ;;
esac
while read -r f; do
    if [ -e "$f" ] || [ -L "$f" ]; then fail "left after dpkg -r: $f"; fi
done < "$tmp/files"
[ ! -e /opt/$pkg ] || fail "left after dpkg -r: /opt/$pkg"
[ ! -e /usr/share/doc/$pkg ] || fail "left after dpkg -r: /usr/share/doc/$pkg"

step "dpkg -P $pkg"
$SUDO dpkg -P "$pkg"
if dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -qv 'not-installed'; then
    fail "dpkg still knows $pkg: $(dpkg-query -W -f='${Status}' "$pkg")"
fi
[ ! -e /var/lib/dpkg/info/$pkg.list ] || fail "dpkg's file list is left"
step "passed: installed, self-tested, removed and purged"
