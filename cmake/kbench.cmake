# kbench.cmake: everything a project needs to build kbench kernel tests. Included by kbench's own
# CMakeLists.txt (add_subdirectory), by kbench-config.cmake (find_package) and directly by projects that
# copied include/ and cmake/ (include(path/to/cmake/kbench.cmake)).
#
# Platform (cache variable KBENCH_GPU_PLATFORM, chosen at configure time):
#   amd     HIP through hipcc/clang. Architectures from GPU_TARGETS (the older AMDGPU_TARGETS is
#           accepted), forwarded to CMAKE_HIP_ARCHITECTURES or hip::device; nothing is hard-coded.
#   nvidia  HIP's NVIDIA platform: .hip sources compiled by nvcc as CUDA with __HIP_PLATFORM_NVIDIA__
#           and kbench's CUDA compatibility header; architectures from CMAKE_CUDA_ARCHITECTURES.
#   none    host-side parts only (tolerance engine, statistics, reports), for machines without HIP.
# Default: CMAKE_HIP_PLATFORM or $HIP_PLATFORM when they say nvidia/amd, else amd.
#
# Targets:  kbench::host    (kbench_host) HIP-free headers (+ fmt, CLI11)
#           kbench::kbench  (kbench_device) the whole library on the chosen platform: the headers, the GPU
#                           runtime, and the platform's definitions and flags
# Function: kbench_add_kernel_test(<name> SOURCES <files> [INCLUDE_DIRECTORIES ..] [LIBRARIES ..]
#                                  [LABELS ..] [TIMEOUT <s>])
#           one program, three CTest tests: <project>.<name>.correctness and .perf (label gpu: skipped
#           without one), .declarations (every case declaration checked on the host, no GPU needed) and,
#           .resources (every kernel's registers, LDS and waves per SIMD, or warps per SM, per target, and
#           the cases' resource bounds; no GPU needed; on NVIDIA where a real architecture is built).
#           Target kbench_kernel_tests builds every kernel test program of the project.
#           kbench_link_procedure(<target>): a program with its own main() that calls the procedure
#           (kbench/procedure.hpp) links the copy compiled once per project.
#           kbench_gpu_sources(<files>), kbench_host_sources(<files>): GPU code of the platform, and plain
#           C++ (hipcc compiles .cpp files as HIP unless told otherwise).
#           kbench_add_code_object(<target> SOURCE <file> [INCLUDE_DIRECTORIES ..] [OPTIONS ..]): one kernel
#           source compiled apart into a code object file for the build's architectures, for
#           kbench/contract/code_object.hpp; its path in <target>'s property KBENCH_CODE_OBJECT.
#           kbench_add_triton_kernel(<target> SOURCE <file.py> KERNEL <name> SIGNATURE ..): a Triton kernel
#           compiled ahead of time into a code object, with a header of what a launch needs.

include_guard(GLOBAL)
cmake_minimum_required(VERSION 3.24)

if(NOT KBENCH_INCLUDE_DIR)
  get_filename_component(KBENCH_INCLUDE_DIR "${CMAKE_CURRENT_LIST_DIR}/../include" ABSOLUTE)
endif()
if(NOT EXISTS "${KBENCH_INCLUDE_DIR}/kbench/compare.hpp")
  message(FATAL_ERROR "kbench: no kbench/compare.hpp under KBENCH_INCLUDE_DIR=${KBENCH_INCLUDE_DIR}")
endif()

# Imported targets found here must be visible to every directory that adds kernel tests.
set(CMAKE_FIND_PACKAGE_TARGETS_GLOBAL ON)

# ---- platform ------------------------------------------------------------------------------------
set(_kbench_default_platform amd)
if(CMAKE_HIP_PLATFORM MATCHES "^(nvidia|nvcc)$" OR "$ENV{HIP_PLATFORM}" MATCHES "^(nvidia|nvcc)$")
  set(_kbench_default_platform nvidia)
endif()
set(KBENCH_GPU_PLATFORM "${_kbench_default_platform}" CACHE STRING "GPU platform of kbench tests: amd, nvidia or none")
set_property(CACHE KBENCH_GPU_PLATFORM PROPERTY STRINGS amd nvidia none)
if(NOT KBENCH_GPU_PLATFORM MATCHES "^(amd|nvidia|none)$")
  message(FATAL_ERROR "kbench: KBENCH_GPU_PLATFORM must be amd, nvidia or none, not '${KBENCH_GPU_PLATFORM}'")
endif()

# ---- host-side library ---------------------------------------------------------------------------
find_package(fmt REQUIRED)
find_package(CLI11 CONFIG REQUIRED)
find_package(Threads REQUIRED)
find_package(nlohmann_json REQUIRED)
if(NOT TARGET kbench_host)
  add_library(kbench_host INTERFACE)
  add_library(kbench::host ALIAS kbench_host)
  target_include_directories(kbench_host INTERFACE "${KBENCH_INCLUDE_DIR}")
  target_link_libraries(kbench_host INTERFACE fmt::fmt CLI11::CLI11 nlohmann_json::nlohmann_json Threads::Threads ${CMAKE_DL_LIBS})
  target_compile_features(kbench_host INTERFACE cxx_std_17)
endif()

# ---- GPU platform --------------------------------------------------------------------------------
# The language that .hip sources are compiled as: HIP (CMake's HIP language), CUDA, or CXX (hipcc). In the
# cache, so that directories above an add_subdirectory(kbench) see it too.
set(_kbench_language "")

