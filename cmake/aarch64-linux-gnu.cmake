# Cross-compiling for 64-bit Arm Linux with Debian's g++-aarch64-linux-gnu and the arm64
# multiarch libraries (liblz4-dev:arm64, libgtest-dev:arm64, libflatbuffers-dev:arm64,
# libmeshoptimizer-dev:arm64 (found through its CMake config under the arm64 libdir);
# scripts/setup.sh installs them). Tests run under qemu-user:
#
#   cmake -S . -B build/aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake \
#         -DANIMPACK_RUNTIME_ONLY=ON
#   cmake --build build/aarch64 && ctest --test-dir build/aarch64
#
# scripts/cross_aarch64.sh does exactly this.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

# Libraries and headers from the arm64 multiarch directories; programs (flatc) from the
# host. The multiarch libraries live under /usr, so the root path is / and the library
# architecture picks /usr/lib/aarch64-linux-gnu.
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH /)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
# pkg-config (lz4) reads the arm64 .pc files.
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)

# ctest and gtest_discover_tests run the test programs through qemu-user.
find_program(ANIMPACK_QEMU_AARCH64 NAMES qemu-aarch64-static qemu-aarch64 REQUIRED)
set(CMAKE_CROSSCOMPILING_EMULATOR "${ANIMPACK_QEMU_AARCH64};-L;/usr/aarch64-linux-gnu")
