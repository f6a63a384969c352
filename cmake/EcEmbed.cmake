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