if(KBENCH_GPU_PLATFORM STREQUAL "amd")
  # ROCm convention: GPU_TARGETS, falling back to the older AMDGPU_TARGETS, then to the GPUs present.
  if(NOT GPU_TARGETS AND AMDGPU_TARGETS)
    set(GPU_TARGETS "${AMDGPU_TARGETS}" CACHE STRING "AMD GPU targets to compile for" FORCE)
  endif()
  if(NOT GPU_TARGETS)
    find_program(_kbench_agent_enumerator rocm_agent_enumerator)
    if(_kbench_agent_enumerator)
      execute_process(COMMAND ${_kbench_agent_enumerator} OUTPUT_VARIABLE _kbench_agents ERROR_QUIET)
      string(REGEX MATCHALL "gfx[0-9a-f]+" _kbench_agents "${_kbench_agents}")
      list(REMOVE_ITEM _kbench_agents gfx000)
      list(REMOVE_DUPLICATES _kbench_agents)
    endif()
    if(NOT _kbench_agents)
      message(FATAL_ERROR "kbench: no AMD GPU found to compile for: set GPU_TARGETS, e.g. -DGPU_TARGETS=\"gfx90a;gfx942\"")
    endif()
    set(GPU_TARGETS "${_kbench_agents}" CACHE STRING "AMD GPU targets to compile for" FORCE)
  endif()
  message(STATUS "kbench: AMD platform, GPU_TARGETS=${GPU_TARGETS}")

  find_path(KBENCH_HIPRAND_INCLUDE_DIR hiprand/hiprand_kernel.h HINTS ENV ROCM_PATH PATH_SUFFIXES include
            PATHS /opt/rocm REQUIRED)
  # roctx for the census's profiler ranges (engines/profiler_range.hpp), where ROCm has it: rocprofiler-sdk's
  # (rocprofv3), else roctracer's. Debian 12's HIP 5.2 has neither; the ranges are then empty, and the census
  # says so.
  foreach(_kbench_roctx IN ITEMS "rocprofiler-sdk-roctx;rocprofiler-sdk-roctx" "roctracer;roctx64")
    list(GET _kbench_roctx 0 _kbench_roctx_header)
    list(GET _kbench_roctx 1 _kbench_roctx_library)
    unset(_kbench_roctx_include)
    unset(_kbench_roctx_lib)
    find_path(_kbench_roctx_include ${_kbench_roctx_header}/roctx.h HINTS ENV ROCM_PATH PATH_SUFFIXES include
              PATHS /opt/rocm NO_CACHE)
    find_library(_kbench_roctx_lib ${_kbench_roctx_library} HINTS ENV ROCM_PATH PATH_SUFFIXES lib lib64 PATHS /opt/rocm
                 NO_CACHE)
    if(_kbench_roctx_include AND _kbench_roctx_lib AND NOT KBENCH_ROCTX_LIBRARY)
      set(KBENCH_ROCTX_INCLUDE_DIR "${_kbench_roctx_include}" CACHE PATH "roctx's headers (profiler ranges)")
      set(KBENCH_ROCTX_LIBRARY "${_kbench_roctx_lib}" CACHE FILEPATH "roctx's library (profiler ranges)")
    endif()
  endforeach()
  if(KBENCH_ROCTX_LIBRARY)
    message(STATUS "kbench: the census's profiler ranges with roctx (${KBENCH_ROCTX_LIBRARY})")
  else()
    message(STATUS "kbench: no roctx (rocprofiler-sdk-roctx or roctracer): the census's profiler ranges are empty")
  endif()
  if(CMAKE_HIP_COMPILER OR KBENCH_USE_HIP_LANGUAGE)
    # ROCm 6/7 with a working enable_language(HIP).
    enable_language(HIP)
    set(CMAKE_HIP_ARCHITECTURES "${GPU_TARGETS}")
    set(_kbench_language HIP)
    find_package(hip CONFIG REQUIRED)
    set(_kbench_hip_runtime hip::host)
  else()
    # hipcc or a HIP-capable clang++ as the C++ compiler; hip::device adds -x hip and --offload-arch for
    # each of GPU_TARGETS.
    if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
      message(FATAL_ERROR "kbench: the AMD platform compiles .hip sources with the C++ compiler, which must be "
                          "hipcc or a HIP-capable clang++ (configure with CXX=hipcc), or set CMAKE_HIP_COMPILER "
                          "for CMake's HIP language; found ${CMAKE_CXX_COMPILER_ID} (${CMAKE_CXX_COMPILER})")
    endif()
    find_package(hip CONFIG REQUIRED)
    set(_kbench_language CXX)
    set(_kbench_hip_runtime hip::device)
    # HIP 5's hipcc (a Perl script) unpacks every static library on a link line and runs `file` and
    # `readelf` on each member, looking for device code: for clang's builtins, which hip-config links by
    # their path, some 340 processes and 3 s of each program's link (Debian 12, HIP 5.2). Linked by name,
    # the same library passes through untouched.
    if(hip_VERSION VERSION_LESS 6 AND CLANGRT_BUILTINS MATCHES "^(.+)/lib([^/]+)\\.a$")
      set(_kbench_builtins_dir "${CMAKE_MATCH_1}")
      set(_kbench_builtins_name "${CMAKE_MATCH_2}")
      foreach(_kbench_hip_target hip::host hip::device)
        get_target_property(_kbench_libraries ${_kbench_hip_target} INTERFACE_LINK_LIBRARIES)
        if(_kbench_libraries AND "${CLANGRT_BUILTINS}" IN_LIST _kbench_libraries)
          list(REMOVE_ITEM _kbench_libraries "${CLANGRT_BUILTINS}")
          list(APPEND _kbench_libraries "-L${_kbench_builtins_dir}" "-l${_kbench_builtins_name}")
          set_target_properties(${_kbench_hip_target} PROPERTIES INTERFACE_LINK_LIBRARIES "${_kbench_libraries}")
        endif()
      endforeach()
    endif()
  endif()
