# Helpers that give every project target the same warnings, sanitizers and layout conventions.
function(ec_project_flags target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion -Werror>
    # GCC 12 at -O3 reports -Wrestrict inside std::string's own operator+ (GCC bug 105329).
    $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>>:-Wno-restrict>
    $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings --expt-relaxed-constexpr>)
  if(EC_SANITIZE)
    target_compile_options(${target} PRIVATE
      $<$<COMPILE_LANGUAGE:CXX>:-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all>)
    target_link_options(${target} PUBLIC -fsanitize=address,undefined)
  endif()
endfunction()

# ec_unity_batches(TARGET N): with EC_UNITY, TARGET's sources are compiled N to a translation unit.
# Test, library and command-line sources spend most of their compile time on the same headers
# (GoogleTest, CLI11, nlohmann::json, fmt): parsed, and their inline functions generated, once per
# batch instead of once per file. A clean build gets faster (CI builds the tree twice, with GCC
# and with clang's sanitizers); an edit recompiles its whole batch.
function(ec_unity_batches target n)
  if(EC_UNITY)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${n})
    # GCC takes an included .cpp for a header, and warns where a class of one uses a type of its
    # anonymous namespace, which is right in a source file of its own.
    target_compile_options(${target} PRIVATE
      $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>>:-Wno-subobject-linkage>)
  endif()
endfunction()

# ec_module(NAME [NO_UNITY] DIRS dir... DEPS target...): a static library of every .cpp (and .cu when
# CUDA is on) in the listed folders under src/, its C++ sources compiled six to a translation unit
# (ec_unity_batches) unless NO_UNITY. New files join their folder's library without touching CMake.
function(ec_module name)
  cmake_parse_arguments(ARG "NO_UNITY" "" "DIRS;DEPS;CUDA_DIRS" ${ARGN})
  set(sources)
  foreach(dir IN LISTS ARG_DIRS)
    file(GLOB found CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/src/${dir}/*.cpp")
    list(APPEND sources ${found})
  endforeach()
  if(EC_HAVE_CUDA)
    foreach(dir IN LISTS ARG_CUDA_DIRS)
      file(GLOB found CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/src/${dir}/*.cu"
           "${PROJECT_SOURCE_DIR}/src/${dir}/*.cpp")
      list(APPEND sources ${found})
    endforeach()
  endif()
  if(sources)
    add_library(${name} STATIC ${sources})
    if(NOT ARG_NO_UNITY)
      ec_unity_batches(${name} 6)
    endif()
    target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR}/src)
    target_link_libraries(${name} PUBLIC ${ARG_DEPS})
    ec_project_flags(${name})
  else()
    add_library(${name} INTERFACE)
    target_include_directories(${name} INTERFACE ${PROJECT_SOURCE_DIR}/src)
    target_link_libraries(${name} INTERFACE ${ARG_DEPS})
  endif()
endfunction()

# ec_test(NAME DIR dir DEPS target...): one GoogleTest binary from tests/<dir>/*_test.cpp.
function(ec_test name)
  cmake_parse_arguments(ARG "" "DIR" "DEPS" ${ARGN})
  file(GLOB sources CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/tests/${ARG_DIR}/*_test.cpp")
  if(NOT sources)
    return()
  endif()
  add_executable(${name} ${sources})
  ec_unity_batches(${name} 8)
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests)
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} ec_test_support GTest::gtest GTest::gmock GTest::gtest_main)
  ec_project_flags(${name})
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60 PROPERTIES LABELS ${ARG_DIR})
endfunction()
