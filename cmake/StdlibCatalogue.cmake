# The stdlib's Xid and SXid symptoms, generated at build time from NVIDIA's catalogues
# (stdlib-rules/data/*.tsv) by stdlib-rules/data/generate.py (Python 3 standard library). The
# generated .attr files join the stdlib's list (cmake/Stdlib.cmake), so they are embedded in the
# tools and compiled, checked, tested and documented with stdlib-rules/ wherever the stdlib is:
#   STDLIB_GENERATED_DIR    the directory holding them (ATTRIB_STDLIB_BINARY_DIR, in the build
#                           tree; nothing generated is committed)
#   STDLIB_GENERATED_RULES  the files
#   stdlib_catalogue        the target that writes them
find_package(Python3 REQUIRED COMPONENTS Interpreter)
set(STDLIB_GENERATED_DIR ${ATTRIB_STDLIB_BINARY_DIR})
set(STDLIB_GENERATED_RULES
    ${STDLIB_GENERATED_DIR}/gpu/xid_catalogue.attr
    ${STDLIB_GENERATED_DIR}/gpu/sxid_catalogue.attr
    ${STDLIB_GENERATED_DIR}/gpu/dcgm_xid.attr)
set(_catalogue_data ${ATTRIB_STDLIB_SOURCE_DIR}/data)
add_custom_command(
  OUTPUT ${STDLIB_GENERATED_RULES}
  COMMAND ${Python3_EXECUTABLE} ${_catalogue_data}/generate.py ${_catalogue_data} ${STDLIB_GENERATED_DIR}
  DEPENDS ${_catalogue_data}/generate.py ${_catalogue_data}/xid.tsv ${_catalogue_data}/sxid.tsv
  COMMENT "Generating the stdlib's Xid and SXid symptoms from stdlib-rules/data"
  VERBATIM)
add_custom_target(stdlib_catalogue ALL DEPENDS ${STDLIB_GENERATED_RULES})
foreach(file ${STDLIB_GENERATED_RULES})
  attrib_stdlib_add_generated(${file} stdlib_catalogue)
endforeach()