elseif(KBENCH_GPU_PLATFORM STREQUAL "nvidia")
  enable_language(CUDA)
  find_package(CUDAToolkit REQUIRED)
  set(_kbench_language CUDA)
  find_path(KBENCH_HIP_INCLUDE_DIR hip/hip_runtime.h HINTS ENV HIP_PATH ENV ROCM_PATH PATH_SUFFIXES include
            PATHS /opt/rocm REQUIRED)
  find_path(KBENCH_HIPRAND_INCLUDE_DIR hiprand/hiprand_kernel.h HINTS ENV HIP_PATH ENV ROCM_PATH
            PATH_SUFFIXES include PATHS /opt/rocm REQUIRED)
  message(STATUS "kbench: NVIDIA platform (HIP headers in ${KBENCH_HIP_INCLUDE_DIR}), "
                 "CMAKE_CUDA_ARCHITECTURES=${CMAKE_CUDA_ARCHITECTURES}")
endif()

set(KBENCH_GPU_LANGUAGE "${_kbench_language}" CACHE INTERNAL "language of .hip sources")

# kbench for GPU code, kbench::kbench: kbench_host plus the platform's runtime, definitions and flags.
if(NOT KBENCH_GPU_PLATFORM STREQUAL "none" AND NOT TARGET kbench_device)
  add_library(kbench_device INTERFACE)
  add_library(kbench::kbench ALIAS kbench_device)
  # dlopen: NVML is opened at run time for the driver's clock setting (engines/clock_control.hpp).
  target_link_libraries(kbench_device INTERFACE kbench::host ${CMAKE_DL_LIBS})
  if(KBENCH_GPU_PLATFORM STREQUAL "amd")
    target_link_libraries(kbench_device INTERFACE ${_kbench_hip_runtime})
    if(KBENCH_ROCTX_INCLUDE_DIR AND KBENCH_ROCTX_LIBRARY)
      target_compile_definitions(kbench_device INTERFACE KBENCH_HAS_ROCTX=1)
      target_link_libraries(kbench_device INTERFACE "${KBENCH_ROCTX_LIBRARY}")
      if(NOT KBENCH_ROCTX_INCLUDE_DIR STREQUAL "/usr/include")
        target_include_directories(kbench_device SYSTEM INTERFACE "${KBENCH_ROCTX_INCLUDE_DIR}")
      endif()
    endif()
    if(NOT KBENCH_HIPRAND_INCLUDE_DIR STREQUAL "/usr/include")
      target_include_directories(kbench_device SYSTEM INTERFACE "${KBENCH_HIPRAND_INCLUDE_DIR}")
    endif()
  else()
    # /usr/include is the compiler's own; naming it again would break libstdc++'s #include_next.
    foreach(_dir IN ITEMS "${KBENCH_HIP_INCLUDE_DIR}" "${KBENCH_HIPRAND_INCLUDE_DIR}")
      if(NOT _dir STREQUAL "/usr/include")
        target_include_directories(kbench_device SYSTEM INTERFACE "${_dir}")
      endif()
    endforeach()
    target_compile_definitions(kbench_device INTERFACE __HIP_PLATFORM_NVIDIA__)
    target_compile_options(kbench_device INTERFACE
      "$<$<COMPILE_LANGUAGE:CUDA>:SHELL:-include ${KBENCH_INCLUDE_DIR}/kbench/contract/cuda_compat.hpp>"
      "$<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr>"
      # nvcc's steps in parallel where they can be (--threads 0: as many as the machine has): a test file
      # through nvcc on the H200's host in 3.3-3.7 s instead of 4.1-4.5 s.
      "$<$<COMPILE_LANGUAGE:CUDA>:--threads=0>")
    # The runtime API only (no libcuda at link time), so programs start on machines without a driver
    # and report that they skipped.
    target_link_libraries(kbench_device INTERFACE CUDA::cudart_static)
  endif()
endif()

# The linker of the programs kbench_add_kernel_test makes: lld, else gold, where the compiler that links
# them can use one, since after an edit of a kernel file a test program is compiled once and linked once,
# and GNU ld's link of it is most of a second (rmsnorm_test on a 2-core machine: ld.bfd 0.35 s, gold 0.17,
# lld 0.09). KBENCH_LINKER: auto (that choice), or default (the toolchain's own).
set(KBENCH_LINKER "auto" CACHE STRING "linker of kbench's test programs: auto (lld, else gold) or default")
set_property(CACHE KBENCH_LINKER PROPERTY STRINGS auto default)
if(NOT KBENCH_LINKER MATCHES "^(auto|default)$")
  message(FATAL_ERROR "kbench: KBENCH_LINKER must be auto or default, not '${KBENCH_LINKER}'")
endif()
set(_kbench_link_options "")
if(KBENCH_LINKER STREQUAL "auto" AND NOT KBENCH_GPU_PLATFORM STREQUAL "none")
  include(CheckLinkerFlag)
  foreach(_linker IN ITEMS lld gold)
    check_linker_flag(CXX "-fuse-ld=${_linker}" KBENCH_LINKER_${_linker})
    if(KBENCH_LINKER_${_linker})
      set(_kbench_link_options "-fuse-ld=${_linker}")
      break()
    endif()
  endforeach()
endif()
# Cached, so that kernel tests added from a directory above kbench's (add_subdirectory) see it too.
set(KBENCH_LINK_OPTIONS "${_kbench_link_options}" CACHE INTERNAL "link options of kbench's test programs")

