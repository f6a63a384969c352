# Third-party libraries, all from Debian's packages; EC_STATIC makes every one of them link statically.
if(EC_STATIC)
  set(CMAKE_FIND_LIBRARY_SUFFIXES .a)
endif()

find_package(nlohmann_json 3.11 REQUIRED)
find_package(CLI11 REQUIRED)
find_package(fmt REQUIRED)
find_package(valijson REQUIRED)
find_package(Threads REQUIRED)
find_package(OpenSSL REQUIRED)  # libcrypto: SHA-256 of corpora and files
find_package(SQLite3 REQUIRED)
find_package(GSL REQUIRED)

find_path(PCRE2_INCLUDE_DIR pcre2.h REQUIRED)
find_library(PCRE2_LIBRARY pcre2-8 REQUIRED)
add_library(ec_pcre2 INTERFACE)
target_include_directories(ec_pcre2 INTERFACE ${PCRE2_INCLUDE_DIR})
target_link_libraries(ec_pcre2 INTERFACE ${PCRE2_LIBRARY})
target_compile_definitions(ec_pcre2 INTERFACE PCRE2_CODE_UNIT_WIDTH=8 $<$<BOOL:${EC_STATIC}>:PCRE2_STATIC>)

find_path(UTF8PROC_INCLUDE_DIR utf8proc.h REQUIRED)
find_library(UTF8PROC_LIBRARY utf8proc REQUIRED)
add_library(ec_utf8proc INTERFACE)
target_include_directories(ec_utf8proc INTERFACE ${UTF8PROC_INCLUDE_DIR})
target_link_libraries(ec_utf8proc INTERFACE ${UTF8PROC_LIBRARY})
if(EC_STATIC)
  target_compile_definitions(ec_utf8proc INTERFACE UTF8PROC_STATIC)
endif()

# A static build must not pick up shared libraries found by an earlier non-static configure of the
# same build folder (CMake caches find results): refuse it and say how to fix it.
if(EC_STATIC)
  foreach(var IN ITEMS GSL_LIBRARY GSL_CBLAS_LIBRARY SQLite3_LIBRARY PCRE2_LIBRARY UTF8PROC_LIBRARY
                       OPENSSL_CRYPTO_LIBRARY)
    if(${var} AND NOT ${var} MATCHES "\\.a$")
      message(FATAL_ERROR "EC_STATIC: ${var} is ${${var}}, a shared library (cached by an earlier "
                          "configure?). Configure a fresh build folder, or pass -U '${var}'.")
    endif()
  endforeach()
endif()

# cpp-httplib: Debian ships it as a shared library only, so `serve` is left out of the static binary.
find_path(HTTPLIB_INCLUDE_DIR httplib.h)
find_library(HTTPLIB_LIBRARY NAMES cpp-httplib)
if(HTTPLIB_INCLUDE_DIR AND HTTPLIB_LIBRARY AND NOT EC_STATIC)
  set(EC_HAVE_HTTPLIB ON)
  add_library(ec_httplib INTERFACE)
  target_include_directories(ec_httplib INTERFACE ${HTTPLIB_INCLUDE_DIR})
  target_link_libraries(ec_httplib INTERFACE ${HTTPLIB_LIBRARY})
else()
  set(EC_HAVE_HTTPLIB OFF)
endif()

# fmt: the shared libfmt wherever it may be linked, header-only in the static binary (Debian
# ships no libfmt.a). Header-only costs every translation unit that includes fmt a compile of
# fmt's whole implementation: ~5 s each under the hardening preset's sanitizers, and over 100 of
# them include it in a clean build.
add_library(ec_fmt INTERFACE)
if(EC_STATIC)
  target_link_libraries(ec_fmt INTERFACE fmt::fmt-header-only)
else()
  target_link_libraries(ec_fmt INTERFACE fmt::fmt)
endif()

if(EC_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(EC_BUILD_BENCH)
  find_package(benchmark QUIET)
endif()
