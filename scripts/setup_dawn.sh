#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Dawn (Chromium's WebGPU implementation) for the build with -DBINDERY_WEBGPU=dawn, as Debian
# packages it: libwebgpu-dawn0 + libwebgpu-dawn-dev (the library and its own webgpu.h), with the
# forky glibc, libstdc++ and abseil it needs, unpacked into the private, git-ignored sysroot
# third_party/dawn-sysroot/ (never into /). Called by scripts/setup.sh when BINDERY_CMAKE_ARGS asks
# for the Dawn build, or standalone.
#
# The .debs are downloaded with a separate apt state (its own sources.list, lists and cache under
# the sysroot's work folder): the system's apt sources and package database stay as they are.
# Every .deb is pinned to one version and checked against its sha256. Idempotent: a stamp file
# holding the pins makes a second run return at once. A failure stops with one line.
set -euo pipefail

# Package version pins and sha256 of each .deb (Debian forky, amd64).
DAWN_VERSION="0.0~git20260909.1a75cb7f-1"
debs=(
  "libwebgpu-dawn0=${DAWN_VERSION} 7b424e7ffec48e6a94d6c986f4564d1df7380284d4c6cc6bee614c7b10b8cdd0"
  "libwebgpu-dawn-dev=${DAWN_VERSION} 209296cbbc8d7fb18c8a3c1ae67d8df5f075428546636867d2a29a24ced80a1e"
  "libabsl20260526=20260526.0-2+b1 951c69d645eea81e17d908ff3f79b6d70a33346f65ba283d564cdab07b660952"
  "libc6=2.43-7 5c71715c51103beb4fbba9fe9f8dff604af6610dfa71c70bff342f54a7860803"
  "libc-gconv-modules-extra=2.43-7 8abae40b5e2bfca58fbc838329b48f525c98463e930b8d3ed075d0c9e960a57a"
  "libstdc++6=16.2.0-3 7c9e1a89e6c0b9202699957b469c06d0b86f5c97e86c1ff912b6502ddd8793b6"
  "libgcc-s1=16.2.0-3 e716dc8baad27e884c45ff83a76955047a7a9e33a80e94f9459ee996ebb800b0"
  "gcc-16-base=16.2.0-3 7dcc6404b44ad8a9d58e83c1e987eecb4d6a24623a92438eeb11829ed1129635"
  "libvulkan1=1.4.363.0-1 ecd870e27cc1eb7b91130b01e629595e8f35bf58c7815c2a8b7beb27b9804899"
)

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dest=${BINDERY_DAWN_SYSROOT:-$root/third_party/dawn-sysroot}

die() { echo "setup_dawn: $*" >&2; exit 1; }
say() { echo "setup_dawn: $*"; }

[ "$(uname -m)" = x86_64 ] || die "x86_64 is required (the pinned Dawn packages are amd64)"

stamp="$dest/.pins"
want=$(printf '%s\n' "${debs[@]}")
if [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
  say "ready (Dawn ${DAWN_VERSION} in ${dest})"
  exit 0
fi

command -v apt-get >/dev/null || die "apt-get is required to download the Dawn .debs"
command -v dpkg >/dev/null || die "dpkg is required to unpack the Dawn .debs"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -f "$keyring" ] || die "$keyring not found (install debian-archive-keyring)"

work="$dest.work"
rm -rf "$work" "$dest"
mkdir -p "$work"/{apt,lists/partial,cache/archives/partial,debs} \
  || die "cannot create $work"
trap 'rm -rf "$work"; [ -f "$stamp" ] || rm -rf "$dest"' EXIT
echo "deb [signed-by=$keyring] http://deb.debian.org/debian forky main" > "$work/apt/sources.list"
apto=(-o "Dir::Etc::SourceList=$work/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
      -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache"
      -o Dir::State::status=/dev/null -o Debug::NoLocking=1 -o APT::Architecture=amd64
      -o APT::Architectures::=amd64 -o Acquire::Languages=none
      -o APT::Sandbox::User=root)

say "fetching Dawn ${DAWN_VERSION} and its forky runtime (about 10 MB, separate apt state)"
apt-get "${apto[@]}" -q update >"$work/update.log" 2>&1 \
  || die "apt-get update of Debian forky failed (needs deb.debian.org): $(tail -n 1 "$work/update.log")"
specs=()
for d in "${debs[@]}"; do specs+=("${d%% *}"); done
(cd "$work/debs" && apt-get "${apto[@]}" -q download "${specs[@]}") >"$work/download.log" 2>&1 \
  || die "apt-get download failed (a pinned version may have left forky): $(grep -E '^E:' "$work/download.log" | head -n 1)"

for d in "${debs[@]}"; do
  spec=${d%% *}
  sha=${d##* }
  name=${spec%%=*}
  version=${spec#*=}
  # apt names the file <name>_<version with ':' as %3a>_amd64.deb.
  file=$(ls "$work/debs/${name}_"*"_amd64.deb" 2>/dev/null | head -n 1)
  [ -n "$file" ] || die "no .deb downloaded for $spec"
  got_version=$(dpkg-deb -f "$file" Version)
  [ "$got_version" = "$version" ] || die "$name: got version $got_version, want $version"
  got=$(sha256sum "$file" | cut -d' ' -f1)
  [ "$got" = "$sha" ] || die "sha256 mismatch for $(basename "$file"): got $got, want $sha"
done
# Unpacked only once every .deb is checked (a failure above leaves no sysroot behind).
mkdir -p "$dest/root" || die "cannot create $dest"
for f in "$work/debs"/*.deb; do
  dpkg-deb -x "$f" "$dest/root" || die "cannot unpack $(basename "$f")"
done

lib="$dest/root/usr/lib/x86_64-linux-gnu"
for f in "$lib/libwebgpu_dawn.so" "$lib/ld-linux-x86-64.so.2" \
         "$dest/root/usr/include/webgpu/webgpu.h"; do
  [ -e "$f" ] || die "$f missing after unpacking"
done
echo "$want" > "$stamp"
say "ready (Dawn ${DAWN_VERSION} in ${dest})"