# Marks sources as GPU code of the platform (.hip files are not known to CMake's CUDA or CXX).
function(kbench_gpu_sources)
  if(KBENCH_GPU_PLATFORM STREQUAL "none")
    message(FATAL_ERROR "kbench: GPU sources need KBENCH_GPU_PLATFORM amd or nvidia")
  endif()
  set_source_files_properties(${ARGN} PROPERTIES LANGUAGE ${KBENCH_GPU_LANGUAGE})
endfunction()

# Marks sources as plain C++ for the host compiler: with hipcc as the C++ compiler (the AMD platform
# without CMake's HIP language), which compiles every .cpp as HIP offloaded to each GPU target unless told
# the language, they get -x c++.
function(kbench_host_sources)
  set_source_files_properties(${ARGN} PROPERTIES LANGUAGE CXX)
  if(KBENCH_GPU_LANGUAGE STREQUAL "CXX")
    set_source_files_properties(${ARGN} PROPERTIES COMPILE_OPTIONS "-x;c++")
  endif()
endfunction()

# A code object file of one kernel source, for the build's architectures, loaded at run time by
# kbench::code_object (kbench/contract/code_object.hpp): on AMD an offload bundle of a code object for each of
# GPU_TARGETS (hipcc --genco, or the HIP compiler's device-only bundle), on NVIDIA a fat binary for
# CMAKE_CUDA_ARCHITECTURES (nvcc -fatbin), with the definitions and include folders of the platform's other
# GPU code. A custom target <target> builds it (in the build folder, <target>.co or <target>.fatbin); its
# property KBENCH_CODE_OBJECT is the file's path ($<TARGET_PROPERTY:<target>,KBENCH_CODE_OBJECT>).
function(kbench_add_code_object target)
  cmake_parse_arguments(ARG "" "SOURCE" "INCLUDE_DIRECTORIES;OPTIONS" ${ARGN})
  if(NOT ARG_SOURCE OR KBENCH_GPU_PLATFORM STREQUAL "none")
    message(FATAL_ERROR "kbench_add_code_object(${target}): give SOURCE, on the amd or nvidia platform")
  endif()
  get_filename_component(_source "${ARG_SOURCE}" ABSOLUTE)
  set(_flags -O3 "-I${KBENCH_INCLUDE_DIR}")
  foreach(_dir IN LISTS ARG_INCLUDE_DIRECTORIES)
    list(APPEND _flags "-I${_dir}")
  endforeach()
  if(KBENCH_GPU_PLATFORM STREQUAL "amd")
    set(_output "${CMAKE_CURRENT_BINARY_DIR}/${target}.co")
    set(_compiler "${CMAKE_CXX_COMPILER}")
    if(CMAKE_HIP_COMPILER)
      set(_compiler "${CMAKE_HIP_COMPILER}")
    endif()
    if(NOT KBENCH_HIPRAND_INCLUDE_DIR STREQUAL "/usr/include")
      list(APPEND _flags "-I${KBENCH_HIPRAND_INCLUDE_DIR}")
    endif()
    foreach(_arch IN LISTS GPU_TARGETS)
      list(APPEND _flags "--offload-arch=${_arch}")
    endforeach()
    if(_compiler MATCHES "hipcc[^/]*$")
      list(APPEND _flags --genco)
    else()
      list(APPEND _flags -x hip --offload-device-only --gpu-bundle-output -c)
    endif()
  else()
    set(_output "${CMAKE_CURRENT_BINARY_DIR}/${target}.fatbin")
    set(_compiler "${CMAKE_CUDA_COMPILER}")
    list(APPEND _flags -fatbin -x cu -std=c++17 -D__HIP_PLATFORM_NVIDIA__ --expt-relaxed-constexpr
         -include "${KBENCH_INCLUDE_DIR}/kbench/contract/cuda_compat.hpp")
    if(CMAKE_CUDA_HOST_COMPILER)
      list(APPEND _flags -ccbin "${CMAKE_CUDA_HOST_COMPILER}")
    endif()
    foreach(_dir IN ITEMS "${KBENCH_HIP_INCLUDE_DIR}" "${KBENCH_HIPRAND_INCLUDE_DIR}")
      if(NOT _dir STREQUAL "/usr/include")
        list(APPEND _flags "-isystem" "${_dir}")
      endif()
    endforeach()
    foreach(_arch IN LISTS CMAKE_CUDA_ARCHITECTURES)
      if(_arch MATCHES "^([0-9]+[a-z]?)-real$")
        list(APPEND _flags "-gencode=arch=compute_${CMAKE_MATCH_1},code=sm_${CMAKE_MATCH_1}")
      elseif(_arch MATCHES "^([0-9]+[a-z]?)-virtual$")
        list(APPEND _flags "-gencode=arch=compute_${CMAKE_MATCH_1},code=compute_${CMAKE_MATCH_1}")
      elseif(_arch MATCHES "^([0-9]+[a-z]?)$")
        list(APPEND _flags "-gencode=arch=compute_${_arch},code=[sm_${_arch},compute_${_arch}]")
      else()
        list(APPEND _flags "-arch=${_arch}")  # native, all, all-major
      endif()
    endforeach()
  endif()
  add_custom_command(OUTPUT "${_output}" COMMAND "${_compiler}" ${_flags} ${ARG_OPTIONS} -o "${_output}" "${_source}"
                     DEPENDS "${_source}" VERBATIM
                     COMMENT "kbench: code object ${target} from ${ARG_SOURCE}")
  add_custom_target(${target} DEPENDS "${_output}")
  set_target_properties(${target} PROPERTIES KBENCH_CODE_OBJECT "${_output}")
endfunction()

