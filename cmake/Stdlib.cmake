# The stdlib's sources: embedded into attribc and attrib (tools/stdlib), which compile site rules
# against them, and compiled into the stdlib bundle attrib runs by default (tools/attrib).
#
# The list is the ATTRIB_FILES property of the target attrib_stdlib_files, read when the build
# is generated, so a source generated at build time can join it from any directory:
#   add_custom_command(OUTPUT ${ATTRIB_STDLIB_BINARY_DIR}/gpu/catalogue.attr ...)
#   add_custom_target(gpu_catalogue DEPENDS ${ATTRIB_STDLIB_BINARY_DIR}/gpu/catalogue.attr)
#   attrib_stdlib_add_generated(${ATTRIB_STDLIB_BINARY_DIR}/gpu/catalogue.attr gpu_catalogue)
# A file's name in the stdlib ("gpu/xid.attr": what diagnostics show as <stdlib>/gpu/xid.attr
# and `attribc stdlib export` writes) is its path below stdlib-rules/ in the source tree, or
# below ATTRIB_STDLIB_BINARY_DIR in the build tree.
set(ATTRIB_STDLIB_SOURCE_DIR ${PROJECT_SOURCE_DIR}/stdlib-rules)
set(ATTRIB_STDLIB_BINARY_DIR ${PROJECT_BINARY_DIR}/stdlib-rules)
# Rule files and the fixtures (JSON lines) their tests read with `from "fixtures/..."`.
file(GLOB_RECURSE _attrib_stdlib_files CONFIGURE_DEPENDS ${ATTRIB_STDLIB_SOURCE_DIR}/*.attr
     ${ATTRIB_STDLIB_SOURCE_DIR}/*.jsonl)
add_custom_target(attrib_stdlib_files)
set_property(TARGET attrib_stdlib_files PROPERTY ATTRIB_FILES ${_attrib_stdlib_files})

function(attrib_stdlib_add_generated file target)
  set_property(TARGET attrib_stdlib_files APPEND PROPERTY ATTRIB_FILES ${file})
  add_dependencies(attrib_stdlib_files ${target})
endfunction()

# The list as one command-line argument, '|'-separated (a ';' list would be split by the shell).
set(ATTRIB_STDLIB_FILES_ARG "$<JOIN:$<TARGET_PROPERTY:attrib_stdlib_files,ATTRIB_FILES>,|>")
set(ATTRIB_STDLIB_FILES_LIST "$<TARGET_PROPERTY:attrib_stdlib_files,ATTRIB_FILES>")
