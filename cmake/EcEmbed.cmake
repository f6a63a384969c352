# ec_embed(TARGET SYMBOL FILE): compiles FILE's bytes into TARGET as `std::string_view ec::embedded::SYMBOL()`,
# so the binary carries its schema and default eval text and needs no source tree at run time.
function(ec_embed target symbol file)
  set(out "${CMAKE_CURRENT_BINARY_DIR}/embedded/${symbol}.cpp")
  add_custom_command(
    OUTPUT "${out}"
    COMMAND ${CMAKE_COMMAND} -DIN=${file} -DOUT=${out} -DSYMBOL=${symbol}
            -P "${PROJECT_SOURCE_DIR}/cmake/EcEmbedWrite.cmake"
    DEPENDS "${file}" "${PROJECT_SOURCE_DIR}/cmake/EcEmbedWrite.cmake"
    COMMENT "Embedding ${file}")
  target_sources(${target} PRIVATE "${out}")
endfunction()

# ec_embed_dir(TARGET SYMBOL DIR): compiles every file under DIR into TARGET as
# `std::span<const ec::embedded::EmbeddedFile> ec::embedded::SYMBOL()`, paths relative to DIR, sorted.
function(ec_embed_dir target symbol dir)
  file(GLOB_RECURSE files CONFIGURE_DEPENDS LIST_DIRECTORIES false RELATIVE "${dir}" "${dir}/*")
  list(SORT files)
  set(out "${CMAKE_CURRENT_BINARY_DIR}/embedded/${symbol}.cpp")
  set(deps)
  foreach(f IN LISTS files)
    list(APPEND deps "${dir}/${f}")
  endforeach()
  string(REPLACE ";" "|" files_arg "${files}")
  add_custom_command(
    OUTPUT "${out}"
    COMMAND ${CMAKE_COMMAND} "-DDIR=${dir}" "-DFILES=${files_arg}" -DOUT=${out} -DSYMBOL=${symbol}
            -P "${PROJECT_SOURCE_DIR}/cmake/EcEmbedDirWrite.cmake"
    DEPENDS ${deps} "${PROJECT_SOURCE_DIR}/cmake/EcEmbedDirWrite.cmake"
    COMMENT "Embedding ${dir}"
    VERBATIM)
  target_sources(${target} PRIVATE "${out}")
endfunction()