# kbench_add_triton_kernel(<target> SOURCE <file.py> KERNEL <name> SIGNATURE <name=type,...>
# [CONSTEXPRS <name=value,...>] [NUM_WARPS <n>] [PYTHON <python3>]): a @triton.jit kernel compiled ahead of
# time by Triton's own compiler (cmake/kbench-triton-compile.py, run by a python3 that imports triton) for the
# build's first architecture (NVIDIA: CMAKE_CUDA_ARCHITECTURES, a cubin; AMD: GPU_TARGETS, an hsaco), with a
# header <target>.h of what a launch needs (the file's path, the kernel's name, block, shared memory,
# constexprs, and launch(), which appends the pointers Triton adds to the kernel's parameters). A custom
# target <target> builds both; its property KBENCH_TRITON_INCLUDE_DIR is the header's folder.
set(KBENCH_CMAKE_DIR "${CMAKE_CURRENT_LIST_DIR}" CACHE INTERNAL "kbench's cmake folder, for its scripts")
function(kbench_add_triton_kernel target)
  cmake_parse_arguments(ARG "" "SOURCE;KERNEL;SIGNATURE;CONSTEXPRS;NUM_WARPS;PYTHON" "" ${ARGN})
  if(NOT ARG_SOURCE OR NOT ARG_KERNEL OR NOT ARG_SIGNATURE OR KBENCH_GPU_PLATFORM STREQUAL "none")
    message(FATAL_ERROR "kbench_add_triton_kernel(${target}): give SOURCE, KERNEL and SIGNATURE, on the amd or nvidia platform")
  endif()
  if(NOT ARG_NUM_WARPS)
    set(ARG_NUM_WARPS 4)
  endif()
  if(NOT ARG_PYTHON)
    find_program(KBENCH_PYTHON3 python3)
    set(ARG_PYTHON "${KBENCH_PYTHON3}")
  endif()
  if(KBENCH_GPU_PLATFORM STREQUAL "nvidia")
    set(_archs "${CMAKE_CUDA_ARCHITECTURES}")
    if(_archs STREQUAL "native")  # what CMake found on this machine's GPUs (90-real on an H200)
      set(_archs "${CMAKE_CUDA_ARCHITECTURES_NATIVE}")
    endif()
    list(GET _archs 0 _arch)
    string(REGEX REPLACE "^([0-9]+)[a-z]?(-real|-virtual)?$" "\\1" _arch "${_arch}")
    if(NOT _arch MATCHES "^[0-9]+$")
      message(FATAL_ERROR "kbench_add_triton_kernel(${target}): Triton compiles for one sm: set CMAKE_CUDA_ARCHITECTURES to it")
    endif()
    set(_target "cuda:${_arch}")
    set(_output "${CMAKE_CURRENT_BINARY_DIR}/${target}.cubin")
  else()
    list(GET GPU_TARGETS 0 _arch)
    set(_target "hip:${_arch}")
    set(_output "${CMAKE_CURRENT_BINARY_DIR}/${target}.hsaco")
  endif()
  get_filename_component(_source "${ARG_SOURCE}" ABSOLUTE)
  set(_include "${CMAKE_CURRENT_BINARY_DIR}/${target}_include")
  set(_script "${KBENCH_CMAKE_DIR}/kbench-triton-compile.py")
  add_custom_command(OUTPUT "${_output}" "${_include}/${target}.h"
                     COMMAND "${CMAKE_COMMAND}" -E make_directory "${_include}"
                     COMMAND "${ARG_PYTHON}" "${_script}" --source "${_source}" --kernel "${ARG_KERNEL}"
                             --signature "${ARG_SIGNATURE}" --constexprs "${ARG_CONSTEXPRS}" --num-warps ${ARG_NUM_WARPS}
                             --target "${_target}" --output "${_output}" --header "${_include}/${target}.h"
                             --namespace "${target}"
                     DEPENDS "${_source}" "${_script}" VERBATIM
                     COMMENT "kbench: Triton kernel ${ARG_KERNEL} from ${ARG_SOURCE} for ${_target}")
  add_custom_target(${target} DEPENDS "${_output}" "${_include}/${target}.h")
  set_target_properties(${target} PROPERTIES KBENCH_CODE_OBJECT "${_output}" KBENCH_TRITON_INCLUDE_DIR "${_include}")
endfunction()

# A CTest test that runs <target>'s program with <args>. CTest looks for a test's first word when it only
# lists the tests too (ctest -N), and printed some 30 lines for each program not built yet: the first word is the
# shell, which exec's the program, so that the test's process is the program itself (its exit status, a
# signal, a timeout's kill), as when CTest starts it.
function(_kbench_add_program_test test target)
  add_test(NAME ${test} COMMAND /bin/sh -c "exec \"$0\" \"$@\"" "$<TARGET_FILE:${target}>" ${ARGN})
endfunction()

# Writes a generated source whose first line says what it is (<role>), only when its text changes (so that a
# reconfigure rebuilds nothing).
function(_kbench_generate path role text)
  set(_text "// generated by kbench.cmake: ${role}, compiled once per project\n${text}\n")
  if(EXISTS "${path}")
    file(READ "${path}" _old)
    if(_old STREQUAL _text)
      return()
    endif()
  endif()
  file(WRITE "${path}" "${_text}")
endfunction()

# Marks sources as plain C++ that calls the HIP runtime's API (no kernel, no device code): for the host compiler
# with the platform's definitions and, on NVIDIA, kbench's shims for HIP's headers (contract/cuda_compat.hpp).
function(_kbench_runtime_host_sources)
  kbench_host_sources(${ARGN})
  if(KBENCH_GPU_PLATFORM STREQUAL "nvidia")
    set_property(SOURCE ${ARGN} APPEND PROPERTY COMPILE_OPTIONS -include "${KBENCH_INCLUDE_DIR}/kbench/contract/cuda_compat.hpp")
  endif()
