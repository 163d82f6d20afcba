# Shared by tools/check and tools/quickstart (sourced): installs missing Debian packages and
# builds dray in $DRAY_BUILD (default: build/).
set -euo pipefail
DRAY_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DRAY_BUILD=${DRAY_BUILD:-$DRAY_ROOT/build}
DRAY_PACKAGES="cmake g++ make libopenmpi-dev openmpi-bin libglm-dev libstb-dev libtinyobjloader-dev
  nlohmann-json3-dev libcli11-dev libtinyexr-dev catch2 pkg-config libpugixml-dev libassimp-dev zlib1g-dev
  libopenvdb-dev libboost-iostreams-dev python3-dev pybind11-dev python3-numpy python3-scipy python3-mpi4py python3-pytest"
# clang with its sanitizer runtimes and OpenMP: the sanitizer build (tools/check --sanitize) and tools/fuzz.
DRAY_CLANG_PACKAGES="clang libclang-rt-14-dev libomp-14-dev"
# Installed when the distribution has them; their tests are skipped otherwise.
DRAY_OPTIONAL_PACKAGES="python3-torch chromium"

# Open MPI refuses to run as root, or more ranks than cores, unless told.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
# mpirun's banner after a rank's non-zero exit would follow dray's message: leave that message last.
export OMPI_MCA_orte_execute_quiet=1
MPIEXEC_FLAGS="--oversubscribe --bind-to none"

dray_install_packages() {
  local missing=()
  for p in $DRAY_PACKAGES $DRAY_OPTIONAL_PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "Installing: ${missing[*]}"
  local sudo="" required=() optional=()
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -q
  for p in "${missing[@]}"; do
    if [[ " $DRAY_OPTIONAL_PACKAGES " == *" $p "* ]]; then optional+=("$p"); else required+=("$p"); fi
  done
  [ ${#required[@]} -eq 0 ] || DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${required[@]}"
  [ ${#optional[@]} -eq 0 ] || DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${optional[@]}" ||
    echo "Optional packages not installed (their tests are skipped): ${optional[*]}"
}

# Builds $DRAY_BUILD with clang; a build folder configured for another compiler starts over.
dray_use_clang() {
  export CC=clang CXX=clang++
  if [ -f "$DRAY_BUILD/CMakeCache.txt" ] && ! grep -q '^CMAKE_CXX_COMPILER:.*clang++' "$DRAY_BUILD/CMakeCache.txt"; then
    echo "$DRAY_BUILD was configured for another compiler: configuring it again for clang"
    rm -rf "$DRAY_BUILD/CMakeCache.txt" "$DRAY_BUILD/CMakeFiles"
  fi
}

# Configures $DRAY_BUILD (arguments go to cmake) and builds DRAY_TARGETS (default: everything).
dray_build() {
  # Debian's interpreter, which sees Debian's numpy and mpi4py (a pyenv python3 may come first on PATH).
  local python=()
  [ -x /usr/bin/python3 ] && python=(-DPython_EXECUTABLE=/usr/bin/python3)
  cmake -S "$DRAY_ROOT" -B "$DRAY_BUILD" -DCMAKE_BUILD_TYPE="${DRAY_BUILD_TYPE:-Release}" "${python[@]}" "$@"
  local targets=()
  [ -n "${DRAY_TARGETS:-}" ] && targets=(--target $DRAY_TARGETS)
  cmake --build "$DRAY_BUILD" -j "$(nproc)" "${targets[@]}"
}
