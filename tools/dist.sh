#!/usr/bin/env bash
# Builds the distribution archive (docs/distribution.md): one .tar.xz for Linux x86-64 that runs
# tierlab on a host with neither Java nor Maven. Called by './tierlab dist', which has already
# built the reactor and found the JDK; it passes:
#   $1  the JDK folder (jlink, jdeps and the training JVM come from it)
#   $2  the runtime class path of experiments/ (the third-party jars, ':'-separated)
#   $3  the version (the root pom's)
#   then the flags of './tierlab dist' (--no-aot, --out DIR).
# Prints the archive's path as its last line.
set -euo pipefail

ROOT="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)"
cd "$ROOT"

JDK="$1"
DEPS="$2"
VERSION="$3"
shift 3

die() { echo "tierlab dist: $*" >&2; exit 1; }

AOT=1
OUT_DIR="target/dist"
while (( $# > 0 )); do
  case "$1" in
    --no-aot) AOT=0 ;;
    --out) [[ $# -ge 2 ]] || die "--out needs a folder"; OUT_DIR="$2"; shift ;;
    --out=*) OUT_DIR="${1#--out=}" ;;
    -h | --help)
      cat <<'EOF'
usage: ./tierlab dist [--no-aot] [--out DIR]

Builds target/dist/tierlab-VERSION-linux-x64.tar.xz: a jlink'd Java runtime of only the modules
tierlab needs, its jars (third-party jars cut down to the classes tierlab reaches), DejaVu fonts
for the charts, an ahead-of-time cache trained on the quickstart and a replay (--no-aot leaves it
out), bin/tierlab, the catalogue, data/ and docs/. Prints the archive's path. See
docs/distribution.md.
EOF
      exit 0 ;;
    *) die "unknown flag '$1' (see './tierlab dist --help')" ;;
  esac
  shift
done

[[ "$(uname -m)" == x86_64 ]] || die "the archive is for Linux x86-64 and must be built on one (this is $(uname -m))."
for tool in xz tar; do command -v "$tool" >/dev/null 2>&1 || die "'$tool' is needed to build the archive; install it (Debian: apt-get install -y xz-utils tar)."; done

# The charts' fonts travel in the runtime (runtime/lib/fonts + fontconfig.properties), because the
# hosts the archive is for may have no fonts at all ("Fontconfig head is null"). They come from
# Debian's fonts-dejavu-core on the build host, which .ci/run installs.
FONT_DIR=/usr/share/fonts/truetype/dejavu
FONTS=(DejaVuSans.ttf DejaVuSans-Bold.ttf)
for font in "${FONTS[@]}"; do
  [[ -f "$FONT_DIR/$font" ]] || die "$FONT_DIR/$font is missing; the archive carries DejaVu for its charts: apt-get install -y fonts-dejavu-core"
done

NAME="tierlab-$VERSION-linux-x64"
mkdir -p "$OUT_DIR"
OUT_DIR="$(cd "$OUT_DIR" && pwd)"
STAGE="$ROOT/target/dist-stage/$NAME"
rm -rf "$ROOT/target/dist-stage"
mkdir -p "$STAGE/bin" "$STAGE/lib"
started=$SECONDS
step() { echo "tierlab dist: [$(( SECONDS - started )) s] $*" >&2; }

# --- the jars ---------------------------------------------------------------------------------
# tierlab's own module jars (as built, not the copies in the Maven repository) are the roots; the
# third-party jars are cut down to the classes those reach (tools/dist/JarSlim.java). Jars the
# class closure reaches only through code tierlab never runs are left out by name:
#  - pdfbox, pdfbox-io, fontbox, graphics2d: XChart's PDF export; tierlab writes PNG and SVG only;
#  - jline-native: progressbar's optional native terminal access (it falls back to plain output).
# icu4j is kept for Tablesaw's charset detection (about 50 classes), without its 26 MB of locale
# data (com/ibm/icu/impl/data), which charset detection does not read.
OWN_JARS=()
for module in model workload engine sim hunt bench experiments; do
  jar="$module/target/tierlab-$module-$VERSION.jar"
  [[ -f "$jar" ]] || die "$jar is missing; run './tierlab build' first."
  OWN_JARS+=("$jar")