endfunction()

# Whether the procedure's stages can be plain C++ with the HIP headers found (<out_var> ON or OFF): a unit that
# captures and replays a graph through the runtime's API, compiled as they would be. HIP 5's NVIDIA headers
# declare those calls for nvcc alone (cuda_compat.hpp declares them again); a later release that hides more
# would fail here, and the stages are then GPU sources as before. KBENCH_HOST_ONLY_STAGES=OFF forces that.
function(_kbench_stages_host_only out_var)
  option(KBENCH_HOST_ONLY_STAGES "compile the procedure's stages as plain C++ where the HIP headers allow it" ON)
  if(NOT KBENCH_HOST_ONLY_STAGES)
    set(${out_var} OFF PARENT_SCOPE)
    return()
  endif()
  if(DEFINED CACHE{KBENCH_STAGES_HOST_ONLY_WORKS})
    set(${out_var} ${KBENCH_STAGES_HOST_ONLY_WORKS} PARENT_SCOPE)
    return()
  endif()
  include(CheckCXXSourceCompiles)
  set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
  set(CMAKE_CXX_STANDARD 17)
  set(CMAKE_REQUIRED_QUIET ON)
  set(CMAKE_REQUIRED_INCLUDES "${KBENCH_INCLUDE_DIR}")
  if(KBENCH_GPU_PLATFORM STREQUAL "nvidia")
    list(APPEND CMAKE_REQUIRED_INCLUDES "${KBENCH_HIP_INCLUDE_DIR}" ${CUDAToolkit_INCLUDE_DIRS})
    set(CMAKE_REQUIRED_DEFINITIONS -D__HIP_PLATFORM_NVIDIA__)
    set(CMAKE_REQUIRED_FLAGS "-include ${KBENCH_INCLUDE_DIR}/kbench/contract/cuda_compat.hpp")
  else()
    set(CMAKE_REQUIRED_LIBRARIES hip::host)
    if(KBENCH_GPU_LANGUAGE STREQUAL "CXX")
      set(CMAKE_REQUIRED_FLAGS "-x c++")
    endif()
  endif()
  check_cxx_source_compiles([[
#include <kbench/contract/platform.hpp>
int capture_and_replay(hipStream_t s) {
  hipGraph_t graph = nullptr;
  hipGraphExec_t exec = nullptr;
  hipGraphNode_t node = nullptr;
  hipGraphNodeType type{};
  hipKernelNodeParams params{};
  size_t count = 1;
  return hipStreamBeginCapture(s, hipStreamCaptureModeThreadLocal) + hipStreamEndCapture(s, &graph) +
         hipGraphGetNodes(graph, &node, &count) + hipGraphNodeGetType(node, &type) +
         hipGraphKernelNodeGetParams(node, &params) + hipGraphInstantiate(&exec, graph, nullptr, nullptr, 0) +
         hipGraphLaunch(exec, s) + hipGraphExecDestroy(exec) + hipGraphDestroy(graph) + hipMemsetAsync(nullptr, 0, 0, s);
}
]] KBENCH_STAGES_HOST_ONLY_WORKS)
  if(NOT KBENCH_STAGES_HOST_ONLY_WORKS)
    message(STATUS "kbench: the HIP headers found do not compile as plain C++: the procedure's stages are GPU sources")
  endif()
  set(${out_var} ${KBENCH_STAGES_HOST_ONLY_WORKS} PARENT_SCOPE)
endfunction()

