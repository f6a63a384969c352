# ec_report_grader(OUT_VAR): compiles src/wasm/report_grader.cpp and the C++ it calls (reading,
# validating and grading a report, as `ecocompute check-regression` does) to one JavaScript file
# with the WebAssembly inlined, with Debian's emscripten; OUT_VAR gets its path. The site embeds it,
# so the browser grades a report with the command line's own code. Each source is its own object
# (parallel, rebuilt only when it or a header it includes changes).
# EC_REPORT_GRADER_JS: a report-grader.js another build folder of the same tree built, embedded as
# it is instead of compiling one (the sanitizer build in CI reuses the default build's: the same
# sources and flags, a minute less). Empty: compile it here.
set(EC_REPORT_GRADER_JS "" CACHE FILEPATH "report-grader.js from another build folder of this tree")
find_program(EC_EMXX em++ DOC "emscripten's C++ compiler (Debian package emscripten)")
if(NOT EC_EMXX AND NOT EC_REPORT_GRADER_JS)
  message(FATAL_ERROR "em++ not found: the site's report grader is compiled with emscripten "
                      "(Debian package 'emscripten'; scripts/install-deps.sh run installs it)")
endif()

function(ec_report_grader out_var)
  if(EC_REPORT_GRADER_JS)
    if(NOT EXISTS "${EC_REPORT_GRADER_JS}")
      message(FATAL_ERROR "EC_REPORT_GRADER_JS: ${EC_REPORT_GRADER_JS} does not exist")
    endif()
    set(${out_var} "${EC_REPORT_GRADER_JS}" PARENT_SCOPE)
    return()
  endif()
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/report_grader")
  # emscripten must not see /usr/include (glibc's headers): only the header-only libraries.
  set(inc "${dir}/include")
  file(MAKE_DIRECTORY "${inc}")
  foreach(header IN ITEMS nlohmann/json.hpp fmt/format.h valijson/validator.hpp)
    get_filename_component(lib "${header}" DIRECTORY)
    find_path(ec_grader_${lib}_root "${header}" REQUIRED)
    file(CREATE_LINK "${ec_grader_${lib}_root}/${lib}" "${inc}/${lib}" SYMBOLIC)
  endforeach()
  # The project's warnings, as errors (cmake/EcTargets.cmake), for this compiler too.
  set(flags -std=c++20 -O2 -fexceptions -DFMT_HEADER_ONLY -Wall -Wextra -Wpedantic -Wshadow
            -Wconversion -Wno-sign-conversion -Werror -I${PROJECT_SOURCE_DIR}/src
            -isystem ${inc})
  # Debian's emscripten runs its JavaScript tools with Node.js and finds their modules (acorn) in
  # /usr/share/nodejs, which a Node.js from another repository does not search.
  set(env ${CMAKE_COMMAND} -E env NODE_PATH=/usr/share/nodejs)
  set(sources
      "${PROJECT_SOURCE_DIR}/src/wasm/report_grader.cpp"
      "${PROJECT_SOURCE_DIR}/src/analysis/import_report.cpp"
      "${PROJECT_SOURCE_DIR}/src/analysis/row_checks.cpp"
      "${PROJECT_SOURCE_DIR}/src/analysis/estimate.cpp"
      "${PROJECT_SOURCE_DIR}/src/analysis/curves.cpp"
      "${PROJECT_SOURCE_DIR}/src/analysis/gpu_classes.cpp"
      "${PROJECT_SOURCE_DIR}/src/analysis/js_number.cpp"
      "${PROJECT_SOURCE_DIR}/src/analysis/table.cpp"
      "${PROJECT_SOURCE_DIR}/src/analysis/csv_cells.cpp"
      "${PROJECT_SOURCE_DIR}/src/report/validate.cpp"
      "${PROJECT_SOURCE_DIR}/src/report/consistency.cpp"
      "${PROJECT_SOURCE_DIR}/src/report/measurement_rule.cpp"
      "${PROJECT_SOURCE_DIR}/src/store/json_doc.cpp"
      "${PROJECT_SOURCE_DIR}/src/store/run_row.cpp"
      "${PROJECT_SOURCE_DIR}/src/core/utf8.cpp"
      "${CMAKE_CURRENT_BINARY_DIR}/embedded/energy_schema.cpp"
      "${CMAKE_CURRENT_BINARY_DIR}/embedded/original_schema.cpp")
  set(objects)
  foreach(src IN LISTS sources)
    get_filename_component(name "${src}" NAME_WE)
    set(obj "${dir}/${name}.o")
    add_custom_command(
      OUTPUT "${obj}"
      COMMAND ${env} ${EC_EMXX} ${flags} -MD -MF "${obj}.d" -c "${src}" -o "${obj}"
      DEPENDS "${src}"
      DEPFILE "${obj}.d"
      COMMENT "Compiling ${name}.cpp for the site's report grader (WebAssembly)"
      VERBATIM)
    list(APPEND objects "${obj}")
  endforeach()
  set(js "${dir}/report-grader.js")
  add_custom_command(
    OUTPUT "${js}"
    COMMAND ${env} ${EC_EMXX} ${objects} -O2 -fexceptions -lembind -sMODULARIZE
            -sEXPORT_NAME=ecReportGrader -sSINGLE_FILE -sALLOW_MEMORY_GROWTH
            -sENVIRONMENT=web,node -o "${js}"
    DEPENDS ${objects}
    COMMENT "Linking the site's report grader (WebAssembly)"
    VERBATIM)
  set(${out_var} "${js}" PARENT_SCOPE)
endfunction()