done
OTHER_JARS=()
IFS=':' read -r -a dep_list <<<"$DEPS"
for jar in "${dep_list[@]}"; do
  case "$(basename "$jar")" in
    tierlab-*) ;;                                          # the module jars come from target/
    pdfbox-*.jar | pdfbox-io-*.jar | fontbox-*.jar | graphics2d-*.jar | jline-native-*.jar) ;;
    *) OTHER_JARS+=("$jar") ;;
  esac
done
step "slimming ${#OTHER_JARS[@]} third-party jars to the classes tierlab reaches"
"$JDK/bin/java" "$ROOT/tools/dist/JarSlim.java" "$STAGE/lib" "$ROOT/target/dist-stage/jars.tsv" \
  --drop-resources=com/ibm/icu/impl/data/ "${OWN_JARS[@]}" -- "${OTHER_JARS[@]}"

# Build facts the command line reports (run.json's tierlab section): baked in now, because the
# archive runs where there is no git checkout.
COMMIT="$(git rev-parse HEAD 2>/dev/null || echo unknown)"
if [[ "$COMMIT" != unknown && -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]]; then
  COMMIT="$COMMIT-dirty"
fi
mkdir -p "$ROOT/target/dist-stage/build-info/tierlab"
cat >"$ROOT/target/dist-stage/build-info/tierlab/build.properties" <<EOF
# Written by tools/dist.sh when the archive was built.
version=$VERSION
gitCommit=$COMMIT
distribution=$NAME
EOF
"$JDK/bin/jar" --create --no-compress --file "$STAGE/lib/tierlab-build-info.jar" \
  -C "$ROOT/target/dist-stage/build-info" tierlab/build.properties

# The class path, relative to the archive's root: bin/tierlab runs from there, and the AOT cache
# records the class path it was trained with, so it must be the same string on every host.
CLASSPATH="lib/tierlab-build-info.jar"
for jar in "${OWN_JARS[@]}" "${OTHER_JARS[@]}"; do
  base="$(basename "$jar")"
  [[ -f "$STAGE/lib/$base" ]] && CLASSPATH+=":lib/$base"
done
echo "$CLASSPATH" >"$STAGE/lib/classpath"