# The runner and main() of kbench programs: compiled once per project, in parts that build in parallel.
#   kbench_procedure  the procedure (memory, correctness and timing runs) in twelve translation units: its stages
#                     (the procedure itself; its correctness run, its timing run and its census), plain C++
#                     over the runtime's API where the HIP headers allow it; GPU code for the device's probe
#                     and ceilings with kbench's small kernels, and its device work for every element type (the
#                     comparison of floating-point types, of integers; drawing inputs and the tolerance probe's
#                     perturbation: procedure/device_work.hpp); and the host comparison engine, plain C++ for
#                     the host compiler (no GPU code in it: the GPU compiler's front ends cost it 2 s more on
#                     NVIDIA)
#   kbench_main       main() with the reports and the JSON file, the command line's parser (CLI11), the
#                     Catch2 and Google Benchmark adapters, `<program> resources`: plain C++ through the host
#                     compiler, one translation unit each
function(_kbench_main_target out_var)
  if(NOT TARGET kbench_main)
    find_package(Catch2 REQUIRED)
    find_package(benchmark REQUIRED)
    set(_dir "${CMAKE_BINARY_DIR}/kbench_generated")
    # The stages (the procedure's definitions, its correctness run, timing run and census) hold no kernel: what
    # they launch is kbench's small kernels and the device work, compiled in the device units below. Where the
    # HIP headers found allow it, they are plain C++ over the runtime's API, without the GPU compiler's passes
    # (4 to 6 s less a unit through nvcc, two device passes less through hipcc).
    _kbench_stages_host_only(_stages_host_only)
    set(_stage_extension hip)
    if(_stages_host_only)
      set(_stage_extension cpp)
    endif()
    set(_stage_sources "${_dir}/kbench_procedure_definitions.${_stage_extension}"
                       "${_dir}/kbench_correctness_run.${_stage_extension}"
                       "${_dir}/kbench_timing_run.${_stage_extension}" "${_dir}/kbench_census_run.${_stage_extension}")
    list(GET _stage_sources 0 _stage)
    _kbench_generate("${_stage}" "the procedure's definitions" "#include <kbench/procedure/procedure_impl.hpp>")
    list(GET _stage_sources 1 _stage)
    _kbench_generate("${_stage}" "the correctness run of a case" "#include <kbench/procedure/correctness_definitions.hpp>")
    list(GET _stage_sources 2 _stage)
    _kbench_generate("${_stage}" "the timing run of a case" "#include <kbench/procedure/timing_definitions.hpp>")
    list(GET _stage_sources 3 _stage)
    _kbench_generate("${_stage}" "the census of a case" "#include <kbench/procedure/census_definitions.hpp>")
    _kbench_generate("${_dir}/kbench_host_comparison.cpp" "the host comparison engine, for every element type"
                     "#include <kbench/procedure/host_comparison_definitions.hpp>")
    _kbench_generate("${_dir}/kbench_device_ceilings.hip" "the device probed and its ceilings measured"
                     "#include <kbench/procedure/device_ceilings_definitions.hpp>")
    _kbench_generate("${_dir}/kbench_device_compare_wide_floats.hip" "the device comparison of fp64 and fp32"
                     "#include <kbench/procedure/device_work_compare.hpp>")
    _kbench_generate("${_dir}/kbench_device_compare_half_floats.hip" "the device comparison of fp16 and bf16"
                     "#include <kbench/procedure/device_work_compare_half_floats.hpp>")
    _kbench_generate("${_dir}/kbench_device_compare_fp8.hip" "the device comparison of fp8"
                     "#include <kbench/procedure/device_work_compare_fp8.hpp>")
    _kbench_generate("${_dir}/kbench_device_compare_integers.hip"
                     "the device comparison of the integer element types"
                     "#include <kbench/procedure/device_work_compare_integers.hpp>")
    _kbench_generate("${_dir}/kbench_device_draw.hip" "drawing inputs on the device, for every element type"
                     "#include <kbench/procedure/device_work_fill.hpp>")
    _kbench_generate("${_dir}/kbench_device_perturb.hip"
                     "the tolerance probe's perturbation of a reference on the device, for every element type"
                     "#include <kbench/procedure/device_work_perturb.hpp>")
    _kbench_generate("${_dir}/kbench_program_main.cpp" "main() of every kbench program (run_main)"
                     "#include <kbench/program/program_main.hpp>\n\nint main(int argc, char** argv) { return kbench::run_main(argc, argv); }")
    _kbench_generate("${_dir}/kbench_command_line.cpp" "the command line and environment, parsed (CLI11)"
                     "#include <kbench/program/command_line_definitions.hpp>")
    _kbench_generate("${_dir}/kbench_correctness_mode.cpp" "`<program> correctness`, the Catch2 adapter"
                     "#include <kbench/program/catch2_adapter.hpp>")
    _kbench_generate("${_dir}/kbench_perf_mode.cpp" "`<program> perf`, the Google Benchmark adapter"
                     "#include <kbench/program/benchmark_adapter.hpp>")
    _kbench_generate("${_dir}/kbench_resources_mode.cpp" "`<program> resources`, and the build's figures of the census"
                     "#include <kbench/program/resources_mode.hpp>")
    set(_gpu_sources "${_dir}/kbench_device_ceilings.hip" "${_dir}/kbench_device_compare_wide_floats.hip"
                     "${_dir}/kbench_device_compare_half_floats.hip" "${_dir}/kbench_device_compare_fp8.hip"
                     "${_dir}/kbench_device_compare_integers.hip" "${_dir}/kbench_device_draw.hip"
                     "${_dir}/kbench_device_perturb.hip")
    set(_host_sources "${_dir}/kbench_program_main.cpp" "${_dir}/kbench_command_line.cpp"
                      "${_dir}/kbench_correctness_mode.cpp" "${_dir}/kbench_perf_mode.cpp"
                      "${_dir}/kbench_resources_mode.cpp")

    add_library(kbench_procedure STATIC ${_stage_sources} ${_gpu_sources} "${_dir}/kbench_host_comparison.cpp")
    kbench_gpu_sources(${_gpu_sources})
    kbench_host_sources("${_dir}/kbench_host_comparison.cpp")
    if(_stages_host_only)
      _kbench_runtime_host_sources(${_stage_sources})
    else()
      kbench_gpu_sources(${_stage_sources})
    endif()
    target_link_libraries(kbench_procedure PUBLIC kbench::kbench)

    add_library(kbench_main STATIC ${_host_sources})
    kbench_host_sources(${_host_sources})
    # Cold code (option parsing, reports, JSON, Catch2 2's own implementation), which runs once per case at
    # most: -O0 (main() and the reports: 22 s at -O1 with clang, 11 s at -O0; g++ 25, 18 s). What runs per
    # element or per launch (comparison, statistics, timing) is the procedure's, built with the project's
    # flags.
    set_property(SOURCE ${_host_sources} APPEND PROPERTY COMPILE_OPTIONS "$<$<NOT:$<CONFIG:Debug>>:-O0>")
    # The procedure's objects without its compile options (hip::device's would make these GPU sources).
    target_link_libraries(kbench_main PUBLIC kbench::host PRIVATE "$<LINK_ONLY:kbench_procedure>" Catch2::Catch2
                          benchmark::benchmark)
    # A machine can hold the headers of both Catch2 2 and 3: use the ones of the package found.
    string(REGEX MATCH "^[0-9]+" _catch2_major "${Catch2_VERSION}")
    target_compile_definitions(kbench_main PRIVATE KBENCH_CATCH2_MAJOR=${_catch2_major})
    set_target_properties(kbench_main kbench_procedure PROPERTIES CUDA_STANDARD 17 HIP_STANDARD 17 CXX_STANDARD 17)
  endif()
  set(${out_var} kbench_main PARENT_SCOPE)
endfunction()