# --- the runtime ------------------------------------------------------------------------------
# The modules are what jdeps finds in the jars that travel (plus jdk.unsupported, which guava and
# others reach through reflection on sun.misc.Unsafe where jdeps cannot see it).
step "finding the JDK modules with jdeps"
# One jdeps run over all jars (the cut-down jars carry no module descriptors, so jdeps reads them
# all as class-path jars); -s prints "jar -> module" lines.
MODULES="$(
  "$JDK/bin/jdeps" --multi-release 25 -s "$STAGE"/lib/*.jar 2>"$ROOT/target/dist-stage/jdeps.err" \
    | awk '$2 == "->" && $3 ~ /^(java|jdk)\./ {print $3}' | sort -u | paste -sd, -
)"
[[ -n "$MODULES" ]] || die "jdeps found no modules ($(head -n 3 "$ROOT/target/dist-stage/jdeps.err" | tr '\n' ' '))"
MODULES="$MODULES,jdk.unsupported"
echo "$MODULES" | tr ',' '\n' | sort -u | paste -sd, - >"$ROOT/target/dist-stage/modules.txt"
MODULES="$(cat "$ROOT/target/dist-stage/modules.txt")"
step "jlink: $MODULES"
# zip-0: the archive is xz-compressed whole, and xz packs an uncompressed modules image to about
# two thirds of what it makes of a zip-9 one (measured: 21 against 35 MB).
"$JDK/bin/jlink" --add-modules "$MODULES" --strip-debug --no-man-pages --no-header-files \
  --compress=zip-0 --output "$STAGE/runtime"

# Fonts for Java2D without fontconfig: a fontconfig.properties in the runtime's lib/ maps every
# logical font (SansSerif, Dialog, ...) to the bundled DejaVu Sans, which the JDK finds under
# $JRE_LIB_FONTS (runtime/lib/fonts) wherever the archive is unpacked.
mkdir -p "$STAGE/runtime/lib/fonts"
for font in "${FONTS[@]}"; do cp "$FONT_DIR/$font" "$STAGE/runtime/lib/fonts/"; done
if [[ -f /usr/share/doc/fonts-dejavu-core/copyright ]]; then
  cp /usr/share/doc/fonts-dejavu-core/copyright "$STAGE/runtime/lib/fonts/LICENSE-DejaVu.txt"
fi
cp "$ROOT/tools/dist/fontconfig.properties" "$STAGE/runtime/lib/fontconfig.properties"
cp "$ROOT/tools/dist/fonts.conf" "$STAGE/runtime/lib/fonts/fonts.conf"

# --- launcher, catalogue, data, docs ------------------------------------------------------------
cp "$ROOT/tools/dist/tierlab" "$STAGE/bin/tierlab"
chmod +x "$STAGE/bin/tierlab"
mkdir -p "$STAGE/experiments"
cp -r "$ROOT/experiments/catalog" "$STAGE/experiments/catalog"
cp -r "$ROOT/data" "$STAGE/data"
cp -r "$ROOT/docs" "$STAGE/docs"
cp "$ROOT/README.md" "$STAGE/README.md"
cp "$ROOT/hunt/README.md" "$STAGE/docs/hunt.md"

# --- the AOT cache ------------------------------------------------------------------------------
# One training JVM runs the quickstart and a replay of the Mooncake trace (in-process, one after
# the other: tierlab.experiments.cli.Sequence), and -XX:AOTCacheOutput writes the cache when it
# exits (JEP 514). bin/tierlab uses it when present (JEP 483: classes loaded and linked, JEP 515:
# method profiles); a host whose JVM cannot map it runs without it.
if (( AOT )); then
  step "training the AOT cache (quickstart + replay)"
  training="$ROOT/target/dist-stage/training"
  rm -rf "$training"
  mkdir -p "$training"
  (
    cd "$STAGE"
    runtime/bin/java --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -ea:tierlab... \
      -XX:AOTCacheOutput=lib/tierlab.aot -Dtierlab.callerDir="$training" -cp "$CLASSPATH" \
      tierlab.experiments.cli.Sequence \
      run "$STAGE/experiments/catalog/quickstart.yaml" --out "$training/quickstart" --quiet \; \
      replay --out "$training/replay"
  ) >"$ROOT/target/dist-stage/training.log" 2>&1 || {
    tail -n 30 "$ROOT/target/dist-stage/training.log" >&2
    die "the AOT training run failed (log: target/dist-stage/training.log)"
  }
  [[ -f "$STAGE/lib/tierlab.aot" ]] || die "the training run wrote no AOT cache (log: target/dist-stage/training.log)"
fi

# --- the archive --------------------------------------------------------------------------------
step "packing"
ARCHIVE="$OUT_DIR/$NAME.tar.xz"
rm -f "$ARCHIVE"
# Sorted names, fixed owner: the same tree packs to the same bytes. -9's 64 MiB dictionary spans the
# whole runtime image (the archive is one xz block, so -T0 ends up using one thread).
tar --sort=name --owner=0 --group=0 --numeric-owner -C "$ROOT/target/dist-stage" -cf - "$NAME" \
  | xz -9 -T0 >"$ARCHIVE"
size=$(stat -c %s "$ARCHIVE")
step "done: $(( size / 1048576 )) MiB ($size bytes), unpacked $(du -sm "$STAGE" | cut -f1) MiB"
# The archive travels to GPU hosts with the repository through a 64 MiB limit (docs/distribution.md).
MAX_ARCHIVE_BYTES=$(( 45 << 20 ))
(( size <= MAX_ARCHIVE_BYTES )) || die "$ARCHIVE is $size bytes, over the 45 MiB the archive may take (docs/distribution.md, Carrying it); find what grew in target/dist-stage/"
echo "$ARCHIVE"