# For a program with a main() of its own that drives kbench through kbench/procedure.hpp (check_case,
# measure_case): links <target> to the procedure, compiled once per project like the runner of kernel
# tests, instead of compiling it again in the program's own sources.
function(kbench_link_procedure target)
  _kbench_main_target(_main)
  target_link_libraries(${target} PRIVATE kbench_procedure kbench::kbench)
endfunction()

# A macro, so that it runs in the scope of the directory that calls it: there, on the NVIDIA platform, it
# enables CUDA when kbench enabled it only in its own directory (add_subdirectory(kbench) from a project
# of CXX alone), since enable_language() must run at file scope in the directory whose targets compile
# the language. The work is done by a function.
macro(kbench_add_kernel_test)
  if(KBENCH_GPU_PLATFORM STREQUAL "nvidia" AND NOT CMAKE_CUDA_COMPILE_OBJECT)
    enable_language(CUDA)
  endif()
  _kbench_add_kernel_test(${ARGV})
endmacro()

function(_kbench_add_kernel_test name)
  cmake_parse_arguments(ARG "" "TIMEOUT" "SOURCES;INCLUDE_DIRECTORIES;LIBRARIES;LABELS;DEVICES" ${ARGN})
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "kbench_add_kernel_test(${name}): give SOURCES")
  endif()
  if(KBENCH_GPU_PLATFORM STREQUAL "none")
    message(STATUS "kbench: ${name} not built (KBENCH_GPU_PLATFORM=none)")
    return()
  endif()
  _kbench_main_target(_main)
  add_executable(${name} ${ARG_SOURCES})
  # kbench_kernel_tests: every kernel test program of the project, so that a run can build the
  # comparisons it runs before anything else.
  if(NOT TARGET kbench_kernel_tests)
    add_custom_target(kbench_kernel_tests)
  endif()
  add_dependencies(kbench_kernel_tests ${name})
  foreach(_src IN LISTS ARG_SOURCES)
    if(_src MATCHES "\\.(hip|cu)$")
      kbench_gpu_sources(${_src})
    endif()
  endforeach()
  target_link_libraries(${name} PRIVATE ${_main} kbench::kbench ${ARG_LIBRARIES})
  target_link_options(${name} PRIVATE ${KBENCH_LINK_OPTIONS})
  target_include_directories(${name} PRIVATE ${ARG_INCLUDE_DIRECTORIES})
  set_target_properties(${name} PROPERTIES CUDA_STANDARD 17 HIP_STANDARD 17 CXX_STANDARD 17)
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 600)
  endif()
  # DEVICES: the GPU counts its cases span (example 4: 2 4); one pair of tests per count, each running
  # only the shapes of that count (--device-count) and asking CTest for that many GPUs ("N,gpus:1": N
  # resource groups of one GPU each). Tests of N GPUs carry the label gpusN, so that a run on a machine
  # with fewer can leave them out (scripts/run.sh does); without a resource spec they skip, saying why.
  set(_variants "")
  if(ARG_DEVICES)
    foreach(_count IN LISTS ARG_DEVICES)
      list(APPEND _variants "gpus${_count}")
    endforeach()
  else()
    set(_variants "single")
  endif()
  foreach(_variant IN LISTS _variants)
    foreach(_mode correctness perf)
      if(_variant STREQUAL "single")
        set(_test ${PROJECT_NAME}.${name}.${_mode})
        _kbench_add_program_test(${_test} ${name} ${_mode})
        set_tests_properties(${_test} PROPERTIES LABELS "${_mode};gpu;${ARG_LABELS}" RESOURCE_GROUPS "gpus:1")
      else()
        string(REPLACE "gpus" "" _count "${_variant}")
        set(_test ${PROJECT_NAME}.${name}.${_variant}.${_mode})
        _kbench_add_program_test(${_test} ${name} ${_mode} --device-count ${_count})
        set_tests_properties(${_test} PROPERTIES LABELS "${_mode};gpu;multi_gpu;${_variant};${ARG_LABELS}"
                             RESOURCE_GROUPS "${_count},gpus:1")
      endif()
      set_tests_properties(${_test} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT ${ARG_TIMEOUT})
      # Timings are not shared with other GPU work.
      if(_mode STREQUAL "perf")
        set_tests_properties(${_test} PROPERTIES RUN_SERIAL TRUE)
      endif()
    endforeach()
  endforeach()
  # Every case's declaration at every shape, instantiated on the host: a broken declaration fails here
  # too, on machines without a GPU.
  _kbench_add_program_test(${PROJECT_NAME}.${name}.declarations ${name} list)
  set_tests_properties(${PROJECT_NAME}.${name}.declarations PROPERTIES LABELS "declarations;${ARG_LABELS}"
                       TIMEOUT ${ARG_TIMEOUT})
  # Every kernel's registers, LDS, scratch and waves per SIMD (NVIDIA: registers, shared memory, stack and
  # warps per SM) for every target built, read from the program itself, and the cases' resource bounds (no
  # GPU needed). On NVIDIA, where some architecture is built as a cubin (not PTX alone).
  set(_kbench_cubins OFF)
  foreach(_arch IN LISTS CMAKE_CUDA_ARCHITECTURES)
    if(NOT _arch MATCHES "-virtual$")
      set(_kbench_cubins ON)
    endif()
  endforeach()
  if(KBENCH_GPU_PLATFORM STREQUAL "amd" OR _kbench_cubins)
    _kbench_add_program_test(${PROJECT_NAME}.${name}.resources ${name} resources)
    set_tests_properties(${PROJECT_NAME}.${name}.resources PROPERTIES LABELS "resources;${ARG_LABELS}"
                         TIMEOUT ${ARG_TIMEOUT})
  endif()
endfunction()
